// The decision log's checks in words, shared by the Markdown and HTML renderings: what a round
// came to, and the findings it reported.
import type { CheckRoundLog, DecisionLog, FindingLog } from "./model.js";

type Cell = string | number | boolean | null | undefined;

/** "Verification", "Review", "Final review". */
export function checkName(r: Pick<CheckRoundLog, "check">): string {
  return r.check === "verification" ? "Verification" : r.check === "review" ? "Review" : "Final review";
}

/** What the round came to: pass or fail; what was decided about a review round. */
export function roundResult(r: CheckRoundLog): string {
  if (r.verdict) return r.verdict;
  if (r.resolution === "fix") return "sent to a fix round";
  if (r.resolution === "override") return "overridden";
  return r.findings.length || r.counts ? "nothing decided (no blocking finding, or not yet)" : "no findings";
}

/** The findings a round reported: their ids and titles, or its counts for a round from before the ledger. */
export function roundFindings(r: CheckRoundLog, findings: readonly FindingLog[]): string {
  if (r.counts && !r.findings.length)
    return `${r.counts.blocking} blocking, ${r.counts.warning} warning, ${r.counts.note} note (not recorded one by one)`;
  const byId = new Map(findings.map((f) => [f.id, f]));
  return (
    r.findings
      .map((id) => {
        const f = byId.get(id);
        return f ? `${id} ${f.severity}: ${f.title}${f.round < r.round ? " (again)" : ""}` : id;
      })
      .join("; ") || "none"
  );
}

export function whereOf(f: Pick<FindingLog, "file" | "line">): string | null {
  return f.file ? `${f.file}${f.line !== null ? `:${f.line}` : ""}` : null;
}

/** The Markdown sections: every round, then every finding once with its fate. */
export function checksMarkdown(log: DecisionLog, table: (head: string[], rows: Cell[][]) => string): string[] {
  if (!log.checks.length && !log.findings.length) return [];
  const out = ["## Checks: every verification and review round", ""];
  out.push(
    table(
      ["Phase", "Check", "Round", "Result", "Findings reported"],
      log.checks.map((r) => [
        r.phase ? `${r.phase.number}. ${r.phase.name ?? ""}` : "final",
        checkName(r),
        r.round,
        roundResult(r),
        roundFindings(r, log.findings),
      ]),
    ),
    "",
  );
  if (log.findings.length)
    out.push(
      "## Findings and their fate",
      "",
      "Each finding once, however many rounds reported it: open, fixed (by which fix round and commit), disputed (with the fixer's evidence), overridden or deferred (by whom).",
      "",
      table(
        ["ID", "Phase", "Check", "Severity", "Where", "Finding", "Rounds", "Fate"],
        log.findings.map((f) => [
          f.id,
          f.phase ? `${f.phase.number}. ${f.phase.name ?? ""}` : "final",
          checkName(f),
          f.severity,
          whereOf(f),
          f.title,
          f.seenIn.join(", "),
          f.fateText,
        ]),
      ),
      "",
    );
  return out;
}
