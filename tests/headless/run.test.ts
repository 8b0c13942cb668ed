// `autopilot run` end to end through the built CLI, in temp git repositories.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempRepo } from "../helpers/git.js";
import { assertBuilt, cli, readState, RICH_SCRIPT, SPEC_REL, specRepo, start, subjects, writeConfig } from "./_cli.js";
import { RETRY_BUDGET } from "../../src/rules/policy.js";
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

describe.concurrent("autopilot run --runner scripted --yes", { timeout: SIDE_BY_SIDE }, () => {
  it("carries a three-phase spec to DONE with the expected commits, decisions and usage ledger", async () => {
    const r = await repo({ config: { scripted: RICH_SCRIPT } });
    const res = await cli(["run", SPEC_REL, "--runner", "scripted", "--yes"], { cwd: r.dir });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    const lines = res.stdout.split("\n");
    expect(lines[0]).toMatch(/^SIMULATION: personas are simulated by the scripted runner/);
    // Each dispatch line names the model it runs on (the scripted runner carries the API's ids).
    expect(res.stdout).toMatch(
      new RegExp(
        `\\[\\+\\d+\\.\\ds\\] phase 2/3 File Reading · EXECUTE · dispatch harness-task-executor \\(Retry 1/${RETRY_BUDGET}, phase 2: File Reading\\) on claude-sonnet-5-5$`,
        "m",
      ),
    );
    expect(res.stdout).toMatch(/ · dispatch harness-planner \(Plan phase 1: Counting Core\) on claude-opus-5-5$/m);
    expect(res.stdout).toContain('→ "yes" by policy: --yes policy: approve plans');
    expect(res.stdout).toMatch(/DONE in .* 3 phases completed · 9 tasks · 2 retries · final review passed/);
    expect(await subjects(r.dir)).toEqual([
      "Fix duplicated helper across phases",
      "Add Command Line",
      "Fix unchecked input reaches the parser",
      "Add File Reading",
      "Add Counting Core",
      "Add Counting Core up to step 2",
      "initial commit",
    ]);
    const state = await readState(r.dir);
    expect(state.currentState).toBe("DONE");
    const policy = state.decisions.filter((d: { by?: string }) => d.by === "policy");
    expect(policy.map((d: { decision: string }) => d.decision)).toEqual([
      "continued",
      "approved_plan",
      "fix_review",
      "continued",
      "fix_final_review",
    ]);
    expect(policy.every((d: { rationale?: string }) => d.rationale?.startsWith("--yes policy:"))).toBe(true);
    // The ledger lives in the state (one source of truth): every persona result is counted; the
    // simulated personas report no usage, so the cost stays unknown rather than zero.
    const usage = state.usage;
    expect(usage.byPersona["harness-planner"].dispatches).toBe(3);
    expect(usage.byPhase["2"]).toMatchObject({ name: "File Reading" });
    expect(usage.byPhase.final.dispatches).toBeGreaterThanOrEqual(3);
    expect(usage.total.dispatches).toBe(
      Object.values(usage.byPersona as Record<string, { dispatches: number }>).reduce((a, p) => a + p.dispatches, 0),
    );
    expect(usage.total).toMatchObject({ reported: 0, tokens: null, costUsd: null });
    expect(res.stdout).toMatch(/Dispatches: \d+ · cost: none \(simulated\)/);
  });

  // --json (events on stdout ending with the outcome and the final Step, progress on stderr) is
  // tests/headless/json.test.ts's "done (exit 0)" test, which asserts all of it and more.

  it("takes the runner from .harness/config.json and runs from a subdirectory with --project", async () => {
    const r = await repo({ config: { runner: "scripted" } });
    const res = await cli(["run", path.join(r.dir, SPEC_REL), "--yes", "--project", r.dir], {
      cwd: path.join(r.dir, "docs"),
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("runner scripted (simulated)");
    expect((await readState(r.dir)).currentState).toBe("DONE");
  });

  it("stops with the reason and the resume command when a phase needs interactive planning", async () => {
    const r = await repo({
      spec: "# X\n\n## Implementation Order\n\n### Phase 1: Big One\n<!-- complexity: high -->\nHard.\n",
    });
    const res = await cli(["run", SPEC_REL, "--runner", "scripted", "--yes"], { cwd: r.dir });
    expect(res.code).toBe(3); // waiting for a human
    expect(res.stdout).toMatch(/Waiting \(PLAN, step \d+\): Phase 1: Big One is marked high-complexity/);
    expect(res.stdout).toContain(`To continue: autopilot run ${SPEC_REL} --runner scripted --yes`);
  });
});

describe.concurrent("gates on the terminal", { timeout: SIDE_BY_SIDE }, () => {
  it("reads answers from stdin: number, text, a reason after it, and asks again on an invalid answer", async () => {
    const r = await repo();
    const p = start(["run", SPEC_REL, "--runner", "scripted", "--review-plans"], { cwd: r.dir, stdin: "pipe" });
    const answers = ["9", "1 because the plan is small", "yes", "y fine", "1", "yes"];
    const prompts = () => (p.stdout().match(/^ {2}\? |is not one of the options/gm) ?? []).length;
    // Answer each prompt as it appears (a re-ask after an invalid answer counts as a prompt).
    let answered = 0;
    const t0 = Date.now();
    while (p.child.exitCode === null && answered < answers.length && Date.now() - t0 < 60_000) {
      if (prompts() > answered) p.child.stdin!.write(answers[answered++] + "\n");
      else await new Promise((res) => setTimeout(res, 20));
    }
    p.child.stdin!.end();
    const res = await p.done;
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('"9" is not one of the options. Type 1-4');
    expect(res.stdout).toContain("    1) yes");
    expect(res.stdout).toContain("DONE in");
    const state = await readState(r.dir);
    const human = state.decisions.filter((d: { by?: string }) => d.by === "piped");
    expect(human[0]).toMatchObject({
      decision: "approved_plan",
      answer: "yes",
      rationale: "because the plan is small",
      phase: 0,
    });
    expect(human.some((d: { rationale?: string }) => d.rationale === "fine")).toBe(true);
    expect(state.decisions.some((d: { by?: string }) => d.by === "policy")).toBe(false);
  });

  it("without a terminal and without --yes, stops at the question with exit 3 and the way to continue", async () => {
    const r = await repo();
    const res = await cli(["run", SPEC_REL, "--runner", "scripted", "--review-plans"], { cwd: r.dir });
    expect(res.code).toBe(3);
    expect(res.stdout).toContain("? Approve this plan and begin execution?");
    expect(res.stdout).toContain("Stopped at a question (APPROVE_PLAN");
    // The command as typed, every flag kept.
    expect(res.stdout).toContain(
      `To continue: run \`autopilot run ${SPEC_REL} --runner scripted --review-plans\` in a terminal`,
    );
    expect((await readState(r.dir)).currentState).toBe("APPROVE_PLAN");
    // ... and the same command with --yes continues it to the end; the resume says flags are ignored.
    const again = await cli(["run", SPEC_REL, "--runner", "scripted", "--yes", "--fast"], { cwd: r.dir });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("Resuming autopilot from state APPROVE_PLAN");
    expect(again.stdout).toMatch(/Flags --fast ignored/);
    const state = await readState(r.dir);
    expect(state.currentState).toBe("DONE");
    expect(state.rigorLevel).toBe("standard");
    expect(state.reviewPlans).toBe(true);
  });
});

describe.concurrent("one driver per session", { timeout: SIDE_BY_SIDE }, () => {
  it("a second autopilot run on the same session fails fast with busy, naming the holder's pid", async () => {
    const r = await repo();
    const first = start(["run", SPEC_REL, "--runner", "scripted", "--review-plans"], { cwd: r.dir, stdin: "pipe" });
    await first.waitFor("? Approve this plan");
    const second = await cli(["run", SPEC_REL, "--runner", "scripted", "--yes"], { cwd: r.dir });
    // It did not wait for the lock: the holder is still running, parked at its question.
    expect(first.child.exitCode).toBeNull();
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`being driven by another autopilot run \\(pid ${first.child.pid} `));
    expect(second.stderr).toContain("[busy]");
    // The holder is unaffected: ending its input leaves the session at the question.
    first.child.stdin!.end();
    const res = await first.done;
    expect(res.code).toBe(3); // waiting for a human
    expect((await readState(r.dir)).currentState).toBe("APPROVE_PLAN");
  });
});

describe.concurrent("usage", { timeout: SIDE_BY_SIDE }, () => {
  it("bad usage exits 2 with the right form", async () => {
    const r = await repo();
    for (const args of [
      ["run"],
      ["run", SPEC_REL, "--bogus"],
      ["run", SPEC_REL, "other.md"],
      ["run", SPEC_REL, "--runner", "gpt"],
    ]) {
      const res = await cli(args, { cwd: r.dir });
      expect(res.code, args.join(" ")).toBe(2);
      expect(res.stderr).toMatch(/autopilot run: /);
    }
    const both = await cli(["run", SPEC_REL, "--runner", "scripted", "--fast", "--thorough"], { cwd: r.dir });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("Cannot use --fast and --thorough together. Choose one.");
  });

  it("with no runner chosen anywhere, says how to choose one (exit 2)", async () => {
    const r = await repo();
    const res = await cli(["run", SPEC_REL], { cwd: r.dir });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("choose a runner: --runner scripted");
    expect(res.stderr).toContain(".harness/config.json");
  });

  it("a missing spec and a bad config are one-line failures (exit 1)", async () => {
    const r = await repo();
    const missing = await cli(["run", "docs/nope.md", "--runner", "scripted"], { cwd: r.dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Spec not found.*\[spec_not_found\]/);
    await writeConfig(r.dir, { runner: "gpt" });
    const bad = await cli(["run", SPEC_REL], { cwd: r.dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      '.harness/config.json: "runner" must be one of: scripted, anthropic, command; it is "gpt"',
    );
  });
});
