// The session summary (`.harness/sessions/<slug>/summary.md`) and its line in
// `.harness/sessions/index.md`, in upstream's format (`loadSessionSummary` and the session index
// readers parse these). Idempotent by construction: both files are a pure function of the fields
// (the index date comes from `lastActive`, not the clock), and the slug owns exactly one line.
import { eolOf, readTextOrNull, writeTextAtomic } from "./fsutil.js";
import type { ProjectPaths, SessionPaths } from "../session/paths.js";

export interface SessionSummaryFields {
  session: string;
  lastActive: string;
  skill: string;
  phase?: string | null;
  status: string;
  spec?: string | null;
  plan?: string | null;
  keyContext: string;
  nextStep: string;
}

const LABELS: Array<[keyof SessionSummaryFields, string]> = [
  ["session", "Session"],
  ["lastActive", "Last active"],
  ["skill", "Skill"],
  ["phase", "Phase"],
  ["status", "Status"],
  ["spec", "Spec"],
  ["plan", "Plan"],
  ["keyContext", "Key context"],
  ["nextStep", "Next step"],
];

function oneLine(s: unknown): string {
  const text = typeof s === "string" ? s : s == null ? "" : JSON.stringify(s);
  return text.replace(/\s*\r?\n\s*/g, " ").trim();
}

function formatSessionSummary(f: SessionSummaryFields): string {
  const lines = ["## Session Summary", ""];
  for (const [key, label] of LABELS) {
    const v = f[key];
    if (v === undefined || v === null || v === "") continue;
    lines.push(`**${label}:** ${oneLine(v)}`);
  }
  lines.push("");
  return lines.join("\n");
}

/** Upstream's index description: "autopilot, phase 2 of 3, phase 2 complete. 8/8 tasks." */
function indexDescription(f: SessionSummaryFields): string {
  const parts = [oneLine(f.skill).replace("harness-", "")];
  if (f.phase) parts.push(`phase ${oneLine(f.phase)}`);
  parts.push(oneLine(f.status).toLowerCase());
  return parts.join(", ");
}

function indexLine(slug: string, f: SessionSummaryFields): string {
  const day = /^\d{4}-\d{2}-\d{2}/.test(f.lastActive)
    ? f.lastActive.slice(0, 10)
    : new Date().toISOString().slice(0, 10);
  return `- [${slug}](${slug}/summary.md) — ${indexDescription(f)} (${day})`;
}

const ACTIVE = "## Active Sessions";
const FINISHED = "## Finished Sessions";

/**
 * The index with the slug's one line under `section` (a finished session leaves "Active"): its
 * other lines (an older writer's duplicates, the line under the other section) go; the rest of
 * the file, another tool's sections included, stays as it was.
 */
function placeInIndex(current: string | null, slug: string, line: string, section: string): string {
  if (current === null || current.trim() === "") return `${section}\n\n${line}\n`;
  const eol = eolOf(current);
  const mine = (l: string) => l.startsWith(`- [${slug}]`);
  const lines = current.split(/\r?\n/);
  const at = lines.findIndex(mine);
  // Already in place: replaced where it is, so the order of the section stays.
  let heading = at - 1;
  while (heading >= 0 && !/^## /.test(lines[heading])) heading--;
  if (at >= 0 && (lines[heading] ?? "").trim() === section) {
    return lines.flatMap((l, i) => (i === at ? [line] : mine(l) ? [] : [l])).join(eol);
  }
  const rest = lines.filter((l) => !mine(l));
  while (rest.length && rest.at(-1)!.trim() === "") rest.pop();
  const head = rest.findIndex((l) => l.trim() === section);
  if (head < 0) return [...rest, "", section, "", line, ""].join(eol);
  let end = rest.findIndex((l, i) => i > head && /^## /.test(l));
  if (end < 0) end = rest.length;
  let last = end - 1;
  while (last > head && rest[last].trim() === "") last--;
  rest.splice(last + 1, 0, ...(last === head ? ["", line] : [line]));
  return rest.join(eol) + eol;
}

export async function writeSessionSummary(
  ws: SessionPaths,
  fields: SessionSummaryFields,
): Promise<{ summaryPath: string; indexLine: string }> {
  const slug = ws.slug;
  const summaryPath = ws.summary;
  const content = formatSessionSummary(fields);
  if ((await readTextOrNull(summaryPath)) !== content) await writeTextAtomic(summaryPath, content);

  const line = indexLine(slug, fields);
  const indexPath = ws.sessionsIndex;
  const current = await readTextOrNull(indexPath);
  const next = placeInIndex(current, slug, line, /^DONE\b/.test(fields.status) ? FINISHED : ACTIVE);
  if (next !== current) await writeTextAtomic(indexPath, next);
  return { summaryPath, indexLine: line };
}

export interface SessionSummary extends Partial<SessionSummaryFields> {
  raw: string;
}

/** The summary's fields, parsed back; null when the session has no summary. */
export async function readSessionSummary(ws: SessionPaths): Promise<SessionSummary | null> {
  const raw = await readTextOrNull(ws.summary);
  if (raw === null) return null;
  const out: SessionSummary = { raw };
  for (const line of raw.split(/\r?\n/)) {
    const m = /^\*\*([^*]+):\*\*\s?(.*)$/.exec(line.trim());
    if (!m) continue;
    const hit = LABELS.find(([, label]) => label.toLowerCase() === m[1].trim().toLowerCase());
    if (hit) (out as unknown as Record<string, string>)[hit[0]] = m[2];
  }
  return out;
}

/** Lines of `.harness/sessions/index.md` as `{ slug, description }`. */
export async function readSessionIndex(project: ProjectPaths): Promise<Array<{ slug: string; line: string }>> {
  const raw = await readTextOrNull(project.sessionsIndex);
  if (raw === null) return [];
  const out: Array<{ slug: string; line: string }> = [];
  for (const line of raw.split(/\r?\n/)) {
    const m = /^- \[([^\]]+)\]/.exec(line);
    if (m) out.push({ slug: m[1], line });
  }
  return out;
}
