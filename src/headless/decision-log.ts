// The decision log as a compact table for the terminal: who decided what, where, why, and which
// signals fired. It shows the one model every log format renders (src/log/model.ts), so the
// terminal says what the Markdown, JSON and HTML logs say.
import type { DecisionLog, LoggedDecision } from "../log/model.js";

function clip(s: string, n: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? one.slice(0, n - 1) + "…" : one;
}

function signalsOf(d: LoggedDecision): string {
  if (!d.plan) return "";
  return d.plan.fired.length ? d.plan.fired.join(", ") : "none fired";
}

export function decisionTable(log: DecisionLog, width = 110): string {
  const rows = log.decisions.map((d) => [
    String(d.n),
    d.phase ? String(d.phase.number) : "final",
    d.state ?? "",
    d.decision + (d.answer && !d.decision.includes(d.answer.replace(/\s+/g, "_")) ? ` (${d.answer})` : ""),
    d.who,
    signalsOf(d),
    (d.rationale ?? d.note ?? "").replace(/^--yes policy:\s*/, ""),
  ]);
  const head = ["#", "phase", "state", "decision", "by", "signals", "why"];
  const fixed = [3, 5, 14, 26, 8, 16];
  const whyWidth = Math.max(20, width - fixed.reduce((a, b) => a + b + 2, 0));
  const widths = [...fixed, whyWidth];
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => clip(c, widths[i]).padEnd(i === cells.length - 1 ? 0 : widths[i]))
      .join("  ")
      .trimEnd();
  const lines = [fmt(head), fmt(widths.map((w) => "─".repeat(Math.min(w, 40))))];
  for (const r of rows) lines.push(fmt(r));
  if (!rows.length) lines.push("(no decisions recorded)");
  return lines.join("\n");
}
