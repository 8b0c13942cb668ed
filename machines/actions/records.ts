// The session summary's lines at DONE: per phase what its checks found and what became of it, and
// the final review's findings; each finding once, with its fate (src/session/findings.ts). A state
// from before the finding ledger says what its counts say.
import type { AutopilotState, HistoryEntry } from "../../src/session/schema.js";
import { fateGroups, fateTally, fateWords, findingsIn, groupWords } from "../../src/session/findings.js";
import { countBySeverity } from "../reports.js";

/** " Phase 1: verification findings: 1 blocking fixed (commit 1a2b3c4); review findings: 1 note open." ("" when nothing to say). */
export function phaseLine(state: AutopilotState, h: HistoryEntry): string {
  const phase = h.phase ?? 0;
  const v = findingsIn(state.findingLedger, { source: "verification", phase });
  const r = findingsIn(state.findingLedger, { source: "review", phase });
  const extra: string[] = [];
  if (v.length || r.length) {
    if (v.length) extra.push(`verification findings: ${fateTally(v)}`);
    if (r.length) extra.push(`review findings: ${fateTally(r)}`);
    return ` Phase ${phase + 1}: ${extra.join("; ")}.`;
  }
  if (h.verificationFailures) extra.push(`${h.verificationFailures} failed verification(s) fixed`);
  if (h.reviewRounds && h.reviewRounds.length > 1)
    extra.push(
      `${h.reviewRounds[0].blocking ?? 0} blocking review finding(s) fixed after ${h.reviewRounds.length - 1} re-review(s)`,
    );
  if ((h as Record<string, unknown>).reviewOverridden) extra.push("review overridden");
  return extra.length ? ` Phase ${phase + 1}: ${extra.join(", ")}.` : "";
}

/** "1 blocking fixed (commit 1a2b3c4), 1 warning open in 2 rounds; not fixed: warning Title (src/a.ts): open". */
export function finalRecord(state: AutopilotState): string {
  const fr = state.finalReview;
  const rounds = (fr.rounds ?? []).length;
  const tracked = findingsIn(state.findingLedger, { source: "final", phase: null });
  if (tracked.length) {
    const left = tracked.filter((e) => e.fate !== "fixed");
    return `${groupWords(fateGroups(tracked))}${rounds > 1 ? ` in ${rounds} rounds` : ""}${left.length ? `; not fixed: ${left.map((e) => `${e.severity} ${e.title}${e.file ? ` (${e.file})` : ""}: ${fateWords(e, { short: true })}`).join("; ")}` : ""}`;
  }
  const c = countBySeverity(fr.findings);
  const open = fr.findings.filter((f) => f.severity !== "blocking" || fr.status === "overridden");
  return `${c.blocking} blocking, ${c.warning} warning, ${c.note} note${rounds > 1 ? ` in its last of ${rounds} rounds` : ""}${open.length ? `; not fixed: ${open.map((f) => `${f.severity} ${f.title}${f.file ? ` (${f.file})` : ""}`).join("; ")}` : ""}`;
}
