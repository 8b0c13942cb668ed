// Text the user sees with a Step, formatted the way the harness-autopilot skill shows it. Pure.
import type { AutopilotState, Finding, Signals } from "../src/session/schema.js";
import { SIGNAL_DEFS, type SignalName } from "./signals.js";

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

export function phaseSummaryReport(state: AutopilotState, index: number): string {
  const phase = state.phases[index];
  const run = state.phaseRun;
  const counts = countBySeverity(run.reviewFindings);
  const status = phase.status === "skipped" ? "SKIPPED" : "COMPLETE";
  const lines = [`Phase ${index + 1}: ${phase.name} — ${status}`];
  if (phase.status !== "skipped") {
    const tasks = run.taskCount ?? 0;
    const verification = run.verification ?? "not run";
    lines.push(
      `Tasks: ${tasks}/${tasks} | Retries: ${run.retriesUsed} | Verification: ${verification} | Review: ${counts.blocking} blocking, ${counts.warning} warning, ${counts.note} note${run.reviewOverridden ? " (overridden)" : ""}`,
    );
  }
  const next = state.phases[index + 1];
  if (next) {
    lines.push(
      `Next: Phase ${index + 2}: ${next.name} (complexity: ${next.complexityOverride ?? next.complexity}). Continue? (yes / stop)`,
    );
  } else {
    lines.push("All phases done. Starting the final review of the whole change.");
  }
  return lines.join("\n");
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

export function doneReport(state: AutopilotState): string {
  const t = doneTotals(state);
  const f = t.finalFindings;
  const lines = [
    "All phases complete.",
    `Total: ${t.phasesCompleted} phases${t.phasesSkipped ? ` (+${t.phasesSkipped} skipped)` : ""}, ${t.tasks} tasks, ${t.retries} ${t.retries === 1 ? "retry" : "retries"}`,
    `Final review: ${t.finalReviewStatus} (${f.blocking} blocking, ${f.warning} warning, ${f.note} note)`,
  ];
  if (t.overriddenReviews) lines.push(`Overridden reviews: ${t.overriddenReviews}`);
  return lines.join("\n");
}
