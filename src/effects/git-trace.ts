// What git's trace2 event stream (GIT_TRACE2_EVENT, written to a file by the traced commit in
// ./git.ts) says about the hooks a git command ran: the top process's own hooks and their exit codes.
import { readFile } from "node:fs/promises";

/** The fields of git's trace2 event stream that tell which hook ran and how it exited. */
interface TraceEvent {
  event?: string;
  sid?: string;
  child_id?: number;
  child_class?: string;
  hook_name?: string;
  code?: number;
}

/** The hooks the traced git ran (its own, not those of git processes the hooks started), with their exit codes. */
export async function hookRuns(traceFile: string): Promise<{ name: string; code: number | null }[]> {
  const text = await readFile(traceFile, "utf8").catch(() => "");
  let top: string | null = null;
  const started = new Map<number, string>();
  const runs: { name: string; code: number | null; id: number }[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let ev: TraceEvent;
    try {
      ev = JSON.parse(line) as TraceEvent;
    } catch {
      continue;
    }
    top ??= ev.sid ?? null;
    if (ev.sid !== top || typeof ev.child_id !== "number") continue;
    if (ev.event === "child_start" && ev.child_class === "hook" && ev.hook_name) {
      started.set(ev.child_id, ev.hook_name);
      runs.push({ name: ev.hook_name, code: null, id: ev.child_id });
    } else if (ev.event === "child_exit" && started.has(ev.child_id)) {
      const run = runs.find((r) => r.id === ev.child_id);
      if (run) run.code = typeof ev.code === "number" ? ev.code : null;
    }
  }
  return runs.map(({ name, code }) => ({ name, code }));
}
