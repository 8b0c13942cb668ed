// `autopilot run` with real agents against the loopback scripted model:
// - --runner command driving the real Claude Code CLI as each persona (`claude -p --agent <persona>`,
//   the agent files from `autopilot install claude`);
// - --runner anthropic, autopilot's own agent loop on the Messages API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { distCli, ensureBuilt } from "../helpers/build.js";
import type { TempRepo } from "../helpers/git.js";
import { startModelServer, type ModelServer } from "./anthropic-sse.js";
import { Brain } from "./brain/brain.js";
import { autopilotRunner } from "./dialects/autopilot-runner.js";
import { claudeCode } from "./dialects/claude-code.js";
import { claudeEnv, ensureClaudeCode, type Installed } from "./claude-code.js";
import { installPackedAutopilot } from "./autopilot-package.js";
import { autopilotSubjects, installInto, makeProject, readSession } from "./project.js";

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function autopilotRun(dir: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 600_000): Promise<CliRun> {
  const [cmd, pre] = autopilot ? [autopilot.bin, []] : [process.execPath, [distCli]];
  return new Promise((resolve) => {
    execFile(
      cmd,
      [...pre, "run", ...args],
      { cwd: dir, env, timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as any).code ?? null) : 0, stdout, stderr }),
    );
  });
}

function explain(r: CliRun, log: string[]): string {
  return [
    `exit ${r.code}`,
    `stdout: ${r.stdout.slice(-2000)}`,
    `stderr: ${r.stderr.slice(-3000)}`,
    "model log:",
    ...log.slice(-30),
  ].join("\n");
}

const ALL_PERSONAS = new Set(["harness-planner", "harness-task-executor", "harness-verifier", "harness-code-reviewer"]);

let installed: Installed;
let autopilot: { bin: string; binDir: string } | undefined;
const repos: TempRepo[] = [];
const servers: ModelServer[] = [];
const homes: string[] = [];
beforeAll(async () => {
  await ensureBuilt();
  installed = await ensureClaudeCode();
  if ("skip" in installed) console.warn(`[clients] the command-runner test skips: ${installed.skip}`);
  // autopilot as the README installs it, when the tarball installs here; else this checkout's build.
  const packed = await installPackedAutopilot();
  if ("skip" in packed) console.warn(`[clients] autopilot run from the checkout's build: ${packed.skip}`);
  else autopilot = packed;
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
  if (!process.env.AUTOPILOT_KEEP_CLIENT_REPOS) for (const r of repos) await r.cleanup();
});

describe("autopilot run with real agents", () => {
  it("--runner command drives the real `claude -p --agent <persona> --model {model}` for every persona, each on its model, to DONE", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const repo = await makeProject();
    repos.push(repo);
    // The verifier on the fast tier, where its agent file says sonnet: {model} decides.
    mkdirSync(path.join(repo.dir, ".harness"), { recursive: true });
    writeFileSync(path.join(repo.dir, ".harness/config.json"), JSON.stringify({ models: { verifier: "fast" } }));
    // The agent files `claude --agent` runs come from the install.
    await installInto(repo.dir, "claude", { autopilot });
    const log: string[] = [];
    const brain = new Brain(claudeCode);
    const model = await startModelServer({
      label: "headless-command-claude",
      dialect: claudeCode,
      decide: (c) => brain.decide(c),
      log: (l) => log.push(l),
    });
    servers.push(model);
    const home = mkdtempSync(path.join(tmpdir(), "autopilot-claude-home-"));
    homes.push(home);
    const env = {
      ...claudeEnv(home, model.url),
      PATH: `${path.dirname(installed.bin)}${path.delimiter}${process.env.PATH}`,
      AUTOPILOT_RUNNER_COMMAND: "claude -p --agent {persona} --model {model} --dangerously-skip-permissions",
      AUTOPILOT_RUNNER_TIMEOUT: "300",
    };

    const r = await autopilotRun(repo.dir, ["docs/spec.md", "--runner", "command", "--yes", "--json"], env);
    expect(model.errors, explain(r, log)).toEqual([]);
    expect(r.code, explain(r, log)).toBe(0);
    const { state } = readSession(repo.dir);
    expect(state.currentState, explain(r, log)).toBe("DONE");
    // --json: one event per line; the last is the outcome with the final Step.
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      event: "outcome",
      outcome: "done",
      step: { state: "DONE" },
    });
    expect(state.phases.map((p: any) => p.status)).toEqual(["complete", "complete", "complete"]);
    // Each dispatch was a real Claude Code process running the persona's agent file: its body was
    // the system prompt of the requests the model saw, on the model {model} named.
    const personas = new Set(model.requests.filter((q) => q.kind === "subagent").map((q) => q.persona));
    expect(personas).toEqual(ALL_PERSONAS);
    const families = new Map<string, Set<string>>();
    for (const q of model.requests.filter((x) => x.kind === "subagent"))
      families.set(
        String(q.persona),
        (families.get(String(q.persona)) ?? new Set()).add(/opus|sonnet|haiku/.exec(String(q.body?.model))?.[0] ?? "?"),
      );
    expect(Object.fromEntries([...families].map(([k, v]) => [k, [...v]]))).toEqual({
      "harness-planner": ["opus"],
      "harness-task-executor": ["sonnet"],
      "harness-verifier": ["haiku"],
      "harness-code-reviewer": ["opus"],
    });
    expect(model.requests.filter((q) => q.kind === "host")).toEqual([]);
    expect(
      model.requests.every((q) => q.kind !== "subagent" || String(q.headers["user-agent"]).startsWith("claude-cli/")),
    ).toBe(true);
    expect((await autopilotSubjects(repo.dir)).length).toBeGreaterThanOrEqual(3);
    // Standard rigor: the verifier's and the reviewers' results were recorded.
    expect(state.history.every((h: any) => h.verificationPassed === true)).toBe(true);
  });

  it("--runner anthropic runs autopilot's own agent loop against the Messages API to DONE", async () => {
    const repo = await makeProject();
    repos.push(repo);
    const log: string[] = [];
    const brain = new Brain(autopilotRunner);
    const model = await startModelServer({
      label: "headless-anthropic-runner",
      dialect: autopilotRunner,
      decide: (c) => brain.decide(c),
      log: (l) => log.push(l),
    });
    servers.push(model);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "sk-ant-loopback-test",
      GIT_CONFIG_NOSYSTEM: "1",
    };

    const r = await autopilotRun(repo.dir, ["docs/spec.md", "--runner", "anthropic", "--yes", "--json"], env);
    expect(model.errors, explain(r, log)).toEqual([]);
    expect(r.code, explain(r, log)).toBe(0);
    const { state } = readSession(repo.dir);
    expect(state.currentState, explain(r, log)).toBe("DONE");
    expect(state.phases.map((p: any) => p.status)).toEqual(["complete", "complete", "complete"]);
    // Every persona ran on its tier's model (planner and reviewer strong, executor and verifier
    // standard), through the runner's own tools.
    const personas = new Set(model.requests.filter((q) => q.kind === "subagent").map((q) => q.persona));
    expect(personas).toEqual(ALL_PERSONAS);
    const models = new Map<string, Set<string>>();
    for (const q of model.requests.filter((x) => x.kind === "subagent"))
      models.set(String(q.persona), (models.get(String(q.persona)) ?? new Set()).add(String(q.body?.model)));
    expect(Object.fromEntries([...models].map(([k, v]) => [k, [...v]]))).toEqual({
      "harness-planner": ["claude-opus-5-5"],
      "harness-task-executor": ["claude-sonnet-5-5"],
      "harness-verifier": ["claude-sonnet-5-5"],
      "harness-code-reviewer": ["claude-opus-5-5"],
    });
    const called = new Set(
      model.requests.flatMap((q) => (q.decision?.kind === "tool_calls" ? q.decision.calls.map((c) => c.name) : [])),
    );
    expect(called).toEqual(new Set(["read_file", "write_file", "report_result"]));
    // The files the executor wrote are in autopilot's commits.
    expect(readFileSync(path.join(repo.dir, "src/core-greeting/part-1.js"), "utf8")).toContain("part1");
    expect((await autopilotSubjects(repo.dir)).length).toBeGreaterThanOrEqual(3);
    // Token usage from the model's replies is recorded per persona, in the state's ledger.
    const usage = state.usage;
    expect(usage.total.inputTokens).toBeGreaterThan(0);
    expect(usage.total.reported).toBe(usage.total.dispatches);
    expect(Object.keys(usage.byPersona).sort()).toEqual([...ALL_PERSONAS].sort());
    // Priced at each model's rate: the API reports tokens, no dollars.
    expect(usage.total.costUsd).toBeGreaterThan(0);
    expect(usage.runs.every((r: any) => r.priced)).toBe(true);
  });
});
