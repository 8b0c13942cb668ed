// The signal registry: the concern signals that decide whether a plan pauses for a person (the
// skill's "conditional review gate"). One entry per signal holds everything about it: its name,
// its label in the logs, the rule in words, the fields it records in a decision's snapshot (the
// `Signals` schema of the state file is built from them), how it is read from the session and the
// plan facts, when it fires, and how it reads in the gate report and the logs.
//
// The machine's guards (signalsFor, firedSignals), the gate report (planGateReport, at the end of
// this file), the state schema and every log format (src/log/model.ts, markdown.ts, html.ts)
// iterate this list. Adding a signal is one entry here (plus a plan fact in src/engine/facts.ts when it needs one, and a test).
import { z } from "zod";
import { Complexity, type RigorLevel } from "../vocabulary.js";
import { RIGOR } from "./policy.js";

/** Plans with more tasks than this pause for review (the skill's threshold). */
const TASK_THRESHOLD = 15;

/**
 * What signals are read from: the session's flags, the current phase and the plan facts the engine
 * stored in `phaseRun` (an AutopilotState is one; declared here, not imported, because the state
 * schema is built from this registry).
 */
export interface SignalSource {
  reviewPlans: boolean;
  rigorLevel: RigorLevel;
  currentPhase: number;
  phases: readonly { complexity: Complexity; complexityOverride: Complexity | null }[];
  phaseRun: { concerns: readonly string[]; taskCount?: number | null; planProblems?: readonly string[] };
}

/** What a gate-report line may look at besides the signal's own fields. */
interface GateLineContext {
  /** The whole snapshot (other signals' fields), for lines that combine two signals. */
  snapshot: Record<string, unknown>;
  /** Whether a named signal fired. */
  has(name: string): boolean;
  rigor: RigorLevel;
}

export interface SignalDef<N extends string, F extends z.ZodRawShape> {
  name: N;
  /** The signal's label in the decision log. */
  label: string;
  /** Its column heading in the Markdown log's plan-approval table. */
  column: string;
  /** When it fires, in words ("fires when ..."). */
  rule(x: z.infer<z.ZodObject<F>>): string;
  /** The fields it records in a decision's signal snapshot, in the skill's field names. */
  fields: F;
  /** How it is read from the session (the plan facts are in `phaseRun`). */
  read(state: SignalSource): z.infer<z.ZodObject<F>>;
  /** Tolerant reading of a recorded snapshot for the logs (old or hand-written files). */
  normalize?(raw: Record<string, unknown>): Partial<z.infer<z.ZodObject<F>>>;
  /** When it fires. */
  fires(x: z.infer<z.ZodObject<F>>): boolean;
  /** The recorded value and a short text of it, for the logs. */
  value(x: z.infer<z.ZodObject<F>>): boolean | string | number | string[] | null;
  display(x: z.infer<z.ZodObject<F>>): string;
  /** Its line in the gate report (null: another signal's line covers it). */
  gateLine(x: z.infer<z.ZodObject<F>>, triggered: boolean, ctx: GateLineContext): string | null;
}

function signal<const N extends string, F extends z.ZodRawShape>(def: SignalDef<N, F>): SignalDef<N, F> {
  return def;
}

const triggeredMark = (t: boolean) => (t ? " (triggered)" : "");

/** The signals, in the skill's order. */
export const SIGNALS = [
  signal({
    name: "reviewPlans",
    label: "Review plans flag",
    column: "Review plans",
    rule: () => "--review-plans or --thorough is set",
    fields: { reviewPlans: z.boolean() },
    read: (s) => ({ reviewPlans: s.reviewPlans || RIGOR[s.rigorLevel].planGate === "always" }),
    fires: (x) => x.reviewPlans,
    value: (x) => x.reviewPlans,
    display: (x) => (x.reviewPlans ? "on" : "off"),
    gateLine: (x, t, ctx) =>
      `Review mode: ${
        x.reviewPlans
          ? RIGOR[ctx.rigor].planGate === "always"
            ? `manual (--${ctx.rigor}: every plan is reviewed)`
            : "manual (--review-plans flag set)"
          : "auto"
      }${triggeredMark(t)}`,
  }),
  signal({
    name: "highComplexity",
    label: "Phase complexity",
    column: "Complexity",
    rule: () => "the spec marks the phase high",
    fields: { highComplexity: Complexity },
    read: (s) => ({ highComplexity: s.phases[s.currentPhase].complexity }),
    fires: (x) => x.highComplexity === "high",
    value: (x) => x.highComplexity,
    display: (x) => String(x.highComplexity),
    gateLine: (x, t, ctx) => {
      const override = (ctx.snapshot.complexityOverride ?? null) as Complexity | null;
      if (override === null) return `Complexity: ${x.highComplexity}${t ? " (triggered)" : " (no override)"}`;
      return `Complexity override: ${x.highComplexity} -> ${override}${triggeredMark(ctx.has("complexityOverride"))}`;
    },
  }),
  signal({
    name: "complexityOverride",
    label: "Complexity override",
    column: "Override",
    rule: () => "the plan outgrew a low rating (>10 tasks or >3 checkpoints)",
    fields: { complexityOverride: Complexity.nullable() },
    read: (s) => ({ complexityOverride: s.phases[s.currentPhase].complexityOverride }),
    fires: (x) => x.complexityOverride !== null,
    value: (x) => x.complexityOverride,
    display: (x) => x.complexityOverride ?? "none",
    // Shown on the complexity line.
    gateLine: () => null,
  }),
  signal({
    name: "plannerConcerns",
    label: "Planner concerns",
    column: "Concerns",
    rule: () => "the planner raised any concern",
    fields: { plannerConcerns: z.array(z.string()) },
    read: (s) => ({ plannerConcerns: [...s.phaseRun.concerns] }),
    normalize: (raw) => ({
      plannerConcerns: Array.isArray(raw.plannerConcerns) ? raw.plannerConcerns.map(String) : [],
    }),
    fires: (x) => x.plannerConcerns.length > 0,
    value: (x) => x.plannerConcerns,
    display: (x) =>
      x.plannerConcerns.length ? `${x.plannerConcerns.length}: ${x.plannerConcerns.join("; ")}` : "none",
    gateLine: (x, t) =>
      `Planner concerns: ${x.plannerConcerns.length ? `${x.plannerConcerns.length} concern(s)${triggeredMark(t)}` : "none"}`,
  }),
  signal({
    name: "taskCount",
    label: "Task count",
    column: "Tasks",
    rule: (x) => `more than ${x.taskThreshold} tasks`,
    fields: { taskCount: z.number().int().nonnegative(), taskThreshold: z.number().int() },
    read: (s) => ({ taskCount: s.phaseRun.taskCount ?? 0, taskThreshold: TASK_THRESHOLD }),
    normalize: (raw) => ({
      taskThreshold:
        typeof raw.taskThreshold === "number" && Number.isFinite(raw.taskThreshold)
          ? raw.taskThreshold
          : TASK_THRESHOLD,
    }),
    fires: (x) => x.taskCount > x.taskThreshold,
    value: (x) => x.taskCount,
    display: (x) => String(x.taskCount),
    gateLine: (x, t) => `Tasks: ${x.taskCount} (threshold: ${x.taskThreshold})${triggeredMark(t)}`,
  }),
  signal({
    name: "planChecks",
    label: "Plan check",
    column: "Plan check",
    rule: () =>
      "the server's plan check still finds problems (vague, unverifiable or oversized tasks) after the planner's tries, or in a plan it did not write",
    // Optional: decisions recorded before this signal existed have no such field.
    fields: { planProblems: z.array(z.string()).optional() },
    read: (s) => ({ planProblems: [...(s.phaseRun.planProblems ?? [])] }),
    normalize: (raw) => ({ planProblems: Array.isArray(raw.planProblems) ? raw.planProblems.map(String) : [] }),
    fires: (x) => (x.planProblems ?? []).length > 0,
    value: (x) => x.planProblems ?? [],
    display: (x) =>
      (x.planProblems ?? []).length ? `${x.planProblems!.length}: ${x.planProblems!.join("; ")}` : "none",
    // Said only when it found something: the skill's auto-approve report has no such line.
    gateLine: (x, t) =>
      (x.planProblems ?? []).length ? `Plan check: ${x.planProblems!.length} problem(s)${triggeredMark(t)}` : null,
  }),
] as const;

type Entry = (typeof SIGNALS)[number];
export type SignalName = Entry["name"];
export const SIGNAL_NAMES = SIGNALS.map<SignalName>((s) => s.name);

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type SignalFields = UnionToIntersection<Entry["fields"]>;

/** The signal snapshot recorded with every plan decision, in the skill's own field names. */
export const Signals = z.looseObject(Object.assign({}, ...SIGNALS.map((s) => s.fields)) as SignalFields);
export type Signals = z.infer<typeof Signals>;

// Each entry's functions see only its own fields; a whole snapshot carries them all, so the list
// can be used as one of general definitions (method parameters are bivariant).
type AnyDef = SignalDef<SignalName, z.ZodRawShape>;
/**
 * The registry, its functions callable on a whole snapshot: the same list as SIGNALS, typed for
 * code that iterates it.
 * @alias
 */
export const SIGNAL_DEFS: readonly AnyDef[] = SIGNALS;

/** The snapshot of every signal for the current phase. */
export function signalsFor(state: SignalSource): Signals {
  return Object.assign({}, ...SIGNAL_DEFS.map((s) => s.read(state))) as Signals;
}

/** The names of the signals that fire, in the registry's order. */
export function firedSignals(signals: Signals): SignalName[] {
  return SIGNAL_DEFS.filter((s) => s.fires(signals)).map((s) => s.name);
}

/** A recorded snapshot made whole for the logs: each signal's tolerant reading applied. */
export function normalizedSignals(raw: Signals): Signals {
  return Object.assign(
    { ...raw },
    ...SIGNAL_DEFS.map((s) => s.normalize?.(raw as Record<string, unknown>) ?? {}),
  ) as Signals;
}

/** The structured report the skill prints when a plan is auto-approved or paused. */
export function planGateReport(opts: {
  phaseNumber: number;
  phaseName: string;
  signals: Signals;
  fired: SignalName[];
  rigor: RigorLevel;
  mode: "auto" | "fast" | "pause";
  checkpointCount: number;
  /** The planner's assumptions and deferred unknowns: shown whatever the mode, never a pause. */
  assumptions?: readonly string[];
  deferred?: readonly string[];
  /** A parallel session's waves (src/markdown/waves.ts). */
  waves?: { parallel: boolean; waves: readonly (readonly string[])[]; reason: string; serialized: readonly string[] };
}): string {
  const { signals, fired } = opts;
  const has = (s: string) => (fired as readonly string[]).includes(s);
  const head =
    opts.mode === "pause"
      ? `Pausing for review -- Phase ${opts.phaseNumber}: ${opts.phaseName}`
      : opts.mode === "fast"
        ? `Auto-approved Phase ${opts.phaseNumber}: ${opts.phaseName} (fast mode — signal evaluation skipped)`
        : `Auto-approved Phase ${opts.phaseNumber}: ${opts.phaseName}`;
  const ctx = { snapshot: signals as Record<string, unknown>, has, rigor: opts.rigor };
  const lines = [head];
  // One line per signal, from the registry (a signal whose line another covers gives none).
  for (const def of SIGNAL_DEFS) {
    const line = def.gateLine(signals, has(def.name), ctx);
    if (line !== null) lines.push(`  ${line}`);
  }
  if (opts.mode === "pause")
    lines.push(`  Checkpoints: ${opts.checkpointCount} | Estimated time: ~${signals.taskCount * 3} min`);
  // Every concern in full, whatever the mode: at --fast it does not pause the plan, so this is where
  // the person sees it (and the assumption the planner built on, below).
  for (const c of signals.plannerConcerns)
    lines.push(`  - concern${opts.mode === "pause" ? "" : " (recorded; it did not pause the plan)"}: ${c}`);
  if (opts.mode === "pause") for (const p of signals.planProblems ?? []) lines.push(`  - plan check: ${p}`);
  if (opts.waves) lines.push(...waveLines(opts.waves));
  for (const a of opts.assumptions ?? []) lines.push(`  - assumption: ${a}`);
  for (const d of opts.deferred ?? []) lines.push(`  - deferred: ${d}`);
  return lines.join("\n");
}

/** A parallel session's waves, as the plan gate's report shows them. */
function waveLines(w: {
  parallel: boolean;
  waves: readonly (readonly string[])[];
  reason: string;
  serialized: readonly string[];
}): string[] {
  const tasks = (wave: readonly string[]) => wave.map((n) => `Task ${n}`).join(", ");
  const lines = [`  Waves: ${w.reason}`];
  if (w.parallel) w.waves.forEach((wave, i) => lines.push(`    wave ${i + 1}: ${tasks(wave)}`));
  for (const s of w.serialized) lines.push(`    serial: ${s}`);
  return lines;
}
