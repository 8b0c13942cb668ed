// Reports the user sees with a Step: the plan gate's text (its lines come from the signal registry)
// and the facts of the phase summary and DONE notices (src/session/notices.ts words them). Pure.
import type { AutopilotState, Finding, Signals } from "../src/session/schema.js";
import { SIGNAL_DEFS, type SignalName } from "./signals.js";
import type { NoticeOf } from "../src/session/notices.js";

export { TASK_THRESHOLD, type SignalName } from "./signals.js";

export function countBySeverity(findings: Finding[]): { blocking: number; warning: number; note: number } {
  const out = { blocking: 0, warning: 0, note: 0 };
  for (const f of findings) out[f.severity] += 1;
  return out;
}

/** The structured report the skill prints when a plan is auto-approved or paused. */
export function planGateReport(opts: {
  phaseNumber: number;
  phaseName: string;
  signals: Signals;
  fired: SignalName[];
  rigor: AutopilotState["rigorLevel"];
  mode: "auto" | "fast" | "pause";
  checkpointCount: number;
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
  if (opts.mode === "pause") {
    lines.push(
      `  Checkpoints: ${opts.checkpointCount} | Estimated time: ~${signals.taskCount * 3} min`,
    );
    for (const c of signals.plannerConcerns) lines.push(`  - concern: ${c}`);
  }
  return lines.join("\n");
}

/** The summary shown when a phase completes, with its figures as they are at that moment. */
export function phaseSummaryNotice(state: AutopilotState, index: number): NoticeOf<"phaseSummary"> {
  const phase = state.phases[index];
  const run = state.phaseRun;
  const next = state.phases[index + 1];
  return {
    kind: "phaseSummary",
    phaseNumber: index + 1,
    name: phase.name,
    skipped: phase.status === "skipped",
    tasks: run.taskCount ?? 0,
    retries: run.retriesUsed,
    verification: run.verification ?? "not run",
    counts: countBySeverity(run.reviewFindings),
    reviewOverridden: run.reviewOverridden ?? false,
    next: next ? { phaseNumber: index + 2, name: next.name, complexity: next.complexityOverride ?? next.complexity } : null,
  };
}

export interface DoneTotals {
  phasesCompleted: number;
  phasesSkipped: number;
  tasks: number;
  retries: number;
  finalReviewStatus: string;
  finalFindings: { blocking: number; warning: number; note: number };
  overriddenReviews: number;
  startedAt: string | null;
  completedAt: string | null;
}

export function doneTotals(state: AutopilotState): DoneTotals {
  let tasks = 0;
  let retries = 0;
  let startedAt: string | null = null;
  let completedAt: string | null = null;
  for (const h of state.history) {
    tasks += h.tasksCompleted ?? 0;
    retries += h.retriesUsed ?? 0;
    if (h.startedAt && (!startedAt || h.startedAt < startedAt)) startedAt = h.startedAt;
    if (h.completedAt && (!completedAt || h.completedAt > completedAt)) completedAt = h.completedAt;
  }
  return {
    phasesCompleted: state.phases.filter((p) => p.status === "complete").length,
    phasesSkipped: state.phases.filter((p) => p.status === "skipped").length,
    tasks,
    retries,
    finalReviewStatus: state.finalReview.status,
    finalFindings: countBySeverity(state.finalReview.findings),
    overriddenReviews: state.decisions.filter(
      (d) => d.decision === "overrode_review" || d.decision === "overrode_final_review",
    ).length,
    startedAt,
    completedAt,
  };
}

/** The DONE report, with the session's totals as they are when it finishes. */
export function doneNotice(state: AutopilotState): NoticeOf<"done"> {
  const t = doneTotals(state);
  return {
    kind: "done",
    phasesCompleted: t.phasesCompleted,
    phasesSkipped: t.phasesSkipped,
    tasks: t.tasks,
    retries: t.retries,
    finalReviewStatus: t.finalReviewStatus,
    finalFindings: t.finalFindings,
    overriddenReviews: t.overriddenReviews,
  };
}
