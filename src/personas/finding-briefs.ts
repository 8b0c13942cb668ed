// The parts of a brief that say which findings a persona acts on, from the session's finding
// ledger (src/session/findings.ts): what a fix round fixes, and what a re-check or a re-review
// checks again — which round this is, what the round before found, and what was fixed since.
// Each finding carries its id and its fate in the words every other text uses.
import type { AutopilotState } from "../session/schema.js";
import { findingLine } from "../../machines/blocking.js";
import { findingsIn, trackedLine, type FindingScope, type TrackedFinding } from "../session/findings.js";

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** A finding as the fixer reads it: its id, where, what, why and how it triggers (no fate: it is being fixed). */
function toFix(e: TrackedFinding): string {
  const loc = e.file ? ` ${e.file}${e.line !== undefined ? `:${e.line}` : ""}` : "";
  const flat = (s: string) => s.replace(/\s+/g, " ").trim();
  return `- [${e.id}] ${e.severity}${loc} — ${flat(e.title)}${e.rationale ? `: ${flat(e.rationale)}` : ""}${e.scenario ? ` Scenario: ${flat(e.scenario)}` : ""}`;
}

const DISPUTE = 'A finding you hold is wrong: leave it and dispute it by its id ("finding": "<id>") with the evidence.';

/** EXECUTE.fixing: the findings this fix round fixes, by id. */
export function phaseFixSection(state: AutopilotState): string[] {
  const f = state.phaseRun.fix;
  if (!f) return [];
  const sent = findingsIn(state.findingLedger, { source: f.source, phase: state.currentPhase }).filter((e) =>
    f.ids?.includes(e.id),
  );
  const what =
    f.source === "verification"
      ? "Verification failures"
      : sent.length && sent.some((e) => e.severity !== "blocking")
        ? "Review findings"
        : "Blocking review findings";
  return [
    `## ${what} to fix${f.round ? ` (fix round ${f.round})` : ""}`,
    "",
    ...(sent.length ? [...sent.map(toFix), "", DISPUTE] : f.findings.map((x) => `- ${x}`)),
    "",
  ];
}

/** FINAL_REVIEW.fixing: the final review's findings this fix round fixes. */
export function finalFixSection(state: AutopilotState): string[] {
  const round = state.finalReview.retryCount;
  const sent = findingsIn(state.findingLedger, { source: "final", phase: null }).filter(
    (e) => e.fixRound === round && e.fate === "open",
  );
  const blocking = state.finalReview.findings.filter((x) => x.severity === "blocking");
  return [
    `## ${sent.some((e) => e.severity !== "blocking") ? "Findings" : "Blocking findings"} to fix (fix round ${round})`,
    "",
    ...(sent.length ? [...sent.map(toFix), "", DISPUTE] : blocking.map((x) => `- ${findingLine(x)}`)),
    "",
  ];
}

/** The findings of the phase's last fix round (any check), with their fates as it left them. */
function lastFixRound(state: AutopilotState): { round: number; entries: TrackedFinding[] } {
  const round = state.phaseRun.fixRounds ?? 0;
  const phase = state.currentPhase;
  const entries = (state.findingLedger ?? []).filter(
    (e) => e.phase === phase && e.source !== "final" && round > 0 && e.fixRound === round,
  );
  return { round, entries };
}

const JUDGE =
  "A finding marked disputed: judge the fixer's evidence, and report it again (same file and title) if it does not hold.";

/**
 * VERIFY after an earlier verification: which verification this is, what each earlier one found,
 * and what the fix round since then was sent and says it did.
 */
export function recheckSection(state: AutopilotState): string[] {
  const rounds = state.phaseRun.verificationRounds ?? [];
  if (!rounds.length) return [];
  const n = rounds.length + 1;
  const past = rounds.map((r, k) => `verification ${k + 1} ${r.verdict === "pass" ? "passed" : "failed"}`).join(", ");
  const { round, entries } = lastFixRound(state);
  const source = entries[0]?.source;
  const out = [`## This is a re-check (verification ${n} of this phase)`, "", `So far: ${past}.`];
  if (round && entries.length) {
    out.push(
      `Since the last verification, fix round ${round} worked on ${plural(entries.length, source === "review" ? "review finding" : "verification finding")}; each with what became of it:`,
      "",
      ...entries.map((e) => `- ${trackedLine(e, { why: true })}`),
      "",
      `Check each of them first, then verify the whole phase again. ${JUDGE}`,
    );
  } else if (rounds.at(-1)!.verdict === "fail") {
    // A state from before the ledger: the last round's findings as it reported them.
    out.push(
      "The last verification failed with the findings below, and a fix round followed. Check each of them first, then verify the whole phase again.",
      "",
      ...rounds.at(-1)!.findings.map((f) => `- ${f}`),
    );
  } else out.push("Verify the whole phase again.");
  const open = findingsIn(state.findingLedger, { source: "verification", phase: state.currentPhase }).filter(
    (e) => e.fate === "open" && e.fixRound !== round,
  );
  if (open.length)
    out.push("", "Earlier verification findings no fix round was sent:", "", ...open.map((e) => `- ${trackedLine(e)}`));
  return [...out, ""];
}

/** REVIEW (or the final review) after an earlier round: every finding so far, with its fate. */
export function reReviewSection(state: AutopilotState, scope: FindingScope): string[] {
  const final = scope.source === "final";
  const rounds = (final ? state.finalReview.rounds : state.phaseRun.reviewRounds) ?? [];
  if (!rounds.length) return [];
  const entries = findingsIn(state.findingLedger, scope);
  const fixRound = final ? state.finalReview.retryCount : (state.phaseRun.fixRounds ?? 0);
  const head = `## This is a re-review (round ${rounds.length + 1}${final ? " of the final review" : ""})${fixRound ? `, after fix round ${fixRound}` : ""}`;
  if (!entries.length) {
    // A state from before the ledger: the blocking findings the last round sent back.
    const last = rounds.at(-1)!;
    if (last.resolution !== "fix") return [];
    return [
      head,
      "",
      "These blocking findings of the last round were sent back for a fix: check that each fix holds, then review the whole range again.",
      "",
      ...last.findings.filter((f) => f.severity === "blocking").map((f) => `- ${findingLine(f)}`),
      "",
    ];
  }
  return [
    head,
    "",
    `What the earlier ${rounds.length === 1 ? "round" : `${rounds.length} rounds`} found, each once, with what became of it:`,
    "",
    ...entries.map((e) => `- ${trackedLine(e, { why: true })}`),
    "",
    `Check that each fix holds, then review the whole range again. Report again, with the same file and title, every finding that still stands: one you leave out keeps the fate listed here. ${JUDGE}`,
    "",
  ];
}
