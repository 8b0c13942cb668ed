// The zod schema of `.harness/sessions/<slug>/autopilot-state.json`, schemaVersion 5.
//
// Two layers:
//  - the upstream fields, exactly as the harness-autopilot skill documents them, so files written by
//    the skill (and by hand) stay readable by upstream tools after we touch them;
//  - our own engine fields (stepId, stage, outbox, phaseRun, ...), all optional on read and defaulted
//    by the normaliser, so an upstream file resumes without them.
// Every object is loose: unknown fields written by people or other tools are carried through.
import { z } from "zod";
import { Budget, UsageLedger } from "./usage.js";
import { RETRY_BUDGET } from "../../machines/policy.js";
import { Complexity } from "./complexity.js";
import { Signals } from "../../machines/signals.js";
import { Finding, Severity } from "./finding.js";
import { Effect } from "./effects.js";
import { Notice } from "./notices.js";

export const STATE_NAMES = [
  "INIT",
  "ASSESS",
  "PLAN",
  "APPROVE_PLAN",
  "EXECUTE",
  "VERIFY",
  "REVIEW",
  "PHASE_COMPLETE",
  "FINAL_REVIEW",
  "DONE",
] as const;
export const StateName = z.enum(STATE_NAMES);
export type StateName = z.infer<typeof StateName>;

export { Complexity } from "./complexity.js";

export const RigorLevel = z.enum(["fast", "standard", "thorough"]);
export type RigorLevel = z.infer<typeof RigorLevel>;

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

export { Finding, Severity } from "./finding.js";

export const SeverityCounts = z.looseObject({
  blocking: z.number().int().nonnegative(),
  warning: z.number().int().nonnegative(),
  note: z.number().int().nonnegative(),
});
export type SeverityCounts = z.infer<typeof SeverityCounts>;

/** The signal snapshot recorded with every plan decision: built from the signal registry. */
export { Signals } from "../../machines/signals.js";

/**
 * Who answered a decision: the channel it came through.
 *  - `elicited`: the user answered the MCP client's own form (elicitation);
 *  - `terminal`: a person typed it at an interactive terminal (`autopilot run`, `autopilot approve`);
 *  - `host`: the host model called `autopilot_decide`; the server cannot know whether a person was asked;
 *  - `piped`: `autopilot run` read it from piped input (a script or a person; not a terminal);
 *  - `policy`: `autopilot run --yes`;
 *  - `auto`: the machine decided (no signal fired, `--fast`).
 */
export const DECISION_CHANNELS = ["elicited", "terminal", "host", "piped", "policy", "auto"] as const;
export const DecisionChannel = z.enum(DECISION_CHANNELS);
export type DecisionChannel = z.infer<typeof DecisionChannel>;
/** The channels that mean a person answered (what `--human-gates` accepts). */
export const HUMAN_CHANNELS: readonly DecisionChannel[] = ["elicited", "terminal"];
export function isHumanChannel(by: unknown): boolean {
  return by === "elicited" || by === "terminal";
}

/**
 * `by` as read from a file: a channel, or `human`, which earlier versions (and hand-written files)
 * recorded for every answer that was not automatic or policy, whether a person or the host model
 * gave it. It is still read and shown as such; it is never written any more.
 */
export const DecisionBy = z.enum([...DECISION_CHANNELS, "human"]);
export type DecisionBy = z.infer<typeof DecisionBy>;

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
  /** Text of a legacy decision that was a plain string, or a `{what, why}` note. */
  note: z.string().optional(),
});
export type Decision = z.infer<typeof Decision>;

export const HistoryEntry = z.looseObject({
  phase: z.number().int().nullable(),
  name: z.string().optional(),
  startedAt: z.string().optional(),
  completedAt: z.string().optional(),
  tasksCompleted: z.number().int().optional(),
  retriesUsed: z.number().int().optional(),
  verificationPassed: z.boolean().optional(),
  reviewFindings: z.record(z.string(), z.number()).optional(),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

export const FinalReviewStatus = z.enum(["pending", "in_progress", "passed", "overridden", "failed"]);
export const FinalReview = z.looseObject({
  status: FinalReviewStatus,
  findings: z.array(Finding),
  retryCount: z.number().int().nonnegative(),
});
export type FinalReview = z.infer<typeof FinalReview>;

export const Attempt = z.looseObject({
  attempt: z.number().int().positive(),
  timestamp: z.string(),
  error: z.string(),
  fixAttempted: z.string().optional(),
  result: z.string().optional(),
});
export type Attempt = z.infer<typeof Attempt>;

export const CurrentTask = z.looseObject({
  number: z.number().int().nullable(),
  name: z.string(),
  attemptsUsed: z.number().int().nonnegative(),
  attempts: z.array(Attempt),
});
export type CurrentTask = z.infer<typeof CurrentTask>;

export const RetryBudget = z.looseObject({
  maxAttempts: z.number().int().positive(),
  currentTask: CurrentTask.nullable(),
});
export type RetryBudget = z.infer<typeof RetryBudget>;

export const CheckpointType = z.enum(["human-verify", "decision", "human-action", "passed"]);
export type CheckpointType = z.infer<typeof CheckpointType>;

export const PendingCheckpoint = z.looseObject({
  type: CheckpointType,
  label: z.string(),
  options: z.array(z.string()).optional(),
  details: z.string().optional(),
});
export type PendingCheckpoint = z.infer<typeof PendingCheckpoint>;

/** Why EXECUTE is running fixes rather than the plan: findings from VERIFY or REVIEW. */
export const FixBrief = z.looseObject({
  source: z.enum(["verification", "review"]),
  findings: z.array(z.string()),
});
export type FixBrief = z.infer<typeof FixBrief>;

/**
 * A commit the repository's hooks refused (src/effects/git.ts CommitRejected): the commit is still
 * owed and is performed again, under the same effect id (so it is made once), when the executor has
 * fixed what the hook reported or the user has answered. Each refusal is an attempt, counted against
 * the retry budget like a failed task's.
 */
export const RejectedCommit = z.looseObject({
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
export type RejectedCommit = z.infer<typeof RejectedCommit>;

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
  lastValidation: z
    .looseObject({ passed: z.boolean(), summary: z.string() })
    .nullable(),
});
export type PhaseRun = z.infer<typeof PhaseRun>;

/** The outbox's entries: one discriminated union on `type`, declared in effects.ts. */
export { Effect, EFFECT_TYPES, type EffectType, type EffectBody, type EffectOf } from "./effects.js";
export { Notice, renderNotice, renderNotices, type NoticeKind, type NoticeOf } from "./notices.js";

export const CommitRecord = z.looseObject({
  sha: z.string(),
  label: z.string(),
  recovery: z.boolean(),
  phase: z.number().int().nullable(),
  timestamp: z.string(),
  /** The subject the commit was made with (the repository's convention; absent in older files). */
  subject: z.string().optional(),
});
export type CommitRecord = z.infer<typeof CommitRecord>;

/** The pull request autopilot suggests when a session is DONE (title and body from the commits). */
export const PullRequest = z.looseObject({ title: z.string(), body: z.string() });
export type PullRequest = z.infer<typeof PullRequest>;

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
  };
}

/**
 * A session before its first event (INIT): the machine's START fills in the phases and flags. The
 * retry budget is the policy's (machines/policy.ts) unless the caller passes the configured one.
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
