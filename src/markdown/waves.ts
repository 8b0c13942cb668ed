// Waves: which tasks of a plan run at the same time (`--parallel`), computed here from the plan's
// headers (src/markdown/plan-header.ts) and nowhere else. A task runs after every task it depends
// on, after every earlier task whose `Files`/`Owns` overlap its own (two tasks never touch the same
// file at once), and a task where a person acts runs alone, after everything before it. A wave is
// every task whose predecessors all ran in earlier waves. Fewer independent tasks than the
// session's minimum (policy: PARALLEL_MIN_TASKS) and the plan runs serially, in plan order.
import { minimatch } from "minimatch";
import { explicitEdges, hasHeaders, type TaskHeader } from "./plan-header.js";
import type { WavePlan } from "../session/wave-plan.js";

export type { WavePlan };

const GLOB = /[*?[\]{}!]/;

function norm(p: string): string {
  return p.replace(/\\/g, "/").replace(/^\.\//, "").replace(/\/+$/, "");
}

/** The literal folder a glob starts with (`src/api/**` → `src/api`). */
function globBase(g: string): string {
  const parts = g.split("/");
  const i = parts.findIndex((s) => GLOB.test(s));
  return parts.slice(0, i < 0 ? parts.length : i).join("/");
}

function within(p: string, dir: string): boolean {
  return dir === "" || p === dir || p.startsWith(`${dir}/`);
}

/** Whether two path patterns (files, folders or minimatch globs) can name the same file. */
export function patternsOverlap(a: string, b: string): boolean {
  const x = norm(a);
  const y = norm(b);
  if (x === y) return true;
  const gx = GLOB.test(x);
  const gy = GLOB.test(y);
  if (gx && minimatch(y, x, { dot: true })) return true;
  if (gy && minimatch(x, y, { dot: true })) return true;
  if (gx && gy) {
    const bx = globBase(x);
    const by = globBase(y);
    return within(bx, by) || within(by, bx);
  }
  // A plain path without a glob may be a folder someone owns: everything under it is theirs.
  if (!gx && within(y, x)) return true;
  if (!gy && within(x, y)) return true;
  return false;
}

/** The first path the two tasks share (for the report), or null when they share none. */
function sharedPath(a: TaskHeader, b: TaskHeader): string | null {
  for (const p of [...a.files, ...a.owns])
    for (const q of [...b.files, ...b.owns]) if (patternsOverlap(p, q)) return GLOB.test(p) ? q : p;
  return null;
}

function serialPlan(
  headers: readonly TaskHeader[],
  order: string[],
  reason: string,
  serialized: string[] = [],
): WavePlan {
  return {
    parallel: false,
    waves: (order.length ? order : headers.map((h) => h.number)).map((n) => [n]),
    reason,
    serialized,
  };
}

/**
 * The waves of a plan whose dependencies are sound (dependencyProblems found nothing). `minIndependent`:
 * the fewest tasks the widest wave must hold for the plan to run in parallel.
 */
export function computeWaves(headers: readonly TaskHeader[], minIndependent: number): WavePlan {
  if (!hasHeaders(headers))
    return serialPlan(headers, [], 'no task has a "**Depends on:**" line, so the plan is one serial chain');
  const index = new Map(headers.map((h, i) => [h.number, i]));
  const preds = new Map<string, Set<string>>();
  for (const [n, deps] of explicitEdges(headers)) preds.set(n, new Set(deps));
  // A task where a person acts runs alone: after everything before it, before everything after it.
  headers.forEach((h, i) => {
    if (!h.checkpoint) return;
    for (let j = 0; j < headers.length; j++) {
      if (j < i) preds.get(h.number)!.add(headers[j].number);
      if (j > i) preds.get(headers[j].number)!.add(h.number);
    }
  });
  // A stable topological order (plan order among the ready tasks) orients every overlap edge.
  const order = topoOrder(headers, preds);
  const serialized: string[] = [];
  for (let i = 0; i < order.length; i++)
    for (let j = i + 1; j < order.length; j++) {
      const a = headers[index.get(order[i])!];
      const b = headers[index.get(order[j])!];
      const shared = sharedPath(a, b);
      if (shared === null || reaches(preds, b.number, a.number)) continue;
      preds.get(b.number)!.add(a.number);
      serialized.push(`Task ${b.number} after Task ${a.number} (both touch ${shared})`);
    }
  const level = new Map<string, number>();
  for (const n of topoOrder(headers, preds))
    level.set(n, Math.max(-1, ...[...preds.get(n)!].map((p) => level.get(p)!)) + 1);
  const waves: string[][] = [];
  for (const h of headers) (waves[level.get(h.number)!] ??= []).push(h.number);
  const widest = Math.max(0, ...waves.map((w) => w.length));
  if (widest < minIndependent)
    return serialPlan(
      headers,
      waves.flat(),
      `at most ${widest} task${widest === 1 ? "" : "s"} could run at once, fewer than ${minIndependent}: the plan runs serially`,
      serialized,
    );
  return {
    parallel: true,
    waves,
    reason: `${waves.length} wave${waves.length === 1 ? "" : "s"}, at most ${widest} tasks at once`,
    serialized,
  };
}

/** Whether `from` already (transitively) depends on `to`. */
function reaches(preds: Map<string, Set<string>>, from: string, to: string): boolean {
  const seen = new Set<string>();
  const todo = [from];
  while (todo.length) {
    const n = todo.pop()!;
    if (n === to) return true;
    if (seen.has(n)) continue;
    seen.add(n);
    todo.push(...(preds.get(n) ?? []));
  }
  return false;
}

function topoOrder(headers: readonly TaskHeader[], preds: Map<string, Set<string>>): string[] {
  const done: string[] = [];
  const placed = new Set<string>();
  while (done.length < headers.length) {
    const ready = headers.find((h) => !placed.has(h.number) && [...preds.get(h.number)!].every((p) => placed.has(p)));
    if (!ready) break; // a circle: dependencyProblems reports it; never reached for a checked plan
    placed.add(ready.number);
    done.push(ready.number);
  }
  return done;
}
