// The decision log: what the session decided, who decided it and why, phase by phase. A plain,
// JSON-able object built from a (migrated) state file, so every consumer shows the same thing:
// `autopilot log` (md, json, html), the MCP `autopilot_decisions` tool and the
// `autopilot://sessions/{slug}/decisions` resource.
//
// Pure: no I/O, no clock. Upstream files reach us through the store's migration, which keeps their
// quirks (plain-string decisions become `{decision: "note", note}`, missing `by`, history entries
// with only some fields); every field below that the file could not supply is null rather than a
// guess, and the few inferences we make are marked (`whoInferred`, `phaseInferred`).
import type { AutopilotState } from "../session/schema.js";
import { waveLogs } from "./waves.js";
import { costCell, sessionCost } from "./cost.js";
import { checkRounds, finalItems, findingLogs } from "./checks.js";
import { titleOf } from "./format.js";
import { isOverride, logDecision } from "./decisions.js";
import { phaseLogs } from "./phases.js";
import { duration, num, phaseRef, str, tally, time } from "./read.js";
import {
  DECISION_LOG_VERSION,
  WHO,
  type CommitLog,
  type DecisionLog,
  type FinalReviewLog,
  type PhaseLog,
  type Totals,
  type Who,
} from "./shape.js";

export type { CheckRoundLog, FindingLog } from "./checks.js";
export type { DecisionLog, FinalReviewLog, LoggedDecision, PhaseLog, SeverityTally } from "./shape.js";
export { signalRows } from "./decisions.js";
export { formatDuration } from "./format.js";

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
    overrides: decisions.filter((d) => isOverride(d.decision)).length,
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
