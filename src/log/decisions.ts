// The decision log's decisions: each recorded decision with its label, its kind, who gave it (the
// channel, or what can be inferred), its phase and, for a plan, the gate's signals as they stood.
import { SIGNAL_DEFS, firedSignals, normalizedSignals, type SignalName } from "../rules/signals.js";
import { channelPhrase } from "../vocabulary.js";
import { isHumanChannel, type AutopilotState, type Decision, type Signals } from "../session/schema.js";
import { WHO, type LoggedDecision, type PlanGate, type PlanMode, type SignalRow, type Who } from "./shape.js";
import { phaseRef, str } from "./read.js";
import { NOTE_DECISION, personWordsOf } from "./person-words.js";

const WHAT: Record<string, string> = {
  auto_approved_plan: "Plan auto-approved (no signal fired)",
  auto_approved_plan_fast: "Plan auto-approved (--fast)",
  approved_plan: "Plan approved after review",
  revised_plan: "Plan sent back for revision",
  plan_revised: "Revised plan re-presented",
  skipped_phase: "Phase skipped",
  continued: "Continued to the next phase",
  stopped: "Stopped",
  retried_step: "Retried a failed persona step",
  fixed_manually: "Fixed by hand, continued",
  revise_plan_after_failure: "Plan revised after the retry budget ran out",
  fix_verification: "Fix verification failures",
  skipped_verification: "Verification skipped",
  fix_review: "Fix blocking review findings",
  overrode_review: "Blocking review findings overridden",
  fix_final_review: "Fix final review findings",
  overrode_final_review: "Blocking final review findings overridden",
  checkpoint_human_verify: "Human-verify checkpoint answered",
  checkpoint_decision: "Decision checkpoint answered",
  checkpoint_human_action: "Human-action checkpoint answered",
  raised_budget: "Budget raised",
  budget_continue_once: "Over budget: one more persona run",
  stopped_budget: "Stopped at the budget",
  commit_rejected: "A commit rejected by the repository's hook",
  fixed_commit_manually: "Rejected commit fixed by hand, committed again",
  committed_without_hooks: "Committed without the repository's hooks, this once",
  committed_user_changes: "The user's own changes committed with the work",
  left_out_user_changes: "The user's own changes left out of the commit",
  fix_review_warnings: "Fix review findings, warnings too",
  left_warnings: "Review warnings left open, moved on",
  [NOTE_DECISION]: "The user's words, between questions (for the next persona)",
};

const PLAN_RESULT: Record<string, PlanGate["result"]> = {
  auto_approved_plan: "approved",
  auto_approved_plan_fast: "approved",
  approved_plan: "approved",
  revised_plan: "revised",
  skipped_phase: "skipped",
};

/** Decisions that let work pass a gate it did not pass on its own. */
export const OVERRIDE_DECISIONS = new Set([
  "overrode_review",
  "overrode_final_review",
  "skipped_verification",
  "skipped_phase",
  "fixed_manually",
  "committed_without_hooks",
]);

/** Decisions about a commit the repository's hooks refused: part of execution, whatever the state. */
const COMMIT_DECISIONS = new Set(["commit_rejected", "fixed_commit_manually", "committed_without_hooks"]);

function kindOf(d: Decision): LoggedDecision["kind"] {
  const name = d.decision;
  if (name === NOTE_DECISION) return "note";
  if (PLAN_RESULT[name] || name === "plan_revised" || name === "revise_plan_after_failure") return "plan";
  if (name.startsWith("checkpoint_")) return "checkpoint";
  if (name === "stopped" || name === "stopped_budget") return "stop";
  if (name === "raised_budget" || name === "budget_continue_once") return "budget";
  if (name === "continued") return "phase";
  if (name.includes("final_review") || d.state === "FINAL_REVIEW") return "final-review";
  if (name.includes("verification") || d.state === "VERIFY") return "verification";
  if (name.includes("review") || d.state === "REVIEW") return "review";
  if (name === "fixed_manually" || COMMIT_DECISIONS.has(name) || d.state === "EXECUTE") return "execution";
  if (d.signals) return "plan";
  if (name === "note") return "note";
  return d.state === "APPROVE_PLAN" ? "plan" : "note";
}

function words(name: string): string {
  const s = name.replace(/_/g, " ").trim();
  return s ? s[0].toUpperCase() + s.slice(1) : name;
}

// ---- signals -------------------------------------------------------------------------------

export function signalRows(signals: Signals, recordedFired: readonly string[] | null, evaluated: boolean): SignalRow[] {
  const snapshot = normalizedSignals(signals);
  const fires = new Set<string>(firedSignals(snapshot));
  const fired = (n: SignalName) => evaluated && (recordedFired ? recordedFired.includes(n) : fires.has(n));
  return SIGNAL_DEFS.map((s) => ({
    name: s.name,
    label: s.label,
    value: s.value(snapshot),
    display: s.display(snapshot),
    rule: s.rule(snapshot),
    fires: fires.has(s.name),
    fired: fired(s.name),
  }));
}

function planGate(d: Decision, who: Who): PlanGate | null {
  if (!d.signals) return null;
  const fast = d.decision === "auto_approved_plan_fast";
  const mode: PlanMode = fast
    ? "fast"
    : d.decision === "auto_approved_plan" || who === "auto"
      ? "auto"
      : who !== "unknown" || d.answer !== undefined
        ? "paused"
        : "auto";
  const evaluated = !fast;
  const signals = signalRows(d.signals, d.fired ?? null, evaluated);
  return {
    mode,
    result: PLAN_RESULT[d.decision] ?? "other",
    evaluated,
    signals,
    fired: evaluated ? signals.filter((s) => s.fired).map((s) => s.name) : [],
    waves: d.waves ? wavesText(d.waves) : null,
  };
}

/** The waves in one line: each wave's tasks, waves in order; a serial plan says why. */
function wavesText(w: NonNullable<Decision["waves"]>): string {
  if (!w.parallel) return `serial: ${w.reason}`;
  return `${w.waves.map((wave) => wave.join(", ")).join(" → ")} (tasks per wave, in order)${w.serialized.length ? `; ${w.serialized.join("; ")}` : ""}`;
}

// ---- decisions -----------------------------------------------------------------------------

function whoOf(d: Decision): { who: Who; inferred: boolean } {
  if (typeof d.by === "string" && (WHO as readonly string[]).includes(d.by) && (d.by as string) !== "unknown")
    return { who: d.by, inferred: false };
  if (d.decision.startsWith("auto_approved")) return { who: "auto", inferred: true };
  return { who: "unknown", inferred: false };
}

export function logDecision(state: AutopilotState, d: Decision, i: number): LoggedDecision {
  const { who, inferred } = whoOf(d);
  const note = str(d.note) ?? (d.decision === "note" && d.value !== undefined ? JSON.stringify(d.value) : null);
  let phase = phaseRef(state, d.phase);
  let phaseInferred = false;
  if (!phase) {
    // Legacy decisions are sentences: "Phase 2 plan approved by human".
    const m = /\bphase\s+(\d+)\b/i.exec(`${d.decision === "note" ? "" : d.decision} ${note ?? ""}`);
    const n = m ? Number(m[1]) : NaN;
    if (n >= 1 && n <= state.phases.length && d.state !== "FINAL_REVIEW") {
      phase = phaseRef(state, n - 1);
      phaseInferred = true;
    }
  }
  const legacyText = d.decision !== "note" && !WHAT[d.decision] && /\s/.test(d.decision);
  return {
    n: i + 1,
    decision: d.decision,
    what: WHAT[d.decision] ?? (d.decision === "note" ? (note ?? "Note") : legacyText ? d.decision : words(d.decision)),
    kind: kindOf(d),
    timestamp: str(d.timestamp),
    who,
    whoText: who === "unknown" ? "who answered was not recorded" : channelPhrase(who),
    byPerson: isHumanChannel(who) ? true : who === "human" || who === "unknown" ? null : false,
    whoInferred: inferred,
    state: str(d.state),
    phase,
    phaseInferred,
    plan: planGate(d, who),
    answer: str(d.answer),
    rationale: str(d.rationale),
    userWords: str(d.userWords),
    personWords: personWordsOf(d, who),
    note: d.decision === "note" ? null : note,
  };
}
