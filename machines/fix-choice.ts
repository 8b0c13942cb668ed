// What a fix round fixes, as the person chose it at a review or verification gate: the blocking
// findings ("fix"), the blocking and the warnings ("fix blocking and warnings"), every warning at a
// gate that found no blocking one ("fix warnings"), or the findings their reason names by number
// ("fix these": "1, 3", or their ids). The gate shows the findings numbered, each with its id in the
// finding ledger (src/engine/step.ts), the engine refuses a "fix these" that names none
// (src/engine/answers.ts), the machine records the choice in the round's `sent` and the fix round
// takes exactly those (machines/actions/review.ts, machines/fates.ts).
import type { AutopilotState, Finding } from "../src/session/schema.js";
import { roundIds, verificationFindings, type FindingSource } from "../src/session/findings.js";
import { findingLine } from "./blocking.js";

/** A gate's findings: a review's as reported, or a verification's (plain text, every one a failure). */
export type GateFinding = Finding | string;

/** The findings a gate shows, in the order it numbers them. */
export function gateFindings(state: AutopilotState, gate: string): GateFinding[] {
  switch (gate) {
    case "verifyFailed":
      return state.phaseRun.verificationFindings;
    case "reviewBlocked":
    case "reviewWarnings":
      return state.phaseRun.reviewFindings;
    case "finalBlocked":
      return state.finalReview.findings;
    default:
      return [];
  }
}

/** Which check a gate's findings come from. */
export function gateSource(gate: string): FindingSource {
  return gate === "verifyFailed" ? "verification" : gate === "finalBlocked" ? "final" : "review";
}

/** The ledger ids of the last round's findings of a check, in the gate's order (undefined where the ledger has none). */
export function gateIds(state: AutopilotState, source: FindingSource): (string | undefined)[] {
  const ledger = state.findingLedger ?? [];
  if (source === "verification")
    return roundIds(
      ledger,
      { source, phase: state.currentPhase },
      (state.phaseRun.verificationRounds ?? []).length,
      verificationFindings(state.phaseRun.verificationFindings),
    );
  if (source === "final")
    return roundIds(
      ledger,
      { source, phase: null },
      (state.finalReview.rounds ?? []).length,
      state.finalReview.findings,
    );
  return roundIds(
    ledger,
    { source, phase: state.currentPhase },
    (state.phaseRun.reviewRounds ?? []).length,
    state.phaseRun.reviewFindings,
  );
}

function severityOf(f: GateFinding): string {
  return typeof f === "string" ? "failure" : f.severity;
}

/**
 * The findings (0-based) a "fix these" names: by their number in the gate, or by their id, in the
 * reason, else in the reply the host relayed. Empty: it names none of the gate's findings.
 */
export function chosenIndices(
  ev: { rationale?: string; userWords?: string },
  count: number,
  ids: readonly (string | undefined)[] = [],
): number[] {
  for (const text of [ev.rationale, ev.userWords]) {
    const t = text ?? "";
    const byId = ids.flatMap((id, i) => (id && new RegExp(`(^|[^\\w-])${id}($|[^\\w-])`).test(t) ? [i] : []));
    // Numbers that are not part of an id ("p1-r1-2" names finding p1-r1-2, not 1 and 2).
    const plain = t.replace(/[\w]+-[\w-]+/g, " ");
    const byNumber = [...plain.matchAll(/\b\d+\b/g)].map((m) => Number(m[0]) - 1).filter((i) => i >= 0 && i < count);
    const found = [...new Set([...byId, ...byNumber])];
    if (found.length) return found.sort((a, b) => a - b);
  }
  return [];
}

/** Which of `findings` (0-based) an answer sends to the fix round. */
export function sentIndices(
  answer: string,
  findings: readonly GateFinding[],
  ev: { rationale?: string; userWords?: string },
  ids: readonly (string | undefined)[] = [],
): number[] {
  const all = findings.map((_, i) => i);
  const by = (keep: (s: string) => boolean) => all.filter((i) => keep(severityOf(findings[i])));
  switch (answer) {
    case "fix these":
      return chosenIndices(ev, findings.length, ids);
    case "fix blocking and warnings":
      return by((s) => s === "blocking" || s === "warning" || s === "failure");
    case "fix warnings":
      return by((s) => s === "warning");
    default:
      // "fix": the blocking findings; a verification's are all failures.
      return by((s) => s === "blocking" || s === "failure");
  }
}

/**
 * One finding as the gate shows it: its ledger id, severity, place and title (and, when blocking,
 * why and how it triggers).
 */
export function gateLine(f: GateFinding, id?: string): string {
  const tag = id ? `[${id}] ` : "";
  if (typeof f === "string") return `${tag}${f}`;
  if (f.severity === "blocking") return `${tag}${f.severity}: ${findingLine(f)}`;
  return `${tag}${f.severity}: ${f.title}${f.file ? ` (${f.file}${f.line ? `:${f.line}` : ""})` : ""}`;
}

/** The lines of the findings a fix round is given: each whole (a fixer needs the why of a warning too). */
export function fixLines(findings: readonly GateFinding[], sent: readonly number[]): string[] {
  return sent.flatMap((i) => {
    const f = findings[i];
    if (f === undefined) return [];
    return typeof f === "string" ? [f] : [`${f.severity}: ${findingLine(f)}`];
  });
}
