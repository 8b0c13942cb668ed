// What the person changes while autopilot waits for them. Between a Step that hands the session to
// the person (an ask, or a wait) and their next call no persona works, so a path that starts to
// differ from HEAD in that time is theirs: a config they write to settle a refused commit, a file
// a human-action checkpoint asks for, their own code. It joins the baseline's `during` and stays
// out of every commit autopilot makes (src/effects/ownership.ts), named in the commit's report.
// A path that already held the personas' uncommitted work is left to that work (the person's fix
// of it, as "fix it yourself and continue" asks, belongs to the commit it fixes), and so are the
// session's spec (its own rule) and plans (the person may write a plan for autopilot). What the
// person changes while a persona works cannot be told apart, `.harness/config.json` aside.
import { changedEntries, listChanges, hashPath, readBaseline, topPrefix, writeBaseline } from "../effects/ownership.js";
import { gitRunner } from "../effects/git.js";
import type { SessionPaths } from "../session/paths.js";
import type { AutopilotState } from "../session/schema.js";
import type { Step } from "../protocol/step.js";
import { HARNESS_SHARED_FILES_REL } from "../session/paths.js";
import { plannedPlanPath } from "../personas/jobs.js";

/**
 * git that never takes the index's lock to refresh it (`--no-optional-locks`): these looks run
 * outside the repository lock, beside another session's commit, which would find .git/index.lock.
 */
function looking(root: string) {
  const git = gitRunner(root);
  return (args: string[]) => git(["--no-optional-locks", ...args]);
}

/** At the start of a call: what changed since the session was handed to the person joins `during`. */
export async function takePersonEdits(root: string, ws: SessionPaths, state: AutopilotState): Promise<void> {
  const b = await readBaseline(ws);
  if (!b?.idle) return;
  const seen = new Set([...b.idle.entries, ...b.entries, ...(b.during ?? [])].map((e) => e.path));
  const theirs = new Set<string>([...HARNESS_SHARED_FILES_REL, state.specPath]);
  for (const p of state.phases) if (p.planPath) theirs.add(p.planPath);
  if (state.phases[state.currentPhase]) theirs.add(plannedPlanPath(state));
  const fresh = [];
  for (const p of await listChanges(looking(root), topPrefix(root)))
    if (!seen.has(p) && !theirs.has(p)) fresh.push({ path: p, hash: await hashPath(root, p) });
  if (fresh.length) await writeBaseline(ws, { ...b, during: [...(b.during ?? []), ...fresh] });
}

/**
 * At the end of a call: a Step that hands the session to the person records what differs from
 * HEAD now; any other (a dispatch: the personas work; DONE) drops the record. `at`: the state's
 * last change (not the clock: rendering a Step again reads no time).
 */
export async function noteHandOver(root: string, ws: SessionPaths, step: Step, at: string): Promise<void> {
  const b = await readBaseline(ws);
  if (!b) return;
  const idle = step.next.kind === "ask" || step.next.kind === "wait";
  if (!idle) {
    if (!b.idle) return;
    const { idle: _dropped, ...rest } = b;
    return writeBaseline(ws, rest);
  }
  await writeBaseline(ws, { ...b, idle: { takenAt: at, entries: await changedEntries(root, looking(root)) } });
}
