// `.harness/failures.md`, in upstream's format so `harness` tools keep reading it:
//   # Failures
//
//   - **YYYY-MM-DD [skill:NAME] [type:TYPE]:** text
// Idempotent by effect id: each line we write ends with `<!-- autopilot:<effectId> -->`, invisible
// when rendered, and an append whose marker is already present changes nothing.
import { AutopilotError } from "../protocol/errors.js";
import { eolOf, markerFor, readTextOrNull, writeTextAtomic } from "./fsutil.js";
import type { ProjectPaths } from "../session/paths.js";

export interface FailureInput {
  /** `YYYY-MM-DD`, an ISO timestamp or a Date; only the day is written. */
  date: string | Date;
  skill: string;
  type: string;
  /** One line; newlines are folded into `; `. Include the attempts made (see describeAttempts). */
  text: string;
  effectId: string;
}

export interface FailureEntry {
  date: string;
  skill: string;
  type: string;
  text: string;
  effectId: string | null;
}

const LINE = /^- \*\*(\d{4}-\d{2}-\d{2}) \[skill:([^\]]+)\] \[type:([^\]]+)\]:\*\* (.*)$/;
const MARKER = /\s*<!-- autopilot:(.*?) -->\s*$/;

export function dayOf(date: string | Date): string {
  const iso = date instanceof Date ? date.toISOString() : String(date);
  const day = iso.slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) {
    throw new AutopilotError("bad_input", `"${iso}" is not a date. Pass YYYY-MM-DD or an ISO timestamp.`);
  }
  return day;
}

function oneLine(s: string): string {
  return String(s ?? "")
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .join("; ");
}

function tag(s: string): string {
  // `]` would end the tag early and break every reader's regex.
  return oneLine(s).replace(/[[\]]/g, "").trim() || "unknown";
}

/** "Task 4: wire parser. Attempt 1: <fix> → <result>; Attempt 2: ..." on one line. */
export function describeAttempts(
  what: string,
  attempts: Array<{ attempt?: number; error?: string; fixAttempted?: string; result?: string }>,
): string {
  const parts = attempts.map((a, i) => {
    const n = a.attempt ?? i + 1;
    const fix = a.fixAttempted ? oneLine(a.fixAttempted) : "no fix recorded";
    const outcome = oneLine(a.result ?? a.error ?? "failed");
    return `Attempt ${n}: ${fix} → ${outcome}`;
  });
  return oneLine(`${oneLine(what)}${parts.length ? ` — ${parts.join("; ")}` : ""}`);
}

function formatFailureLine(input: FailureInput): string {
  return `- **${dayOf(input.date)} [skill:${tag(input.skill)}] [type:${tag(input.type)}]:** ${oneLine(input.text)} ${markerFor(input.effectId)}`;
}

export async function appendFailure(
  project: ProjectPaths,
  input: FailureInput,
): Promise<{ appended: boolean; line: string }> {
  const file = project.failures;
  const line = formatFailureLine(input);
  const marker = markerFor(input.effectId);
  const current = await readTextOrNull(file);
  if (current !== null && current.includes(marker)) return { appended: false, line };
  let next: string;
  if (current === null || current.trim() === "") {
    next = `# Failures\n\n${line}\n`;
  } else {
    const eol = eolOf(current);
    const base = current.endsWith("\n") ? current : current + eol;
    // A blank line between entries, as upstream writes them.
    next = `${base}${base.endsWith(eol + eol) ? "" : eol}${line}${eol}`;
  }
  // Whole-file atomic replace rather than appendFile: a crash mid-append would leave a torn line
  // without its marker, and the replay would then add a second copy.
  await writeTextAtomic(file, next);
  return { appended: true, line };
}

export async function readFailures(project: ProjectPaths): Promise<FailureEntry[]> {
  const text = await readTextOrNull(project.failures);
  if (text === null) return [];
  const out: FailureEntry[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const m = LINE.exec(raw);
    if (!m) continue;
    const mk = MARKER.exec(m[4]);
    out.push({
      date: m[1],
      skill: m[2],
      type: m[3],
      text: mk ? m[4].slice(0, mk.index) : m[4],
      effectId: mk ? mk[1] : null,
    });
  }
  return out;
}
