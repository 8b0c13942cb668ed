// `autopilot run --runner command` end to end: every persona is a small script standing in for an
// agent CLI (tests/fixtures/headless/fake-agent.mjs), configured in .harness/config.json.
import { readFile } from "node:fs/promises";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempRepo } from "../helpers/git.js";
import { assertBuilt, cli, readState, ROOT, SPEC_REL, specRepo, subjects } from "./_cli.js";
import { SIDE_BY_SIDE } from "../helpers/timeouts.js";

const AGENT = path.join(ROOT, "tests/fixtures/headless/fake-agent.mjs");
let r: TempRepo;
let logDir: string;

beforeAll(async () => {
  assertBuilt();
  r = await specRepo({ config: { runner: "command", command: `node ${JSON.stringify(AGENT)} {persona}` } });
  logDir = await mkdtemp(path.join(tmpdir(), "autopilot-agent-log-"));
});
afterAll(async () => {
  await r?.cleanup();
  await rm(logDir, { recursive: true, force: true });
});

describe.concurrent("autopilot run with the command runner", { timeout: SIDE_BY_SIDE }, () => {
  it("runs every persona through the agent command and reaches DONE", async () => {
    const log = path.join(logDir, "calls.txt");
    const res = await cli(["run", SPEC_REL, "--yes"], { cwd: r.dir, env: { FAKE_AGENT_LOG: log } });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).not.toContain("SIMULATION");
    expect(res.stdout).toContain("runner command ·");
    expect(res.stdout).toMatch(/│ \$ node .*fake-agent\.mjs"? harness-planner/);
    const calls = (await readFile(log, "utf8")).trim().split("\n");
    expect(calls.slice(0, 4)).toEqual([
      "harness-planner planned",
      "harness-task-executor executed",
      "harness-verifier verified",
      "harness-code-reviewer reviewed",
    ]);
    expect(calls.at(-1)).toBe("harness-code-reviewer reviewed");
    expect(calls).toHaveLength(3 * 4 + 1);
    const state = await readState(r.dir);
    expect(state.currentState).toBe("DONE");
    expect(state.phases.every((p: { planPath?: string }) => p.planPath?.includes("/plans/"))).toBe(true);
    expect(await subjects(r.dir)).toEqual([
      "Implement Command Line",
      "Implement File Reading",
      "Implement Counting Core",
      "initial commit",
    ]);
    // This agent prints no usage: every dispatch is counted, the cost stays unknown.
    expect(state.usage.total).toMatchObject({ dispatches: 13, reported: 0, tokens: null, costUsd: null });
    expect(res.stdout).toContain("cost: unknown");
  });

  it("passes each persona's model to the command as {model}, in the command runner's names (the config's too)", async () => {
    const r2 = await specRepo({
      config: {
        runner: "command",
        command: `node ${JSON.stringify(AGENT)} {persona} {model}`,
        models: { verifier: "fast", clients: { command: { fast: "claude-haiku-5-5" } } },
      },
    });
    try {
      const log = path.join(logDir, "models.txt");
      const res = await cli(["run", SPEC_REL, "--yes"], { cwd: r2.dir, env: { FAKE_AGENT_LOG: log } });
      expect(res.code, res.stderr).toBe(0);
      expect((await readFile(log, "utf8")).trim().split("\n").slice(0, 4)).toEqual([
        "harness-planner planned opus",
        "harness-task-executor executed sonnet",
        "harness-verifier verified claude-haiku-5-5",
        "harness-code-reviewer reviewed opus",
      ]);
      expect(res.stdout).toMatch(/│ \$ node .*fake-agent\.mjs"? harness-planner opus/);
      const state = await readState(r2.dir);
      expect(state.usage.runs[0]).toMatchObject({ persona: "harness-planner", model: "opus", tier: "strong" });
    } finally {
      await r2.cleanup();
    }
  });

  it("records the usage and cost a `claude -p --output-format json` envelope reports, per phase and in total", async () => {
    const r2 = await specRepo({ config: { runner: "command", command: `node ${JSON.stringify(AGENT)} {persona}` } });
    try {
      const res = await cli(["run", SPEC_REL, "--yes"], { cwd: r2.dir, env: { FAKE_AGENT_ENVELOPE: "1" } });
      expect(res.stderr).toBe("");
      expect(res.code).toBe(0);
      const state = await readState(r2.dir);
      expect(state.currentState).toBe("DONE");
      // 13 dispatches, each 1000 in + 200 out + 300 cache read + 50 cache write, $0.0125.
      expect(state.usage.total).toMatchObject({
        dispatches: 13,
        reported: 13,
        tokens: 13 * 1550,
        inputTokens: 13000,
        outputTokens: 2600,
        cacheReadTokens: 3900,
        cacheWriteTokens: 650,
        durationMs: 13 * 1500,
        costReported: 13,
      });
      expect(state.usage.total.costUsd).toBeCloseTo(0.1625, 6);
      expect(state.usage.byPhase["1"]).toMatchObject({ dispatches: 4, tokens: 4 * 1550 });
      expect(state.usage.byPhase.final).toMatchObject({ name: "final review", dispatches: 1 });
      expect(res.stdout).toContain("cost: 20k tokens · $0.1625");
    } finally {
      await r2.cleanup();
    }
  });
});
