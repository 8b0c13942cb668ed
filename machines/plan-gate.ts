// What the plan gate records and reports: the signals as read, the plan's hash and waves, its notice.
import type { AutopilotState, Decision, Notice } from "../src/session/schema.js";
import { firedSignals, signalsFor } from "../src/rules/signals.js";

/** A parallel session's waves, recorded with the plan decision. */
export function planWaves(context: AutopilotState): Pick<Decision, "waves"> {
  return context.phaseRun.waves ? { waves: context.phaseRun.waves } : {};
}

/**
 * A revised plan's waves once an executor's plan defect sent the plan back mid-phase: the tasks
 * already merged are left out, and the rest go on in waves (each task in its own worktree) even
 * when too few remain to run at once, so none runs in the checkout over merged work.
 */
export function wavesWithout<W extends { parallel: boolean; waves: string[][]; reason: string } | null>(
  plan: W,
  merged: readonly string[] | undefined,
): W {
  if (!plan || merged === undefined) return plan;
  const done = new Set(merged);
  const waves = plan.waves.map((w) => w.filter((t) => !done.has(t))).filter((w) => w.length);
  const reason = merged.length
    ? `${plan.reason}; tasks ${merged.join(", ")} are merged already, the rest go on in waves`
    : plan.reason;
  return { ...plan, parallel: true, waves, reason };
}

export function planHash(context: AutopilotState): Pick<Decision, "planSha256"> {
  const h = context.phaseRun.planSha256;
  return h ? { planSha256: h } : {};
}

/** The plan gate's report, with the signals as read now. */
export function gateNotice(context: AutopilotState, mode: "fast" | "auto" | "pause"): Notice {
  const signals = signalsFor(context);
  return {
    kind: "planGate",
    phaseNumber: context.currentPhase + 1,
    phaseName: context.phases[context.currentPhase].name,
    signals,
    fired: mode === "pause" ? firedSignals(signals) : [],
    rigor: context.rigorLevel,
    mode,
    checkpointCount: context.phaseRun.checkpointCount ?? 0,
    ...(context.phaseRun.assumptions?.length ? { assumptions: [...context.phaseRun.assumptions] } : {}),
    ...(context.phaseRun.deferred?.length ? { deferred: [...context.phaseRun.deferred] } : {}),
    ...(context.phaseRun.waves ? { waves: context.phaseRun.waves } : {}),
  };
}

/** "Phase 2: Name", as a notice's fields. */
export function phaseNamed(context: AutopilotState): { phaseNumber: number; phaseName: string | null } {
  return { phaseNumber: context.currentPhase + 1, phaseName: context.phases[context.currentPhase]?.name ?? null };
}

export function planSignals(context: AutopilotState): Pick<Decision, "signals" | "fired"> {
  const signals = signalsFor(context);
  return { signals, fired: firedSignals(signals) };
}
