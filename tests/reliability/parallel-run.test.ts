// `autopilot run --parallel` through the built CLI, on a whole three-phase spec: the
// scripted planner, reading the brief, writes the header line per task; each plan's waves are shown
// at the plan gate and kept in the state; a plan with fewer independent tasks than the minimum runs
// serially; a plan with waves runs one executor per task at once, each in its own worktree, merged in
// task order by the queue. The end result (the files on the session's branch) is a serial run's.
//
// Why it lives in the reliability suite (`npm run test:reliability`, which .ci/run runs), beside the
// wave-crash test: it is two whole sessions (the parallel run and the serial one it is compared
// with, 12 tasks each), about 30 s on a quiet 2-core machine, a tenth of the default suite's budget.
// `npm test` keeps tests/headless/parallel.test.ts: a headless `--parallel --jobs 3` run of a
// one-phase spec to DONE (one wave of three tasks, each in its worktree, merged in task order, the
// serial run's files, nothing left behind). What only this file checks: several waves in one plan
// (chains), a plan that falls back to serial in a parallel session, and waves across phases.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { TempRepo } from "../helpers/git.js";
import { assertBuilt, readState, subjects, tree, leftovers, runScripted } from "../headless/_cli.js";

const repos: TempRepo[] = [];
beforeAll(() => assertBuilt());
afterAll(async () => {
  await Promise.all(repos.map((r) => r.cleanup()));
});

const run = (script: unknown, ...flags: string[]) => runScripted(repos, { script }, ...flags);

describe("autopilot run --parallel --jobs 3", () => {
  it("plans with header lines, runs each wave's tasks in their worktrees, merges them in task order, and ends DONE with a serial run's files", async () => {
    // Phase 1: 6 tasks in 3 chains (2 waves of 3); phase 2: 4 independent tasks (1 wave); phase 3: 2, serial.
    const SCRIPT = { phases: { "0": { tasks: 6, chains: 3 }, "1": { tasks: 4 }, "2": { tasks: 2 } } };
    const [parallel, serial] = await Promise.all([run(SCRIPT, "--parallel", "--jobs", "3"), run(SCRIPT)]);
    const out = parallel.res.stdout;
    expect(out).toContain("Waves: 2 waves, at most 3 tasks at once");
    expect(out).toContain("wave 1: Task 1, Task 2, Task 3, Task 4");
    expect(out).toContain("Waves: at most 2 tasks could run at once, fewer than 3: the plan runs serially");
    expect(out).toMatch(/Wave 1 of 2: Task 1 in \.harness\/worktrees\/\S+--task-p1-\w+-1; Task 2 in /);
    expect(out).toContain("Wave 2 of 2: Task 4 in ");
    expect(out).toMatch(/Task 6 \(Counting Core step 6\) merged \([0-9a-f]{7}\)/);
    expect(serial.res.stdout).not.toContain("Waves");

    const state = await readState(parallel.r.dir);
    expect(state.currentState).toBe("DONE");
    expect(state.parallel).toEqual({ minIndependent: 3 });
    const plan = await readFile(path.join(parallel.r.dir, state.phases[0].planPath), "utf8");
    expect(plan).toMatch(/^\*\*Depends on:\*\* none \| \*\*Files:\*\* /m);
    expect(plan).toMatch(/^\*\*Depends on:\*\* Task 1 \| \*\*Files:\*\* /m);
    const gates = state.decisions.filter((d: { waves?: unknown }) => d.waves);
    expect(gates.map((d: { waves: { waves: string[][] } }) => d.waves.waves)).toEqual([
      [
        ["1", "2", "3"],
        ["4", "5", "6"],
      ],
      [["1", "2", "3", "4"]],
      [["1"], ["2"]],
    ]);
    // The plan committed before its first wave (the worktrees hold it), then one commit per task in
    // task order, for the phases that ran in waves; the serial phase as before.
    expect(await subjects(parallel.r.dir)).toEqual([
      "Add Command Line",
      "Add File Reading step 4",
      "Add File Reading step 3",
      "Add File Reading step 2",
      "Add File Reading step 1",
      "Plan File Reading",
      "Add Counting Core step 6",
      "Add Counting Core step 5",
      "Add Counting Core step 4",
      "Add Counting Core step 3",
      "Add Counting Core step 2",
      "Add Counting Core step 1",
      "Plan Counting Core",
      "initial commit",
    ]);
    expect(await tree(parallel.r.dir)).toBe(await tree(serial.r.dir));
    // Merged work's worktrees and branches are gone.
    expect(await leftovers(parallel.r.dir)).toEqual({ worktrees: [], branches: "" });
  });
});
