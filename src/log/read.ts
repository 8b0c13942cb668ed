// How the decision log reads a field of a state file it cannot trust to be whole (upstream files,
// earlier versions): a value of the wanted kind, or null, never a guess.
import { normalizeSeverity, type AutopilotState } from "../session/schema.js";
import type { PhaseRef, SeverityTally } from "./shape.js";

export function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v : null;
}

export function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

export function time(v: unknown): number | null {
  if (typeof v !== "string") return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}

export function duration(start: string | null, end: string | null): number | null {
  const a = time(start);
  const b = time(end);
  return a !== null && b !== null && b >= a ? b - a : null;
}

export function phaseRef(state: AutopilotState, index: number | null | undefined): PhaseRef | null {
  if (typeof index !== "number" || !Number.isInteger(index) || index < 0) return null;
  return { index, number: index + 1, name: state.phases[index]?.name ?? null };
}

export function tally(findings: readonly { severity: unknown }[]): SeverityTally {
  const out = { blocking: 0, warning: 0, note: 0 };
  for (const f of findings) out[normalizeSeverity(f.severity) ?? "note"] += 1;
  return out;
}

/** `{blocking, warning, note}` or the upstream `{critical, important, suggestion}`, summed. */
export function tallyRecord(rec: Record<string, unknown> | undefined): SeverityTally | null {
  if (!rec || typeof rec !== "object") return null;
  const out = { blocking: 0, warning: 0, note: 0 };
  let any = false;
  for (const [k, v] of Object.entries(rec)) {
    const sev = normalizeSeverity(k);
    const n = num(v);
    if (!sev || n === null) continue;
    out[sev] += n;
    any = true;
  }
  return any ? out : null;
}
