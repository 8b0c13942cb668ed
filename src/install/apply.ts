// Writing a plan, and describing it (the summary and the --dry-run diff).
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, relative, sep } from "node:path";
import type { InstallPlan } from "./clients.js";
import type { PlannedFile } from "./plan-files.js";
import { isInside } from "../session/confine.js";

export type Change = "create" | "update" | "unchanged";

export function changeOf(f: PlannedFile): Change {
  if (f.before === null) return "create";
  return f.before === f.after ? "unchanged" : "update";
}

export function displayPath(path: string, plan: InstallPlan): string {
  const rel = relative(plan.base, path);
  if (rel === "" || !isInside(plan.base, path)) return path;
  return plan.scope === "global" ? `~${sep}${rel}` : rel;
}

function writeAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.autopilot-${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/**
 * Writes every changed file. A file we own that the user had changed is kept next to the new one
 * as `<file>.bak` first; config files are merged, never replaced, so they need no copy.
 */
export function applyPlan(plan: InstallPlan): { written: string[]; backups: string[] } {
  const written: string[] = [];
  const backups: string[] = [];
  for (const f of plan.files) {
    const change = changeOf(f);
    if (change === "unchanged") continue;
    if (change === "update" && !f.merged && f.before !== null) {
      writeAtomic(`${f.path}.bak`, f.before);
      backups.push(`${f.path}.bak`);
    }
    writeAtomic(f.path, f.after);
    written.push(f.path);
  }
  return { written, backups };
}

function lines(text: string | null): string[] {
  if (text === null || text === "") return [];
  const l = text.split("\n");
  if (l[l.length - 1] === "") l.pop();
  return l;
}

/**
 * A unified-style diff with one hunk: the common head and tail are trimmed (with 3 lines of
 * context kept) and the rest shown as removed and added lines. Our merges change one region of
 * a file, so one hunk is exact for them, and it stays linear on large files like ~/.claude.json.
 */
export function unifiedDiff(name: string, before: string | null, after: string): string {
  const a = lines(before);
  const b = lines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const ctx = 3;
  const from = Math.max(0, head - ctx);
  const aEnd = a.length - Math.max(0, tail - ctx);
  const bEnd = b.length - Math.max(0, tail - ctx);
  const out = [before === null ? "--- /dev/null" : `--- a/${name}`, `+++ b/${name}`];
  out.push(`@@ -${a.length === 0 ? 0 : from + 1},${aEnd - from} +${b.length === 0 ? 0 : from + 1},${bEnd - from} @@`);
  for (let i = from; i < head; i++) out.push(` ${a[i]}`);
  for (let i = head; i < a.length - tail; i++) out.push(`-${a[i]}`);
  for (let i = head; i < b.length - tail; i++) out.push(`+${b[i]}`);
  for (let i = a.length - tail; i < aEnd; i++) out.push(` ${a[i]}`);
  return out.join("\n");
}

export function summaryLine(f: PlannedFile, plan: InstallPlan): string {
  const change = changeOf(f);
  const name = displayPath(f.path, plan);
  if (change === "unchanged") return `  unchanged  ${name}`;
  const added = lines(f.after).length;
  if (change === "create") return `  create     ${name} (+${added} lines)`;
  return `  ${f.merged ? "merge " : "update"}     ${name}${f.merged ? ` (adds ${f.adds ?? "our entry"})` : " (previous copy kept as .bak)"}`;
}
