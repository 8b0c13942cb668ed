// The record of how a parallel session runs a plan's tasks: kept in the state file
// (`phaseRun.waves`) and in the plan gate's notice. Computed by src/markdown/waves.ts.
import { z } from "zod";

export const WavePlan = z.looseObject({
  /** Whether tasks run at the same time; false: one at a time, in the order of `waves`. */
  parallel: z.boolean(),
  /** Task numbers per wave, in order. */
  waves: z.array(z.array(z.string())),
  /** Why the plan runs this way (one line of the plan gate's report). */
  reason: z.string(),
  /** Tasks that share files and so run one after the other. */
  serialized: z.array(z.string()),
});
export type WavePlan = z.infer<typeof WavePlan>;

/** `--parallel` (or `"parallel": true` in the config) when the session started; absent: serial. */
export const ParallelSettings = z.looseObject({ minIndependent: z.number().int().min(2) });
export type ParallelSettings = z.infer<typeof ParallelSettings>;

/** A task's git worktree in a wave (src/effects/merge-queue.ts `TaskWorktree`). */
const TaskWorktreeRecord = z.looseObject({
  task: z.string(),
  attempt: z.number().int().positive(),
  /** Relative to the session's checkout, POSIX. */
  path: z.string(),
  branch: z.string(),
  /** The commit the worktree was made from. */
  base: z.string(),
});

/**
 * One task of the wave that runs now (src/effects/wave-run.ts `TaskRun`, plus what the session
 * adds): its worktree, branch, status and merged commit.
 */
export const WaveTask = z.looseObject({
  task: z.string(),
  name: z.string(),
  scope: z.looseObject({ files: z.array(z.string()), owns: z.array(z.string()) }),
  attempt: z.number().int().positive(),
  worktree: TaskWorktreeRecord,
  /**
   * running: an executor works on it; done: committed in its worktree, waiting for its turn to
   * merge; merged; outside: it wrote outside its Files/Owns (a question); exhausted: its retry
   * budget is spent (a question); rerun: a person asked for it again (its worktree opens next);
   * defect: its executor reported a defect in the plan, and the plan went back to the planner;
   * held: not done when a task of its wave sent the plan back (it runs again from the revised plan).
   * A defect or held task's worktree and branch are kept, unmerged.
   */
  status: z.enum(["running", "done", "merged", "outside", "exhausted", "rerun", "defect", "held"]),
  error: z.string().optional(),
  /** An `exhausted` task stopped by its plan defect once the phase's plan send-backs were spent, not by its retry budget. */
  stopCause: z.enum(["planDefect"]).optional(),
  outside: z.array(z.string()).optional(),
  unmerged: z.array(TaskWorktreeRecord).optional(),
  /** The attempt a person's "re-run" started a fresh retry budget at (absent: 1). */
  budgetFrom: z.number().int().positive().optional(),
  /** The step whose Step dispatched the current attempt: a report from an earlier step is stale. */
  dispatchedAt: z.number().int().optional(),
  /** What the executor reported for the current attempt, until the merge queue takes it. */
  reported: z
    .looseObject({
      done: z.boolean(),
      error: z.string().optional(),
      summary: z.string().optional(),
      /** It reported a defect in the plan (what is wrong, with the evidence): the plan goes back to the planner. */
      defect: z.string().optional(),
      /** The commit message it proposed for its work. */
      commitMessage: z.string().optional(),
      /** It stopped at a human checkpoint: the question comes once the wave's reports are in. */
      checkpoint: z
        .looseObject({
          type: z.string(),
          label: z.string(),
          options: z.array(z.string()).optional(),
          details: z.string().optional(),
        })
        .optional(),
    })
    .nullable()
    .optional(),
  /** In `waveLog` only: the task reported done and waits for the wave's merge. */
  reportedDone: z.boolean().optional(),
  /** In `waveLog` only: the human checkpoint the task waits at (its question is open). */
  atCheckpoint: z.string().optional(),
  /** A person's answer at the task's human checkpoint, for its executor's next brief. */
  checkpointAnswer: z.string().optional(),
  /** The session's head after its merge. */
  merged: z.string().optional(),
  /**
   * The failing lines of the validation after its merge (a bounded tail of each failed command's
   * output), for its executor's next brief only; the Step's report shows the summary.
   */
  validationOutput: z.string().optional(),
  /** Each time the merge queue sent the task back: the attempt that followed, why, and what went wrong. */
  sentBack: z
    .array(
      z.looseObject({
        attempt: z.number().int().positive(),
        why: z.enum(["failed", "conflict", "validation"]),
        error: z.string(),
      }),
    )
    .optional(),
  /** Validation after its merge, as it printed. */
  validation: z.string().optional(),
});
export type WaveTask = z.infer<typeof WaveTask>;

/** The wave that runs now (`phaseRun.waveRun`): the index into `phaseRun.waves.waves`, and its tasks in plan order. */
export const WaveLedger = z.looseObject({
  wave: z.number().int().nonnegative(),
  tasks: z.array(WaveTask),
  /** Merged tasks' worktrees (of this wave or the one before) whose removal is still owed. */
  removals: z.array(TaskWorktreeRecord).optional(),
});
export type WaveLedger = z.infer<typeof WaveLedger>;

/**
 * One wave as the session last saw it (`waveLog` in the state file): the ledger of every wave the
 * session ran, kept after the wave and the phase are over, for the decision log.
 */
const WaveLogEntry = z.looseObject({
  /** 0-based, as `currentPhase`. */
  phase: z.number().int().nonnegative(),
  /** The plan the wave ran (its path), or null. */
  plan: z.string().nullable(),
  /** The plan's sha-256 (its first 12 characters): a revised plan's waves are not the first plan's. */
  planSha: z.string().nullable(),
  /** The plan defects sent back before this wave ran (a revised plan that came back unchanged is told apart). */
  revision: z.number().int().nonnegative().optional(),
  wave: z.number().int().nonnegative(),
  tasks: z.array(WaveTask),
});
type WaveLogEntry = z.infer<typeof WaveLogEntry>;
/** The state file's `waveLog`: every wave, in the order they ran. */
export const WaveLog = z.array(WaveLogEntry);
