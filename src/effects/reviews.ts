// `<sessionDir>/phase-<N>-review.json`: written at REVIEW, read back at FINAL_REVIEW.
//
// N is the phase's number as every text counts phases, from 1 (`phase-1-review.json` is Phase 1).
// Readers still take 0-based files (upstream's skill and earlier autopilot wrote phase-0/1/2 for a
// 3-phase spec): a file that says its `phaseNumber` is read by it, the others by their names.
//
// Real files vary: a bare array or an object with `findings`; severities in either vocabulary
// (blocking/warning/note, critical/important/suggestion); `line` a number or a `[start, end]`
// pair; the explanation in `rationale`, `detail` or `fix`. The reader normalises to our Finding
// shape and keeps every other field.
import { readdir } from "node:fs/promises";
import path from "node:path";
import { normalizeSeverity, type Finding, type Severity } from "../session/schema.js";
import { fateWords, type TrackedFinding } from "../session/findings.js";
import { readTextOrNull, writeTextAtomic } from "./fsutil.js";
import type { SessionPaths } from "../session/paths.js";

export type FindingInput = {
  severity: string;
  title: string;
  file?: string;
  line?: number | [number, number] | null;
  rationale?: string;
  [key: string]: unknown;
};

export interface PhaseReviewFile {
  /** File name inside the session directory. */
  file: string;
  /** 0-based phase index. */
  phase: number;
  findings: Finding[];
}

function toLine(v: unknown): { line?: number; lineEnd?: number } {
  if (typeof v === "number" && Number.isInteger(v)) return { line: v };
  if (Array.isArray(v) && typeof v[0] === "number") {
    const out: { line?: number; lineEnd?: number } = { line: Math.trunc(v[0]) };
    if (typeof v[1] === "number" && v[1] !== v[0]) out.lineEnd = Math.trunc(v[1]);
    return out;
  }
  if (typeof v === "string") {
    const m = /^\s*(\d+)(?:\s*[-–:]\s*(\d+))?/.exec(v);
    if (m) return m[2] && m[2] !== m[1] ? { line: Number(m[1]), lineEnd: Number(m[2]) } : { line: Number(m[1]) };
  }
  return {};
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v : undefined;
}

/** One finding from any real variant, in our shape; unknown fields are kept. */
function normalizeFinding(raw: unknown): Finding {
  if (typeof raw === "string") return { severity: "note", title: raw };
  const o = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const word = o.severity ?? o.level ?? o.priority;
  const severity: Severity = normalizeSeverity(word) ?? "note";
  const title = str(o.title) ?? str(o.summary) ?? str(o.message) ?? str(o.description) ?? "(untitled finding)";
  const rationale =
    str(o.rationale) ??
    str(o.detail) ??
    str(o.details) ??
    (title !== o.description ? str(o.description) : undefined) ??
    str(o.fix);
  const out: Record<string, unknown> = { ...o, severity, title };
  delete out.line;
  const file = str(o.file) ?? str(o.path);
  if (file) out.file = file;
  Object.assign(out, toLine(o.line));
  if (rationale) out.rationale = rationale;
  if (typeof word === "string" && word !== severity) out.originalSeverity = word;
  return out as Finding;
}

function findingsOf(parsed: unknown): unknown[] {
  if (Array.isArray(parsed)) return parsed;
  if (parsed && typeof parsed === "object") {
    const o = parsed as Record<string, unknown>;
    for (const k of ["findings", "reviewFindings", "issues", "items"])
      if (Array.isArray(o[k])) return o[k] as unknown[];
  }
  return [];
}

/** One finding in the file's order: the skill's documented fields first. */
function ordered(f: FindingInput | Finding): Record<string, unknown> {
  const n = normalizeFinding(f) as Record<string, unknown>;
  const { severity, file: fl, line, title, rationale, ...rest } = n;
  return {
    severity,
    ...(fl ? { file: fl } : {}),
    ...(line !== undefined ? { line } : {}),
    title,
    ...(rationale ? { rationale } : {}),
    ...rest,
  };
}

export interface ReviewRoundInput {
  findings: (FindingInput | Finding)[];
  resolution: "fix" | "override" | null;
}

/**
 * What became of a finding of round `k` (0-based) of `rounds`: a blocking one sent back and
 * re-reviewed is "fixed", one overridden is "overridden", a blocking one not yet decided is "open";
 * warnings and notes are recorded and nobody was asked to address them.
 */
function statusOf(f: Finding, k: number, rounds: ReviewRoundInput[]): string {
  const r = rounds[k];
  if (f.severity !== "blocking") return "recorded, not addressed";
  if (r.resolution === "override") return "overridden by a decision";
  if (r.resolution === "fix")
    return k + 1 < rounds.length ? `fixed (re-reviewed in round ${k + 2})` : "sent back for a fix";
  return "open";
}

/**
 * REVIEW: persist the phase's findings; writing the same findings again changes nothing. With
 * `rounds`, the file keeps every round (a re-review never overwrites the first) as an object whose
 * `findings` lists each finding once, from the round that first raised it, with its `status`.
 */
export async function writePhaseReview(
  ws: SessionPaths,
  phaseIndex: number,
  findings: FindingInput[] | Finding[],
  opts: { rounds?: ReviewRoundInput[]; name?: string; tracked?: readonly TrackedFinding[] } = {},
): Promise<{ path: string; written: boolean }> {
  if (!Number.isInteger(phaseIndex) || phaseIndex < 0)
    throw new RangeError(`phaseIndex must be a 0-based index, got ${phaseIndex}`);
  const file = ws.review(phaseIndex + 1);
  let value: unknown = findings.map(ordered);
  if (opts.rounds?.length) {
    const seen = new Set<string>();
    const all: Record<string, unknown>[] = [];
    // The session's ledger says what became of each (one fate for every text); without it (an
    // outbox written before the ledger) the rounds' resolutions do.
    const tracked = opts.tracked ?? [];
    for (const e of tracked) {
      const { id, round, fate, severity, title, file, line, rationale, scenario } = e;
      all.push({
        ...ordered({ severity, title, file, line, rationale, ...(scenario ? { scenario } : {}) }),
        id,
        round,
        ...(e.seen.length > 1 ? { seen: e.seen } : {}),
        status: fateWords(e),
        fate,
      });
    }
    if (!tracked.length)
      opts.rounds.forEach((r, k) => {
        for (const raw of r.findings) {
          const f = normalizeFinding(raw);
          const key = `${f.severity}|${f.file ?? ""}|${f.title.trim().toLowerCase()}`;
          if (seen.has(key)) continue;
          seen.add(key);
          all.push({ ...ordered(f), round: k + 1, status: statusOf(f, k, opts.rounds!) });
        }
      });
    value = {
      // `phase` is the index into autopilot-state.json's phases[]; `phaseNumber` is how people count.
      phase: phaseIndex,
      phaseNumber: phaseIndex + 1,
      ...(opts.name ? { name: opts.name } : {}),
      findings: all,
      rounds: opts.rounds.map((r, k) => ({
        round: k + 1,
        resolution: r.resolution,
        findings: r.findings.map(ordered),
      })),
    };
  }
  const body = JSON.stringify(value, null, 2) + "\n";
  if ((await readTextOrNull(file)) === body) return { path: file, written: false };
  await writeTextAtomic(file, body);
  return { path: file, written: true };
}

/**
 * Every `phase-*-review.json` of the session, normalised, one per phase, sorted by phase. A file
 * that says its `phaseNumber` (autopilot's) is that phase's. The others go by their names: a file
 * N=0 marks them 0-based (upstream's and earlier autopilot's numbering); without one, N equal to
 * `phaseCount`, or a name that agrees with a file's own `phaseNumber`, marks them 1-based. Where an
 * older file and one named by the phase's number hold the same phase (a session resumed across the
 * change of names), the one named by the number is read. Unreadable files are skipped rather than
 * failing the final review.
 */
export async function readPhaseReviews(
  ws: SessionPaths,
  opts: { phaseCount?: number } = {},
): Promise<PhaseReviewFile[]> {
  const dir = ws.sessionDir;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const found: Array<{ file: string; n: number; said: number | null; findings: Finding[] }> = [];
  for (const name of names) {
    const m = /^phase-(\d+)-review\.json$/.exec(name);
    if (!m) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse((await readTextOrNull(path.join(dir, name))) ?? "null");
    } catch {
      continue;
    }
    if (parsed === null) continue;
    found.push({
      file: name,
      n: Number(m[1]),
      said: phaseNumberOf(parsed),
      findings: findingsOf(parsed).map(normalizeFinding),
    });
  }
  const ns = found.map((f) => f.n);
  const oneBased =
    !ns.includes(0) &&
    ((opts.phaseCount !== undefined && ns.includes(opts.phaseCount)) || found.some((f) => f.said === f.n));
  const byPhase = new Map<number, PhaseReviewFile & { named: boolean }>();
  for (const f of found) {
    const phase = f.said !== null ? f.said - 1 : oneBased ? f.n - 1 : f.n;
    const named = f.n === phase + 1;
    const had = byPhase.get(phase);
    if (!had || (named && !had.named)) byPhase.set(phase, { file: f.file, phase, findings: f.findings, named });
  }
  return [...byPhase.values()]
    .map(({ file, phase, findings }) => ({ file, phase, findings }))
    .sort((a, b) => a.phase - b.phase);
}

/** The phase number (from 1) a file says it holds, when it says it. */
function phaseNumberOf(parsed: unknown): number | null {
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const n = (parsed as Record<string, unknown>).phaseNumber;
  return typeof n === "number" && Number.isInteger(n) && n >= 1 ? n : null;
}

function countBySeverity(findings: Finding[]): Record<Severity, number> {
  const c: Record<Severity, number> = { blocking: 0, warning: 0, note: 0 };
  for (const f of findings) c[f.severity] = (c[f.severity] ?? 0) + 1;
  return c;
}

const ORDER: Record<Severity, number> = { blocking: 0, warning: 1, note: 2 };

function flat(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/**
 * The "Per-Phase Review Findings" block of the final review brief: per phase a count line and one
 * line per finding, blocking first. Bounded by `maxChars`; what does not fit is counted, not lost
 * silently.
 */
export function formatFindingsForPrompt(
  reviews: PhaseReviewFile[],
  opts: { phaseNames?: string[]; maxChars?: number } = {},
): string {
  // Findings are given whole (a finding cut mid-sentence cannot be checked); what does not fit the
  // bound is left out whole and counted.
  const maxChars = opts.maxChars ?? 16000;
  if (!reviews.length) return "No per-phase review findings were recorded.";
  const out: string[] = [];
  let used = 0;
  let omitted = 0;
  const push = (line: string): boolean => {
    if (used + line.length + 1 > maxChars) return false;
    out.push(line);
    used += line.length + 1;
    return true;
  };
  for (const r of reviews) {
    const c = countBySeverity(r.findings);
    const name = opts.phaseNames?.[r.phase];
    const head = `Phase ${r.phase + 1}${name ? ` (${name})` : ""}, ${r.file}: ${c.blocking} blocking, ${c.warning} warning, ${c.note} note`;
    if (!push(head)) {
      omitted += r.findings.length;
      continue;
    }
    const sorted = [...r.findings].sort((a, b) => ORDER[a.severity] - ORDER[b.severity]);
    for (const f of sorted) {
      const loc = f.file ? ` ${f.file}${f.line !== undefined ? `:${f.line}` : ""}` : "";
      const why = f.rationale ? `: ${flat(f.rationale)}` : "";
      const scenario = f.scenario ? ` Scenario: ${flat(f.scenario)}` : "";
      const recorded = f as Record<string, unknown>;
      const status = typeof recorded.status === "string" ? ` [${recorded.status}]` : "";
      const id = typeof recorded.id === "string" ? `[${recorded.id}] ` : "";
      if (!push(`- ${id}[${f.severity}]${loc} — ${flat(f.title)}${status}${why}${scenario}`)) omitted++;
    }
  }
  if (omitted)
    out.push(
      `(${omitted} more finding${omitted === 1 ? "" : "s"} omitted for length; see the phase-N-review.json files.)`,
    );
  return out.join("\n");
}
