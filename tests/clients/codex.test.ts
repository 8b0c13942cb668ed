// The real Codex CLI (from the npm registry, pinned, installed into a cache by the test) runs the
// documented start command headless (`codex exec`) in a project, with only what
// `autopilot install codex --global` wrote into its CODEX_HOME (plus the user's own model provider,
// pointed at a loopback Responses API whose model is the scripted brain). The brain acts only on
// what Codex shows it (the Step as structuredContent JSON), dispatches personas through Codex's own
// subagent tools (spawn_agent / wait_agent) and, inside each subagent, writes the plan and the code
// with Codex's shell tool. The session takes two flags, --fast and --review-plans, and both must
// arrive (fast rigor, review-plans recorded); its one question is answered in a resumed session.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureBuilt } from "../helpers/build.js";
import { git, type TempRepo } from "../helpers/git.js";
import { Brain } from "./brain/brain.js";
import type { ClaudeRun } from "./claude-code.js";
import { codex } from "./dialects/codex.js";
import {
  clientWithPackage,
  codexHome,
  documentedStart,
  expectFastTwoPhaseDone,
  expectWaveDone,
  ensureCodex,
  explain,
  installFor,
  play,
  SPEC_ONE_WAVE,
  SPEC_TWO_PHASES,
  START_ARGS,
} from "./codex-gemini.js";
import { makeProject, readSession } from "./project.js";
import { RETRY_BUDGET } from "../../src/rules/policy.js";
import { startResponsesModel } from "./responses-sse.js";

let installed: Awaited<ReturnType<typeof clientWithPackage>>;
beforeAll(async () => {
  await ensureBuilt();
  installed = await clientWithPackage("Codex CLI", ensureCodex);
});

const cleanups: Array<() => void> = [];
const repos: TempRepo[] = [];
afterAll(async () => {
  for (const c of cleanups) c();
  if (!process.env.AUTOPILOT_KEEP_CLIENT_REPOS) for (const r of repos) await r.cleanup();
});

// Headless, no approvals (the scripted model's shell commands run as they are). `codex exec` sends
// the first turn without waiting for MCP servers unless they are `required` (docs/clients.md): on
// a loaded machine the node server is not up in time and the model sees no autopilot tools. So the
// run makes autopilot required, allows it a minute to start and ten minutes per tool call
// (validation commands) — client settings given on the command line, not part of what install wrote.
const EXEC = [
  "--json",
  "--skip-git-repo-check",
  "--dangerously-bypass-approvals-and-sandbox",
  "-c",
  "mcp_servers.autopilot.required=true",
  "-c",
  "mcp_servers.autopilot.startup_timeout_sec=60",
  "-c",
  "mcp_servers.autopilot.tool_timeout_sec=600",
];

/** The project's .harness/config.json, committed (a team commits its settings). */
async function withConfig(dir: string, config: object): Promise<void> {
  mkdirSync(path.join(dir, ".harness"), { recursive: true });
  writeFileSync(path.join(dir, ".harness/config.json"), JSON.stringify(config, null, 2) + "\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", "autopilot settings");
}

/** The thread `codex exec --json` started (its first event). */
function threadOf(run: ClaudeRun): string {
  const id = run.events.find((e) => e.type === "thread.started")?.thread_id;
  if (typeof id !== "string") throw new Error(`codex printed no thread.started event:\n${run.stdout.slice(0, 2000)}`);
  return id;
}

describe("Codex CLI (real binary) with autopilot install codex --global", () => {
  it(`the documented start command with ${START_ARGS} runs a two-phase spec to DONE through Codex's subagents`, async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const repo = await makeProject(SPEC_TWO_PHASES);
    repos.push(repo);
    const home = mkdtempSync(path.join(tmpdir(), "autopilot-codex-home-"));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));

    const log: string[] = [];
    const brain = new Brain(codex);
    const model = await startResponsesModel({
      dialect: codex,
      decide: (c) => brain.decide(c),
      log: (l) => log.push(l),
    });
    cleanups.push(() => void model.close());
    const { output: out, env } = await installFor(
      "codex",
      repo.dir,
      codexHome(home, model.url).env,
      installed.autopilot,
      ["--global"],
    );
    const start = documentedStart(out);

    let first: ClaudeRun | undefined;
    const runs0 = () => first!;
    const runs = await play(installed.bin, {
      onRun: (r) => (first ??= r),
      cwd: repo.dir,
      env,
      model,
      first: ["exec", ...EXEC, `${start} ${START_ARGS}`],
      // The session the start made (not --last: that may pick a subagent's thread).
      next: (answer) => ["exec", "resume", ...EXEC, threadOf(runs0()), answer],
    });
    const why = explain(`codex (start: ${start})`, runs, log);
    expect(model.errors, why).toEqual([]);

    await expectFastTwoPhaseDone(repo.dir, model, runs, why, START_ARGS);

    // Each persona ran as a Codex subagent that was told which persona it is (as the Step's todo
    // says: a custom agent type, or a message naming the persona and its file).
    const spawned = model.requests.flatMap((r) =>
      r.kind === "host" && r.decision?.kind === "tool_calls"
        ? r.decision.calls
            .filter((c) => c.name === "spawn_agent")
            .map(
              (c) =>
                (c.args.agent_type as string | undefined) ??
                /^You are (harness-[a-z-]+)\b/.exec(String(c.args.message))?.[1],
            )
        : [],
    );
    expect(new Set(spawned)).toEqual(new Set(["harness-planner", "harness-task-executor", "harness-code-reviewer"]));
    const personas = new Set(model.requests.filter((r) => r.kind === "subagent").map((r) => r.persona));
    expect(personas).toEqual(new Set(["harness-planner", "harness-task-executor", "harness-code-reviewer"]));
    // Codex shows the host model the Step as JSON (structuredContent), and that was enough.
    const sawJson = model.requests.some((r) =>
      r.conv?.messages.some((m) =>
        m.parts.some((p) => p.type === "tool_result" && /Output:\n\{"session"/.test(p.result.text)),
      ),
    );
    expect(sawJson).toBe(true);
  });

  it("each spawn_agent names the persona's model and the subagent runs on it; a task's last attempt within the retry budget runs on gpt-6-astra", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const repo = await makeProject(SPEC_ONE_WAVE);
    repos.push(repo);
    const home = mkdtempSync(path.join(tmpdir(), "autopilot-codex-home-"));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const log: string[] = [];
    let executorRuns = 0;
    const brain = new Brain(codex, { failRun: () => executorRuns++ < RETRY_BUDGET });
    const model = await startResponsesModel({
      dialect: codex,
      decide: (c) => brain.decide(c),
      log: (l) => log.push(l),
    });
    cleanups.push(() => void model.close());
    const { output: out, env } = await installFor(
      "codex",
      repo.dir,
      codexHome(home, model.url).env,
      installed.autopilot,
      ["--global"],
    );
    expect(out).toContain("Models: each dispatch names the persona's model for spawn_agent");
    const start = documentedStart(out);
    let first: ClaudeRun | undefined;
    const runs = await play(installed.bin, {
      onRun: (r) => (first ??= r),
      cwd: repo.dir,
      env,
      model,
      first: ["exec", ...EXEC, `${start} docs/spec.md`],
      next: (answer) => ["exec", "resume", ...EXEC, threadOf(first!), answer],
    });
    const why = explain(`codex (start: ${start})`, runs, log);
    expect(model.errors, why).toEqual([]);
    const { state } = readSession(repo.dir);
    expect(state.currentState, why).toBe("DONE");
    // The host passed the Step's model to every spawn_agent, and Codex ran each subagent on it.
    const spawned = model.requests.flatMap((r) =>
      r.kind === "host" && r.decision?.kind === "tool_calls"
        ? r.decision.calls
            .filter((c) => c.name === "spawn_agent")
            .map((c) => [/^You are (harness-[a-z-]+)\b/.exec(String(c.args.message))?.[1], c.args.model])
        : [],
    );
    expect(spawned, why).toEqual([
      ["harness-planner", "gpt-6-astra"],
      ...Array(RETRY_BUDGET).fill(["harness-task-executor", "gpt-6.1-sol"]),
      ["harness-task-executor", "gpt-6-astra"],
      ["harness-verifier", "gpt-6.1-sol"],
      ["harness-code-reviewer", "gpt-6-astra"],
      ["harness-code-reviewer", "gpt-6-astra"],
    ]);
    const subagentModels = new Map<string, Set<string>>();
    for (const r of model.requests.filter((x) => x.kind === "subagent")) {
      const set = subagentModels.get(String(r.persona)) ?? new Set<string>();
      set.add(String(r.body?.model));
      subagentModels.set(String(r.persona), set);
    }
    expect(Object.fromEntries([...subagentModels].map(([k, v]) => [k, [...v].sort()])), why).toEqual({
      "harness-planner": ["gpt-6-astra"],
      "harness-task-executor": ["gpt-6-astra", "gpt-6.1-sol"],
      "harness-verifier": ["gpt-6.1-sol"],
      "harness-code-reviewer": ["gpt-6-astra"],
    });
  });

  it('"models": {"clients": {"codex": "inherit"}}: spawn_agent names no model, and the subagents run on the session\'s own model', async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const repo = await makeProject(SPEC_ONE_WAVE);
    repos.push(repo);
    // A Codex set up with another provider: its spawn_agent takes only the catalog's names.
    await withConfig(repo.dir, { models: { clients: { codex: "inherit" } } });
    const home = mkdtempSync(path.join(tmpdir(), "autopilot-codex-home-"));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const log: string[] = [];
    const brain = new Brain(codex);
    const model = await startResponsesModel({
      dialect: codex,
      decide: (c) => brain.decide(c),
      log: (l) => log.push(l),
    });
    cleanups.push(() => void model.close());
    const { output: out, env } = await installFor(
      "codex",
      repo.dir,
      codexHome(home, model.url).env,
      installed.autopilot,
      ["--global"],
    );
    const start = documentedStart(out);
    let first: ClaudeRun | undefined;
    const runs = await play(installed.bin, {
      onRun: (r) => (first ??= r),
      cwd: repo.dir,
      env,
      model,
      first: ["exec", ...EXEC, `${start} docs/spec.md --fast`],
      next: (answer) => ["exec", "resume", ...EXEC, threadOf(first!), answer],
    });
    const why = explain(`codex (start: ${start})`, runs, log);
    expect(model.errors, why).toEqual([]);
    expect(readSession(repo.dir).state.currentState, why).toBe("DONE");
    const spawned = model.requests.flatMap((r) =>
      r.kind === "host" && r.decision?.kind === "tool_calls"
        ? r.decision.calls.filter((c) => c.name === "spawn_agent")
        : [],
    );
    expect(spawned.length, why).toBeGreaterThan(0);
    expect(spawned.filter((c) => c.args.model !== undefined)).toEqual([]);
    const models = new Set(model.requests.filter((r) => r.kind === "subagent").map((r) => r.body?.model));
    expect([...models]).toEqual(["loopback-brain"]);
  });

  /** `$autopilot docs/spec.md --fast --parallel` on SPEC_ONE_WAVE, the scripted planner writing `tasks` independent tasks. */
  async function wave(tasks: number) {
    if ("skip" in installed) throw new Error("unreachable");
    const repo = await makeProject(SPEC_ONE_WAVE);
    repos.push(repo);
    const home = mkdtempSync(path.join(tmpdir(), "autopilot-codex-home-"));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));

    const log: string[] = [];
    const brain = new Brain(codex, { tasksPerPlan: tasks });
    const model = await startResponsesModel({
      dialect: codex,
      decide: (c) => brain.decide(c),
      log: (l) => log.push(l),
    });
    cleanups.push(() => void model.close());
    const { output: out, env } = await installFor(
      "codex",
      repo.dir,
      codexHome(home, model.url).env,
      installed.autopilot,
      ["--global"],
    );
    const start = documentedStart(out);

    let first: ClaudeRun | undefined;
    const runs = await play(installed.bin, {
      onRun: (r) => (first ??= r),
      cwd: repo.dir,
      env,
      model,
      first: ["exec", ...EXEC, `${start} docs/spec.md --fast --parallel`],
      next: (answer) => ["exec", "resume", ...EXEC, threadOf(first!), answer],
    });
    const why = explain(`codex (start: ${start})`, runs, log);
    expect(model.errors, why).toEqual([]);
    // Codex offered its multi-agent tools without any feature flag in the user's config.
    const hostTools = model.requests.find((r) => r.kind === "host")?.conv?.tools ?? [];
    expect(hostTools, why).toEqual(expect.arrayContaining(["spawn_agent", "wait_agent", "close_agent"]));
    const done = await expectWaveDone(repo.dir, model, why, {
      tasks,
      dispatchTool: "spawn_agent",
      reportTool: "mcp__autopilot__autopilot_report",
      promptOf: (a) => String((a.message as string | undefined) ?? ""),
      writes: (r) =>
        r.decision?.kind === "tool_calls"
          ? r.decision.calls.flatMap((c) => codex.writePathOf(r.conv!, { id: "", ...c }) ?? [])
          : [],
    });
    // What Codex answered each spawn_agent of an executor: an agent id, or a refusal.
    const spawnResults = model.requests
      .filter((r) => r.kind === "host")
      .at(-1)!
      .conv!.messages.flatMap((m) => m.parts)
      .flatMap((p) =>
        p.type === "tool_result" && /^\{"agent_id"|spawn failed/.test(p.result.text.trim())
          ? [p.result.text.trim()]
          : [],
      );
    return { ...done, model, why, spawnResults };
  }

  it("--fast --parallel: the host spawns a wave's three executors before waiting, each in its own worktree; all merged in task order, to DONE", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const { dispatchTurns, model, why } = await wave(3);
    // The todo says: every spawn_agent before waiting. The three went out in one model turn, each
    // told which persona it is, and Codex ran them at the same time: each executor had made its first
    // request before any of them finished.
    expect(
      dispatchTurns.map((t) => t.length),
      why,
    ).toEqual([3]);
    const executors = model.requests.filter((r) => r.kind === "subagent" && r.persona === "harness-task-executor");
    const firstReply = executors.find((r) => r.decision?.kind === "reply")!.n;
    expect(
      executors.filter((r) => r.conv!.messages.length <= 2 && r.n < firstReply),
      why,
    ).toHaveLength(3);
    const waits = model.requests.flatMap((r) =>
      r.kind === "host" && r.decision?.kind === "tool_calls"
        ? r.decision.calls.filter((c) => c.name === "wait_agent")
        : [],
    );
    expect(waits.length, why).toBeGreaterThan(0);
  });

  it("--fast --parallel with a wave of seven: Codex refuses the spawn past its limit of open agents; as the todo says, the host closes a finished one and spawns that task again, to DONE", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const { dispatchTurns, why, spawnResults } = await wave(7);
    // Seven spawn_agent calls in one turn; Codex 0.169 started six and refused the seventh.
    expect(dispatchTurns[0], why).toHaveLength(7);
    expect(spawnResults.filter((t) => /agent thread limit reached/.test(t)).length, why).toBeGreaterThan(0);
    // The refused task was spawned again after a close_agent, and every task ran and merged.
    expect(dispatchTurns.flat().length, why).toBeGreaterThan(7);
  });
});
