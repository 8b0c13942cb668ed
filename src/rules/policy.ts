// The autopilot's policy: the rules a team might want to change, each in one place. Pure data and
// tiny helpers, imported by the state file, the machine, the engine, the dispatcher and the logs;
// every text that mentions a budget or a rigor level's rule is derived from here.
//
//  - the retry budget: how many times a failing task is retried before a person is asked
//    (a session's own value is saved in its state file as `retryBudget.maxAttempts`; a new session
//    takes `"retryBudget"` from `.harness/config.json`, else its rigor level's `retryBudget`);
//  - the final review's fix budget: how many fix rounds run before a person is asked;
//  - the escalation steps: what each retry adds to the executor's context;
//  - the rigor levels: what `--fast`, standard and `--thorough` change.
import type { RigorLevel } from "../vocabulary.js";

/** Attempts per task before the retry budget is exhausted and a person is asked (the skill's 3). */
export const RETRY_BUDGET = 3;
/** The range a configured retry budget must fall in (`.harness/config.json` `"retryBudget"`). */
export const RETRY_BUDGET_RANGE = { min: 1, max: 10 } as const;

/** Fix rounds the final review runs on blocking findings before a person is asked. */
export const FINAL_REVIEW_FIX_BUDGET = 3;

/**
 * A persona result that fails a check in code (a plan with vague, unverifiable or oversized tasks;
 * a blocking review finding without a file, a line and a scenario; an executor's plan defect) goes
 * back to its persona within the session's retry budget: `maxAttempts` tries in all, so this many
 * send-backs per phase. Past it, a person judges (the plan gate's planChecks signal, the review's
 * question, the exhausted question).
 */
export function sendBacksAllowed(maxAttempts: number): number {
  return Math.max(0, maxAttempts - 1);
}

/** Whether the phase may still send its plan back to the planner for an executor's plan defect (serial, or in a wave). */
export function planDefectSendBackLeft(planDefects: number | undefined, maxAttempts: number): boolean {
  return (planDefects ?? 0) < sendBacksAllowed(maxAttempts);
}

/**
 * Parallel sessions (`--parallel`): a plan runs its tasks in waves only when at least this
 * many could run at once; fewer, and it runs serially (upstream's 3). `"parallelMinTasks"` in
 * `.harness/config.json` sets it per project, within PARALLEL_MIN_TASKS_RANGE.
 */
export const PARALLEL_MIN_TASKS = 3;
export const PARALLEL_MIN_TASKS_RANGE = { min: 2, max: 20 } as const;

/**
 * The plan check's size rule: a task that names more files than this, or more numbered steps, is
 * too big for one executor pass and must be split (src/markdown/plan.ts planProblems).
 */
export const TASK_SIZE = { maxFiles: 3, maxSteps: 10 } as const;

/**
 * What each retry of a failed task adds, in order; attempts past the last step repeat it.
 * `report` ends the "Retry n/N" line the user sees; `brief` is the instruction the executor gets.
 */
export const ESCALATION_STEPS = [
  {
    report: "apply the obvious fix.",
    brief: "read the error output and apply the obvious fix, for the failed task only.",
  },
  {
    report: "expand context (related files, learnings).",
    brief: "expand context: read the related files and .harness/learnings.md for similar failures before fixing.",
  },
  {
    report: "full context (test output, imports, plan instructions).",
    brief:
      "full context: re-read the test output, the imports and the plan's instructions for ambiguity before fixing.",
  },
] as const;

/** The escalation step of retry `attempt` (1-based). */
export function escalationStep(attempt: number): (typeof ESCALATION_STEPS)[number] {
  return ESCALATION_STEPS[Math.min(Math.max(attempt, 1), ESCALATION_STEPS.length) - 1];
}

/** The executor's instruction for retry `attempt`: "Attempt n: ...". */
export function escalationBrief(attempt: number): string {
  return `Attempt ${attempt}: ${escalationStep(attempt).brief}`;
}

export interface RigorRules {
  /** Attempts per task a new session at this level starts with (`.harness/config.json` `"retryBudget"` overrides). */
  retryBudget: number;
  /**
   * The plan gate: `skip` approves every plan without evaluating the signals; `signals` pauses when
   * any signal fires; `always` pauses for every plan (the reviewPlans signal is forced on).
   */
  planGate: "skip" | "signals" | "always";
  /** How VERIFY checks a phase: the project's validation commands only, or the verifier persona. */
  verifyBy: "validation" | "verifier";
  /** Scratchpad use: none (research stays in the conversation), long research only, or all of it. */
  scratchpad: "none" | "long" | "all";
  /** Whether human gates are on by default (`--human-gates`; the config's `humanGates` overrides). */
  humanGates: boolean;
  /** Whether a review with warnings and no blocking finding asks the person before moving on. */
  warningsGate: boolean;
  /** The planner's extra instruction, if any. */
  planning: string;
  /** The verifier's instruction. */
  verifying: string;
}

export const RIGOR: Record<RigorLevel, RigorRules> = {
  fast: {
    retryBudget: RETRY_BUDGET,
    planGate: "skip",
    verifyBy: "validation",
    scratchpad: "none",
    humanGates: false,
    warningsGate: false,
    planning: "Rigor fast: skip the skeleton pass.",
    verifying: "Run the project's validation commands and check the phase's acceptance criteria.",
  },
  standard: {
    retryBudget: RETRY_BUDGET,
    planGate: "signals",
    verifyBy: "verifier",
    scratchpad: "long",
    humanGates: false,
    warningsGate: true,
    planning: "",
    verifying:
      "Run the project's validation commands, then each task's **Verify:** step yourself; for each acceptance criterion and each edge case the spec or the plan names (an empty input, a missing file, a bad flag), find the code that handles it (file:line) and a test or a command you ran that shows it: one no test exercises, run by hand.",
  },
  thorough: {
    retryBudget: RETRY_BUDGET,
    planGate: "always",
    verifyBy: "verifier",
    scratchpad: "all",
    humanGates: true,
    warningsGate: true,
    planning:
      "Rigor thorough: start the plan with a short skeleton section (goals, task outline) for the human to approve.",
    verifying:
      "Rigor thorough: full verification with expanded checks: the project's whole validation suite, each task's **Verify:** step run yourself, every acceptance criterion and edge case the spec or the plan names traced to its code (file:line) and a test or a command you ran, then edge cases neither names (boundaries, bad input, errors) tried by hand.",
  },
};

/** The scratchpad instruction for a persona, given the phase's scratchpad folder. */
export function scratchpadRule(rigor: RigorLevel, dir: string): string {
  switch (RIGOR[rigor].scratchpad) {
    case "none":
      return `Rigor ${rigor}: keep research in the conversation; write no scratchpad files.`;
    case "all":
      return `Rigor ${rigor}: write all research, reasoning and intermediate output to ${dir}/ and name those files in your reply, never in a plan or code (the scratchpad is cleared when the phase ends).`;
    default:
      return `Rigor ${rigor}: research longer than ~500 words goes to ${dir}/ (name the file in your reply instead of inlining it; never in a plan or code: the scratchpad is cleared when the phase ends).`;
  }
}

/** The persona jobs whose briefs say what the session does with their report. */
export type ReportingJob = "plan" | "execute" | "fix" | "verify" | "review" | "finalReview" | "finalFix";

/**
 * What the session, at this rigor, does with a persona's report: one line of its brief, so the
 * persona knows whether a person will see what it reports before anything runs on it.
 */
export function whatFollows(rigor: RigorLevel, job: ReportingJob): string {
  const r = RIGOR[rigor];
  const checks =
    r.verifyBy === "validation"
      ? "the project's validation commands check the phase (no verifier), then the reviewer reviews it"
      : "the verifier checks it with its own runs (your evidence is a claim it checks), then the reviewer reviews it";
  const warnings =
    r.warningsGate && job !== "finalReview"
      ? "warnings without a blocking finding are put to the person too, before the phase completes"
      : "warnings and notes are recorded and shown at the end, without a question";
  switch (job) {
    case "plan":
      return r.planGate === "skip"
        ? `What follows your report (rigor ${rigor}): nothing pauses the plan; it runs at once. Your concerns are recorded and shown to the person in full, but nobody answers them before the work starts: for each concern, also put in assumptions the reading you build the plan on.`
        : r.planGate === "always"
          ? `What follows your report (rigor ${rigor}): every plan is put to a person before it runs, with your concerns, assumptions and deferred items in full.`
          : `What follows your report (rigor ${rigor}): a concern pauses the plan for a person before it runs (as do the gate's other signals: high complexity, a plan larger than its rating, many tasks); assumptions and deferred items are shown in full and do not pause it.`;
    case "execute":
    case "fix":
      return `What follows your report (rigor ${rigor}): the server commits your work, then ${checks}; a blocking finding is put to the person, who chooses what a fix round fixes; ${warnings}.`;
    case "finalFix":
      return `What follows your report (rigor ${rigor}): the server commits your work, runs the project's validation, then the final review runs again; what you dispute is judged there.`;
    case "verify":
      return `What follows your report (rigor ${rigor}): a fail is put to the person, who chooses which failures a fix round fixes (all, or those they name) or skips verification; a pass goes on to the review.`;
    case "review":
    case "finalReview":
      return `What follows your report (rigor ${rigor}): each finding is shown to the person whole (severity, file:line, title); a blocking one is put to them, who choose what a fix round fixes (the blocking ones, with the warnings, or a list) or override it; ${warnings}.`;
  }
}

/** A new session's retry budget when the config names none, in words: "3", or per level when they differ. */
export function retryBudgetDefault(): string {
  const levels = Object.entries(RIGOR) as [RigorLevel, RigorRules][];
  const first = levels[0][1].retryBudget;
  return levels.every(([, r]) => r.retryBudget === first)
    ? String(first)
    : levels.map(([level, r]) => `${r.retryBudget} at ${level}`).join(", ");
}
