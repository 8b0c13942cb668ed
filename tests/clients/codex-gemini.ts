// The real Codex CLI and Gemini CLI for the client tests: pinned versions from the npm registry,
// installed into the cache outside the repository (./claude-code.ts ensureNpmClient), each in its
// own HOME pointed at the loopback model, with `autopilot install <client> --global` run into that
// HOME as a user would.
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "vitest";
import { ensureNpmClient, isolatedEnv, runClaude, type ClaudeRun, type Installed } from "./claude-code.js";
import { autopilotSubjects, readSession, SPEC, taskSteps } from "./project.js";
import { installPackedAutopilot } from "./autopilot-package.js";
import type { LoopbackModel } from "./loopback.js";

const execFileP = promisify(execFile);

export const CODEX_PACKAGE = "@openai/codex";
/** The version verified (docs/clients.md). Override: AUTOPILOT_CODEX_VERSION. */
export const CODEX_VERSION = process.env.AUTOPILOT_CODEX_VERSION || "0.169.0";
export const GEMINI_PACKAGE = "@google/gemini-cli";
/** The version verified (docs/clients.md). Override: AUTOPILOT_GEMINI_VERSION. */
export const GEMINI_VERSION = process.env.AUTOPILOT_GEMINI_VERSION || "0.61.0";

export function ensureCodex(): Promise<Installed> {
  return ensureNpmClient(CODEX_PACKAGE, CODEX_VERSION, "codex");
}

export function ensureGemini(): Promise<Installed> {
  return ensureNpmClient(GEMINI_PACKAGE, GEMINI_VERSION, "gemini");
}

/** Codex and Gemini CLI run as Claude Code does (./claude-code.ts), and without colour. */
function baseEnv(home: string): NodeJS.ProcessEnv {
  return { ...isolatedEnv(home), NO_COLOR: "1" };
}

export const CODEX_KEY_ENV = "AUTOPILOT_LOOPBACK_KEY";

/**
 * A user's Codex setup pointing at the loopback model: `$CODEX_HOME/config.toml` with a model
 * provider whose `base_url` is the loopback server (`wire_api = "responses"`, the only wire API
 * Codex 0.169 accepts).
 */
export function codexHome(home: string, modelUrl: string): { env: NodeJS.ProcessEnv; codexHome: string } {
  const codexHome = path.join(home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    path.join(codexHome, "config.toml"),
    [
      "# The user's own Codex settings: a model provider on loopback (the scripted model).",
      'model = "loopback-brain"',
      'model_provider = "loopback"',
      "",
      "[model_providers.loopback]",
      'name = "loopback scripted model"',
      `base_url = "${modelUrl}/v1"`,
      `env_key = "${CODEX_KEY_ENV}"`,
      'wire_api = "responses"',
      "",
    ].join("\n"),
  );
  // RUST_LOG=warn: an MCP server that fails to start is named on stderr (explain() prints it).
  return {
    codexHome,
    env: { ...baseEnv(home), CODEX_HOME: codexHome, [CODEX_KEY_ENV]: "loopback-test-key", RUST_LOG: "warn" },
  };
}

/**
 * A user's Gemini CLI setup pointing at the loopback model: an API key, the base URL, and
 * `security.auth.selectedType = "gemini-api-key"` in ~/.gemini/settings.json (without it, a
 * headless run stops asking how to authenticate). The workspace is trusted for the session
 * (GEMINI_CLI_TRUST_WORKSPACE): an untrusted workspace loads no MCP server at all.
 */
export function geminiHome(home: string, modelUrl: string): { env: NodeJS.ProcessEnv } {
  mkdirSync(path.join(home, ".gemini"), { recursive: true });
  writeFileSync(
    path.join(home, ".gemini", "settings.json"),
    JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }, null, 2) + "\n",
  );
  return {
    env: {
      ...baseEnv(home),
      GOOGLE_GEMINI_BASE_URL: modelUrl,
      GEMINI_API_KEY: "loopback-test-key",
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    },
  };
}

/**
 * The README's install: autopilot from `npm pack`, installed globally into a prefix of its own
 * (./autopilot-package.ts), its bin put on the client's PATH; then `autopilot install <client>
 * [args]` run in the project as a user runs it. Returns install's output and the client's env.
 */
export async function installFor(
  client: string,
  dir: string,
  env: NodeJS.ProcessEnv,
  autopilot: { bin: string; binDir: string },
  args: string[] = [],
): Promise<{ output: string; env: NodeJS.ProcessEnv }> {
  const withBin = { ...env, PATH: `${autopilot.binDir}${path.delimiter}${env.PATH ?? ""}` };
  const { stdout, stderr } = await execFileP(autopilot.bin, ["install", client, ...args], { cwd: dir, env: withBin });
  return { output: stdout + stderr, env: withBin };
}

/** The last thing the host model said ended on a question to the user (the brain lists the options). */
export function endsOnQuestion(model: LoopbackModel): boolean {
  const last = model.requests.filter((r) => r.kind === "host").at(-1);
  return last?.decision?.kind === "reply" && /\nOptions: /.test(last.decision.text);
}

/**
 * The user runs `first` (the start command), then answers every question the session asks with
 * `answer` in a continued session (`next(answer)`), until a run ends without a question.
 */
export async function play(
  bin: string,
  o: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    model: LoopbackModel;
    first: string[];
    next: (answer: string) => string[];
    answer?: string;
    maxTurns?: number;
    onRun?: (run: ClaudeRun) => void;
  },
): Promise<ClaudeRun[]> {
  const runs: ClaudeRun[] = [];
  let run = await runClaude(bin, o.first, { cwd: o.cwd, env: o.env, timeoutMs: 600_000 });
  runs.push(run);
  o.onRun?.(run);
  for (let i = 0; i < (o.maxTurns ?? 12) && run.code === 0 && endsOnQuestion(o.model); i++) {
    run = await runClaude(bin, o.next(o.answer ?? "yes"), { cwd: o.cwd, env: o.env, timeoutMs: 600_000 });
    runs.push(run);
    o.onRun?.(run);
  }
  return runs;
}

/** What a failed assertion prints: how the last run ended and the model's last decisions. */
export function explain(client: string, runs: ClaudeRun[], log: string[]): string {
  const last = runs.at(-1);
  return [
    `${client}: ${runs.length} run(s); last exit ${last?.code} ${last?.signal ?? ""}`,
    `stdout (tail): ${last?.stdout.slice(-2500)}`,
    `stderr (tail): ${last?.stderr.slice(-1500)}`,
    "model log (tail):",
    ...log.slice(-40),
  ].join("\n");
}

/** The spec path and flags the tests start with: two flags that each change what happens. */
export const START_ARGS = "docs/spec.md --fast --review-plans";

/** A two-phase spec (low complexity: no interactive planning). */
export const SPEC_TWO_PHASES = SPEC.slice(0, SPEC.indexOf("### Phase 3:")).trimEnd() + "\n";

/** The start command install printed ("Start: <command> docs/changes/<topic>/proposal.md ..."). */
export function documentedStart(installOutput: string): string {
  const m = /^Start: (?:in [^,]+, )?(\S+) docs\/changes\/<topic>\/proposal\.md/m.exec(installOutput);
  if (!m) throw new Error(`install printed no start command:\n${installOutput}`);
  return m[1];
}

/**
 * What both clients must have done with `${START_ARGS}` on SPEC_TWO_PHASES: the installed start
 * command's text reached the model with the arguments typed (`shownArgs`, as the client shows
 * them), the session is DONE with both flags applied, the one question was answered in a resumed
 * run, and the executors' code is committed by autopilot.
 */
export async function expectFastTwoPhaseDone(
  dir: string,
  model: LoopbackModel,
  runs: ClaudeRun[],
  why: string,
  shownArgs: string,
): Promise<void> {
  const firstHost = model.requests.find((r) => r.kind === "host");
  const shown = JSON.stringify(firstHost?.conv ?? {});
  expect(shown, `${why}\n\nthe first host request does not carry the installed command's text`).toContain(
    "The `autopilot` MCP server holds the state machine",
  );
  expect(shown).toContain(shownArgs);

  expect(() => readSession(dir), why).not.toThrow();
  const { state } = readSession(dir);
  expect(state.currentState, why).toBe("DONE");
  // Both flags arrived: fast rigor (plans approved without asking, no verifier) and
  // --review-plans recorded; the one question of a fast session (continue after phase 1?) was
  // answered in a resumed run.
  expect(state.rigorLevel).toBe("fast");
  expect(state.reviewPlans).toBe(true);
  expect(state.phases.map((p: any) => p.status)).toEqual(["complete", "complete"]);
  const decisions = (state.decisions ?? []).map((d: any) => `${d.state}:${d.decision}:${d.by ?? ""}`);
  expect(
    decisions.filter((d: string) => d.startsWith("APPROVE_PLAN:")),
    JSON.stringify(decisions),
  ).toEqual(["APPROVE_PLAN:auto_approved_plan_fast:auto", "APPROVE_PLAN:auto_approved_plan_fast:auto"]);
  // The user's answer reaches the server through the model's autopilot_decide, with the user's reply
  // quoted as the Step asks: recorded as relayed (the model's claim; the client declares no form,
  // so the server cannot know a person was asked), with the words.
  expect(decisions.filter((d: string) => d.endsWith(":relayed")).length, JSON.stringify(decisions)).toBe(1);
  const relayed = (state.decisions ?? []).find((d: any) => d.by === "relayed");
  expect(typeof relayed?.userWords === "string" && relayed.userWords.length > 0, JSON.stringify(relayed)).toBe(true);
  expect(runs.length).toBe(2);

  // The code the executor subagents wrote, committed by autopilot.
  const subjects = await autopilotSubjects(dir);
  expect(subjects.length).toBeGreaterThanOrEqual(2);
}

/**
 * A client from npm and autopilot from its `npm pack` tarball, as the README installs it. Either
 * missing gives `{ skip }` with the reason, printed once.
 */
export async function clientWithPackage(
  label: string,
  ensure: () => Promise<Installed>,
): Promise<{ skip: string } | { bin: string; version: string; autopilot: { bin: string; binDir: string } }> {
  const installed = await ensure();
  if ("skip" in installed) {
    console.warn(`[clients] ${label} tests skip: ${installed.skip}`);
    return installed;
  }
  console.log(`[clients] ${label} ${installed.version} at ${installed.bin}`);
  const packed = await installPackedAutopilot();
  if ("skip" in packed) {
    console.warn(`[clients] ${label} tests skip: ${packed.skip}`);
    return { skip: packed.skip };
  }
  return { ...installed, autopilot: packed };
}

/** One phase whose plan (three tasks, scripted planner) has three independent tasks: one wave. */
export const SPEC_ONE_WAVE =
  "# Greeting Library\n\nA tiny library of greetings.\n\n## Implementation Order\n\n### Phase 1: Greetings\n<!-- complexity: low -->\nThree greetings, each in a module of its own: hello, goodbye, welcome.\n";

/**
 * A `--parallel` session on SPEC_ONE_WAVE driven through a client to DONE: the host started the
 * wave's executors (`tasks`, default three) through `dispatchTool` (each prompt naming its own worktree, which the
 * Step gave), each executor (its own subagent conversation) wrote only in its worktree (`writes`
 * gives an executor request's write paths, project-relative), the host reported each task once by
 * `task`, the tasks' work is on the branch in task order, and no task worktree, branch or stray
 * file is left. Returns, per host turn that started executors, their worktrees' numbers (the
 * caller checks how they were grouped), and the worktrees.
 */
export async function expectWaveDone(
  dir: string,
  model: LoopbackModel,
  why: string,
  o: {
    dispatchTool: string;
    reportTool: string;
    promptOf: (args: Record<string, unknown>) => string;
    writes: (r: LoopbackModel["requests"][number]) => string[];
    tasks?: number;
  },
): Promise<{ dispatchTurns: number[][]; worktrees: string[] }> {
  expect(() => readSession(dir), why).not.toThrow();
  const { state } = readSession(dir);
  expect(state.currentState, why).toBe("DONE");
  expect(state.parallel, why).toBeTruthy();
  // The worktree each prompt names ("in the git worktree <path> (work only there)").
  const treeOf = (prompt: string) => /in the git worktree (\S+) \(work only there\)/.exec(prompt)?.[1];
  const dispatchTurns: number[][] = [];
  const worktrees: string[] = [];
  for (const r of model.requests) {
    if (r.kind !== "host" || r.decision?.kind !== "tool_calls") continue;
    const trees = r.decision.calls.flatMap((c) =>
      c.name === o.dispatchTool ? (treeOf(o.promptOf(c.args)) ?? []) : [],
    );
    if (!trees.length) continue;
    dispatchTurns.push(trees.map((t) => worktrees.push(t)));
  }
  const n = o.tasks ?? 3;
  const numbers = Array.from({ length: n }, (_, i) => i + 1);
  expect(new Set(worktrees).size, why).toBe(n);
  // Each executor wrote only in the worktree its prompt named (and, at most, its result file).
  const executors = model.requests.filter((r) => r.kind === "subagent" && r.persona === "harness-task-executor");
  const written = new Map<string, Set<string>>();
  for (const r of executors) {
    const said = (r.conv?.messages ?? [])
      .flatMap((m) => (m.role === "user" ? m.parts.flatMap((x) => (x.type === "text" ? [x.text] : [])) : []))
      .join("\n");
    const tree = treeOf(said);
    expect(worktrees, said.slice(0, 500)).toContain(tree);
    for (const f of o.writes(r)) (written.get(tree!) ?? written.set(tree!, new Set()).get(tree!))!.add(f);
  }
  expect([...written.keys()].sort(), why).toEqual([...new Set(worktrees)].sort());
  for (const [tree, files] of written)
    for (const f of files)
      expect(
        f.startsWith(`${tree}/`) || /^\.harness\/sessions\/[^/]+\/results\/step-\d+-task-\d\.json$/.test(f),
        f,
      ).toBe(true);
  // The host reported each task once, by its task.
  const reported = model.requests.flatMap((r) =>
    r.kind === "host" && r.decision?.kind === "tool_calls"
      ? r.decision.calls
          .filter((c) => c.name === o.reportTool && c.args.task !== undefined)
          .map((c) => String(c.args.task))
      : [],
  );
  expect(reported.sort(), why).toEqual(numbers.map(String).sort());
  // Each task's work is on the session's branch, in the project's own checkout, committed in task order.
  for (const t of numbers)
    expect(readFileSync(path.join(dir, `src/greetings/part-${t}.js`), "utf8")).toContain(`export const part${t} `);
  const tasks = await taskSteps(dir);
  expect(tasks).toEqual(numbers.map((t) => `Task ${t}: Greetings part ${t}`));
  // No task worktree or branch is left, and nothing uncommitted but autopilot's own session folder.
  const gitOut = async (...args: string[]) => (await execFileP("git", args, { cwd: dir })).stdout;
  expect(
    (await gitOut("worktree", "list", "--porcelain")).split("\n").filter((l) => l.startsWith("worktree ")),
  ).toHaveLength(1);
  expect((await gitOut("branch", "--list", "autopilot-task/*")).trim()).toBe("");
  expect((await gitOut("status", "--porcelain")).trim()).toBe("?? .harness/");
  return { dispatchTurns, worktrees };
}
