// Learnings, in upstream's Markdown so `harness learnings` keeps working on the same files:
//  - global `.harness/learnings.md`: dated bullets `- **YYYY-MM-DD [skill:X] [outcome:Y]:** text`
//    and dated blocks `## YYYY-MM-DD — ...` (the DONE block); each bullet or block is one entry;
//  - session `.harness/sessions/<slug>/learnings.md`, same format.
// Idempotence: the DONE block carries `<!-- autopilot:<effectId> -->` on its heading; promotion
// de-duplicates by entry text, so a replay after a crash adds nothing twice.
import { AutopilotError } from "../protocol/errors.js";
import { dayOf } from "./failures.js";
import { markerFor, readTextOrNull, writeTextAtomic } from "./fsutil.js";
import type { ProjectPaths, SessionPaths } from "../session/paths.js";
import type { NoticeOf } from "../session/notices.js";

const PRUNE_THRESHOLD = 30;
const PROMOTABLE_OUTCOMES = ["gotcha", "decision", "observation"] as const;

const HEADER = "# Learnings";
const MARKER_RE = /\s*<!-- autopilot:.*? -->/g;

/**
 * Split a learnings file into entries the way upstream counts them: an entry starts at a dated
 * bullet (`- **YYYY-MM-DD`) or a dated heading (`## YYYY-MM-DD`) and takes the non-blank lines
 * after it. Anything before the first entry (title, prose) is not an entry.
 */
function parseLearningEntries(text: string): string[] {
  const entries: string[] = [];
  let block: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith("# ")) continue;
    const starts = /^- \*\*\d{4}-\d{2}-\d{2}/.test(line) || /^## \d{4}-\d{2}-\d{2}/.test(line);
    if (starts) {
      if (block.length) entries.push(block.join("\n"));
      block = [line];
    } else if (line.trim() !== "" && block.length) {
      block.push(line);
    }
  }
  if (block.length) entries.push(block.join("\n"));
  return entries;
}

function stripMarkers(s: string): string {
  return s.replace(MARKER_RE, "");
}
function normalized(entry: string): string {
  return stripMarkers(entry).replace(/\s+/g, " ").trim();
}

function appendBlock(current: string | null, block: string): string {
  if (current === null || current.trim() === "") return `${HEADER}\n\n${block}\n`;
  const base = current.replace(/\s*$/, "");
  return `${base}\n\n${block}\n`;
}

function oneLine(s: string): string {
  return String(s ?? "")
    .replace(/\s*\r?\n\s*/g, " ")
    .trim();
}

export interface DoneLearningsInput {
  date: string | Date;
  specName: string;
  phases: number;
  tasks: number;
  retries: number;
  /** "any notable patterns from the run"; omitted → no observation line. */
  observation?: string | null;
  effectId: string;
}

function formatDoneBlock(input: DoneLearningsInput): string {
  const lines = [
    `## ${dayOf(input.date)} — Autopilot: ${oneLine(input.specName)} ${markerFor(input.effectId)}`,
    `- [skill:harness-autopilot] [outcome:complete] Executed ${input.phases} phases, ${input.tasks} tasks, ${input.retries} retries`,
  ];
  if (input.observation && oneLine(input.observation)) {
    lines.push(`- [skill:harness-autopilot] [outcome:observation] ${oneLine(input.observation)}`);
  }
  return lines.join("\n");
}

/** DONE step 4: append the autopilot block to the global learnings file, once per effect id. */
export async function appendDoneLearnings(
  project: ProjectPaths,
  input: DoneLearningsInput,
): Promise<{ appended: boolean }> {
  const file = project.learnings;
  const current = await readTextOrNull(file);
  if (current !== null && current.includes(markerFor(input.effectId))) return { appended: false };
  await writeTextAtomic(file, appendBlock(current, formatDoneBlock(input)));
  return { appended: true };
}

export interface LearningInput {
  date: string | Date;
  skill: string;
  outcome?: string | null;
  text: string;
}

function formatLearning(input: LearningInput): string {
  const tags = `[skill:${oneLine(input.skill)}]${input.outcome ? ` [outcome:${oneLine(input.outcome)}]` : ""}`;
  return `- **${dayOf(input.date)} ${tags}:** ${oneLine(input.text)}`;
}

/** Add one entry to the session's learnings; the same entry twice is written once. */
export async function appendSessionLearning(ws: SessionPaths, input: LearningInput): Promise<{ appended: boolean }> {
  const file = ws.sessionLearnings;
  const entry = formatLearning(input);
  const current = await readTextOrNull(file);
  if (current !== null && parseLearningEntries(current).some((e) => normalized(e) === normalized(entry))) {
    return { appended: false };
  }
  await writeTextAtomic(file, appendBlock(current, entry));
  return { appended: true };
}

function isPromotable(entry: string): boolean {
  return PROMOTABLE_OUTCOMES.some((o) => entry.includes(`[outcome:${o}]`));
}

/**
 * DONE step 5: move generalizable session entries (`[outcome:gotcha|decision|observation]`) to the
 * global file. Global is written first, then the session file loses them: a crash in between
 * leaves them in both, and the replay skips what global already has and finishes the move.
 * `promoted` counts entries newly added to global; `kept` the session-specific entries left.
 */
export async function promoteSessionLearnings(
  ws: SessionPaths,
  /** Why the session's later work contradicts an entry (it then stays in the session), or null. */
  contradicted: (entry: string) => string | null = () => null,
): Promise<{ promoted: number; kept: number; held: { entry: string; why: string }[] }> {
  const sFile = ws.sessionLearnings;
  const sText = await readTextOrNull(sFile);
  if (sText === null) return { promoted: 0, kept: 0, held: [] };
  const entries = parseLearningEntries(sText);
  const held = entries.flatMap((e) => {
    const why = isPromotable(e) ? contradicted(stripMarkers(e)) : null;
    return why ? [{ entry: e, why }] : [];
  });
  const toMove = entries.filter((e) => isPromotable(e) && !held.some((h) => h.entry === e));
  const keep = entries.filter((e) => !toMove.includes(e));
  if (!toMove.length) return { promoted: 0, kept: keep.length - held.length, held };

  const gFile = ws.learnings;
  const gText = await readTextOrNull(gFile);
  const have = new Set(parseLearningEntries(gText ?? "").map(normalized));
  const fresh: string[] = [];
  for (const e of toMove) {
    const n = normalized(e);
    if (have.has(n)) continue;
    have.add(n);
    fresh.push(stripMarkers(e));
  }
  if (fresh.length) await writeTextAtomic(gFile, appendBlock(gText, fresh.join("\n\n")));
  await writeTextAtomic(sFile, keep.length ? `${HEADER}\n\n${keep.join("\n\n")}\n` : `${HEADER}\n`);
  return { promoted: fresh.length, kept: keep.length - held.length, held };
}

/** Entries in the global learnings file (0 when it is missing). */
export async function countLearningEntries(project: ProjectPaths): Promise<number> {
  const text = await readTextOrNull(project.learnings);
  return text === null ? 0 : parseLearningEntries(text).length;
}

/** DONE step 6: the skill's suggestion when the global file has more than 30 entries, else null. */
/** The suggestion to prune global learnings, once they pass the threshold (src/session/notices.ts words it). */
export function pruneNotice(count: number): NoticeOf<"learningsPrune"> | null {
  if (!(count > PRUNE_THRESHOLD)) return null;
  return { kind: "learningsPrune", count, threshold: PRUNE_THRESHOLD };
}

export interface LearningItem {
  source: "session" | "global";
  text: string;
}

export interface ReadLearningsResult {
  entries: LearningItem[];
  /** Entries available in both files before bounding. */
  total: number;
  truncated: boolean;
}

/**
 * For gather_context: session entries first, then global, newest first within each, de-duplicated,
 * bounded by entry count and characters so a years-old learnings file cannot flood a prompt.
 */
export async function readLearnings(
  /** A session's paths read its own learnings first; a project's, the global file alone. */
  paths: ProjectPaths | SessionPaths,
  opts: { max?: number; maxChars?: number; maxEntryChars?: number } = {},
): Promise<ReadLearningsResult> {
  const max = opts.max ?? 20;
  const maxChars = opts.maxChars ?? 8000;
  const maxEntry = opts.maxEntryChars ?? 600;
  if (max < 0 || maxChars < 0) throw new AutopilotError("bad_input", "readLearnings bounds must be non-negative.");
  const session =
    "sessionLearnings" in paths ? parseLearningEntries((await readTextOrNull(paths.sessionLearnings)) ?? "") : [];
  const global = parseLearningEntries((await readTextOrNull(paths.learnings)) ?? "");
  const all: LearningItem[] = [
    ...session.reverse().map((t) => ({ source: "session" as const, text: t })),
    ...global.reverse().map((t) => ({ source: "global" as const, text: t })),
  ];
  const seen = new Set<string>();
  const entries: LearningItem[] = [];
  let chars = 0;
  let truncated = false;
  let total = 0;
  for (const item of all) {
    const key = normalized(item.text);
    if (seen.has(key)) continue;
    seen.add(key);
    total++;
    let text = stripMarkers(item.text).trim();
    if (text.length > maxEntry) text = text.slice(0, maxEntry - 1) + "…";
    if (entries.length >= max || chars + text.length > maxChars) {
      truncated = true;
      continue;
    }
    chars += text.length;
    entries.push({ source: item.source, text });
  }
  return { entries, total, truncated };
}
