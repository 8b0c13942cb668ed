// What a resting stage means is declared once, as `meta` on its state node; the stage list, the
// default stage, the asks, the dispatches and the probes are read from there. These tests hold the
// declarations to the state tree: every place the session rests says what it waits on, nothing
// else carries a meaning, and the derived list is the one the engine has always restored from.
import { describe, expect, it } from "vitest";
import type { AnyStateNode } from "xstate";
import { autopilotMachine, type StageMeta } from "../../machines/autopilot.machine.js";
import { QUESTIONS, humanOnlyOf } from "../../machines/questions.js";
import {
  RESTING_STAGES,
  STAGE_NAMES,
  defaultStage,
  isTransient,
  restingNodes,
  stageMetaAt,
} from "../../machines/stages.js";
import { PERSONAS } from "../../src/protocol/step.js";
import { stateValueOf } from "../../src/engine/machine-state.js";
import { initState, send, started } from "./helpers.js";

const WAITS = ["ask", "dispatch", "probe", "wait", "start", "done"] as const;

function allNodes(node: AnyStateNode = autopilotMachine.root): AnyStateNode[] {
  const kids = Object.values(node.states) as AnyStateNode[];
  return [...kids, ...kids.flatMap((k) => allNodes(k))];
}

describe("what a resting stage means, declared on the state node", () => {
  it("every place the session can rest declares exactly one thing it waits on", () => {
    const undeclared: string[] = [];
    for (const node of restingNodes()) {
      const meta = (node.meta ?? {}) as StageMeta;
      const kinds = WAITS.filter((k) => meta[k] !== undefined);
      if (kinds.length !== 1) undeclared.push(`${node.id}: ${kinds.join(",") || "nothing"}`);
    }
    expect(undeclared).toEqual([]);
  });

  it("a node passed through within one step (an eventless choice) carries no meaning, and is not a resting stage", () => {
    const transient = allNodes().filter(isTransient);
    expect(transient.map((n) => n.id).sort()).toEqual([
      "autopilot.APPROVE_PLAN.evaluate",
      "autopilot.FINAL_REVIEW.fixBudgetCheck",
    ]);
    for (const n of transient) {
      expect(n.meta, n.id).toBeUndefined();
      expect(RESTING_STAGES[n.parent!.key]).not.toContain(n.key);
      expect(stageMetaAt(n.parent!.key, n.key)).toBeNull();
    }
  });

  it("the stage names the engine may compare with are the tree's resting stages, no more, no fewer", () => {
    const tree = new Set(Object.values(RESTING_STAGES).flat());
    expect([...STAGE_NAMES].sort()).toEqual([...tree].sort());
  });

  it("the stage list derived from the machine is the state tree's resting stages, no more, no fewer", () => {
    // The list the engine restored saved files from before it was derived (a hand copy then).
    expect(RESTING_STAGES).toEqual({
      INIT: ["fresh", "userChanges"],
      ASSESS: [],
      PLAN: ["planning", "awaitingInteractivePlan", "personaFailed", "budgetPlanning"],
      APPROVE_PLAN: ["gather", "review", "revising"],
      EXECUTE: [
        "running",
        "waveOpen",
        "wave",
        "waveMerge",
        "waveCheckpoint",
        "waveTask",
        "fixing",
        "checkpoint",
        "exhausted",
        "personaFailed",
        "commitFix",
        "commitBlocked",
        "budgetRunning",
        "budgetFixing",
        "budgetCommitFix",
        "budgetWave",
        "budgetWaveRetry",
      ],
      VERIFY: [
        "running",
        "validating",
        "failed",
        "personaFailed",
        "commitFix",
        "commitBlocked",
        "budgetRunning",
        "budgetCommitFix",
      ],
      REVIEW: ["running", "blocked", "warnings", "personaFailed", "budgetRunning"],
      PHASE_COMPLETE: [],
      FINAL_REVIEW: [
        "running",
        "blocked",
        "fixing",
        "validating",
        "exhausted",
        "personaFailed",
        "commitFix",
        "commitBlocked",
        "budgetRunning",
        "budgetFixing",
        "budgetCommitFix",
      ],
      DONE: [],
    });
    const fromTree = restingNodes().map((n) =>
      n.parent === autopilotMachine.root ? n.key : `${n.parent!.key}.${n.key}`,
    );
    const fromList = Object.entries(RESTING_STAGES).flatMap(([top, stages]) =>
      stages.length ? stages.map((s) => `${top}.${s}`) : [top],
    );
    expect(fromList).toEqual(fromTree);
  });

  it("every ask names options the machine offers, and its human-only answers are among them", () => {
    for (const node of restingNodes()) {
      const meta = node.meta as StageMeta;
      if (!meta.ask) continue;
      if (meta.ask === "checkpoint") continue; // a checkpoint offers its own options
      const options = QUESTIONS[meta.ask].options as readonly string[];
      expect(options, node.id).toContain("stop");
      for (const a of humanOnlyOf(meta.ask)) expect(options, `${node.id} ${a}`).toContain(a);
    }
  });

  it("every dispatch names a persona autopilot ships and a result kind that persona's job returns", () => {
    const jobs = restingNodes().flatMap((n) =>
      (n.meta as StageMeta).dispatch ? [[n.id, (n.meta as StageMeta).dispatch!] as const] : [],
    );
    expect(jobs.map(([id]) => id)).toEqual([
      "autopilot.PLAN.planning",
      "autopilot.EXECUTE.running",
      "autopilot.EXECUTE.wave",
      "autopilot.EXECUTE.fixing",
      "autopilot.EXECUTE.commitFix",
      "autopilot.VERIFY.running",
      "autopilot.VERIFY.commitFix",
      "autopilot.REVIEW.running",
      "autopilot.FINAL_REVIEW.running",
      "autopilot.FINAL_REVIEW.fixing",
      "autopilot.FINAL_REVIEW.commitFix",
    ]);
    for (const [id, d] of jobs) expect(PERSONAS, id).toContain(d.persona);
    // One job per node, except the fix of a refused commit: the same job wherever a commit is owed.
    const once = jobs.filter(([, d]) => d.job !== "commitFix");
    expect(new Set(once.map(([, d]) => d.job)).size).toBe(once.length);
    expect(new Set(jobs.filter(([, d]) => d.job === "commitFix").map(([, d]) => JSON.stringify(d))).size).toBe(1);
  });

  it("a file that names no stage, or a stage that is not a resting one, rests where the state's meaning says", () => {
    const s = started([{ name: "Core", complexity: "high" }], { rigor: "fast" });
    const awaiting = send(s, { type: "ASSESSED", planPath: null });
    expect(awaiting.stage).toBe("awaitingInteractivePlan");
    expect(defaultStage({ ...awaiting, stage: null })).toBe("awaitingInteractivePlan");
    expect(defaultStage({ ...awaiting, stage: null, awaitingInteractivePlan: false })).toBe("planning");
    const verifying = { ...initState(), currentState: "VERIFY" as const, stage: null };
    expect(defaultStage({ ...verifying, rigorLevel: "fast" })).toBe("validating");
    expect(defaultStage({ ...verifying, rigorLevel: "standard" })).toBe("running");
    expect(stateValueOf({ ...initState(), currentState: "APPROVE_PLAN", stage: "evaluate" })).toEqual({
      APPROVE_PLAN: "gather",
    });
    expect(stateValueOf({ ...initState(), currentState: "ASSESS", stage: null })).toBe("ASSESS");
    expect(defaultStage({ ...initState(), currentState: "PHASE_COMPLETE" })).toBeNull();
  });
});
