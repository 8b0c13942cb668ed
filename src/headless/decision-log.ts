// The decision log as a compact table for the terminal: who decided what, where, why, and which
// signals fired.
import type { AutopilotState, Decision } from "../session/schema.js";

function clip(s: string, n: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? one.slice(0, n - 1) + "…" : one;
}

function signalsOf(d: Decision): string {
  if (d.fired?.length) return d.fired.join(", ");
  if (d.signals) return "none fired";
  return "";
}

export function decisionTable(state: AutopilotState, width = 110): string {
  const rows = state.decisions.map((d, i) => [
    String(i + 1),
    d.phase === null || d.phase === undefined ? "final" : String(d.phase + 1),
    d.state ?? "",
    d.decision + (d.answer && !d.decision.includes(d.answer.replace(/\s+/g, "_")) ? ` (${d.answer})` : ""),
    d.by ?? (d.answer ? "unknown" : "auto"),
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
