// Fault injection, a testing hook: `AUTOPILOT_FAULT=<point>:<n>` makes this process SIGKILL itself
// the n-th time it reaches `<point>` (n counts from 1, per process). Several may be given, comma
// separated. The reliability suite uses it to prove that a crash at any point of a transition
// leaves a session that the next call finishes exactly as an uninterrupted run would.
//
// With the variable unset (every real run) `faultPoint` returns at once: the spec is parsed once,
// at first use, and the common path is one null check.

export const FAULT_POINTS = [
  "before-save",
  "after-save",
  "mid-effects",
  "after-effects",
  "after-probe-save",
  "commit-rejected",
] as const;
/**
 * Reached only by a parallel session's wave (src/engine/wave.ts): a task's report saved (the
 * others not yet in, or the queue not yet run), its worktrees opened, a task
 * merged before its validation ran, a merge validated before the next one, the queue done before
 * its event is saved, an earlier wave's merged worktree removed while the next wave runs (the
 * ledger still owing the others). tests/reliability/wave-crash.test.ts kills at each.
 */
export const WAVE_FAULT_POINTS = [
  "wave-reported",
  "wave-opened",
  "wave-merge",
  "wave-validated",
  "wave-merged",
  "wave-removed",
] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number] | (typeof WAVE_FAULT_POINTS)[number];

let plan: Map<string, number> | null | undefined;
const reached = new Map<string, number>();

function parsePlan(spec: string | undefined): Map<string, number> | null {
  if (!spec || !spec.trim()) return null;
  const out = new Map<string, number>();
  for (const part of spec.split(",")) {
    const m = /^\s*([a-z-]+):(\d+)\s*$/.exec(part);
    if (!m || ![...FAULT_POINTS, ...WAVE_FAULT_POINTS].includes(m[1] as FaultPoint) || Number(m[2]) < 1) {
      // A typo here would silently test nothing: say so loudly, once.
      process.emitWarning(
        `AUTOPILOT_FAULT entry ${JSON.stringify(part)} ignored: use <point>:<n> with point one of ${[...FAULT_POINTS, ...WAVE_FAULT_POINTS].join(", ")}`,
      );
      continue;
    }
    out.set(m[1], Number(m[2]));
  }
  return out.size ? out : null;
}

/** Crash here (SIGKILL, no cleanup, no flush) if AUTOPILOT_FAULT says so. */
export function faultPoint(name: FaultPoint): void {
  if (plan === undefined) plan = parsePlan(process.env.AUTOPILOT_FAULT);
  if (plan === null) return;
  const n = (reached.get(name) ?? 0) + 1;
  reached.set(name, n);
  if (plan.get(name) === n) process.kill(process.pid, "SIGKILL");
}

/**
 * How often each point was reached in this process (only counted while a fault plan is set).
 * @public the crash driver (tests/helpers/crash-driver.mjs) loads it from dist/.
 */
export function faultCounts(): Record<string, number> {
  return Object.fromEntries(reached);
}
