// Counts the tasks and checkpoints of a plan written by the planner persona (protocol.md,
// `autopilot plan`): tasks are `Task N` headings, else the `**Tasks:** N` header; checkpoints
// are tasks carrying a `[checkpoint:human-verify|decision|human-action]` marker outside
// fenced code. The counts feed the complexity override and the plan-approval gate, so a
// template or example in a code block must never inflate them.
import type { Heading, Nodes, RootContent } from "mdast";
import { headingSource, parseMarkdown, plainText } from "./mdast.js";

export type CheckpointKind = "human-verify" | "decision" | "human-action";

export type PlanTask = { number: string; name: string; checkpoint: CheckpointKind | null };

export type PlanCounts = { tasks: number; checkpoints: number };

// `Task 3`, `Task 3.5` (a task inserted after the plan was numbered: hermes-phase-0 upstream)
// and `T1` (fix-roadmap-fleet-verify-contract upstream writes `### T1 — Iron Law: ...`).
// `Tasks` (the section title) and `Task list` are not task headings.
const TASK_RE = /^(?:Task\s+(\d+(?:\.\d+)?[a-z]?)|T(\d+))(?=$|[\s:—–.)-])\s*[:—–.)-]?\s*(.*)$/i;

// `after Task 7` and similar trailing words occur inside the brackets upstream; the kind is
// what matters.
const MARKER_RE = /\[checkpoint:(human-verify|decision|human-action)\b[^\]\n]*\]/i;
const MARKER_STRIP_RE = /`?\[checkpoint:(?:human-verify|decision|human-action)\b[^\]\n]*\]`?/gi;

type TaskSpan = { heading: Heading; number: string; name: string; body: RootContent[] };

function taskSpans(text: string, children: RootContent[]): TaskSpan[] {
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
    return { heading: h.heading, number: h.number, name: taskName(text, h.heading), body: children.slice(h.index + 1, end) };
  });
}

function taskName(text: string, heading: Heading): string {
  const raw = headingSource(text, heading).replace(MARKER_STRIP_RE, " ");
  const m = TASK_RE.exec(raw.replace(/^[*_]+/, "").trim());
  const name = (m ? m[3] : raw).replace(/[*_]+$/, "");
  return name.replace(/\s+/g, " ").replace(/\s*[:—–-]\s*$/, "").replace(/^\s*[:—–-]\s*/, "").trim();
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
function firstMarker(nodes: Nodes[]): CheckpointKind | null {
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
    if (n.type === "paragraph" || n.type === "listItem" || n.type === "blockquote" || n.type === "list" || n.type === "tableCell") {
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

export function planTasks(text: string): PlanTask[] {
  const root = parseMarkdown(text);
  return taskSpans(text, root.children).map((t) => ({
    number: t.number,
    name: t.name,
    checkpoint: firstMarker([t.heading, ...t.body]),
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
