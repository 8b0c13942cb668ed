// `autopilot run --json` as CI runs it: the built CLI in temp git repositories with the scripted
// runner. Every line on stdout must validate against the documented event schema
// (src/headless/events.ts, docs/headless.md), and each outcome has its own exit code.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempRepo } from "../helpers/git.js";
import { EXIT_CODES, RunEvent, runEventJsonSchema } from "../../src/headless/events.js";
import { assertBuilt, cli, readState, RICH_SCRIPT, ROOT, SPEC_REL, SLUG, specRepo, start } from "./_cli.js";
import { SIDE_BY_SIDE } from "../helpers/timeouts.js";

const repos: TempRepo[] = [];
async function repo(opts: Parameters<typeof specRepo>[0] = {}) {
  const r = await specRepo(opts);
  repos.push(r);
  return r;
}
beforeAll(() => assertBuilt());
afterAll(async () => {
  await Promise.all(repos.map((r) => r.cleanup()));
});

/** Every stdout line parsed and validated; a line that does not validate fails the test with it. */
function events(stdout: string): RunEvent[] {
  const lines = stdout.split("\n").filter((l) => l.length);
  return lines.map((l, i) => {
    const parsed = RunEvent.safeParse(JSON.parse(l));
    if (!parsed.success) throw new Error(`line ${i + 1} does not fit the schema: ${parsed.error.message}\n${l}`);
    return parsed.data;
  });
}
const outcome = (ev: RunEvent[]) => {
  const last = ev.at(-1)!;
  if (last.event !== "outcome") throw new Error(`the last event is ${last.event}, not outcome`);
  return last;
};

describe.concurrent("autopilot run --json: the events", { timeout: SIDE_BY_SIDE }, () => {
  it("done (exit 0): start, transitions, dispatches, usage, decisions, then the outcome with the final Step", async () => {
    const r = await repo({ config: { scripted: { ...RICH_SCRIPT, usage: { totalTokens: 2000, costUsd: 0.01 } } } });
    const res = await cli(["run", SPEC_REL, "--runner", "scripted", "--yes", "--json"], { cwd: r.dir });
    expect(res.code).toBe(EXIT_CODES.done);
    // Progress is on stderr; stdout is nothing but events.
    expect(res.stderr).toMatch(/^SIMULATION/);
    expect(res.stderr).toContain("DONE in");
    const ev = events(res.stdout);
    expect(ev[0]).toMatchObject({
      event: "start",
      v: 1,
      session: SLUG,
      spec: SPEC_REL,
      runner: "scripted",
      simulated: true,
      resumed: false,
      budget: null,
    });
    expect(ev.every((e) => e.session === SLUG)).toBe(true);
    const kinds = new Set(ev.map((e) => e.event));
    expect(kinds).toEqual(new Set(["start", "transition", "dispatch", "usage", "decision", "outcome"]));
    const dispatches = ev.filter((e) => e.event === "dispatch");
    const usages = ev.filter((e) => e.event === "usage");
    expect(usages).toHaveLength(dispatches.length);
    expect(usages[0]).toMatchObject({ persona: "harness-planner", usage: { totalTokens: 2000, costUsd: 0.01 } });
    const state = await readState(r.dir);
    expect(state.usage.total.dispatches).toBe(dispatches.length);
    // Every policy decision in the state came through as a decision event, in order.
    const decided = ev.filter((e) => e.event === "decision");
    expect(decided.map((d) => d.answer)).toEqual(
      state.decisions.filter((d: { by?: string }) => d.by === "policy").map((d: { answer: string }) => d.answer),
    );
    expect(decided[0]).toMatchObject({ by: "policy", rationale: expect.stringMatching(/^--yes policy:/) });
    const end = outcome(ev);
    expect(end).toMatchObject({
      outcome: "done",
      exitCode: 0,
      state: "DONE",
      resume: null,
      step: { session: SLUG, state: "DONE", next: { kind: "done" } },
      cost: { dispatches: dispatches.length, tokens: dispatches.length * 2000 },
    });
    expect(end.cost!.costUsd).toBeCloseTo(dispatches.length * 0.01, 6);
    // Transitions follow the step ids the session went through.
    const ids = ev.filter((e) => e.event === "transition").map((e) => (e as { stepId: number }).stepId);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids.at(-1)).toBe(state.stepId);
  });

  it("waiting for a human (exit 3): a question and no terminal to answer it", async () => {
    const r = await repo();
    const res = await cli(["run", SPEC_REL, "--runner", "scripted", "--review-plans", "--json"], { cwd: r.dir });
    expect(res.code).toBe(EXIT_CODES.waiting);
    const end = outcome(events(res.stdout));
    expect(end).toMatchObject({
      outcome: "waiting",
      exitCode: 3,
      state: "APPROVE_PLAN",
      reason: expect.stringContaining("A question needs a human: Approve this plan"),
      // The command as typed, every flag kept.
      resume: `autopilot run ${SPEC_REL} --runner scripted --review-plans --json`,
      step: { next: { kind: "ask" } },
    });
  });

  it("waiting for a human (exit 3): a phase that needs interactive planning", async () => {
    const r = await repo({
      spec: "# X\n\n## Implementation Order\n\n### Phase 1: Big One\n<!-- complexity: high -->\nHard.\n",
    });
    const res = await cli(["run", SPEC_REL, "--runner", "scripted", "--yes", "--json"], { cwd: r.dir });
    expect(res.code).toBe(EXIT_CODES.waiting);
    expect(outcome(events(res.stdout))).toMatchObject({
      outcome: "waiting",
      state: "PLAN",
      reason: expect.stringContaining("high-complexity"),
    });
  });

  it("stopped (exit 4): the --yes policy stops when a task exhausts its retry budget", async () => {
    const r = await repo({ config: { scripted: { phases: { "0": { tasks: 2, fail: { task: 1, times: 9 } } } } } });
    const res = await cli(["run", SPEC_REL, "--runner", "scripted", "--yes", "--json"], { cwd: r.dir });
    expect(res.code).toBe(EXIT_CODES.stopped);
    const ev = events(res.stdout);
    expect(ev.filter((e) => e.event === "decision").at(-1)).toMatchObject({ answer: "stop", by: "policy" });
    expect(outcome(ev)).toMatchObject({
      outcome: "stopped",
      exitCode: 4,
      state: "EXECUTE",
      step: { next: { kind: "wait" } },
    });
    expect((await readState(r.dir)).stopped).toBe(true);
  });

  it("budget reached (exit 5): a budget smaller than the session stops it at the next dispatch; --yes never spends more; a larger --budget resumes it", async () => {
    const r = await repo({ config: { scripted: { usage: { totalTokens: 10_000 } } } });
    const res = await cli(["run", SPEC_REL, "--runner", "scripted", "--yes", "--budget", "25k", "--json"], {
      cwd: r.dir,
    });
    expect(res.code).toBe(EXIT_CODES.budget);
    const ev = events(res.stdout);
    expect(ev[0]).toMatchObject({ event: "start", budget: "25k tokens" });
    // Three dispatches of 10k spend the 25k; the fourth is asked about and the policy stops.
    expect(ev.filter((e) => e.event === "dispatch")).toHaveLength(3);
    expect(ev.filter((e) => e.event === "decision").at(-1)).toMatchObject({
      name: "budget",
      question: expect.stringContaining("budget is spent (30k tokens spent of a 25k-token budget)"),
      answer: "stop",
      by: "policy",
      rationale: "--yes policy: the budget is spent; a human decides whether to spend more",
    });
    expect(outcome(ev)).toMatchObject({ outcome: "budget", exitCode: 5, cost: { tokens: 30_000, dispatches: 3 } });
    expect(res.stderr).toContain("Stopped at the budget");
    const state = await readState(r.dir);
    expect(state.decisions.at(-1)).toMatchObject({ decision: "stopped_budget", by: "policy" });
    expect(state.usage.total.tokens).toBe(30_000);

    const more = await cli(["run", SPEC_REL, "--runner", "scripted", "--yes", "--budget", "1M", "--json"], {
      cwd: r.dir,
    });
    expect(more.code).toBe(EXIT_CODES.done);
    const again = events(more.stdout);
    expect(again[0]).toMatchObject({ event: "start", resumed: true, budget: "1M tokens" });
    expect(outcome(again)).toMatchObject({ outcome: "done" });
    expect((await readState(r.dir)).usage.total.tokens).toBeGreaterThan(30_000);
  });

  it("on a terminal the budget gate is a question: raise it with an amount in the reason, then stop at the raised one (exit 5)", async () => {
    // The answers come down a pipe here, so they are recorded as `piped`, not as a person's.
    const r = await repo({ config: { scripted: { usage: { totalTokens: 10_000 } } } });
    const p = start(["run", SPEC_REL, "--runner", "scripted", "--budget", "25k"], { cwd: r.dir, stdin: "pipe" });
    await p.waitFor("? The session's budget is spent (30k tokens spent of a 25k-token budget)");
    p.child.stdin!.write("1 to 55k\n"); // 1) raise budget, the reason names the amount
    await p.waitFor("? Phase 1 complete.");
    p.child.stdin!.write("yes\n");
    await p.waitFor("? The session's budget is spent (60k tokens spent of a 55k-token budget)");
    p.child.stdin!.write("stop\n");
    p.child.stdin!.end();
    const res = await p.done;
    expect(res.code).toBe(EXIT_CODES.budget);
    expect(res.stdout).toContain("Budget raised from 25k tokens to 55k tokens (spent: 30k tokens).");
    const state = await readState(r.dir);
    expect(state.budget).toEqual({ tokens: 55_000, usd: null, continueOnceAt: null });
    expect(state.decisions.filter((d: { decision: string }) => /budget/.test(d.decision))).toEqual([
      expect.objectContaining({ decision: "raised_budget", answer: "raise budget", by: "piped", rationale: "to 55k" }),
      expect.objectContaining({ decision: "stopped_budget", answer: "stop", by: "piped" }),
    ]);
  });

  it("failed (exit 1): the error as an outcome event on stdout and one line on stderr", async () => {
    const r = await repo();
    const res = await cli(["run", "docs/nope.md", "--runner", "scripted", "--yes", "--json"], { cwd: r.dir });
    expect(res.code).toBe(EXIT_CODES.failed);
    expect(res.stderr).toMatch(/\[spec_not_found\]/);
    expect(outcome(events(res.stdout))).toMatchObject({
      outcome: "failed",
      exitCode: 1,
      step: null,
      error: { code: "spec_not_found" },
    });
  });

  it("a usage mistake (exit 2): said as an outcome event too", async () => {
    const r = await repo();
    const res = await cli(["run", SPEC_REL, "--runner", "scripted", "--budget", "lots", "--json"], { cwd: r.dir });
    expect(res.code).toBe(EXIT_CODES.usage);
    expect(res.stderr).toContain('"lots" is not a budget');
    expect(outcome(events(res.stdout))).toMatchObject({ outcome: "usage", exitCode: 2, error: { code: "usage" } });
  });

  it("interrupted (exit 130): SIGTERM stops after the current step, the outcome says so", async () => {
    const r = await repo();
    const p = start(["run", SPEC_REL, "--runner", "scripted", "--yes", "--json"], { cwd: r.dir });
    await p.waitFor(/"event":"dispatch"/);
    p.child.kill("SIGTERM");
    const res = await p.done;
    expect(res.code).toBe(EXIT_CODES.interrupted);
    expect(outcome(events(res.stdout))).toMatchObject({
      outcome: "interrupted",
      exitCode: 130,
      resume: `autopilot run ${SPEC_REL} --runner scripted --yes --json`,
    });
  });

  it("docs/run-events.schema.json is the schema the tests validate against", async () => {
    const file = JSON.parse(await readFile(path.join(ROOT, "docs/run-events.schema.json"), "utf8"));
    expect(file).toEqual(runEventJsonSchema());
  });
});
