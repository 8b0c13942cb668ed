// The machine's events: everything it learns arrives in one (time, and every fact read from disk).
import type {
  Complexity,
  DecisionChannel,
  Disputed,
  EffectOf,
  Finding,
  PendingCheckpoint,
  RigorLevel,
  WaveLedger,
  WavePlan,
} from "../src/session/schema.js";

/** The hook whose refusal is the executor's to fix (it checks the change); other hooks check the message. */
export const FIXABLE_HOOK = "pre-commit";

/** What the engine learned about a plan file: it exists, and what it contains. */
export interface PlanFacts {
  path: string;
  taskCount: number;
  checkpointCount: number;
  concerns: string[];
  /** sha256 of the plan file's content, as read (absent: not computed). */
  sha256?: string | null;
  /** What the plan check found (src/markdown/plan.ts planProblems); absent or empty: nothing. */
  problems?: string[];
  /** The planner's assumptions and deferred unknowns: recorded and shown, they do not pause. */
  assumptions?: string[];
  deferred?: string[];
  /** A parallel session's waves (src/markdown/waves.ts); null: the dependencies have problems. Absent: serial session. */
  waves?: WavePlan | null;
}

export interface SpecPhaseInput {
  name: string;
  complexity: Complexity;
}

type Now = { now: string };

/** What the person asked in a persona's brief that it did not do, with why (told in the next report). */
type NotDoneItem = { asked: string; why: string };
/** A persona's answer to the person's words, on the events of the personas that act on them. */
type Reply = { notDone?: NotDoneItem[] };

/** What the merge queue did, in order (src/effects/wave-run.ts `WaveEvent`). */
type WaveEventRecord =
  | { kind: "merged"; task: string; sha: string; validation: string }
  | { kind: "retry"; task: string; attempt: number; why: "failed" | "conflict" | "validation"; error: string }
  | { kind: "outside"; task: string; files: string[] }
  | { kind: "exhausted"; task: string; error: string };
export type AutopilotEvent =
  | ({
      type: "START";
      phases: SpecPhaseInput[];
      specPath: string;
      sessionDir: string;
      startingCommit: string | null;
      rigorLevel: RigorLevel;
      reviewPlans: boolean;
      /**
       * Paths that already differed from HEAD (modified, staged, deleted, untracked) when the
       * session started, session files aside. Non-empty: ask the user before anything else.
       */
      userChanges?: string[];
    } & Now)
  | ({ type: "RESUME" } & Now)
  | ({ type: "ASSESSED"; planPath: string | null; /** HEAD as the phase starts. */ head?: string | null } & Now)
  | ({ type: "PLAN_FACTS"; plan: PlanFacts } & Now)
  | ({ type: "PLANNED"; plan: PlanFacts; summary?: string } & Reply & Now)
  | ({
      type: "EXECUTED";
      /** `plan_defect`: the plan is wrong at `task`; it goes back to the planner, not to a retry. */
      outcome: "complete" | "checkpoint" | "failed" | "plan_defect";
      checkpoint?: PendingCheckpoint;
      task?: { number: number | null; name: string };
      error?: string;
      fixAttempted?: string;
      summary?: string;
      /** plan_defect: what is wrong in the plan, with the evidence. */
      defect?: string;
      /** What the executor ran and saw (commands and their outcome). */
      evidence?: string[];
      /** What it says later phases should know (kept in the session's learnings). */
      learnings?: string[];
      /** The commit message it proposes for its work. */
      commitMessage?: string;
    } & Reply &
      Now)
  | ({ type: "VALIDATED"; passed: boolean; summary: string } & Now)
  | ({ type: "VERIFIED"; verdict: "pass" | "fail"; findings: string[]; evidence?: string[] } & Now)
  | ({ type: "REVIEWED"; findings: Finding[] } & Now)
  | ({
      type: "FIXED";
      summary: string;
      /** Findings the fixer disputes, with its evidence (the next check judges them). */
      disputed?: Disputed[];
      evidence?: string[];
      learnings?: string[];
      commitMessage?: string;
    } & Reply &
      Now)
  | ({ type: "PERSONA_FAILED"; error: string } & Now)
  // A parallel session's wave: its worktrees opened (the engine's waveOpen probe), one
  // task's executor reported, the merge queue ran (the waveMerge probe).
  | ({ type: "WAVE_OPENED"; run: WaveLedger } & Now)
  | ({
      type: "TASK_REPORTED";
      task: string;
      done: boolean;
      error?: string;
      summary?: string;
      learnings?: string[];
      evidence?: string[];
      /** The task stopped at a human checkpoint (human-verify, human-action, decision): a person answers before it goes on. */
      checkpoint?: PendingCheckpoint;
      /** The executor reports a defect in the plan (with the evidence): the plan goes back to the planner once the wave's reports are in. */
      defect?: string;
      commitMessage?: string;
    } & Reply &
      Now)
  | ({ type: "WAVE_MERGED"; run: WaveLedger; events: WaveEventRecord[] } & Now)
  | ({ type: "PLAN_CHANGED"; from: string | null; to: string | null } & Now)
  /**
   * The repository's hooks refused a commit the outbox owed (the effect performer saw it; the commit
   * stays owed, held in `phaseRun.rejectedCommit`). `output` is what the hook printed, trimmed.
   */
  | ({ type: "COMMIT_REJECTED"; commit: EffectOf<"commit">; hook: string; output: string; paths: string[] } & Now)
  | ({
      type: "DECIDE";
      answer: string;
      rationale?: string;
      by: DecisionChannel;
      /** by "relayed": the user's words as the host quoted them. */ userWords?: string;
    } & Now);
