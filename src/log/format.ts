// Words of the decision log that need nothing of its model: its title and a duration.
import type { AutopilotState } from "../session/schema.js";

/** The spec's name; else from its path: "docs/changes/security-scanner/proposal.md" → "Security scanner". */
export function titleOf(state: AutopilotState): string {
  // The spec's name, which the pull request keeps beside its title (a sentence); an older file, the title.
  const pr = state.pullRequest;
  const named = [pr?.spec, pr?.title].find((t) => typeof t === "string" && t.trim() !== "");
  if (named) return named;
  const parts = state.specPath.replace(/\\/g, "/").split("/").filter(Boolean);
  const file = (parts.at(-1) ?? "").replace(/\.md$/i, "");
  const generic = /^(proposal|spec|design|readme|index)$/i.test(file);
  const base = generic && parts.length > 1 ? parts.at(-2)! : file || state.specPath;
  const text = base.replace(/[-_]+/g, " ").trim();
  return text ? text[0].toUpperCase() + text.slice(1) : state.specPath;
}

/** "1 h 4 min", "3 min 20 s", "45 s": for the reports. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return "—";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}
