// Crash at every point: a host process is SIGKILLed (AUTOPILOT_FAULT) at each point of a transition,
// in many states, and restarted until the session is done. Every restart meets the dead process's
// lock and must take it over; every finished run must equal an uninterrupted one: the final state
// (timestamps aside), the commit subjects, the session files. A duplicate commit, a lost decision or
// a counter reset shows up as a difference.
//
// Sizes: RELIABILITY_CHAINS (sessions per kill point, default 2) and RELIABILITY_KILLS (kills per
// session, default 5); `npm run soak` raises the sessions to 24. RELIABILITY_SEED picks the kill
// counts. A session's cost is one run plus one process start per kill, so the default suite packs
// five kills into each of 12 sessions (60 kills, every point killed about 12 times) rather than
// three into each of 24 (72 kills at nearly twice the CPU).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rm } from "node:fs/promises";
import { builtDist } from "./build.js";
import {
  LOCK,
  SCRIPT,
  SEED,
  SLUG,
  SPEC_PATH,
  copyRepo,
  makeTemplate,
  pool,
  rng,
  runDriver,
  snapshot,
  stateFileIsValid,
  type RunSnapshot,
} from "./harness.js";
import { FAULT_POINTS, type FaultPoint } from "../../src/engine/faults.js";

const CHAINS = Number(process.env.RELIABILITY_CHAINS ?? 2);
const KILLS = Number(process.env.RELIABILITY_KILLS ?? 5);
const PARALLEL = Number(process.env.RELIABILITY_PARALLEL ?? 8);
// Generous per-test limits that grow with the soak's sizes; CI's default run takes about 1-2 minutes.
const LIMIT_MS = Math.max(600_000, CHAINS * KILLS * 40_000);

let dist: string;
let template: string;
let baseline: RunSnapshot;
let baselineResumed: RunSnapshot;
let counts: Record<string, number>;

function baseOpts(dir: string, extra: Record<string, unknown> = {}) {
  return { dist, root: dir, spec: SPEC_PATH, slug: SLUG, mode: "drive", lock: LOCK, script: SCRIPT, ...extra };
}

beforeAll(async () => {
  dist = await builtDist();
  template = await makeTemplate();
  const repo = await copyRepo(template);
  // Counting is on only while a fault plan is set: one that never fires counts every point.
  const run = await runDriver(baseOpts(repo.dir), { AUTOPILOT_FAULT: "before-save:1000000" });
  const end = run.lines.find((l) => l.event === "end");
  if (!end || end.state !== "DONE") throw new Error(`baseline run failed: ${JSON.stringify(run.lines)} ${run.stderr}`);
  counts = end.counts;
  baseline = await snapshot(repo.dir);
  baselineResumed = await snapshot(repo.dir, { ignoreStepIds: true });
  await repo.cleanup();
}, 120_000);

afterAll(async () => {
  if (template) await rm(template, { recursive: true, force: true });
});

interface Kill {
  point: FaultPoint;
  n: number;
}

interface ChainResult {
  kills: { point: FaultPoint; n: number; killed: boolean; stateFile: string | null }[];
  restarts: number;
  snap: RunSnapshot;
  ms: number;
}

/** Run one session through a list of kills (one per process), then to the end without faults. */
async function chain(plan: Kill[], resumeWithStart: boolean): Promise<ChainResult> {
  const t0 = Date.now();
  const repo = await copyRepo(template);
  try {
    const kills: ChainResult["kills"] = [];
    let restarts = 0;
    for (const k of plan) {
      const run = await runDriver(baseOpts(repo.dir, { resumeWithStart }), { AUTOPILOT_FAULT: `${k.point}:${k.n}` });
      const killed = run.signal === "SIGKILL";
      if (!killed && run.code !== 0)
        throw new Error(`driver failed (${k.point}:${k.n}): ${JSON.stringify(run.lines)} ${run.stderr}`);
      kills.push({ ...k, killed, stateFile: await stateFileIsValid(repo.dir) });
      restarts++;
      if (!killed) break; // the session finished before the n-th occurrence: nothing left to kill
    }
    const last = await runDriver(baseOpts(repo.dir, { resumeWithStart }));
    restarts++;
    const end = last.lines.find((l) => l.event === "end");
    if (!end)
      throw new Error(`final run failed after ${JSON.stringify(plan)}: ${JSON.stringify(last.lines)} ${last.stderr}`);
    expect(end.state).toBe("DONE");
    return { kills, restarts, snap: await snapshot(repo.dir, { ignoreStepIds: resumeWithStart }), ms: Date.now() - t0 };
  } finally {
    await repo.cleanup();
  }
}

/** Kill counts spread over the whole run: each kill lands somewhere in the next process's share. */
function planFor(points: FaultPoint[], r: () => number): Kill[] {
  return points.map((point) => {
    const per = Math.max(1, Math.ceil(counts[point] / KILLS));
    return { point, n: 1 + Math.floor(r() * per) };
  });
}

function summarize(label: string, results: ChainResult[]) {
  const byPoint: Record<string, { tried: number; killed: number }> = {};
  for (const r of results)
    for (const k of r.kills) {
      const e = (byPoint[k.point] ??= { tried: 0, killed: 0 });
      e.tried++;
      if (k.killed) e.killed++;
    }
  const kills = results.reduce((a, r) => a + r.kills.filter((k) => k.killed).length, 0);
  console.log(
    `[reliability] ${label}: ${results.length} sessions, ${kills} SIGKILLs survived, ${results.reduce((a, r) => a + r.restarts, 0)} process starts; by point ${JSON.stringify(byPoint)}; ` +
      `max session ${Math.max(...results.map((r) => r.ms))} ms`,
  );
  return kills;
}

describe("crash at every point", () => {
  it("the uninterrupted run reaches every kill point, with one commit per effect", () => {
    for (const p of FAULT_POINTS) expect(counts[p], p).toBeGreaterThan(0);
    expect(new Set(baseline.trailers).size).toBe(baseline.trailers.length);
    expect(baseline.subjects).toContain("Unfinished work on task 1 (CLI Integration step 1)");
    expect(baseline.files[".harness/failures.md"]).toMatch(/retry-exhausted/);
    // The pre-commit hook refused the first checkpoint's commit once: fixed, then made once.
    expect(JSON.stringify(baseline.state)).toContain('"decision":"commit_rejected"');
    expect(baseline.subjects).toContain("Add Core Scanner up to step 2");
    // Everything the run changed is committed, except the learnings DONE appends after the last commit.
    expect(baseline.status).toBe("?? .harness/learnings.md\n");
    console.log(`[reliability] kill points reached in one uninterrupted session: ${JSON.stringify(counts)}`);
  });

  it(
    "a SIGKILL at any point, restarted with autopilot_next, ends exactly as an uninterrupted run",
    async () => {
      const r = rng(SEED);
      const plans: Kill[][] = [];
      for (const p of FAULT_POINTS) for (let c = 0; c < CHAINS; c++) plans.push(planFor(Array(KILLS).fill(p), r));
      // Mixed chains: a different point at each kill.
      for (let c = 0; c < CHAINS; c++)
        plans.push(
          planFor(
            Array.from({ length: KILLS }, () => FAULT_POINTS[Math.floor(r() * FAULT_POINTS.length)]),
            r,
          ),
        );
      const results = await pool(plans, PARALLEL, async (plan) => {
        const res = await chain(plan, false);
        for (const k of res.kills) expect(k.stateFile, JSON.stringify(k)).toMatch(/^(ok|missing)$/);
        expect(res.snap, `after kills ${JSON.stringify(plan)}`).toEqual(baseline);
        return res;
      });
      const kills = summarize("restart with autopilot_next", results);
      expect(kills).toBeGreaterThanOrEqual(Math.floor(plans.length * KILLS * 0.8));
    },
    LIMIT_MS,
  );

  // Kill sequences the soak found failing, kept as fixed cases (resumed with autopilot_start).
  const FOUND: { why: string; plan: Kill[]; killed?: number }[] = [
    {
      // Lost phase 2's second task failure (retriesUsed 1, not 2): a result cached for a step the
      // resume renumbered (the driver's fault, fixed there).
      why: "seed 156535247: five kills keep every retry",
      plan: [
        { point: "after-probe-save", n: 1 },
        { point: "mid-effects", n: 2 },
        { point: "after-effects", n: 1 },
        { point: "before-save", n: 8 },
        { point: "after-effects", n: 2 },
      ],
    },
    {
      // The last kill lands after the session is DONE: the restart must pick up the finished
      // session, not start the spec again (autopilot_start archives a DONE session). The fourth
      // kill leaves the session DONE; the soak's fifth (mid-effects 2) then fell in a fresh run of
      // the spec, and a resumed host has nothing left to kill.
      killed: 4,
      why: "seed 173467419: a kill after DONE, then a restart, is still the one finished session",
      plan: [
        { point: "before-save", n: 9 },
        { point: "after-effects", n: 3 },
        { point: "after-probe-save", n: 1 },
        { point: "after-probe-save", n: 1 },
        { point: "mid-effects", n: 2 },
      ],
    },
    {
      // Lost phase 2's second task failure again: the restart after the before-save kill was
      // itself killed inside autopilot_start, after the re-presented step was saved and before the
      // driver carried the owed result to it (the driver's fault, fixed there).
      why: "seed 591937271: a resume killed after its own save still reports the result it owed",
      plan: [
        { point: "after-save", n: 7 },
        { point: "after-save", n: 1 },
        { point: "before-save", n: 9 },
        { point: "after-save", n: 1 },
        { point: "after-effects", n: 4 },
      ],
    },
  ];
  for (const { why, plan, killed } of FOUND)
    it(`found by the soak: ${why}`, async () => {
      const res = await chain(plan, true);
      for (const k of res.kills) expect(k.stateFile, JSON.stringify(k)).toMatch(/^(ok|missing)$/);
      expect(
        res.kills.filter((k) => k.killed),
        JSON.stringify(res.kills),
      ).toHaveLength(killed ?? plan.length);
      expect(res.snap).toEqual(baselineResumed);
    }, 180_000);

  it(
    "a SIGKILL at any point, resumed with autopilot_start, ends as an uninterrupted run (step numbers aside)",
    async () => {
      const r = rng(SEED + 1);
      const plans = Array.from({ length: Math.max(3, Math.ceil(CHAINS / 2)) }, () =>
        planFor(
          Array.from({ length: KILLS }, () => FAULT_POINTS[Math.floor(r() * FAULT_POINTS.length)]),
          r,
        ),
      );
      const results = await pool(plans, PARALLEL, async (plan) => {
        const res = await chain(plan, true);
        for (const k of res.kills) expect(k.stateFile, JSON.stringify(k)).toMatch(/^(ok|missing)$/);
        expect(res.snap, `after kills ${JSON.stringify(plan)}`).toEqual(baselineResumed);
        return res;
      });
      summarize("resume with autopilot_start", results);
    },
    LIMIT_MS,
  );
});
