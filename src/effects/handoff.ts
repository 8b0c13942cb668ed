// `<sessionDir>/handoff.json`: written by each delegated skill, read by the next, and written by
// autopilot at DONE. Real handoffs vary a lot (see ../shared/corpus/upstream/sessions/*/handoff.json):
// most lack `timestamp` or `phase`, decisions are strings or `{what, why}`, concerns may be absent,
// completed/pending appear as `completedTasks`/`pendingTasks`/`completedPhases`, and no planner
// handoff names its plan. The reader normalises the fields the machine uses and keeps every other
// field as it was; the final writer is idempotent because its output is a pure function of its input.
import { readTextOrNull, writeTextAtomic } from "./fsutil.js";
import type { SessionPaths } from "../session/paths.js";

interface HandoffDecision {
  what: string;
  why?: string;
}

export interface Handoff {
  fromSkill: string | null;
  /** Upstream writes a state name ("VALIDATE", "DONE", "COMPLETE") or a phase label; kept as text. */
  phase: string | null;
  timestamp: string | null;
  summary: string | null;
  completed: string[];
  pending: string[];
  concerns: string[];
  decisions: HandoffDecision[];
  contextKeywords: string[];
  /** A plan path named by the handoff, if any (explicit field, or a planner's plan artifact). */
  planPath: string | null;
  /** Every field of the file, as written (unknown fields included). */
  [key: string]: unknown;
}

function text(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return null;
}

function itemText(v: unknown): string | null {
  const t = text(v);
  if (t !== null) return t;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    for (const k of ["what", "title", "name", "task", "description", "summary", "text"]) {
      if (typeof o[k] === "string") return o[k];
    }
    return JSON.stringify(v);
  }
  return null;
}

function list(...candidates: unknown[]): string[] {
  for (const c of candidates) {
    if (Array.isArray(c)) return c.map(itemText).filter((s): s is string => s !== null && s.trim() !== "");
    if (typeof c === "string" && c.trim()) return [c];
  }
  return [];
}

function decisions(v: unknown): HandoffDecision[] {
  const arr = Array.isArray(v) ? v : typeof v === "string" && v.trim() ? [v] : [];
  const out: HandoffDecision[] = [];
  for (const d of arr) {
    if (typeof d === "string") {
      if (d.trim()) out.push({ what: d });
    } else if (d && typeof d === "object") {
      const o = d as Record<string, unknown>;
      const what = text(o.what) ?? text(o.decision) ?? text(o.title) ?? JSON.stringify(d);
      const why = text(o.why) ?? text(o.rationale) ?? undefined;
      out.push(why ? { what, why } : { what });
    }
  }
  return out;
}

const PLAN_FILE = /(^|\/)plans\/[^/]+\.md$/;

function findPlanPath(raw: Record<string, unknown>): string | null {
  for (const k of ["planPath", "plan", "planFile"]) {
    const v = raw[k];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  const artifacts = raw.artifacts;
  if (artifacts && typeof artifacts === "object" && !Array.isArray(artifacts)) {
    const a = artifacts as Record<string, unknown>;
    for (const k of ["planPath", "plan"]) if (typeof a[k] === "string" && a[k].trim()) return a[k].trim();
  }
  // Only a planner's artifacts are taken as its plan: an executor lists plan files it merely read.
  if (typeof raw.fromSkill === "string" && /plann/i.test(raw.fromSkill)) {
    const files = Array.isArray(artifacts)
      ? artifacts
      : artifacts && typeof artifacts === "object"
        ? Object.values(artifacts as Record<string, unknown>).flat()
        : [];
    const plan = files.find((f): f is string => typeof f === "string" && PLAN_FILE.test(f.trim()));
    if (plan) return plan.trim();
  }
  return null;
}

/** Normalise a parsed handoff object; exported for callers that already hold the JSON. */
function normalizeHandoff(raw: Record<string, unknown>): Handoff {
  return {
    ...raw,
    fromSkill: text(raw.fromSkill),
    phase: text(raw.phase),
    timestamp: text(raw.timestamp),
    summary: text(raw.summary),
    completed: list(raw.completed, raw.completedTasks, raw.completedPhases),
    pending: list(raw.pending, raw.pendingTasks),
    concerns: list(raw.concerns),
    decisions: decisions(raw.decisions),
    contextKeywords: list(raw.contextKeywords),
    planPath: findPlanPath(raw),
  };
}

/** The session's handoff, normalised; null when it is absent, unreadable or not a JSON object. */
export async function readHandoff(ws: SessionPaths): Promise<Handoff | null> {
  const file = ws.handoff;
  let body: string | null;
  try {
    body = await readTextOrNull(file);
  } catch {
    return null;
  }
  if (body === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.replace(/^\uFEFF/, ""));
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  return normalizeHandoff(parsed as Record<string, unknown>);
}

type DecisionLike = string | Record<string, unknown>;

/**
 * One decision as the final handoff lists it: upstream readers expect strings (or `{what, why}`),
 * so the state file's decision records become one readable line each.
 */
function decisionToString(d: DecisionLike): string {
  if (typeof d === "string") return d;
  const o = d ?? {};
  if (typeof o.what === "string") return typeof o.why === "string" && o.why ? `${o.what} — ${o.why}` : o.what;
  const parts: string[] = [];
  if (typeof o.phase === "number") parts.push(`Phase ${o.phase + 1}:`);
  else if (typeof o.state === "string") parts.push(`${o.state}:`);
  parts.push(typeof o.decision === "string" ? o.decision : JSON.stringify(o));
  if (typeof o.by === "string") parts.push(`(${o.by})`);
  const why = [o.rationale, o.note, o.answer].find((x) => typeof x === "string" && x.trim());
  if (why) parts.push(`— ${why as string}`);
  if (Array.isArray(o.fired) && o.fired.length) parts.push(`[signals: ${o.fired.join(", ")}]`);
  return parts.join(" ");
}

export interface FinalHandoffInput {
  summary: string;
  completed: string[];
  pending?: string[];
  concerns?: string[];
  decisions?: DecisionLike[];
  contextKeywords?: string[];
  finalReview: { status: string; findingsCount: number };
  /** Optional: written only when given, so a replay with the same input writes the same bytes. */
  timestamp?: string;
}

/** DONE step 3: the final handoff with the fields the skill lists, replacing the last skill's. */
export async function writeFinalHandoff(
  ws: SessionPaths,
  data: FinalHandoffInput,
): Promise<{ path: string; written: boolean }> {
  const file = ws.handoff;
  const out: Record<string, unknown> = { fromSkill: "harness-autopilot", phase: "DONE" };
  if (data.timestamp) out.timestamp = data.timestamp;
  Object.assign(out, {
    summary: data.summary,
    completed: data.completed ?? [],
    pending: data.pending ?? [],
    concerns: data.concerns ?? [],
    decisions: (data.decisions ?? []).map(decisionToString),
    contextKeywords: data.contextKeywords ?? [],
    finalReview: { status: data.finalReview.status, findingsCount: data.finalReview.findingsCount },
  });
  const body = JSON.stringify(out, null, 2) + "\n";
  if ((await readTextOrNull(file)) === body) return { path: file, written: false };
  await writeTextAtomic(file, body);
  return { path: file, written: true };
}
