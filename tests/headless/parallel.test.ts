// `autopilot run --parallel --jobs 3` through the built CLI, on a one-phase spec: the
// scripted planner, reading the brief, writes the header line per task; the plan's wave is shown at
// the plan gate and kept in the state; the three independent tasks run at once, each in its own
// worktree, and are merged in task order by the queue; the session ends DONE with the files a serial
// run leaves, and no worktree or task branch is left behind. The whole three-phase version (several
// waves in one plan, a plan that falls back to serial) is tests/reliability/parallel-run.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { TempRepo } from "../helpers/git.js";
import { EXIT_CODES } from "../../src/headless/events.js";
import {
  assertBuilt,
  cli,
  readState,
  SLUG,
  SPEC_REL,
  specRepo,
  subjects,
  tree,
  leftovers,
  runScripted,
} from "./_cli.js";

const ONE_PHASE =
  "# Word Count\n\n## Implementation Order\n\n### Phase 1: Counting Core\n<!-- complexity: low -->\nCount lines, words, characters.\n";
const SCRIPT = { phases: { "0": { tasks: 3 } } };

const repos: TempRepo[] = [];
beforeAll(() => assertBuilt());
afterAll(async () => {
  await Promise.all(repos.map((r) => r.cleanup()));
});

const run = (...flags: string[]) => runScripted(repos, { spec: ONE_PHASE, script: SCRIPT }, ...flags);

describe("autopilot run --parallel --jobs 3", () => {
  it("runs a wave of three tasks in their worktrees, merges them in task order, and ends DONE with a serial run's files", async () => {
    const [parallel, serial] = await Promise.all([run("--parallel", "--jobs", "3"), run()]);
    const out = parallel.res.stdout;
    expect(out).toContain("wave 1: Task 1, Task 2, Task 3");
    expect(out).toMatch(/Wave 1 of 1: Task 1 in \.harness\/worktrees\/\S+--task-p1-\w+-1; Task 2 in /);
    expect(out).toMatch(/Task 3 \(Counting Core step 3\) merged \([0-9a-f]{7}\)/);
    expect(out).toMatch(/DONE in /);
    expect(serial.res.stdout).not.toContain("Waves");

    const state = await readState(parallel.r.dir);
    expect(state.currentState).toBe("DONE");
    expect(state.parallel).toEqual({ minIndependent: 3 });
    const plan = await readFile(path.join(parallel.r.dir, state.phases[0].planPath), "utf8");
    expect(plan).toMatch(/^\*\*Depends on:\*\* none \| \*\*Files:\*\* /m);
    const gates = state.decisions.filter((d: { waves?: unknown }) => d.waves);
    expect(gates.map((d: { waves: { waves: string[][] } }) => d.waves.waves)).toEqual([[["1", "2", "3"]]]);
    // The plan committed before the wave (the worktrees hold it), then one commit per task in task order.
    expect(await subjects(parallel.r.dir)).toEqual([
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

describe("autopilot run --parallel --budget: a wave's dispatches count against the budget before they start", () => {
  it("a wave whose runs together would cross the budget stops before any of its tasks starts; a larger --budget resumes it to DONE", async () => {
    // 10k tokens a run. The planner spends 10k; wave 1 (3 tasks) comes to 40k, within 45k; wave 2's
    // 3 runs would make it 70k: the session stops before it (a serial check would still dispatch at 40k).
    const SCRIPT = {
      usage: { totalTokens: 10_000 },
      phases: { "0": { tasks: 6, chains: 3 }, "1": { tasks: 2 }, "2": { tasks: 2 } },
    };
    const r = await specRepo({ config: { scripted: SCRIPT } });
    repos.push(r);
    const args = ["run", SPEC_REL, "--runner", "scripted", "--yes", "--parallel", "--jobs", "3"];
    const res = await cli([...args, "--budget", "45k"], { cwd: r.dir });
    expect(res.code).toBe(EXIT_CODES.budget);
    expect(res.stdout).toContain(
      "The wave's 3 task runs, counted before they start, would cross the session's budget (40k tokens spent of a 45k-token budget; 3 runs of about 10k tokens each would make it 70k tokens).",
    );
    expect(res.stdout).toContain("Stopped at the budget (EXECUTE, step");
    expect(res.stdout).toContain(
      `To continue: autopilot run ${SPEC_REL} --runner scripted --yes --parallel --jobs 3 --budget <more>`,
    );
    const state = await readState(r.dir);
    expect(state.stage).toBe("budgetWave");
    expect(state.decisions.at(-1)).toMatchObject({ decision: "stopped_budget", by: "policy" });
    // Wave 1 merged; nothing of wave 2 started: no worktree, no branch, no run spent.
    expect(state.phaseRun.waveRun.wave).toBe(0);
    expect(state.phaseRun.waveRun.tasks.map((t: { task: string; status: string }) => [t.task, t.status])).toEqual([
      ["1", "merged"],
      ["2", "merged"],
      ["3", "merged"],
    ]);
    expect(state.usage.total).toMatchObject({ tokens: 40_000, dispatches: 4 });
    // No worktree or branch of wave 2 (wave 1's merged ones are removed while the next wave runs).
    const left = await leftovers(r.dir);
    expect(left.worktrees.map((w) => w.slice(-2))).toEqual(["-1", "-2", "-3"]);
    expect(left.branches.split("\n").map((b) => b.trim().slice(-2))).toEqual(["-1", "-2", "-3"]);
    expect((await subjects(r.dir))[0]).toBe("Add Counting Core step 3");

    const more = await cli([...args, "--budget", "1M"], { cwd: r.dir });
    expect(more.stderr).toBe("");
    expect(more.code).toBe(EXIT_CODES.done);
    expect(more.stdout).toContain("Wave 2 of 2: Task 4 in ");
    const after = await readState(r.dir);
    expect(after.currentState).toBe("DONE");
    expect(await subjects(r.dir)).toEqual(
      expect.arrayContaining(["Add Counting Core step 4", "Add Counting Core step 6"]),
    );
    expect(await leftovers(r.dir)).toEqual({ worktrees: [], branches: "" });
  }, 180_000);
});

describe("autopilot run --parallel: an executor's plan defect inside a wave", () => {
  it("merges the wave's done tasks, sends the plan back to the planner with the defect, and runs only the unmerged task from the revised plan, to DONE", async () => {
    const script = { phases: { "0": { tasks: 3, planDefectAt: 2 } } };
    const [parallel, serial] = await Promise.all([
      runScripted(repos, { spec: ONE_PHASE, script }, "--parallel", "--jobs", "3"),
      runScripted(repos, { spec: ONE_PHASE, script }),
    ]);
    const out = parallel.res.stdout;
    expect(out).toContain("the executor reports a defect in the plan: Task 2 writes");
    expect(out).toContain(
      "The plan goes back to the planner with this (the wave's tasks 1, 3 merged; nothing of task 2 merged, its work (if any) kept on its branch); the revised plan's tasks not merged yet run next.",
    );
    const state = await readState(parallel.r.dir);
    expect(state.currentState).toBe("DONE");
    // Sent back once, counted as the serial path counts it; the revised plan's one wave is task 2 alone.
    expect(state.phases[0]).toMatchObject({ status: "complete" });
    const plan = await readFile(path.join(parallel.r.dir, state.phases[0].planPath), "utf8");
    expect(plan).toContain("(Revised: the module this task needs is written by this task itself.)");
    const gates = state.decisions.filter((d: { waves?: unknown }) => d.waves);
    expect(gates.map((d: { waves: { waves: string[][] } }) => d.waves.waves)).toEqual([[["1", "2", "3"]], [["2"]]]);
    // The decision log's waves: the first wave with task 2 sending the plan back, then task 2 merged from the revised plan.
    const log = state.waveLog.map((w: { wave: number; tasks: { task: string; status: string }[] }) =>
      w.tasks.map((t) => [t.task, t.status]),
    );
    expect(log).toEqual([
      [
        ["1", "merged"],
        ["2", "defect"],
        ["3", "merged"],
      ],
      [["2", "merged"]],
    ]);
    // Each task merged once; nothing lost: the same files as a serial run of the same script (its plan defect sent back too), no worktree or branch left (task 2's first one held no work).
    const subs = await subjects(parallel.r.dir);
    for (const t of [1, 2, 3]) expect(subs.filter((s) => s === `Add Counting Core step ${t}`)).toHaveLength(1);
    expect(await tree(parallel.r.dir)).toBe(await tree(serial.r.dir));
    expect(await leftovers(parallel.r.dir)).toEqual({ worktrees: [], branches: "" });
    const md = await cli(["log", SLUG, "--format", "md"], { cwd: parallel.r.dir });
    expect(md.stdout).toMatch(
      /\| 1 \| 2\. Counting Core step 2 \| plan sent back to the planner: its executor reports a defect in the plan \(Task 2 writes /,
    );
  }, 180_000);
});
