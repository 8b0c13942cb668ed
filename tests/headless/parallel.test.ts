// `autopilot run --parallel` through the built CLI (issue 27, as far as it is built): the scripted
// planner, reading the brief, writes the header line per task; each plan's waves are shown at the
// plan gate and kept in the state; a plan with fewer independent tasks than the minimum runs
// serially. Execution itself is still serial, so the commits are those of a serial run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { TempRepo } from "../helpers/git.js";
import { assertBuilt, cli, readState, SPEC_REL, specRepo, subjects } from "./_cli.js";

const repos: TempRepo[] = [];
beforeAll(() => assertBuilt());
afterAll(async () => {
  await Promise.all(repos.map((r) => r.cleanup()));
});

const SCRIPT = { phases: { "0": { tasks: 3 }, "1": { tasks: 4 }, "2": { tasks: 2 } } };

async function run(...flags: string[]) {
  const r = await specRepo({ config: { scripted: SCRIPT } });
  repos.push(r);
  const res = await cli(["run", SPEC_REL, "--runner", "scripted", "--yes", ...flags], { cwd: r.dir });
  expect(res.stderr).toBe("");
  expect(res.code).toBe(0);
  return { r, res };
}

describe("autopilot run --parallel", () => {
  it("plans with header lines, shows and records each plan's waves, and ends DONE with a serial run's commits", async () => {
    const [parallel, serial] = await Promise.all([run("--parallel"), run()]);
    const out = parallel.res.stdout;
    expect(out).toContain("Waves: 1 wave, at most 3 tasks at once");
    expect(out).toContain("wave 1: Task 1, Task 2, Task 3, Task 4");
    expect(out).toContain("Waves: at most 2 tasks could run at once, fewer than 3: the plan runs serially");
    expect(serial.res.stdout).not.toContain("Waves");

    const state = await readState(parallel.r.dir);
    expect(state.currentState).toBe("DONE");
    expect(state.parallel).toEqual({ minIndependent: 3 });
    const plan = await readFile(path.join(parallel.r.dir, state.phases[0].planPath), "utf8");
    expect(plan).toMatch(/^\*\*Depends on:\*\* none \| \*\*Files:\*\* /m);
    const gates = state.decisions.filter((d: { waves?: unknown }) => d.waves);
    expect(gates.map((d: { waves: { waves: string[][] } }) => d.waves.waves)).toEqual([
      [["1", "2", "3"]],
      [["1", "2", "3", "4"]],
      [["1"], ["2"]],
    ]);
    expect(await subjects(parallel.r.dir)).toEqual(await subjects(serial.r.dir));
  });
});
