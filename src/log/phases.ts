// The decision log's phases: each phase's outcome, counts, review findings, overrides, time and
// cost, from its history entries (several per phase in upstream files), its decisions and, for the
// phase in progress, the state's current run.
import type { AutopilotState, HistoryEntry } from "../session/schema.js";
import { costCell } from "./cost.js";
import { isOverride } from "./decisions.js";
import { duration, num, str, tally, tallyRecord, time } from "./read.js";
import type { LoggedDecision, PhaseLog, PhaseOutcome } from "./shape.js";

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

export function phaseLogs(state: AutopilotState, decisions: LoggedDecision[]): PhaseLog[] {
  const done = state.currentState === "DONE" || state.currentState === "FINAL_REVIEW";
  return state.phases.map((p, i) => {
    const entries = historyFor(state, i);
    const h = mergeHistory(entries);
    const mine = decisions.filter((d) => d.phase?.index === i);
    const overrides = mine.filter((d) => isOverride(d.decision)).map((d) => d.decision);
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
