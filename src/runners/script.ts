// What a script for the simulated personas can say (the demo's script.json, `.harness/config.json`
// "scripted", the tests'): per phase, where a task fails, a verification fails, a review blocks.
import type { ScriptedUsage } from "./scripted-usage.js";

type ScriptedCheckpoint = "passed" | "human-verify" | "decision" | "human-action";

export interface ScriptedPhase {
  /** Tasks the planner writes (default 3). */
  tasks?: number;
  /** Checkpoint markers by 1-based task number, e.g. { 2: "passed", 3: "human-verify" }. */
  checkpoints?: Record<number, ScriptedCheckpoint>;
  /** Concerns the planner raises (each fires the plannerConcerns signal). */
  concerns?: string[];
  /** Task `task` fails its first `times` executions. */
  fail?: { task: number; times: number; error?: string };
  /** The verifier fails the first verification of this phase. */
  verifyFailsOnce?: boolean;
  /** The reviewer raises one blocking finding on the first review of this phase. */
  blockingReviewOnce?: boolean;
  /**
   * Files the executor writes with the phase's first task, besides the task's code (path → text):
   * an asset, or code a repository's hooks will object to.
   */
  files?: Record<string, string>;
  /**
   * The planner's first plan of this phase leaves the verification step out of task 1: the server's
   * plan check sends it back once, and the second plan is whole.
   */
  planMissingVerifyOnce?: boolean;
  /** The executor reports a plan defect at this task on its first run into it; the plan is revised. */
  planDefectAt?: number;
  /**
   * A parallel session's plan: tasks in this many independent chains (task t depends on task
   * t - chains); absent: every task depends on none.
   */
  chains?: number;
  /** The executor takes this long per task (milliseconds), serial or in a wave: the bench's fixed work. */
  taskMs?: number;
  /** A parallel wave's executor for this task also rewrites README.md, outside its Files. */
  outsideAt?: number;
}

export interface Script {
  /** By 0-based phase index. */
  phases?: Record<number, ScriptedPhase>;
  /** The final review raises a blocking finding on its first `n` runs. */
  finalBlocking?: number;
  /** Usage each simulated dispatch reports, for all or per persona (simulated spending, for budgets and cost). */
  usage?: ScriptedUsage;
}
