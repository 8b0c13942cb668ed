// Every decision the machine records, one entry each: its name (the state file's `decision`), the
// question whose answer records it, its label in the decision log and its kind there (the log's
// grouping), and what it means for the gates: a plan gate's result, or work let past a gate it did
// not pass on its own. The machine can record no other name (the actions take a DecisionName); the
// log reads these entries and never the name's words. Names a file holds that are not here (an
// upstream or hand-written file) are shown as they are.
import type { AutopilotState, Decision } from "../src/session/schema.js";
import type { StateName } from "../src/vocabulary.js";
import type { AutopilotEvent } from "./events.js";
import type { QuestionName } from "./questions.js";

/** Where a decision is grouped in the decision log. */
export type DecisionKind =
  | "plan"
  | "checkpoint"
  | "execution"
  | "verification"
  | "review"
  | "phase"
  | "final-review"
  | "stop"
  | "budget"
  | "note";

export interface DecisionDef {
  /**
   * The question whose answer records it; "every question" for the stop each one offers; null for
   * what the machine records without asking.
   */
  question: QuestionName | "every question" | null;
  label: string;
  /** Its kind, or "state": the kind of the state it was recorded in (STATE_KINDS). */
  kind: DecisionKind | "state";
  /** A plan gate's result. */
  plan?: "approved" | "revised" | "skipped";
  /** It lets work pass a gate it did not pass on its own. */
  override?: true;
}

function entries<const T extends Record<string, DecisionDef>>(t: T): T {
  return t;
}

export const DECISIONS = entries({
  committed_user_changes: {
    question: "userChanges",
    label: "The user's own changes committed with the work",
    kind: "note",
  },
  left_out_user_changes: {
    question: "userChanges",
    label: "The user's own changes left out of the commit",
    kind: "note",
  },
  auto_approved_plan: { question: null, label: "Plan auto-approved (no signal fired)", kind: "plan", plan: "approved" },
  auto_approved_plan_fast: { question: null, label: "Plan auto-approved (--fast)", kind: "plan", plan: "approved" },
  approved_plan: { question: "approvePlan", label: "Plan approved after review", kind: "plan", plan: "approved" },
  revised_plan: { question: "approvePlan", label: "Plan sent back for revision", kind: "plan", plan: "revised" },
  skipped_phase: { question: "approvePlan", label: "Phase skipped", kind: "plan", plan: "skipped", override: true },
  plan_revised: { question: "revised", label: "Revised plan re-presented", kind: "plan" },
  retried_step: { question: "personaFailed", label: "Retried a failed persona step", kind: "state" },
  checkpoint_human_verify: { question: "checkpoint", label: "Human-verify checkpoint answered", kind: "checkpoint" },
  checkpoint_decision: { question: "checkpoint", label: "Decision checkpoint answered", kind: "checkpoint" },
  checkpoint_human_action: { question: "checkpoint", label: "Human-action checkpoint answered", kind: "checkpoint" },
  fixed_manually: { question: "exhausted", label: "Fixed by hand, continued", kind: "state", override: true },
  revise_plan_after_failure: {
    question: "exhausted",
    label: "Plan revised after the retry budget ran out",
    kind: "plan",
  },
  fix_verification: { question: "verifyFailed", label: "Fix verification failures", kind: "verification" },
  skipped_verification: {
    question: "verifyFailed",
    label: "Verification skipped",
    kind: "verification",
    override: true,
  },
  fix_review: { question: "reviewBlocked", label: "Fix blocking review findings", kind: "review" },
  overrode_review: {
    question: "reviewBlocked",
    label: "Blocking review findings overridden",
    kind: "review",
    override: true,
  },
  fix_review_warnings: { question: "reviewWarnings", label: "Fix review findings, warnings too", kind: "review" },
  left_warnings: { question: "reviewWarnings", label: "Review warnings left open, moved on", kind: "review" },
  continued: { question: "continuePhase", label: "Continued to the next phase", kind: "phase" },
  fix_final_review: { question: "finalBlocked", label: "Fix final review findings", kind: "final-review" },
  overrode_final_review: {
    question: "finalBlocked",
    label: "Blocking final review findings overridden",
    kind: "final-review",
    override: true,
  },
  commit_rejected: { question: null, label: "A commit rejected by the repository's hook", kind: "state" },
  fixed_commit_manually: {
    question: "commitRejected",
    label: "Rejected commit fixed by hand, committed again",
    kind: "state",
  },
  committed_without_hooks: {
    question: "commitRejected",
    label: "Committed without the repository's hooks, this once",
    kind: "state",
    override: true,
  },
  rerun_wave_task: { question: "waveTask", label: "Wave task run again", kind: "execution" },
  wave_task_by_hand: { question: "waveTask", label: "Wave task done by hand", kind: "execution" },
  raised_budget: { question: "budget", label: "Budget raised", kind: "budget" },
  budget_continue_once: { question: "budget", label: "Over budget: one more persona run", kind: "budget" },
  stopped_budget: { question: "budget", label: "Stopped at the budget", kind: "stop" },
  stopped: { question: "every question", label: "Stopped", kind: "stop" },
  // The person's words given where no question was open (machines/words.ts NOTE_DECISION).
  noted: { question: null, label: "The user's words, between questions (for the next persona)", kind: "note" },
});

export type DecisionName = keyof typeof DECISIONS;

/** The kind of a decision recorded in each state, for entries whose kind is their state's. */
const STATE_KINDS: Partial<Record<StateName, DecisionKind>> = {
  PLAN: "plan",
  APPROVE_PLAN: "plan",
  EXECUTE: "execution",
  VERIFY: "verification",
  REVIEW: "review",
  FINAL_REVIEW: "final-review",
};

export function isDecisionName(name: unknown): name is DecisionName {
  return typeof name === "string" && Object.hasOwn(DECISIONS, name);
}

/**
 * A decision's kind, given the state it was recorded in: its entry's, else the state's (a name no
 * entry has is one an upstream or hand-written file recorded).
 */
export function decisionKind(name: string, state: string | null | undefined): DecisionKind {
  const def: DecisionDef | undefined = isDecisionName(name) ? DECISIONS[name] : undefined;
  if (def && def.kind !== "state") return def.kind;
  const kind = STATE_KINDS[state as StateName];
  return kind ?? (def ? "execution" : "note");
}

/** The checkpoint decision of a checkpoint's kind. */
export function checkpointDecision(type: string | undefined): DecisionName {
  if (type === "human-verify") return "checkpoint_human_verify";
  if (type === "human-action") return "checkpoint_human_action";
  return "checkpoint_decision";
}

/** The decision a person's (or a policy's) answer makes: the answer, its channel and rationale, then `extra`. */
export function answered(
  state: AutopilotState,
  ev: Extract<AutopilotEvent, { type: "DECIDE" }>,
  name: DecisionName,
  extra: Partial<Omit<Decision, "decision">> = {},
): Decision {
  return decision(state, ev, {
    decision: name,
    answer: ev.answer,
    by: ev.by,
    ...(ev.rationale ? { rationale: ev.rationale } : {}),
    ...extra,
  });
}

export function decision(
  state: AutopilotState,
  ev: { now: string; userWords?: string },
  fields: Partial<Decision> & { decision: DecisionName },
): Decision {
  return {
    phase: ["INIT", "FINAL_REVIEW", "DONE"].includes(state.currentState) ? null : state.currentPhase,
    timestamp: ev.now,
    state: state.currentState,
    ...fields,
    // A host that relays the user's answer says so: kept as its claim, beside the channel.
    ...(ev.userWords ? { userWords: ev.userWords.slice(0, 2000) } : {}),
  };
}
