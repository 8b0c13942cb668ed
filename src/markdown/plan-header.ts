// The task header line of a plan that says what can run together (upstream's format):
//
//   ### Task 3: Name
//   **Depends on:** Task 1, Task 2 | **Files:** src/a.ts, test/a.test.ts | **Owns:** src/api/**
//
// Read from the mdast tree (fenced code is not a header), values from the Markdown source so a glob
// keeps its asterisks. `Depends on: none` makes a task independent; a task without a `Depends on`
// clause depends on the task before it, so a plan without headers is one serial chain. Only a
// parallel session reads this (src/markdown/waves.ts); a serial one runs the plan in order.
import { endOffset, parseMarkdown, startOffset } from "./mdast.js";
import { firstMarker, isCommitPoint, paragraphs, taskFiles, taskSpans } from "./plan.js";
import type { CheckpointKind } from "../vocabulary.js";

export interface TaskHeader {
  number: string;
  name: string;
  /** Task numbers it depends on as written; null: no `Depends on` clause (it follows the task before). */
  dependsOn: string[] | null;
  /** Words of the `Depends on` clause that name no task number ("the API task"): a plan defect. */
  unreadable: string[];
  files: string[];
  owns: string[];
  /** A person acts at this task (human-verify, decision, human-action). */
  checkpoint: CheckpointKind | null;
  commitPoint: boolean;
}

const CLAUSE = /^\s*(?:[-*+]\s+)?[*_]*\s*(depends\s+on|files?|owns)\s*(?:\([^)]*\))?\s*:?\s*[*_]*\s*:?\s*(.*)$/i;
const NONE = /^(?:none|nothing|no|n\/a|-|—|–|\(none\))$/i;
const TASK_REF = /^(?:tasks?\s*|t)?(\d+(?:\.\d+)?[a-z]?)$/i;

function values(raw: string): string[] {
  return raw
    .split(/\s*[,;]\s*|\s+and\s+|\s+&\s+/)
    .map((v) =>
      v
        .replace(/`/g, "")
        .replace(/\s*\(.*\)\s*$/, "")
        .trim(),
    )
    .filter((v) => v.length > 0);
}

const RANGE = /^(?:tasks?\s*|t)?(\d+)\s*[-–—]\s*(?:tasks?\s*|t)?(\d+)$/i;
/** "Phase 0 Task 3": a task of an earlier phase, done before this phase started. */
const OTHER_PHASE = /^phase\s+\d+\b/i;

/**
 * `Task 1, Task 2` / `Tasks 1 and 2` / `1-5` / `T1` / `none`, as upstream's plans write them: a
 * reason in parentheses, checkpoint markers and earlier phases' tasks are not dependencies here.
 */
function dependencies(raw: string): { refs: string[]; unreadable: string[] } {
  const refs: string[] = [];
  const unreadable: string[] = [];
  const cleaned = raw
    .replace(/`?\[checkpoint:[^\]\n]*\]`?/gi, " ")
    .replace(/`/g, "")
    .replace(/\([^)]*\)?/g, " ");
  if (OTHER_PHASE.test(cleaned.trim())) return { refs, unreadable };
  // "Tasks 1, 2 and 3": the word "Tasks" names every number after it.
  for (const part of values(cleaned.replace(/^\s*tasks\s+/i, ""))) {
    if (NONE.test(part)) continue;
    const one = part.replace(/\s+/g, " ").trim();
    const range = RANGE.exec(one);
    const m = TASK_REF.exec(one);
    if (range && Number(range[2]) >= Number(range[1]) && Number(range[2]) - Number(range[1]) < 100)
      for (let n = Number(range[1]); n <= Number(range[2]); n++) refs.push(String(n));
    else if (m) refs.push(m[1]);
    else if (!OTHER_PHASE.test(one)) unreadable.push(part);
  }
  return { refs: [...new Set(refs)], unreadable };
}

/** Every task's header, in plan order. */
export function planHeaders(text: string): TaskHeader[] {
  const root = parseMarkdown(text);
  return taskSpans(text, root.children).map((t) => {
    let dependsOn: string[] | null = null;
    let unreadable: string[] = [];
    let files: string[] | null = null;
    const owns: string[] = [];
    for (const p of paragraphs(t.body)) {
      const source = text.slice(startOffset(p), endOffset(p));
      for (const line of source.split("\n"))
        for (const clause of line.split(/\s[|·]\s/)) {
          const m = CLAUSE.exec(clause);
          if (!m) continue;
          const label = m[1].toLowerCase();
          if (label.startsWith("depends")) {
            if (dependsOn !== null) continue;
            const d = dependencies(m[2]);
            dependsOn = d.refs;
            unreadable = d.unreadable;
          } else if (label === "owns") owns.push(...values(m[2]));
          else if (files === null && m[2].trim())
            files = values(m[2]).map((f) => f.replace(/^(?:create|modify|delete|update|add)\s+/i, ""));
        }
    }
    return {
      number: t.number,
      name: t.name,
      dependsOn,
      unreadable,
      files: files ?? taskFiles(t.body) ?? [],
      owns: [...new Set(owns)],
      checkpoint: firstMarker([t.heading, ...t.body]),
      commitPoint: isCommitPoint(t.heading),
    };
  });
}

/** Whether any task says what it depends on: without one, the plan is one serial chain. */
export function hasHeaders(headers: readonly TaskHeader[]): boolean {
  return headers.some((h) => h.dependsOn !== null);
}

/**
 * What the dependency lines get wrong, one line per problem the planner can act on: a task number
 * the plan does not have, words that name no task, a task depending on itself, a circle.
 */
export function dependencyProblems(headers: readonly TaskHeader[]): string[] {
  const out: string[] = [];
  const known = new Set(headers.map((h) => h.number));
  for (const h of headers) {
    const name = `Task ${h.number} (${h.name})`;
    for (const r of h.dependsOn ?? []) {
      if (r === h.number) out.push(`${name} depends on itself: remove Task ${r} from its "**Depends on:**" line.`);
      else if (!known.has(r))
        out.push(`${name} depends on Task ${r}, which the plan does not have: name an existing task, or "none".`);
    }
    if (h.unreadable.length)
      out.push(
        `${name} has "**Depends on:** ${h.unreadable.join(", ")}", which names no task: write task numbers ("Task 1, Task 2") or "none".`,
      );
  }
  const circle = findCircle(headers);
  if (circle)
    out.push(
      `Tasks ${circle.join(" → ")} depend on each other in a circle: none of them could start. Break the circle.`,
    );
  return out;
}

/** The explicit dependencies as edges (dependency → dependent), known tasks only, no self-loops. */
export function explicitEdges(headers: readonly TaskHeader[]): Map<string, string[]> {
  const known = new Set(headers.map((h) => h.number));
  const deps = new Map<string, string[]>();
  headers.forEach((h, i) => {
    const list =
      h.dependsOn === null
        ? i > 0
          ? [headers[i - 1].number]
          : []
        : h.dependsOn.filter((r) => r !== h.number && known.has(r));
    deps.set(h.number, list);
  });
  return deps;
}

/** A circle of dependencies, as task numbers with the first repeated at the end; null: none. */
function findCircle(headers: readonly TaskHeader[]): string[] | null {
  const deps = explicitEdges(headers);
  const mark = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (n: string): string[] | null => {
    if (mark.get(n) === "done") return null;
    if (mark.get(n) === "open") return [...stack.slice(stack.indexOf(n)), n];
    mark.set(n, "open");
    stack.push(n);
    for (const d of deps.get(n) ?? []) {
      const c = visit(d);
      if (c) return c;
    }
    stack.pop();
    mark.set(n, "done");
    return null;
  };
  for (const h of headers) {
    const c = visit(h.number);
    if (c) return c;
  }
  return null;
}
