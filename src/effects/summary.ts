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
  let next: string;
  if (current === null || current.trim() === "") {
    next = `## Active Sessions\n\n${line}\n`;
  } else {
    const eol = eolOf(current);
    const lines = current.split(/\r?\n/);
    const mine = (l: string) => l.startsWith(`- [${slug}]`);
    const first = lines.findIndex(mine);
    if (first >= 0) {
      // Replace the slug's line in place; drop any duplicates an older writer left behind.
      const out: string[] = [];
      lines.forEach((l, i) => {
        if (i === first) out.push(line);
        else if (!mine(l)) out.push(l);
      });
      next = out.join(eol);
    } else {
      let last = -1;
      lines.forEach((l, i) => {
        if (l.trim() !== "") last = i;
      });
      lines.splice(last + 1, 0, line);
      next = lines.join(eol);
      if (!next.endsWith(eol)) next += eol;
    }
  }
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
