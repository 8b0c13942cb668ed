// Retries: whether a failure is the same task again, and a refused commit's own count of refusals.
import type { AutopilotState, Effect } from "../src/session/schema.js";
import { FIXABLE_HOOK } from "./events.js";

/** How many times the repository's hooks have refused this commit already (0 for a new one). */
export function refusalsOf(context: AutopilotState, commit: Effect): number {
  const held = context.phaseRun.rejectedCommit;
  return held && held.effect.id === commit.id ? held.attempts.length : 0;
}

/** A refused commit goes to the executor: the pre-commit hook refused it, and retries are left. */
export function goesToExecutor(context: AutopilotState, event: { commit: Effect; hook: string }): boolean {
  return event.hook === FIXABLE_HOOK && refusalsOf(context, event.commit) < context.retryBudget.maxAttempts;
}

export function sameTaskAs(
  cur: { number: number | null; name: string },
  task: { number?: number | null; name: string } | undefined,
): boolean {
  if (!task) return true; // a failure that names no task is the same task again
  if (cur.number !== null && task.number !== undefined && task.number !== null) return cur.number === task.number;
  return cur.name === task.name;
}
