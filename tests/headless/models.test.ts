// `autopilot run` with a model per persona: the scripted runner stands in for the API runner, so its
// dispatches carry the API's model ids. A parallel wave's task runs its last attempt within the
// retry budget one tier up, and `autopilot log` says which model ran each dispatch and why, priced
// from the table where the run reported its tokens.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempRepo } from "../helpers/git.js";
import { RETRY_BUDGET } from "../../src/rules/policy.js";
import { EXIT_CODES } from "../../src/headless/events.js";
import { assertBuilt, cli, readState, SLUG, SPEC_REL, runScripted, specRepo } from "./_cli.js";

const ONE_PHASE =
  "# Word Count\n\n## Implementation Order\n\n### Phase 1: Counting Core\n<!-- complexity: low -->\nCount lines, words, characters.\n";

const repos: TempRepo[] = [];
beforeAll(() => assertBuilt());
afterAll(async () => {
  await Promise.all(repos.map((r) => r.cleanup()));
});

type Run = { stepId: number; persona: string; task?: string; model: string; escalated: boolean; why: string };

describe("autopilot run: the model of each dispatch", () => {
  it("a wave task's last attempt within the retry budget runs one tier up; the log names every run's model and why", async () => {
    // Each run reports 10k input and 1k output tokens: priced at each model's rate.
    const usage = { inputTokens: 10_000, outputTokens: 1_000 };
    const script = { phases: { "0": { tasks: 3, fail: { task: 2, times: RETRY_BUDGET - 1 } } }, usage };
    const { r } = await runScripted(repos, { spec: ONE_PHASE, script }, "--parallel", "--jobs", "3");
    const state = await readState(r.dir);
    expect(state.currentState).toBe("DONE");
    const runs = state.usage.runs as Run[];
    const task2 = runs.filter((x) => x.task === "2");
    expect(task2.map((x) => [x.model, x.escalated])).toEqual([
      ...Array(RETRY_BUDGET - 1).fill(["claude-sonnet-5-5", false]),
      ["claude-opus-5-5", true],
    ]);
    expect(task2.at(-1)!.why).toBe(
      `executor: standard tier, the default at standard rigor; the last attempt at task 2 within the retry budget (attempt ${RETRY_BUDGET}/${RETRY_BUDGET}): one tier up, strong`,
    );
    expect(runs.filter((x) => x.task === "1").map((x) => x.model)).toEqual(["claude-sonnet-5-5"]);
    // Priced from the table: sonnet $2/$10, opus $4/$20 per million tokens.
    expect(state.usage.byModel["claude-sonnet-5-5"].costUsd).toBeCloseTo(
      state.usage.byModel["claude-sonnet-5-5"].dispatches * 0.03,
      10,
    );
    expect(state.usage.byModel["claude-opus-5-5"].costUsd).toBeCloseTo(
      state.usage.byModel["claude-opus-5-5"].dispatches * 0.06,
      10,
    );

    const md = (await cli(["log", SLUG, "--format", "md"], { cwd: r.dir })).stdout;
    expect(md).toContain("## Models");
    expect(md).toMatch(
      /\| harness-task-executor \(task 2\) \| claude-opus-5-5 \| strong ↑ \| executor: standard tier, .*one tier up, strong \| 11k tokens · \$0\.06 \(priced\) \|/,
    );
    expect(md).toMatch(
      /\| harness-planner \| claude-opus-5-5 \| strong \| planner: strong tier, the default at standard rigor \|/,
    );
    const html = (await cli(["log", SLUG, "--format", "html"], { cwd: r.dir })).stdout;
    expect(html).toContain('<h2 id="models-h">Models</h2>');
    expect(html).toMatch(/<tr class="escalated">.*harness-task-executor \(task 2\).*<code>claude-opus-5-5<\/code>/);
    const json = JSON.parse((await cli(["log", SLUG, "--format", "json"], { cwd: r.dir })).stdout);
    expect(json.cost.runs.filter((x: Run) => x.escalated)).toHaveLength(1);
  }, 180_000);

  it("a dollar --budget holds on the priced figure: runs that report tokens but no cost", async () => {
    const script = { usage: { inputTokens: 10_000, outputTokens: 1_000 } };
    const r = await specRepo({ spec: ONE_PHASE, config: { scripted: script } });
    repos.push(r);
    const res = await cli(["run", SPEC_REL, "--runner", "scripted", "--yes", "--budget", "$0.05"], { cwd: r.dir });
    // The planner's run on claude-opus-5-5: 10k × $4 + 1k × $20 per million = $0.06, past $0.05.
    expect(res.code, res.stderr).toBe(EXIT_CODES.budget);
    expect(res.stdout).toContain("$0.06 spent of a $0.05 budget");
    const state = await readState(r.dir);
    expect(state.usage.total).toMatchObject({ dispatches: 1, costReported: 1 });
    expect(state.usage.runs[0]).toMatchObject({ model: "claude-opus-5-5", priced: true });
  }, 120_000);
});
