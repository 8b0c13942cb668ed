// Counts the tasks and checkpoints of a plan written by the planner persona (protocol.md,
// `autopilot plan`): tasks are `Task N` headings, else the `**Tasks:** N` header; checkpoints
// are tasks carrying a `[checkpoint:human-verify|decision|human-action]` marker outside
// fenced code. The counts feed the complexity override and the plan-approval gate, so a
// template or example in a code block must never inflate them.
import type { Heading, List, Nodes, Paragraph, RootContent } from "mdast";
import { headingSource, parseMarkdown, plainText } from "./mdast.js";
import { TASK_SIZE } from "../rules/policy.js";

import type { CheckpointKind } from "../vocabulary.js";
export type { CheckpointKind };

export type PlanTask = {
  number: string;
  name: string;
  checkpoint: CheckpointKind | null;
  /** `[checkpoint:commit]` in the heading: an automated commit point (the executor stops there; no human). */
  commitPoint?: true;
};

/** `checkpoints` counts the tasks a person must act on; commit points are not among them. */
export type PlanCounts = { tasks: number; checkpoints: number };

/** The one syntax of an automated commit point: `[checkpoint:commit]` in the task heading. */
export const COMMIT_MARKER = "[checkpoint:commit]";
const COMMIT_RE = /\[checkpoint:commit\]/i;

// `Task 3`, `Task 3.5` (a task inserted after the plan was numbered: hermes-phase-0 upstream)
// and `T1` (fix-roadmap-fleet-verify-contract upstream writes `### T1 — Iron Law: ...`).
// `Tasks` (the section title) and `Task list` are not task headings.
const TASK_RE = /^(?:Task\s+(\d+(?:\.\d+)?[a-z]?)|T(\d+))(?=$|[\s:—–.)-])\s*[:—–.)-]?\s*(.*)$/i;

// `after Task 7` and similar trailing words occur inside the brackets upstream; the kind is
// what matters.
const MARKER_RE = /\[checkpoint:(human-verify|decision|human-action)\b[^\]\n]*\]/i;
const MARKER_STRIP_RE = /`?\[checkpoint:(?:human-verify|decision|human-action)\b[^\]\n]*\]`?/gi;

export type TaskSpan = { heading: Heading; number: string; name: string; body: RootContent[] };

export function taskSpans(text: string, children: RootContent[]): TaskSpan[] {
  const heads: { index: number; heading: Heading; number: string }[] = [];
  children.forEach((c, i) => {
    if (c.type !== "heading") return;
    const m = TASK_RE.exec(plainText(c).trim());
    if (m) heads.push({ index: i, heading: c, number: m[1] ?? m[2] });
  });
  return heads.map((h, k) => {
    // A task runs to the next task heading or the next heading at its level or above, so its
    // `#### Steps` sub-headings belong to it but a following `## Dependency graph` does not.
    const nextTask = k + 1 < heads.length ? heads[k + 1].index : children.length;
    let end = nextTask;
    for (let i = h.index + 1; i < nextTask; i++) {
      const c = children[i];
      if (c.type === "heading" && c.depth <= h.heading.depth) {
        end = i;
        break;
      }
    }
    return {
      heading: h.heading,
      number: h.number,
      name: taskName(text, h.heading),
      body: children.slice(h.index + 1, end),
    };
  });
}

function taskName(text: string, heading: Heading): string {
  const raw = headingSource(text, heading).replace(MARKER_STRIP_RE, " ");
  const m = TASK_RE.exec(raw.replace(/^[*_]+/, "").trim());
  const name = (m ? m[3] : raw).replace(/[*_]+$/, "");
  return name
    .replace(/\s+/g, " ")
    .replace(/\s*[:—–-]\s*$/, "")
    .replace(/^\s*[:—–-]\s*/, "")
    .trim();
}

/**
 * The marker kind a block of visible text carries, ignoring dependency clauses: upstream
 * plans write `**Depends on:** Task 11, `[checkpoint:decision]` | **Files:** ...`, which
 * names another task's checkpoint and does not make this task one. Clauses are the
 * ` | `-separated parts of the line, so a marker after the dependency clause still counts.
 */
function markerIn(text: string): CheckpointKind | null {
  for (const clause of text.split(/\s\|\s|\n/)) {
    if (/^\s*depends\s+on\b/i.test(clause)) continue;
    const m = MARKER_RE.exec(clause);
    if (m) return m[1].toLowerCase() as CheckpointKind;
  }
  return null;
}

/** First checkpoint marker in visible text of these nodes; fenced and indented code is skipped. */
export function firstMarker(nodes: Nodes[]): CheckpointKind | null {
  for (const n of nodes) {
    if (n.type === "code" || n.type === "html" || n.type === "yaml") continue;
    if (n.type === "heading" || n.type === "paragraph") {
      const k = markerIn(plainText(n));
      if (k) return k;
      continue;
    }
    if ("children" in n && Array.isArray(n.children)) {
      const k = firstMarker(n.children as Nodes[]);
      if (k) return k;
    }
  }
  return null;
}

function countMarkedBlocks(nodes: Nodes[]): number {
  let count = 0;
  for (const n of nodes) {
    if (n.type === "code" || n.type === "html" || n.type === "yaml") continue;
    if (n.type === "heading" || n.type === "paragraph") {
      if (markerIn(plainText(n))) count++;
      continue;
    }
    if ("children" in n && Array.isArray(n.children)) count += countMarkedBlocks(n.children as Nodes[]);
  }
  return count;
}

/** The `**Tasks:** N` header value (also `**Tasks**: N`), outside code. */
function tasksHeader(nodes: Nodes[]): number | null {
  for (const n of nodes) {
    if (n.type === "code" || n.type === "html") continue;
    if (
      n.type === "paragraph" ||
      n.type === "listItem" ||
      n.type === "blockquote" ||
      n.type === "list" ||
      n.type === "tableCell"
    ) {
      const kids = n.children as Nodes[];
      for (let i = 0; i < kids.length; i++) {
        const k = kids[i];
        if (k.type !== "strong") continue;
        const label = plainText(k).trim();
        if (!/^tasks:?$/i.test(label)) continue;
        const next = kids[i + 1];
        const after = next && next.type === "text" ? next.value : "";
        const m = /^\s*:?\s*(\d+)\b/.exec(after);
        if (m) return Number(m[1]);
      }
      const deeper = tasksHeader(kids.filter((k) => k.type !== "strong"));
      if (deeper !== null) return deeper;
    }
  }
  return null;
}

export function isCommitPoint(heading: Heading): boolean {
  return COMMIT_RE.test(plainText(heading));
}

export function planTasks(text: string): PlanTask[] {
  const root = parseMarkdown(text);
  return taskSpans(text, root.children).map((t) => ({
    number: t.number,
    name: t.name
      .replace(/`?\[checkpoint:commit\]`?/gi, "")
      .replace(/\s+/g, " ")
      .trim(),
    checkpoint: firstMarker([t.heading, ...t.body]),
    ...(isCommitPoint(t.heading) ? { commitPoint: true as const } : {}),
  }));
}

export function countPlan(text: string): PlanCounts {
  const root = parseMarkdown(text);
  const spans = taskSpans(text, root.children);
  if (spans.length > 0) {
    const checkpoints = spans.filter((t) => firstMarker([t.heading, ...t.body]) !== null).length;
    return { tasks: spans.length, checkpoints };
  }
  const header = tasksHeader(root.children);
  if (header === null) return { tasks: 0, checkpoints: 0 };
  // Without task headings a marker cannot be tied to a task; each paragraph or heading that
  // carries one stands for one checkpointed task, never more than the header's task count.
  return { tasks: header, checkpoints: Math.min(header, countMarkedBlocks(root.children)) };
}

// ---- the plan check ----------------------------------------------------------------------------
// What the server checks in code before a plan may run: every task names its files and
// ends with a verification step, no task leaves its content to be decided later, no task is too
// big for one executor pass, and the plan points at no scratchpad file. Each problem is one line the planner can act on.

/** Words that leave a step to be decided later (outside code: a command may contain anything). */
const PLACEHOLDERS: [RegExp, string][] = [
  [/\bTBD\b/, "TBD"],
  [/\bto be (?:decided|determined|defined)\b/i, "to be decided"],
  [/\bas needed\b/i, "as needed"],
  [/\bas appropriate\b/i, "as appropriate"],
  [/\betc\b\.?/i, "etc."],
  [/\band so on\b/i, "and so on"],
  [/\bsimilar to task\s+\d+/i, "similar to Task N"],
];

/** Visible prose of nodes: text only (no code, inline code or HTML). */
function prose(nodes: Nodes[]): string {
  const out: string[] = [];
  const walk = (n: Nodes) => {
    if (n.type === "code" || n.type === "inlineCode" || n.type === "html" || n.type === "yaml") return;
    if (n.type === "text") out.push(n.value);
    if (n.type === "paragraph" || n.type === "heading" || n.type === "listItem") out.push("\n");
    if ("children" in n && Array.isArray(n.children)) for (const k of n.children as Nodes[]) walk(k);
  };
  for (const n of nodes) walk(n);
  return out.join("");
}

/** Every paragraph (and heading) inside these nodes, lists and quotes included; code skipped. */
export function paragraphs(nodes: Nodes[]): (Paragraph | Heading)[] {
  const out: (Paragraph | Heading)[] = [];
  for (const n of nodes) {
    if (n.type === "code" || n.type === "html") continue;
    if (n.type === "paragraph" || n.type === "heading") out.push(n);
    else if ("children" in n && Array.isArray(n.children)) out.push(...paragraphs(n.children as Nodes[]));
  }
  return out;
}

const FILES_LABEL = /^\s*(?:[-*]\s*)?files?(?:\s*\([^)]*\))?\s*:\s*(.*)$/i;

/** The files a task names on its `Files:` line (or in the list right under an empty one); null: no such line. */
export function taskFiles(body: RootContent[]): string[] | null {
  for (let i = 0; i < body.length; i++) {
    for (const p of paragraphs([body[i]])) {
      for (const line of plainText(p).split("\n"))
        for (const clause of line.split(/\s\|\s/)) {
          const m = FILES_LABEL.exec(clause);
          if (!m) continue;
          const rest = m[1].trim();
          if (rest)
            return rest
              .split(/\s*[,;]\s*|\s+and\s+/)
              .map((f) =>
                f
                  .replace(/^(?:create|modify|delete|update|add)\s+/i, "")
                  .replace(/\s*\(.*\)\s*$/, "")
                  .trim(),
              )
              .filter((f) => f.length > 0);
          const next = body[i + 1];
          if (next?.type === "list")
            return next.children.map((li) => plainText(li).split("\n")[0].trim()).filter(Boolean);
          return [];
        }
    }
  }
  return null;
}

const VERIFY_LABEL = /^\s*(?:\d+[.)]\s*)?(?:verify|verification|verified by|expected)\b[^:\n]{0,40}:/i;

/** A `Verify:` line, or a step that runs a command ("Run `npm test` and see it pass"). */
function hasVerification(body: RootContent[]): boolean {
  for (const p of paragraphs(body)) {
    const text = plainText(p);
    if (text.split("\n").some((l) => VERIFY_LABEL.test(l))) return true;
    const runs = /\b(?:run|execute)\b/i.test(prose([p]));
    if (runs && p.children.some((c) => c.type === "inlineCode")) return true;
  }
  return body.some((n) => n.type === "code") && /\b(?:verify|run|expect)/i.test(prose(body));
}

/** The numbered steps of a task: items of its ordered lists, nested ones counted with their parent. */
function stepCount(body: RootContent[]): number {
  return body
    .filter((n): n is List => n.type === "list" && n.ordered === true)
    .reduce((k, l) => k + l.children.length, 0);
}

/**
 * What the plan check finds in a plan, one line per problem (empty: the plan passes). Tasks whose
 * marker hands them to a person (`decision`, `human-action`) need no files or verification command.
 */
export function planProblems(text: string): string[] {
  const root = parseMarkdown(text);
  const spans = taskSpans(text, root.children);
  const out: string[] = [];
  if (!spans.length) return ["The plan has no task headings: write one `### Task N: Name` heading per task."];
  const header = tasksHeader(root.children);
  if (header !== null && header !== spans.length)
    out.push(`The header says **Tasks:** ${header} but the plan has ${spans.length} task headings: make them agree.`);
  for (const t of spans) {
    const name = `Task ${t.number} (${t.name})`;
    const human = firstMarker([t.heading, ...t.body]);
    const byPerson = human === "decision" || human === "human-action";
    const files = taskFiles(t.body);
    if (!byPerson && (files === null || files.length === 0))
      out.push(`${name} names no files: add a "**Files:** <path>, <path>" line with every file it creates or changes.`);
    if (files && files.length > TASK_SIZE.maxFiles)
      out.push(
        `${name} touches ${files.length} files (more than ${TASK_SIZE.maxFiles}): split it into tasks of at most ${TASK_SIZE.maxFiles} files.`,
      );
    const steps = stepCount(t.body);
    if (steps > TASK_SIZE.maxSteps) out.push(`${name} has ${steps} steps (more than ${TASK_SIZE.maxSteps}): split it.`);
    if (!byPerson && !hasVerification(t.body))
      out.push(
        `${name} has no verification step: end it with "**Verify:** \`<command>\` → <the result that proves it>".`,
      );
    const words = prose([t.heading, ...t.body] as Nodes[]);
    const vague = PLACEHOLDERS.filter(([re]) => re.test(words)).map(([, w]) => `"${w}"`);
    if (vague.length) out.push(`${name} leaves work undecided (${vague.join(", ")}): write the exact step instead.`);
  }
  // The plan is committed; the session's scratchpad is cleared when the phase ends and never committed.
  const scratch = /(?:\.harness\/sessions\/[^\s)`'"\]>]*)?\bscratchpad\/[^\s)`'"\]>]*/.exec(text);
  if (scratch)
    out.push(
      `The plan points at ${scratch[0]}: the scratchpad is deleted when the phase ends and never committed, so the committed plan would point at nothing. Write what the tasks need into the plan itself.`,
    );
  return out;
}
