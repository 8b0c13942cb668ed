// The zod schema of `.harness/sessions/<slug>/autopilot-state.json`, schemaVersion 5.
//
// Two layers:
//  - the upstream fields, exactly as the harness-autopilot skill documents them, so files written by
//    the skill (and by hand) stay readable by upstream tools after we touch them;
//  - our own engine fields (stepId, stage, outbox, phaseRun, ...), all optional on read and defaulted
//    by the normaliser, so an upstream file resumes without them.
// Every object is loose: unknown fields written by people or other tools are carried through.
import { ParallelSettings, WaveLedger, WaveLog, WavePlan } from "./wave-plan.js";
export { ParallelSettings, WaveLedger, WaveLog, WavePlan };
import { z } from "zod";
import { Budget, UsageLedger } from "./usage.js";
import { RETRY_BUDGET } from "../rules/policy.js";
import { Signals } from "../rules/signals.js";
import { Complexity, DecisionBy, Finding, RigorLevel, Severity, StateName } from "../vocabulary.js";
import { Effect } from "./effects.js";
import { Notice } from "./notices.js";
import { FindingLedger } from "./findings.js";
import { PhaseNotes, PullRequest } from "./hand-back.js";
export { PullRequest };

// The shared words, from the ground floor (src/vocabulary.ts); exported here too, as the state file uses them.
export {
  STATE_NAMES,
  StateName,
  RigorLevel,
  Complexity,
  Severity,
  Finding,
  DECISION_CHANNELS,
  DecisionChannel,
  isHumanChannel,
  DecisionBy,
} from "../vocabulary.js";

export const PhaseStatus = z.enum(["pending", "complete", "skipped"]);
export type PhaseStatus = z.infer<typeof PhaseStatus>;

export const Phase = z.looseObject({
  name: z.string(),
  complexity: Complexity,
  complexityOverride: Complexity.nullable(),
  planPath: z.string().nullable(),
  status: PhaseStatus,
  startedAt: z.string().optional(),
  completedAt: z.string().optional(),
});
export type Phase = z.infer<typeof Phase>;

/** The signal snapshot recorded with every plan decision: built from the signal registry. */
export { Signals } from "../rules/signals.js";

export const Decision = z.looseObject({
  /** 0-based phase index; null for decisions that belong to no phase (final review, legacy notes). */
  phase: z.number().int().nullable(),
  decision: z.string(),
  timestamp: z.string().nullable(),
  signals: Signals.optional(),
  /** Which signals fired (names from the skill's signal table), when signals were evaluated. */
  fired: z.array(z.string()).optional(),
  state: z.string().optional(),
  answer: z.string().optional(),
  by: DecisionBy.optional(),
  rationale: z.string().optional(),
  /** Plan decisions: sha256 of the plan file the decision was about. */
  planSha256: z.string().optional(),
  /** Plan decisions of a parallel session: the plan's waves as the gate saw them. */
  waves: WavePlan.optional(),
  /** Text of a legacy decision that was a plain string, or a `{what, why}` note. */
  note: z.string().optional(),
  /** `by: "relayed"`: the user's words as the host model quoted them (its claim, not verified). */
  userWords: z.string().optional(),
});
export type Decision = z.infer<typeof Decision>;

export const CheckRounds = z.looseObject({
  verification: z.array(z.enum(["pass", "fail"])),
  review: z.array(z.enum(["fix", "override"]).nullable()),
});

export const HistoryEntry = z.looseObject({
  phase: z.number().int().nullable(),
  name: z.string().optional(),
  startedAt: z.string().optional(),
  completedAt: z.string().optional(),
  tasksCompleted: z.number().int().optional(),
  retriesUsed: z.number().int().optional(),
  verificationPassed: z.boolean().optional(),
  /** The first review's counts: what the reviewer found, before any fix. */
  reviewFindings: z.record(z.string(), z.number()).optional(),
  /** Verifications of the phase that failed before it passed (or was skipped). */
  verificationFailures: z.number().int().nonnegative().optional(),
  /** Fix rounds the phase ran (verification or review findings sent back to the executor). */
  fixRounds: z.number().int().nonnegative().optional(),
  /** Every review round's counts, in order (the first is `reviewFindings`). */
  reviewRounds: z.array(z.record(z.string(), z.number())).optional(),
  /** Every round of the phase's checks: each verification's verdict, each review's resolution (absent in older files). */
  checkRounds: CheckRounds.optional(),
  ...PhaseNotes,
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/**
 * One review of a phase (or of the whole change), kept as it was reported: a re-review after a fix
 * adds a round and never overwrites the first. `resolution` is what was decided about its blocking
 * findings: sent back for a fix, overridden by a decision, or nothing (none blocking, or not yet).
 */
export const ReviewRound = z.looseObject({
  findings: z.array(Finding),
  resolution: z.enum(["fix", "override"]).nullable(),
  /**
   * With resolution "fix": which of `findings` (0-based indices) the person sent to the fix round.
   * Absent: the blocking ones (every fix round before a person could choose, and `--yes`).
   */
  sent: z.array(z.number().int().nonnegative()).optional(),
});
export type ReviewRound = z.infer<typeof ReviewRound>;

/** One verification of a phase (the verifier's verdict, or the validation commands at --fast). */
export const VerificationRound = z.looseObject({
  verdict: z.enum(["pass", "fail"]),
  findings: z.array(z.string()),
  /** What the verifier ran and saw, as it reported it. */
  evidence: z.array(z.string()).optional(),
  /** Which of `findings` (0-based) the person sent to a fix round; absent: all of them, or none was run. */
  sent: z.array(z.number().int().nonnegative()).optional(),
});
export type VerificationRound = z.infer<typeof VerificationRound>;

/** A finding a fixer disputes, with the evidence it gives; the next check judges it. */
export const Disputed = z.looseObject({ finding: z.string(), evidence: z.string() });
export type Disputed = z.infer<typeof Disputed>;

const FinalReviewStatus = z.enum(["pending", "in_progress", "passed", "overridden", "failed"]);
const FinalReview = z.looseObject({
  status: FinalReviewStatus,
  /** The latest round's findings (upstream's field). */
  findings: z.array(Finding),
  retryCount: z.number().int().nonnegative(),
  /** Every round, the first kept as reported (absent in files written before rounds were kept). */
  rounds: z.array(ReviewRound).optional(),
  /** Reviews sent back to the reviewer by the code check (blocking findings without a file, line or scenario). */
  checks: z.number().int().nonnegative().optional(),
  /** What the last send-back asked the reviewer to complete. */
  problems: z.array(z.string()).optional(),
  /** Findings the last fix round disputed, for the re-review. */
  disputed: z.array(Disputed).optional(),
});
type FinalReview = z.infer<typeof FinalReview>;

const Attempt = z.looseObject({
  attempt: z.number().int().positive(),
  timestamp: z.string(),
  error: z.string(),
  fixAttempted: z.string().optional(),
  result: z.string().optional(),
});
type Attempt = z.infer<typeof Attempt>;

export const CurrentTask = z.looseObject({
  number: z.number().int().nullable(),
  name: z.string(),
  attemptsUsed: z.number().int().nonnegative(),
  attempts: z.array(Attempt),
});
export type CurrentTask = z.infer<typeof CurrentTask>;

const RetryBudget = z.looseObject({
  maxAttempts: z.number().int().positive(),
  currentTask: CurrentTask.nullable(),
});
type RetryBudget = z.infer<typeof RetryBudget>;

const CheckpointType = z.enum(["human-verify", "decision", "human-action", "passed"]);
type CheckpointType = z.infer<typeof CheckpointType>;

export const PendingCheckpoint = z.looseObject({
  type: CheckpointType,
  label: z.string(),
  options: z.array(z.string()).optional(),
  details: z.string().optional(),
});
export type PendingCheckpoint = z.infer<typeof PendingCheckpoint>;

/** Why EXECUTE is running fixes rather than the plan: findings from VERIFY or REVIEW. */
const FixBrief = z.looseObject({
  source: z.enum(["verification", "review"]),
  findings: z.array(z.string()),
  /** The phase's fix round this is (1 for the first); absent in files written before it. */
  round: z.number().int().positive().optional(),
  /** The ids of the findings it fixes (`findingLedger`); absent in files written before the ledger. */
  ids: z.array(z.string()).optional(),
});
type FixBrief = z.infer<typeof FixBrief>;

/**
 * A commit the repository's hooks refused (src/effects/git.ts CommitRejected): the commit is still
 * owed and is performed again, under the same effect id (so it is made once), when the executor has
 * fixed what the hook reported or the user has answered. Each refusal is an attempt, counted against
 * the retry budget like a failed task's.
 */
const RejectedCommit = z.looseObject({
  effect: Effect,
  label: z.string(),
  /** The hook that refused it: `pre-commit` (work for the executor), `commit-msg`, ... */
  hook: z.string(),
  /** What the hook printed the last time, trimmed. */
  output: z.string(),
  /** The paths autopilot tried to commit. */
  paths: z.array(z.string()),
  attempts: z.array(Attempt),
});
type RejectedCommit = z.infer<typeof RejectedCommit>;

/** Working data of the phase in progress. Reset when the next phase starts. */
export const PhaseRun = z.looseObject({
  startedAt: z.string().nullable(),
  taskCount: z.number().int().nonnegative().nullable(),
  checkpointCount: z.number().int().nonnegative().nullable(),
  concerns: z.array(z.string()),
  /** Why the plan is being revised (set by "revise plan" after an exhausted budget). */
  revision: z.string().nullable(),
  checkpoint: PendingCheckpoint.nullable(),
  /** Answer to the last human checkpoint, passed to the executor when it resumes. */
  checkpointAnswer: z.string().nullable(),
  /** Labels of checkpoints that passed, in order. */
  checkpointsPassed: z.array(z.string()),
  fix: FixBrief.nullable(),
  verification: z.enum(["pass", "fail", "skipped"]).nullable(),
  verificationFindings: z.array(z.string()),
  reviewFindings: z.array(Finding),
  reviewOverridden: z.boolean(),
  retriesUsed: z.number().int().nonnegative(),
  exhausted: z.boolean(),
  /** A persona said it could not do its job; the Step asks whether to retry the step or stop. */
  personaError: z.string().nullable(),
  /**
   * sha256 of the plan file as last read (at PLANNED / PLAN_FACTS), and of the plan as approved.
   * An approval belongs to that content: a plan edited afterwards goes through the gate again.
   * Absent in files written before plan hashes were kept (then nothing is compared).
   */
  planSha256: z.string().nullable().optional(),
  approvedPlanSha256: z.string().nullable().optional(),
  /** Set when the plan file changed after approval: what the next Step says. */
  planChanged: z.looseObject({ from: z.string().nullable(), to: z.string().nullable() }).nullable().optional(),
  /** The last commit the repository's hooks refused (absent in files written before it). */
  rejectedCommit: RejectedCommit.nullable().optional(),
  /** Output of the last validation run (fast VERIFY, final-review fixes), bounded. */
  lastValidation: z.looseObject({ passed: z.boolean(), summary: z.string() }).nullable(),

  // ---- the persona work's records; optional: absent in files written before them ----
  /** HEAD when the phase started (read at ASSESS): the phase review's range starts here. */
  startCommit: z.string().nullable().optional(),
  /** The plan task the executor starts from (null: the first task its execution state does not mark done). */
  nextTask: z.number().int().positive().nullable().optional(),
  /** What the server's plan check found in the current plan (empty: nothing). */
  planProblems: z.array(z.string()).optional(),
  /** Plans the check sent back to the planner in this phase. */
  planChecks: z.number().int().nonnegative().optional(),
  /** The planner's assumptions (recorded and shown; they do not pause) and deferred unknowns. */
  assumptions: z.array(z.string()).optional(),
  deferred: z.array(z.string()).optional(),
  /** Plan defects the executor reported in this phase (each sends the plan back to the planner). */
  planDefects: z.number().int().nonnegative().optional(),
  /** Every verification of the phase, the first kept as reported. */
  verificationRounds: z.array(VerificationRound).optional(),
  /** Every review of the phase, the first kept as reported. */
  reviewRounds: z.array(ReviewRound).optional(),
  /** Reviews the code check sent back to the reviewer in this phase, and what the last one asked for. */
  reviewChecks: z.number().int().nonnegative().optional(),
  reviewProblems: z.array(z.string()).optional(),
  /** Fix rounds run in this phase. */
  fixRounds: z.number().int().nonnegative().optional(),
  /** Findings the last fix round disputed, with its evidence, for the re-check. */
  disputed: z.array(Disputed).optional(),
  /** What the executor reported as evidence when it last completed, for the verifier to check. */
  evidence: z.array(z.string()).optional(),
  /** A parallel session's waves for the current plan (src/markdown/waves.ts); absent in serial sessions. */
  waves: WavePlan.nullable().optional(),
  /** The wave running now: each task's worktree, branch, status and merged commit (parallel sessions only). */
  waveRun: WaveLedger.nullable().optional(),
  /**
   * A parallel session's tasks merged in this phase under a plan that then went back to the planner
   * (an executor's plan defect in a wave): the revised plan's waves leave them out.
   */
  tasksMerged: z.array(z.string()).optional(),
});
export type PhaseRun = z.infer<typeof PhaseRun>;

/** The outbox's entries: one discriminated union on `type`, declared in effects.ts. */
export { Effect, type EffectBody, type EffectOf } from "./effects.js";
export { Notice, renderNotices } from "./notices.js";

const CommitRecord = z.looseObject({
  sha: z.string(),
  label: z.string(),
  recovery: z.boolean(),
  phase: z.number().int().nullable(),
  timestamp: z.string(),
  /** The subject the commit was made with (the repository's convention; absent in older files). */
  subject: z.string().optional(),
});
type CommitRecord = z.infer<typeof CommitRecord>;

export const AutopilotState = z.looseObject({
  schemaVersion: z.literal(5),
  sessionDir: z.string(),
  specPath: z.string(),
  startingCommit: z.string().nullable(),
  reviewPlans: z.boolean(),
  rigorLevel: RigorLevel,
  currentState: StateName,
  currentPhase: z.number().int().nonnegative(),
  phases: z.array(Phase),
  retryBudget: RetryBudget,
  history: z.array(HistoryEntry),
  decisions: z.array(Decision),
  finalReview: FinalReview,

  // ---- engine fields (ours; optional in upstream files, defaulted on read) ----
  /** Increases by one with every accepted event; reports must echo it. */
  stepId: z.number().int().nonnegative(),
  /** The substate inside `currentState` (null: the state's initial substate). */
  stage: z.string().nullable(),
  /**
   * `--human-gates`: the protected answers (approving a paused plan, overriding a blocking review,
   * skipping a failed verification, overriding the final review) are accepted only through a
   * human channel (elicited, terminal). Optional: absent means off.
   */
  humanOnlyGates: z.boolean().optional(),
  /** `--parallel`: independent tasks run in waves, each in its own worktree (docs/state-file.md). */
  parallel: ParallelSettings.optional(),
  /** Every wave a parallel session ran, per task as last seen (the decision log's source). Absent: none ran. */
  waveLog: WaveLog.optional(),
  /** Set by a "stop" answer: the Step waits until the session is resumed with autopilot_start. */
  stopped: z.boolean(),
  /** ASSESS found a high-complexity phase: the human plans interactively; we wait for the plan. */
  awaitingInteractivePlan: z.boolean(),
  phaseRun: PhaseRun,
  /** Phases in a row whose retry budget was exhausted (two in a row: suggest reviewing the spec). */
  consecutiveExhausted: z.number().int().nonnegative(),
  /**
   * What the user should be told with the current Step (auto-approve report, phase summary, ...),
   * as structured notices in the order they were recorded; src/session/notices.ts renders the text.
   */
  notices: z.array(Notice),
  outbox: z.array(Effect),
  commits: z.array(CommitRecord),
  updatedAt: z.string().nullable(),

  // ---- declared, optional, never defaulted: absent in files written before them ----
  /** What the persona runs spent, per phase, persona and session (src/session/usage.ts). */
  usage: UsageLedger.optional(),
  /** The spending limit that pauses the session before its next dispatch. */
  budget: Budget.optional(),
  /**
   * Changes autopilot did not make that were in the working tree when the session started (the
   * first 50 paths and the count; the full baseline with content hashes is `baseline.json`).
   */
  userChanges: z.looseObject({ count: z.number().int().nonnegative(), paths: z.array(z.string()) }).optional(),
  /** The suggested pull request, written at DONE by the writeFinalHandoff effect. */
  pullRequest: PullRequest.optional(),
  /** Every finding of the session once, with its fate (src/session/findings.ts). Absent: none raised yet. */
  findingLedger: FindingLedger.optional(),
});
export type AutopilotState = z.infer<typeof AutopilotState>;

export const CURRENT_SCHEMA_VERSION = 5;

export function emptyPhaseRun(startedAt: string | null = null): PhaseRun {
  return {
    startedAt,
    taskCount: null,
    checkpointCount: null,
    concerns: [],
    revision: null,
    checkpoint: null,
    checkpointAnswer: null,
    checkpointsPassed: [],
    fix: null,
    verification: null,
    verificationFindings: [],
    reviewFindings: [],
    reviewOverridden: false,
    retriesUsed: 0,
    exhausted: false,
    personaError: null,
    planSha256: null,
    approvedPlanSha256: null,
    planChanged: null,
    lastValidation: null,
    startCommit: null,
    nextTask: null,
    planProblems: [],
    planChecks: 0,
    assumptions: [],
    deferred: [],
    planDefects: 0,
    verificationRounds: [],
    reviewRounds: [],
    reviewChecks: 0,
    reviewProblems: [],
    fixRounds: 0,
    disputed: [],
    evidence: [],
  };
}

/**
 * A session before its first event (INIT): the machine's START fills in the phases and flags. The
 * retry budget is the policy's (src/rules/policy.ts) unless the caller passes the configured one.
 */
export function initState(fields: {
  sessionDir: string;
  specPath: string;
  startingCommit: string | null;
  now: string;
  maxAttempts?: number;
}): AutopilotState {
  return {
    schemaVersion: 5,
    sessionDir: fields.sessionDir,
    specPath: fields.specPath,
    startingCommit: fields.startingCommit,
    reviewPlans: false,
    rigorLevel: "standard",
    currentState: "INIT",
    currentPhase: 0,
    phases: [],
    retryBudget: { maxAttempts: fields.maxAttempts ?? RETRY_BUDGET, currentTask: null },
    history: [],
    decisions: [],
    finalReview: { status: "pending", findings: [], retryCount: 0 },
    ...engineDefaults(),
    phaseRun: emptyPhaseRun(fields.now),
  };
}

/** Defaults for every engine field: what an upstream file that lacks them resumes with. */
export function engineDefaults(): Pick<
  AutopilotState,
  | "stepId"
  | "stage"
  | "stopped"
  | "awaitingInteractivePlan"
  | "phaseRun"
  | "consecutiveExhausted"
  | "notices"
  | "outbox"
  | "commits"
  | "updatedAt"
> {
  return {
    stepId: 0,
    stage: null,
    stopped: false,
    awaitingInteractivePlan: false,
    phaseRun: emptyPhaseRun(),
    consecutiveExhausted: 0,
    notices: [],
    outbox: [],
    commits: [],
    updatedAt: null,
  };
}

/**
 * Map either severity vocabulary onto ours: blocking|critical → blocking, warning|important → warning,
 * note|suggestion|info|nit → note. Unknown words return null (the caller decides; readers keep them
 * as notes rather than dropping a finding).
 */
export function normalizeSeverity(word: unknown): Severity | null {
  if (typeof word !== "string") return null;
  switch (word.trim().toLowerCase()) {
    case "blocking":
    case "blocker":
    case "critical":
    case "error":
    case "high":
      return "blocking";
    case "warning":
    case "warn":
    case "important":
    case "major":
    case "medium":
      return "warning";
    case "note":
    case "suggestion":
    case "info":
    case "nit":
    case "minor":
    case "low":
      return "note";
    default:
      return null;
  }
}
