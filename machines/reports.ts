// The facts of the phase summary and DONE notices (src/session/notices.ts words them). Pure.
// The plan gate's text is the signal registry's (planGateReport in ./signals.ts).
import type { AutopilotState } from "../src/session/schema.js";
import type { Finding } from "../src/vocabulary.js";
import type { NoticeOf } from "../src/session/notices.js";
import { fateGroups, fateWords, findingsIn } from "../src/session/findings.js";

export { planGateReport } from "../src/rules/signals.js";

export function countBySeverity(findings: Finding[]): { blocking: number; warning: number; note: number } {
  const out = { blocking: 0, warning: 0, note: 0 };
  for (const f of findings) out[f.severity] += 1;
  return out;
}

/** The summary shown when a phase completes, with its figures as they are at that moment. */
export function phaseSummaryNotice(state: AutopilotState, index: number): NoticeOf<"phaseSummary"> {
  const phase = state.phases[index];
  const run = state.phaseRun;
  const next = state.phases[index + 1];
  const reviewed = findingsIn(state.findingLedger, { source: "review", phase: index });
  return {
    kind: "phaseSummary",
    phaseNumber: index + 1,
    name: phase.name,
    skipped: phase.status === "skipped",
    tasks: run.taskCount ?? 0,
    retries: run.retriesUsed,
    verification: run.verification ?? "not run",
    // What the reviewer found first; a fix and a re-review do not make it 0.
    counts: countBySeverity(run.reviewRounds?.[0]?.findings ?? run.reviewFindings),
    reviewOverridden: run.reviewOverridden ?? false,
    next: next
      ? { phaseNumber: index + 2, name: next.name, complexity: next.complexityOverride ?? next.complexity }
      : null,
    verificationFailures: (run.verificationRounds ?? []).filter((r) => r.verdict === "fail").length,
    fixRounds: run.fixRounds ?? 0,
    reReviews: Math.max(0, (run.reviewRounds?.length ?? 0) - 1),
    ...(reviewed.length ? { reviewFates: fateGroups(reviewed) } : {}),
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
  // The last phase's end is not the session's: the final review's fix rounds commit after it.
  for (const c of state.commits)
    if (c.timestamp && completedAt && Date.parse(c.timestamp) > Date.parse(completedAt)) completedAt = c.timestamp;
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
  const fr = state.finalReview;
  // What the user must see: every finding the final review left standing (blocking ones only when
  // they were overridden), whole; and how many blocking findings its fix rounds resolved.
  // With the ledger: each finding of the final review once, the fixed ones counted, the rest shown with their fate.
  const tracked = findingsIn(state.findingLedger, { source: "final", phase: null });
  const shown: (Finding & { fate?: string })[] = tracked.length
    ? tracked.filter((e) => e.fate !== "fixed").map((e) => ({ ...e, fate: fateWords(e, { short: true }) }))
    : fr.findings.filter((f) => f.severity !== "blocking" || fr.status === "overridden");
  const rounds = fr.rounds ?? [];
  const fixedBlocking = tracked.length
    ? tracked.filter((e) => e.fate === "fixed" && e.severity === "blocking").length
    : rounds.length > 1
      ? countBySeverity(rounds[0].findings).blocking
      : 0;
  return {
    findings: shown.map((f) => ({
      severity: f.severity,
      title: f.title,
      ...(f.file ? { file: f.file } : {}),
      ...(f.line !== undefined ? { line: f.line } : {}),
      ...(f.rationale ? { rationale: f.rationale } : {}),
      ...(f.fate ? { fate: f.fate } : {}),
    })),
    ...(fixedBlocking ? { fixedBlocking } : {}),
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

/**
 * What a resumed session has behind it, one line each: the phases done (with what verification and
 * review found), where the current phase stands, the commits, and the latest decisions a person or
 * the host made. Bounded: the report reaches the host model.
 */
export function sessionSoFar(state: AutopilotState): string[] {
  const lines: string[] = [];
  const recent = state.history.slice(-3);
  if (state.history.length > recent.length)
    lines.push(`  ${state.history.length - recent.length} earlier phase(s) done (autopilot_status lists them).`);
  for (const h of recent) {
    const c = h.reviewFindings ?? {};
    const vf = h.verificationFailures ? `, ${h.verificationFailures} failed verification(s) fixed` : "";
    const fx = h.fixRounds ? `, ${h.fixRounds} fix round(s)` : "";
    const skipped = (h as Record<string, unknown>).skipped === true;
    lines.push(
      `  Done: Phase ${(h.phase ?? 0) + 1}: ${h.name ?? "?"} — ${skipped ? "skipped" : `${h.tasksCompleted ?? 0} tasks, verification ${verificationWord(h)}${vf}${fx}, review ${c.blocking ?? 0} blocking / ${c.warning ?? 0} warning / ${c.note ?? 0} note`}.`,
    );
  }
  const phase = state.phases[state.currentPhase];
  const run = state.phaseRun;
  if (phase && !["DONE", "FINAL_REVIEW"].includes(state.currentState)) {
    const now: string[] = [];
    if (phase.planPath)
      now.push(
        `plan ${phase.planPath}${run.taskCount !== null ? ` (${run.taskCount} tasks)` : ""}${run.approvedPlanSha256 ? ", approved" : ""}`,
      );
    if (run.checkpointsPassed.length) now.push(`committed: ${run.checkpointsPassed.map((c) => `"${c}"`).join(", ")}`);
    const wave = state.currentState === "EXECUTE" ? (run.waveRun?.tasks ?? []) : [];
    if (wave.length) {
      // A parallel wave: which tasks have reported and which executors are still owed (not "next: task 1").
      const owed = wave.filter((t) => t.status === "running" && !t.reported).map((t) => t.task);
      const reported = wave.filter((t) => !(t.status === "running" && !t.reported)).map((t) => t.task);
      const tasks = (list: string[]) => `task${list.length === 1 ? "" : "s"} ${list.join(", ")}`;
      now.push(
        `wave ${run.waveRun!.wave + 1}: ${[reported.length ? `${tasks(reported)} reported` : "", owed.length ? `${tasks(owed)} running` : ""].filter(Boolean).join(", ")}`,
      );
    } else if (run.nextTask && state.currentState === "EXECUTE" && !run.fix) now.push(`next: task ${run.nextTask}`);
    const vf = (run.verificationRounds ?? []).filter((r) => r.verdict === "fail").length;
    if (vf) now.push(`${vf} failed verification(s)`);
    if (run.fix) now.push(`fixing the ${run.fix.source} findings`);
    if ((run.reviewRounds ?? []).length) now.push(`${run.reviewRounds!.length} review round(s)`);
    if (now.length) lines.push(`  This phase: ${now.join("; ")}.`);
  }
  if (state.commits.length)
    lines.push(
      `  Commits so far: ${state.commits.length} (last: ${state.commits.at(-1)!.subject ?? state.commits.at(-1)!.label}).`,
    );
  const asked = state.decisions.filter((d) => d.by !== "auto" && d.answer !== undefined).slice(-4);
  if (asked.length)
    lines.push(
      `  Decided: ${asked
        .map(
          (d) =>
            `${d.phase !== null ? `phase ${d.phase + 1} ` : ""}${d.decision} "${d.answer}"${d.by ? ` (${d.by})` : ""}${d.rationale ? `: ${atWord(d.rationale, 80)}` : ""}`,
        )
        .join("; ")}.`,
    );
  return lines;
}

/** At most `max` characters of a reason, cut between words ("…" where it was cut), never inside one. */
function atWord(s: string, max: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  if (one.length <= max) return one;
  const cut = one.slice(0, max);
  const space = one[max] === " " ? max : cut.lastIndexOf(" ");
  // One word longer than the bound: it is cut, there being no word boundary to cut at.
  return `${(space > 0 ? cut.slice(0, space) : cut.slice(0, max - 1)).replace(/[\s,;:.]+$/, "")}…`;
}

/** A phase record's verification outcome: its recorded word, or what its pass flag says. */
function verificationWord(h: { verificationPassed?: boolean }): string {
  const recorded = (h as Record<string, unknown>).verification;
  if (typeof recorded === "string") return recorded;
  return h.verificationPassed ? "pass" : "not run";
}
