// The headless pieces on their own: answer parsing, the config, the usage ledger, the driver lock,
// and the policy gate counting rounds from recorded decisions.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { parseAnswer } from "../../src/headless/terminal-gate.js";
import { readHeadlessConfig } from "../../src/headless/config.js";
import { addUsage, formatCost, formatUsd, parseBudget, parseUsage } from "../../src/session/usage.js";
import { acquireDriverLock, readDriver } from "../../src/session/driver-lock.js";
import { PolicyGate } from "../../src/headless/drive.js";
import type { AskNext, Step } from "../../src/protocol/step.js";
import type { Decision } from "../../src/session/schema.js";

const dirs: string[] = [];
async function tmp() {
  const d = await mkdtemp(path.join(tmpdir(), "autopilot-headless-"));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe("parseAnswer", () => {
  const approve = ["yes", "revise", "skip phase", "stop"];
  it.each([
    ["1", { answer: "yes" }],
    ["2 because the tests are thin", { answer: "revise", rationale: "because the tests are thin" }],
    ["3: not needed now", { answer: "skip phase", rationale: "not needed now" }],
    ["yes", { answer: "yes" }],
    ["YES, looks good", { answer: "yes", rationale: "looks good" }],
    ["skip phase — covered by phase 3", { answer: "skip phase", rationale: "covered by phase 3" }],
    ["sk", { answer: "skip phase" }],
    ["y fine", { answer: "yes", rationale: "fine" }],
  ])("%j", (line, expected) => {
    expect(parseAnswer(line, approve)).toEqual(expected);
  });
  it.each(["", "   ", "0", "5", "s", "maybe", "12"])("rejects %j", (line) => {
    expect(parseAnswer(line, approve)).toBeNull();
  });
  it("prefers the longest option a line starts with", () => {
    expect(
      parseAnswer("fix manually and continue I did it", ["fix manually and continue", "revise plan", "stop"]),
    ).toEqual({
      answer: "fix manually and continue",
      rationale: "I did it",
    });
  });
});

describe(".harness/config.json", () => {
  it("reads runner settings and a script, ignores other keys and non-object files", async () => {
    const d = await tmp();
    await mkdir(path.join(d, ".harness"));
    expect(await readHeadlessConfig(d)).toEqual({});
    await writeFile(path.join(d, ".harness/config.json"), JSON.stringify(["npm test"]));
    expect(await readHeadlessConfig(d)).toEqual({});
    await writeFile(
      path.join(d, ".harness/config.json"),
      JSON.stringify({
        runner: "command",
        command: "agent {persona}",
        validation: ["x"],
        scripted: { phases: { "1": { fail: { task: 2, times: 1 }, checkpoints: { "3": "human-verify" } } } },
      }),
    );
    expect(await readHeadlessConfig(d)).toEqual({
      runner: "command",
      command: "agent {persona}",
      scripted: { phases: { 1: { fail: { task: 2, times: 1 }, checkpoints: { 3: "human-verify" } } } },
    });
    await writeFile(path.join(d, ".harness/config.json"), "{ nope");
    await expect(readHeadlessConfig(d)).rejects.toThrow(/not valid JSON/);
    await writeFile(
      path.join(d, ".harness/config.json"),
      JSON.stringify({ scripted: { phases: { "0": { checkpoints: { "1": "maybe" } } } } }),
    );
    await expect(readHeadlessConfig(d)).rejects.toThrow(/scripted\.phases\.0\.checkpoints\.1/);
  });
});

describe("usage ledger", () => {
  it("adds per persona and phase; unknown figures stay null, never 0", () => {
    const u = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 50, cacheWriteTokens: 5 };
    let led = addUsage(undefined, { persona: "harness-planner", phaseIndex: 0, phaseName: "Core", usage: u });
    led = addUsage(led, { persona: "harness-planner", phaseIndex: 1, phaseName: "Next", usage: u });
    led = addUsage(led, { persona: "harness-code-reviewer", phaseIndex: null, phaseName: null, usage: null });
    expect(led.total).toMatchObject({
      dispatches: 3,
      reported: 2,
      tokens: 330,
      inputTokens: 200,
      outputTokens: 20,
      cacheReadTokens: 100,
      cacheWriteTokens: 10,
      costUsd: null,
      toolUses: null,
    });
    expect(led.byPersona["harness-planner"].inputTokens).toBe(200);
    expect(led.byPhase["1"]).toMatchObject({ name: "Core", dispatches: 1, outputTokens: 10 });
    expect(led.byPhase.final).toMatchObject({
      name: "final review",
      dispatches: 1,
      reported: 0,
      tokens: null,
      inputTokens: null,
    });
    expect(formatCost(led.byPhase.final)).toBe("unknown");
    expect(formatCost(led.total)).toBe("330 tokens (2 of 3 dispatches reported usage)");
  });

  it("reads Claude Code's <usage> block as text or object, and the API's names", () => {
    expect(parseUsage("<usage>total_tokens: 37229\ntool_uses: 22\nduration_ms: 51993</usage>")).toEqual({
      totalTokens: 37229,
      toolUses: 22,
      durationMs: 51993,
    });
    expect(parseUsage("<usage>\n  <total_tokens>37229</total_tokens>\n  <tool_uses>22</tool_uses>\n</usage>")).toEqual({
      totalTokens: 37229,
      toolUses: 22,
    });
    expect(parseUsage({ total_tokens: 1200, tool_uses: 3, duration_ms: 900, agentId: "abc" })).toEqual({
      totalTokens: 1200,
      toolUses: 3,
      durationMs: 900,
    });
    expect(
      parseUsage({
        usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 7, cache_creation_input_tokens: 2 },
        total_cost_usd: 0.0123,
      }),
    ).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      cacheReadTokens: 7,
      cacheWriteTokens: 2,
      costUsd: 0.0123,
    });
    expect(parseUsage({})).toBeNull();
    expect(parseUsage(undefined)).toBeNull();
    expect(() => parseUsage({ total_tokens: "lots" })).toThrow(/usage.total_tokens must be a non-negative number/);
  });

  it("writes dollars with cents, and up to four decimals below a dollar", () => {
    expect([5, 1.5, 0.546, 0.06, 0.0125, 0.1625, 0].map(formatUsd)).toEqual([
      "$5.00",
      "$1.50",
      "$0.546",
      "$0.06",
      "$0.0125",
      "$0.1625",
      "$0.00",
    ]);
  });

  it("parses budgets in tokens or dollars, and refuses anything else with the forms it takes", () => {
    expect(parseBudget("200k")).toEqual({ tokens: 200_000, usd: null });
    expect(parseBudget("1.5M")).toEqual({ tokens: 1_500_000, usd: null });
    expect(parseBudget("$5")).toEqual({ tokens: null, usd: 5 });
    expect(parseBudget("2.50 USD")).toEqual({ tokens: null, usd: 2.5 });
    expect(() => parseBudget("lots")).toThrow(/Give tokens \(200k, 1.5M, 50000\) or US dollars/);
    expect(() => parseBudget("0")).toThrow(/not a budget/);
  });
});

describe("driver lock", () => {
  it("is exclusive, names its holder, and is released", async () => {
    const d = await tmp();
    const a = await acquireDriverLock(d, "s", "autopilot run a.md");
    expect(await readDriver(d, "s")).toMatchObject({ pid: process.pid, command: "autopilot run a.md" });
    await expect(acquireDriverLock(d, "s", "b")).rejects.toMatchObject({
      code: "busy",
      message: expect.stringContaining(`pid ${process.pid}`),
    });
    await a.release();
    expect(await readDriver(d, "s")).toBeNull();
    const b = await acquireDriverLock(d, "s", "b");
    await b.release();
  });

  it("takes over at once from a holder on this machine whose process is gone", async () => {
    const d = await tmp();
    const sdir = path.join(d, ".harness/sessions/s");
    await mkdir(path.join(sdir, "driver.lock"), { recursive: true });
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    await writeFile(
      path.join(sdir, "driver.json"),
      JSON.stringify({ pid: Number(dead), hostname: hostname(), startedAt: "x", command: "old" }),
    );
    expect(await readDriver(d, "s")).toBeNull();
    // The driver lock never waits: taking it over "at once" means this call does not fail busy.
    const l = await acquireDriverLock(d, "s", "new");
    expect(await readDriver(d, "s")).toMatchObject({ pid: process.pid, command: "new" });
    await l.release();
  });
});

describe("PolicyGate with recorded decisions", () => {
  const step = (state: Step["state"], phase: number | null): Step => ({
    session: "s",
    stepId: 1,
    state,
    phase:
      phase === null
        ? null
        : { index: phase, number: phase + 1, name: "P", complexity: "low", complexityOverride: null, total: 3 },
    rigor: "standard",
    reviewPlans: false,
    next: { kind: "ask", name: "reviewBlocked", question: "q", options: ["fix", "override", "stop"] },
  });
  const ask = { kind: "ask", name: "reviewBlocked", question: "q", options: ["fix", "override", "stop"] } as AskNext;

  it("counts fix rounds from the session, so a new process answers like the old one", async () => {
    const decisions: Decision[] = [];
    const gate = () => new PolicyGate(2, () => Promise.resolve(decisions));
    const rec = async (s: Step) => {
      const a = await gate().answer(s, ask);
      decisions.push({
        phase: s.phase?.index ?? null,
        state: s.state,
        decision: a.answer,
        answer: a.answer,
        by: a.by,
        timestamp: null,
      });
      return a;
    };
    expect((await rec(step("REVIEW", 1))).answer).toBe("fix");
    expect((await rec(step("REVIEW", 1))).rationale).toContain("round 2 of 2");
    expect((await rec(step("REVIEW", 1))).answer).toBe("stop");
    // Another phase, or the final review, starts its own count; never "override".
    expect((await rec(step("REVIEW", 2))).answer).toBe("fix");
    expect((await rec(step("FINAL_REVIEW", null))).answer).toBe("fix");
    expect(decisions.some((d) => d.answer === "override")).toBe(false);
  });
});

describe("PolicyGate at a decision checkpoint (--yes)", () => {
  const at = (options: string[]): [Step, AskNext] => {
    const ask = { kind: "ask", name: "checkpoint", question: "Which storage?", options } as AskNext;
    const step: Step = {
      session: "s",
      stepId: 1,
      state: "EXECUTE",
      phase: { index: 0, number: 1, name: "P", complexity: "low", complexityOverride: null, total: 1 },
      rigor: "standard",
      reviewPlans: false,
      next: ask,
    };
    return [step, ask];
  };

  it("takes the plan's first option that is not stop, every time (an option named fix is not a fix round)", async () => {
    const gate = new PolicyGate(2);
    for (let i = 0; i < 4; i++) {
      const a = await gate.answer(...at(["fix", "postpone", "stop"]));
      expect(a).toEqual({ answer: "fix", by: "policy", rationale: '--yes policy: take the first option ("fix")' });
    }
    expect((await gate.answer(...at(["stop", "sqlite", "postgres"]))).answer).toBe("sqlite");
  });

  it("confirms a human-verify checkpoint and takes a human-action one as done", async () => {
    const gate = new PolicyGate(2);
    expect((await gate.answer(...at(["confirm", "reject", "stop"]))).answer).toBe("confirm");
    expect((await gate.answer(...at(["done", "stop"]))).answer).toBe("done");
  });
});
