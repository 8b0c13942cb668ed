// Blocking findings: whether there is one, the check each must pass (a file, a line, a scenario),
// and the line a fixer and a question read.
import type { Finding } from "../src/session/schema.js";

export function hasBlocking(findings: Finding[]): boolean {
  return findings.some((f) => f.severity === "blocking");
}

/**
 * The review check: each blocking finding must name a file, a line and the concrete scenario that
 * triggers it. What is missing, one line per finding (empty: the review passes the check).
 */
export function incompleteBlocking(findings: Finding[]): string[] {
  const out: string[] = [];
  for (const f of findings) {
    if (f.severity !== "blocking") continue;
    const missing = [
      !f.file?.trim() && "file",
      f.line === undefined && "line",
      !f.scenario?.trim() && "scenario",
    ].filter(Boolean);
    if (missing.length) out.push(`"${f.title}" has no ${missing.join(", ").replace(/, ([^,]*)$/, " or $1")}`);
  }
  return out;
}

/** A blocking finding as the fixer and the question read it: title, place, why, how it triggers. */
export function findingLine(f: Finding): string {
  return `${f.title}${f.file ? ` (${f.file}${f.line ? `:${f.line}` : ""})` : ""}${f.rationale ? ` — ${f.rationale}` : ""}${f.scenario ? ` Scenario: ${f.scenario}` : ""}`;
}
