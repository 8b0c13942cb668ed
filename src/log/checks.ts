// The decision log's checks: every verification and review round of every phase and of the final
// review, with the findings each reported, and every finding once with its fate (the state file's
// finding ledger, src/session/findings.ts). A failed verification later fixed and a blocking
// finding a final-review fix round fixed stay in the log with what became of them.
//
// A finished phase keeps its rounds in its history entry (`checkRounds`); one finished before
// that was recorded says what its counts say (verification failures, review rounds). Pure.
import { normalizeSeverity, type AutopilotState, type HistoryEntry } from "../session/schema.js";
import { fateWords, type FindingFate, type FindingSource, type TrackedFinding } from "../session/findings.js";

interface LogPhase {
  index: number;
  number: number;
  name: string | null;
}

export interface FindingLog {
  /** `p1-r1-2`, `p1-v1-1`, `final-r1-1`: the id briefs and gates show. */
  id: string;
  check: FindingSource;
  phase: LogPhase | null;
  /** The round that first reported it, and every round that did. */
  round: number;
  seenIn: number[];
  severity: string;
  title: string;
  file: string | null;
  line: number | null;
  rationale: string | null;
  fate: FindingFate;
  /** The fate in the words every text uses ("fixed in fix round 1 (commit 1a2b3c4)"). */
  fateText: string;
  fixRound: number | null;
  /** fixed: the fix round's commit. */
  commit: string | null;
  /** disputed: the fixer's evidence. */
  evidence: string | null;
  /** overridden, deferred: the decision and who gave it (the state file's `by`). */
  decision: string | null;
  by: string | null;
}

export interface CheckRoundLog {
  check: FindingSource;
  phase: LogPhase | null;
  /** 1-based, per check of the phase (or of the final review). */
  round: number;
  /** Verification: pass or fail. */
  verdict: "pass" | "fail" | null;
  /** Reviews: what was decided about the round (fix, override), null when nothing was. */
  resolution: "fix" | "override" | null;
  /** The ids of the findings the round reported (its findings are in `findings`). */
  findings: string[];
  /** A round from before the ledger: how many it reported by severity (its findings are not known one by one). */
  counts: { blocking: number; warning: number; note: number } | null;
}

function phaseOf(state: AutopilotState, i: number | null): LogPhase | null {
  return i === null ? null : { index: i, number: i + 1, name: state.phases[i]?.name ?? null };
}

export function findingLogs(state: AutopilotState): FindingLog[] {
  return (state.findingLedger ?? []).map((e: TrackedFinding) => ({
    id: e.id,
    check: e.source,
    phase: phaseOf(state, e.phase),
    round: e.round,
    seenIn: [...e.seen],
    severity: e.severity,
    title: e.title,
    file: e.file ?? null,
    line: e.line ?? null,
    rationale: e.rationale ?? null,
    fate: e.fate,
    fateText: fateWords(e),
    fixRound: e.fixRound ?? null,
    commit: e.commit ?? null,
    evidence: e.evidence ?? null,
    decision: e.decision ?? null,
    by: e.by ?? null,
  }));
}

type Rounds = { verdicts: ("pass" | "fail")[]; resolutions: ("fix" | "override" | null)[]; counts: HistoryCounts };
type HistoryCounts = { blocking: number; warning: number; note: number }[] | null;

/** A finished phase's rounds: as its history entry recorded them, else as its counts tell. */
function historyRounds(h: HistoryEntry): Rounds {
  if ((h as Record<string, unknown>).skipped === true) return { verdicts: [], resolutions: [], counts: null };
  const kept = (h as Record<string, unknown>).checkRounds as
    { verification?: ("pass" | "fail")[]; review?: ("fix" | "override" | null)[] } | undefined;
  const counts = (h.reviewRounds ?? (h.reviewFindings ? [h.reviewFindings] : [])).map((c) => ({
    blocking: c.blocking ?? 0,
    warning: c.warning ?? 0,
    note: c.note ?? 0,
  }));
  if (kept) return { verdicts: kept.verification ?? [], resolutions: kept.review ?? [], counts };
  const v = (h as Record<string, unknown>).verification;
  const failed = h.verificationFailures ?? 0;
  const last =
    v === "pass" || h.verificationPassed === true ? ["pass" as const] : v === "fail" ? ["fail" as const] : [];
  return {
    verdicts: [...Array.from({ length: failed }, () => "fail" as const), ...last],
    resolutions: counts.map((_, k) => (k + 1 < counts.length ? ("fix" as const) : null)),
    counts,
  };
}

/** The current phase's rounds, from its working data. */
function liveRounds(state: AutopilotState): Rounds {
  const run = state.phaseRun;
  return {
    verdicts: (run.verificationRounds ?? []).map((r) => r.verdict),
    resolutions: (run.reviewRounds ?? []).map((r) => r.resolution),
    counts: null,
  };
}

export function checkRounds(state: AutopilotState): CheckRoundLog[] {
  const ledger = state.findingLedger ?? [];
  const ids = (source: FindingSource, phase: number | null, round: number) =>
    ledger
      .filter((e) => e.source === source && (source === "final" || e.phase === phase) && e.seen.includes(round))
      .map((e) => e.id);
  const out: CheckRoundLog[] = [];
  const push = (phase: number | null, r: Rounds) => {
    const known = (source: FindingSource) => ledger.some((e) => e.source === source && e.phase === phase);
    r.verdicts.forEach((verdict, k) =>
      out.push({
        check: "verification",
        phase: phaseOf(state, phase),
        round: k + 1,
        verdict,
        resolution: null,
        findings: ids("verification", phase, k + 1),
        counts: null,
      }),
    );
    r.resolutions.forEach((resolution, k) =>
      out.push({
        check: "review",
        phase: phaseOf(state, phase),
        round: k + 1,
        verdict: null,
        resolution,
        findings: ids("review", phase, k + 1),
        counts: known("review") ? null : (r.counts?.[k] ?? null),
      }),
    );
  };
  const inPhase = !["INIT", "FINAL_REVIEW", "DONE"].includes(state.currentState);
  state.phases.forEach((_, i) => {
    const h = state.history.filter((x) => x.phase === i).at(-1);
    if (h) push(i, historyRounds(h));
    else if (inPhase && i === state.currentPhase) push(i, liveRounds(state));
  });
  (state.finalReview.rounds ?? []).forEach((r, k) =>
    out.push({
      check: "final",
      phase: null,
      round: k + 1,
      verdict: null,
      resolution: r.resolution,
      findings: ids("final", null, k + 1),
      counts: null,
    }),
  );
  return out;
}

export interface FinalItem {
  severity: string;
  title: string;
  file: string | null;
  line: number | null;
  rationale: string | null;
  /** With the finding ledger: its id and fate in words (null: a state from before it). */
  id: string | null;
  fate: string | null;
}

/**
 * The final review's findings: each once with its fate (the blocking one a fix round fixed too);
 * a state from before the ledger, its last round's findings.
 */
export function finalItems(state: AutopilotState, findings: readonly FindingLog[]): FinalItem[] {
  const tracked = findings.filter((f) => f.check === "final");
  if (tracked.length)
    return tracked.map((f) => ({
      severity: f.severity,
      title: f.title,
      file: f.file,
      line: f.line,
      rationale: f.rationale,
      id: f.id,
      fate: f.fateText,
    }));
  return state.finalReview.findings.map((f) => ({
    severity: normalizeSeverity(f.severity) ?? "note",
    title: String(f.title ?? ""),
    file: typeof f.file === "string" && f.file ? f.file : null,
    line: typeof f.line === "number" ? f.line : null,
    rationale: typeof f.rationale === "string" && f.rationale ? f.rationale : null,
    id: null,
    fate: null,
  }));
}
