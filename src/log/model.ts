// The decision log: what the session decided, who decided it and why, phase by phase. A plain,
// JSON-able object built from a (migrated) state file, so every consumer shows the same thing:
// `autopilot log` (md, json, html), the MCP `autopilot_decisions` tool and the
// `autopilot://sessions/{slug}/decisions` resource.
//
// Pure: no I/O, no clock. Upstream files reach us through the store's migration, which keeps their
// quirks (plain-string decisions become `{decision: "note", note}`, missing `by`, history entries
// with only some fields); every field below that the file could not supply is null rather than a
// guess, and the few inferences we make are marked (`whoInferred`, `phaseInferred`).
import { SIGNAL_DEFS, firedSignals, normalizedSignals, type SignalName } from "../rules/signals.js";
import { channelPhrase } from "../vocabulary.js";
import {
  isHumanChannel,
  normalizeSeverity,
  type AutopilotState,
  type Decision,
  type HistoryEntry,
  type Signals,
} from "../session/schema.js";
import { waveLogs, type WaveLog } from "./waves.js";
import { costCell, sessionCost, type CostCell, type SessionCost } from "./cost.js";
import { checkRounds, finalItems, type FinalItem, findingLogs, type CheckRoundLog, type FindingLog } from "./checks.js";

export type { CheckRoundLog, FindingLog } from "./checks.js";
import { titleOf } from "./format.js";
import { NOTE_DECISION, personWordsOf, type PersonWords } from "./person-words.js";
export { formatDuration } from "./format.js";

/** 2: `who` is the channel an answer came through (elicited, terminal, host, ...), with `whoText`. */
const DECISION_LOG_VERSION = 2;

/**
 * The channel a decision came through (the state file's `by`): `elicited`, `terminal`, `host`,
 * `relayed` (the host passing on the user's words), `piped`, `policy`, `auto`; `human` as earlier versions wrote it (a person or the host model, not
 * told apart); `unknown` when the file did not record it.
 */
type Who = "elicited" | "terminal" | "host" | "relayed" | "piped" | "policy" | "auto" | "human" | "unknown";
const WHO: readonly Who[] = ["elicited", "terminal", "host", "relayed", "piped", "policy", "auto", "human", "unknown"];

export interface SeverityTally {
  blocking: number;
  warning: number;
  note: number;
}

interface PhaseRef {
  /** 0-based, as stored in the state file. */
  index: number;
  /** 1-based, as people count phases. */
  number: number;
  /** null when the index names no phase of the spec (an upstream file out of step with its spec). */
  name: string | null;
}

export interface SignalRow {
  name: SignalName;
  label: string;
  /** The recorded value: boolean, complexity, null, list of concerns or a task count. */
  value: boolean | string | number | string[] | null;
  /** The value as a short text. */
  display: string;
  /** When the signal fires, in words. */
  rule: string;
  /** Whether the value meets the rule (computed from the recorded value). */
  fires: boolean;
  /** Whether the signal counted for this decision: false for all in fast mode (not evaluated). */
  fired: boolean;
}

type PlanMode = "auto" | "fast" | "paused";

interface PlanGate {
  /** auto: no signal fired; fast: --fast skips evaluation; paused: a person or policy answered. */
  mode: PlanMode;
  /** What happened to the plan. */
  result: "approved" | "revised" | "skipped" | "other";
  /** false in fast mode: the signals were recorded but did not decide anything. */
  evaluated: boolean;
  signals: SignalRow[];
  /** Names of the signals that fired (the recorded list, else computed from the values). */
  fired: string[];
  /** A parallel session's waves for the plan, in words ("Tasks 1, 2, 3 → 4"); null: a serial session. */
  waves: string | null;
}

export interface LoggedDecision {
  /** 1-based position in the session's decisions. */
  n: number;
  /** The machine's decision name (`auto_approved_plan`, `overrode_review`, ...; `note` for legacy text). */
  decision: string;
  /** The decision in words. */
  what: string;
  kind:
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
  timestamp: string | null;
  who: Who;
  /** Who answered, in words ("answered by the host model; no person may have seen it"). */
  whoText: string;
  /** true: a person answered (elicited, terminal); false: nobody did, or no person for sure; null: not known. */
  byPerson: boolean | null;
  /** true when the file did not record `by` and `who` was read from the decision's name. */
  whoInferred: boolean;
  /** The machine state the decision was taken in, when recorded. */
  state: string | null;
  phase: PhaseRef | null;
  /** true when the phase was read from the text of a legacy decision ("Phase 2 plan approved"). */
  phaseInferred: boolean;
  /** Present on plan decisions that carry a signal snapshot. */
  plan: PlanGate | null;
  answer: string | null;
  rationale: string | null;
  /** The user's own words as the host relayed them (`by: "relayed"`; the host's claim). */
  userWords: string | null;
  /** What a person said with the decision (src/log/person-words.ts); null: no person's words. */
  personWords: PersonWords | null;
  note: string | null;
}

type PhaseOutcome = "complete" | "overridden" | "skipped" | "in progress" | "pending";

export interface PhaseLog extends PhaseRef {
  name: string;
  complexity: string;
  complexityOverride: string | null;
  status: string;
  planPath: string | null;
  outcome: PhaseOutcome;
  tasks: number | null;
  retries: number | null;
  /** pass | fail | skipped | not run, or null when the file does not say. */
  verification: string | null;
  reviewFindings: SeverityTally | null;
  reviewOverridden: boolean;
  verificationSkipped: boolean;
  startedAt: string | null;
  completedAt: string | null;
  durationMs: number | null;
  /** Decision numbers (`n`) taken in this phase. */
  decisions: number[];
  /** Decisions that overrode a gate in this phase (overrode_review, skipped_verification, ...). */
  overrides: string[];
  commits: number;
  recoveryCommits: number;
  /** What this phase's persona runs spent. */
  cost: CostCell;
}

export interface FinalReviewLog {
  status: string;
  findings: SeverityTally;
  /** Every finding of the final review once with its id and fate; without the ledger, the last round's (id, fate null). */
  items: FinalItem[];
  /** Fix rounds run (the machine allows at most 3). */
  fixRounds: number;
  /** Decision numbers taken during the final review. */
  decisions: number[];
  cost: CostCell;
}

interface CommitLog {
  sha: string;
  short: string;
  /** As it was made (autopilot's label in files that did not record it). */
  subject: string;
  label: string;
  recovery: boolean;
  phase: PhaseRef | null;
  timestamp: string | null;
}

interface Totals {
  phases: { total: number; complete: number; skipped: number; pending: number };
  tasks: number;
  retries: number;
  decisions: { total: number } & Record<Who, number>;
  plans: { auto: number; fast: number; paused: number };
  overrides: number;
  commits: { total: number; recovery: number };
  reviewFindings: SeverityTally;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
}

export interface DecisionLog {
  logVersion: typeof DECISION_LOG_VERSION;
  session: string;
  /** A title for people: the PR title the session wrote, else the spec's folder or file name. */
  title: string;
  spec: string;
  rigor: string;
  reviewPlans: boolean;
  currentState: string;
  stage: string | null;
  currentPhase: PhaseRef | null;
  stopped: boolean;
  startingCommit: string | null;
  updatedAt: string | null;
  outcome: { status: "done" | "stopped" | "in progress"; headline: string };
  decisions: LoggedDecision[];
  phases: PhaseLog[];
  finalReview: FinalReviewLog;
  commits: CommitLog[];
  /** A parallel session's waves, each task's worktree, merge and validation (empty: a serial session). */
  waves: WaveLog[];
  /** Every verification and review round, of every phase and of the final review, with the findings it reported. */
  checks: CheckRoundLog[];
  /** Every finding of the session once, with its fate (empty for a state from before the finding ledger). */
  findings: FindingLog[];
  totals: Totals;
  /** What the session spent: the total, per persona and model, each run's model and why, and the budget. */
  cost: SessionCost;
}

// ---------------------------------------------------------------------------------------------

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
const OVERRIDE_DECISIONS = new Set([
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

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v : null;
}

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function time(v: unknown): number | null {
  if (typeof v !== "string") return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}

function duration(start: string | null, end: string | null): number | null {
  const a = time(start);
  const b = time(end);
  return a !== null && b !== null && b >= a ? b - a : null;
}

function phaseRef(state: AutopilotState, index: number | null | undefined): PhaseRef | null {
  if (typeof index !== "number" || !Number.isInteger(index) || index < 0) return null;
  return { index, number: index + 1, name: state.phases[index]?.name ?? null };
}

function tally(findings: readonly { severity: unknown }[]): SeverityTally {
  const out = { blocking: 0, warning: 0, note: 0 };
  for (const f of findings) out[normalizeSeverity(f.severity) ?? "note"] += 1;
  return out;
}

/** `{blocking, warning, note}` or the upstream `{critical, important, suggestion}`, summed. */
function tallyRecord(rec: Record<string, unknown> | undefined): SeverityTally | null {
  if (!rec || typeof rec !== "object") return null;
  const out = { blocking: 0, warning: 0, note: 0 };
  let any = false;
  for (const [k, v] of Object.entries(rec)) {
    const sev = normalizeSeverity(k);
    const n = num(v);
    if (!sev || n === null) continue;
    out[sev] += n;
    any = true;
  }
  return any ? out : null;
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

function logDecision(state: AutopilotState, d: Decision, i: number): LoggedDecision {
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

// ---- phases --------------------------------------------------------------------------------

function historyFor(state: AutopilotState, index: number): HistoryEntry[] {
  const name = state.phases[index]?.name;
  return state.history.filter(
    (h) => h.phase === index || ((h.phase === null || h.phase === undefined) && name !== undefined && h.name === name),
  );
}

/** Several entries for one phase (re-runs, per-state upstream entries): first value wins, widest span. */
function mergeHistory(entries: HistoryEntry[]) {
  const pick = <T>(f: (h: HistoryEntry) => T | null | undefined): T | null => {
    for (let i = entries.length - 1; i >= 0; i--) {
      const v = f(entries[i]);
      if (v !== null && v !== undefined) return v;
    }
    return null;
  };
  let startedAt: string | null = null;
  let completedAt: string | null = null;
  for (const h of entries) {
    const s = str(h.startedAt) ?? str(h.timestamp);
    const c = str(h.completedAt) ?? str(h.timestamp);
    if (s && time(s) !== null && (!startedAt || time(s)! < time(startedAt)!)) startedAt = s;
    if (c && time(c) !== null && (!completedAt || time(c)! > time(completedAt)!)) completedAt = c;
  }
  return {
    startedAt,
    completedAt,
    tasks: pick((h) => num(h.tasksCompleted)),
    retries: pick((h) => num(h.retriesUsed)),
    verification:
      pick((h) => str(h.verification)) ??
      pick((h) => (typeof h.verificationPassed === "boolean" ? (h.verificationPassed ? "pass" : "fail") : null)),
    review: pick((h) => tallyRecord(h.reviewFindings)),
    overridden: entries.some((h) => h.reviewOverridden === true),
    skipped: entries.some((h) => h.skipped === true),
  };
}

function phaseLogs(state: AutopilotState, decisions: LoggedDecision[]): PhaseLog[] {
  const done = state.currentState === "DONE" || state.currentState === "FINAL_REVIEW";
  return state.phases.map((p, i) => {
    const entries = historyFor(state, i);
    const h = mergeHistory(entries);
    const mine = decisions.filter((d) => d.phase?.index === i);
    const overrides = mine.filter((d) => OVERRIDE_DECISIONS.has(d.decision)).map((d) => d.decision);
    const current = !done && i === state.currentPhase && p.status === "pending";
    const run = state.phaseRun;
    const liveReview = current && run.reviewFindings.length ? tally(run.reviewFindings) : null;
    const skipped = p.status === "skipped" || h.skipped;
    const reviewOverridden = h.overridden || overrides.includes("overrode_review") || (current && run.reviewOverridden);
    const verificationSkipped =
      h.verification === "skipped" && !skipped ? true : overrides.includes("skipped_verification");
    const startedAt = h.startedAt ?? str(p.startedAt) ?? (current ? run.startedAt : null);
    const completedAt = h.completedAt ?? str(p.completedAt) ?? null;
    let outcome: PhaseOutcome;
    if (skipped) outcome = "skipped";
    else if (p.status === "complete" || entries.length > 0)
      outcome = reviewOverridden || verificationSkipped || overrides.length ? "overridden" : "complete";
    else if (current) outcome = "in progress";
    else outcome = "pending";
    const commits = state.commits.filter((c) => c.phase === i);
    return {
      index: i,
      number: i + 1,
      name: p.name,
      complexity: p.complexity,
      complexityOverride: p.complexityOverride ?? null,
      status: p.status,
      planPath: p.planPath ?? null,
      outcome,
      tasks: h.tasks ?? (current ? run.taskCount : null),
      retries: h.retries ?? (current ? run.retriesUsed : null),
      verification: h.verification ?? (current ? run.verification : null),
      reviewFindings: h.review ?? liveReview,
      reviewOverridden,
      verificationSkipped,
      startedAt,
      completedAt,
      durationMs: duration(startedAt, completedAt),
      decisions: mine.map((d) => d.n),
      overrides,
      commits: commits.length,
      recoveryCommits: commits.filter((c) => c.recovery).length,
      cost: costCell(state.usage?.byPhase[String(i + 1)]),
    };
  });
}

// ---- the log -------------------------------------------------------------------------------

function headline(state: AutopilotState, phases: PhaseLog[]): DecisionLog["outcome"] {
  const total = phases.length;
  const complete = phases.filter((p) => p.outcome === "complete" || p.outcome === "overridden").length;
  const skipped = phases.filter((p) => p.outcome === "skipped").length;
  const counts = `${complete} of ${total} phase${total === 1 ? "" : "s"} complete${skipped ? `, ${skipped} skipped` : ""}`;
  if (state.currentState === "DONE") {
    const fr = state.finalReview.status;
    return { status: "done", headline: `Done: ${counts}; final review ${fr === "pending" ? "not recorded" : fr}.` };
  }
  const where = state.currentState === "FINAL_REVIEW" ? "the final review" : `Phase ${state.currentPhase + 1}`;
  if (state.stopped) return { status: "stopped", headline: `Stopped at ${state.currentState} (${where}): ${counts}.` };
  return { status: "in progress", headline: `In progress at ${state.currentState} (${where}): ${counts}.` };
}

export function buildDecisionLog(state: AutopilotState, slug: string): DecisionLog {
  const decisions = state.decisions.map((d, i) => logDecision(state, d, i));
  const findings = findingLogs(state);
  const phases = phaseLogs(state, decisions);
  const commits: CommitLog[] = state.commits.map((c) => ({
    sha: c.sha,
    short: c.sha.slice(0, 7),
    subject: c.subject ?? c.label,
    label: c.label,
    recovery: c.recovery === true,
    phase: phaseRef(state, c.phase),
    timestamp: str(c.timestamp),
  }));
  const finalReview: FinalReviewLog = {
    status: state.finalReview.status,
    findings: tally(state.finalReview.findings),
    items: finalItems(state, findings),
    fixRounds: num(state.finalReview.retryCount) ?? 0,
    cost: costCell(state.usage?.byPhase.final),
    decisions: decisions
      .filter((d) => d.kind === "final-review" || (d.state === "FINAL_REVIEW" && !d.phase))
      .map((d) => d.n),
  };
  const byWho = Object.fromEntries(WHO.map((w) => [w, 0])) as Record<Who, number>;
  for (const d of decisions) byWho[d.who] += 1;
  const plans = { auto: 0, fast: 0, paused: 0 };
  for (const d of decisions) if (d.plan) plans[d.plan.mode] += 1;
  const reviewFindings = { blocking: 0, warning: 0, note: 0 };
  for (const p of phases)
    if (p.reviewFindings)
      for (const k of ["blocking", "warning", "note"] as const) reviewFindings[k] += p.reviewFindings[k];
  const starts = [
    ...phases.map((p) => p.startedAt),
    ...decisions.map((d) => d.timestamp),
    ...commits.map((c) => c.timestamp),
  ].filter((t): t is string => time(t) !== null);
  const ends = [...starts, ...phases.map((p) => p.completedAt)].filter((t): t is string => time(t) !== null);
  if (state.currentState === "DONE" && time(state.updatedAt) !== null) ends.push(state.updatedAt!);
  const startedAt = starts.length ? starts.reduce((a, b) => (time(b)! < time(a)! ? b : a)) : null;
  const endedAt = ends.length ? ends.reduce((a, b) => (time(b)! > time(a)! ? b : a)) : null;
  const totals: Totals = {
    phases: {
      total: phases.length,
      complete: phases.filter((p) => p.outcome === "complete" || p.outcome === "overridden").length,
      skipped: phases.filter((p) => p.outcome === "skipped").length,
      pending: phases.filter((p) => p.outcome === "pending" || p.outcome === "in progress").length,
    },
    tasks: phases.reduce((n, p) => n + (p.outcome === "in progress" ? 0 : (p.tasks ?? 0)), 0),
    retries: phases.reduce((n, p) => n + (p.retries ?? 0), 0),
    decisions: { total: decisions.length, ...byWho },
    plans,
    overrides: decisions.filter((d) => OVERRIDE_DECISIONS.has(d.decision)).length,
    commits: { total: commits.length, recovery: commits.filter((c) => c.recovery).length },
    reviewFindings,
    startedAt,
    endedAt,
    durationMs: duration(startedAt, endedAt),
  };
  const inPhase =
    state.currentState !== "DONE" && state.currentState !== "FINAL_REVIEW" && state.currentState !== "INIT";
  return {
    logVersion: DECISION_LOG_VERSION,
    session: slug,
    title: titleOf(state),
    spec: state.specPath,
    rigor: state.rigorLevel,
    reviewPlans: state.reviewPlans,
    currentState: state.currentState,
    stage: state.stage ?? null,
    currentPhase: inPhase ? phaseRef(state, state.currentPhase) : null,
    stopped: state.stopped === true,
    startingCommit: state.startingCommit ?? null,
    updatedAt: str(state.updatedAt),
    outcome: headline(state, phases),
    decisions,
    phases,
    finalReview,
    commits,
    waves: waveLogs(state, (i) => phaseRef(state, i)),
    checks: checkRounds(state),
    findings,
    totals,
    cost: sessionCost(state),
  };
}
