// The decision log's decisions: each recorded decision with its label, its kind, who gave it (the
// channel, or what can be inferred), its phase and, for a plan, the gate's signals as they stood.
import { SIGNAL_DEFS, firedSignals, normalizedSignals, type SignalName } from "../rules/signals.js";
import { channelPhrase } from "../vocabulary.js";
import { isHumanChannel, type AutopilotState, type Decision, type Signals } from "../session/schema.js";
import { WHO, type LoggedDecision, type PlanGate, type PlanMode, type SignalRow, type Who } from "./shape.js";
import { phaseRef, str } from "./read.js";
import { personWordsOf } from "./person-words.js";
import { DECISIONS, decisionKind, isDecisionName, type DecisionDef } from "../../machines/decisions.js";

/** The entry the machine declares for a recorded name (none for a name an upstream or hand-written file holds). */
function declared(name: string): DecisionDef | undefined {
  return isDecisionName(name) ? DECISIONS[name] : undefined;
}

/** Whether a decision let work pass a gate it did not pass on its own. */
export function isOverride(name: string): boolean {
  return declared(name)?.override === true;
}

/** Its kind: the declared one; for a name the machine does not record, its state's, or a plan's when it holds signals. */
function kindOf(d: Decision): LoggedDecision["kind"] {
  if (!declared(d.decision) && d.signals && !["FINAL_REVIEW", "VERIFY", "REVIEW", "EXECUTE"].includes(d.state ?? ""))
    return "plan";
  return decisionKind(d.decision, d.state);
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
    result: declared(d.decision)?.plan ?? "other",
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
  const label = declared(d.decision)?.label;
  const legacyText = d.decision !== "note" && !label && /\s/.test(d.decision);
  return {
    n: i + 1,
    decision: d.decision,
    what: label ?? (d.decision === "note" ? (note ?? "Note") : legacyText ? d.decision : words(d.decision)),
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
