// The Claude Code plugin, end to end in the real CLI (from the npm registry, pinned, in the cache):
// `claude plugin validate` on the marketplace and the plugin, `claude plugin marketplace add` of this
// checkout and `claude plugin install autopilot@autopilot` into a fresh home, then the plugin's
// command in a project where nothing else was installed, to DONE. The plugin starts the server
// with `npx -y autopilot-mcp@<version> serve`, resolved through a local npm registry (verdaccio on
// loopback) where this checkout's tarball was published: nothing of autopilot is on PATH. Then the
// plugin's SessionStart hook: a project with a session waiting, a new Claude Code, "continue".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ensureBuilt, projectRoot } from "../helpers/build.js";
import type { TempRepo } from "../helpers/git.js";
import { git } from "../helpers/git.js";
import { claudeEnv, ensureClaudeCode, type Installed } from "./claude-code.js";
import { dispatchedAgents, explain, playClaude } from "./claude-play.js";
import { startLocalRegistry, type LocalRegistry } from "./local-registry.js";
import { autopilotSubjects, makeProject, readSession, waitingProject } from "./project.js";
import { startModelServer } from "./anthropic-sse.js";
import { Brain } from "./brain/brain.js";
import { claudeCode } from "./dialects/claude-code.js";
import { runClaude } from "./claude-code.js";

const execFileP = promisify(execFile);
const PLUGIN_DIR = path.join(projectRoot, "plugins", "claude");

let installed: Installed;
let registry: LocalRegistry | { skip: string };
let home: string;
const cleanups: Array<() => unknown> = [];
const repos: TempRepo[] = [];

beforeAll(async () => {
  await ensureBuilt();
  installed = await ensureClaudeCode();
  if ("skip" in installed) return console.warn(`[clients] Claude Code plugin tests skip: ${installed.skip}`);
  console.log(`[clients] Claude Code ${installed.version} at ${installed.bin}`);
  registry = await startLocalRegistry();
  if ("skip" in registry) {
    installed = { skip: registry.skip };
    return console.warn(`[clients] Claude Code plugin tests skip: ${registry.skip}`);
  }
  const r = registry;
  cleanups.push(() => r.close());
  console.log(
    `[clients] local registry ${r.url}: started in ${r.timings.start} ms, published in ${r.timings.publish} ms, first npx start ${r.timings.warm} ms`,
  );
  home = mkdtempSync(path.join(tmpdir(), "autopilot-claude-plugin-home-"));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
});

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  if (!process.env.AUTOPILOT_KEEP_CLIENT_REPOS) for (const r of repos) await r.cleanup();
});

/** The user's environment: their own home, the local registry, and no autopilot on PATH. */
function userEnv(modelUrl = "http://127.0.0.1:9"): NodeJS.ProcessEnv {
  if ("skip" in registry) throw new Error("unreachable");
  return { ...claudeEnv(home, modelUrl), ...registry.env };
}

async function claude(args: string[]): Promise<{ code: number; out: string }> {
  if ("skip" in installed) throw new Error("unreachable");
  return execFileP(installed.bin, args, { env: userEnv(), cwd: home, timeout: 300_000, maxBuffer: 16 << 20 }).then(
    ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: `${e.stdout}${e.stderr}` }),
  );
}

describe("Claude Code (real CLI): the autopilot plugin from its marketplace", () => {
  it("claude plugin validate --strict passes on the marketplace and on the plugin", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const market = await claude(["plugin", "validate", "--strict", projectRoot]);
    expect(market.code, market.out).toBe(0);
    expect(market.out).toContain("Validating marketplace manifest");
    expect(market.out).toMatch(/Validation passed/);
    const plugin = await claude(["plugin", "validate", "--strict", PLUGIN_DIR]);
    expect(plugin.code, plugin.out).toBe(0);
    // What the plugin provides, as Claude Code reads it.
    for (const part of [
      "autopilot:autopilot",
      "autopilot:harness-planner",
      "autopilot:harness-task-executor",
      "autopilot:harness-verifier",
      "autopilot:harness-code-reviewer",
    ]) {
      expect(plugin.out).toContain(part);
    }
    expect(plugin.out).toContain(
      `npx ["-y","autopilot-mcp@${"skip" in registry ? "" : registry.version}","serve","--agent-prefix","autopilot:"]`,
    );
    // The re-entry hook, run from the plugin's own folder.
    expect(plugin.out).toContain(
      'hooks: SessionStart startup|resume|clear|compact command "node \\"${CLAUDE_PLUGIN_ROOT}/hooks/autopilot-session-start.mjs\\""',
    );
  });

  it("marketplace add + plugin install, then `claude plugin details` lists its parts and their token cost", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const add = await claude(["plugin", "marketplace", "add", projectRoot]);
    expect(add.code, add.out).toBe(0);
    const install = await claude(["plugin", "install", "autopilot@autopilot"]);
    expect(install.code, install.out).toBe(0);
    const list = await claude(["plugin", "list"]);
    expect(list.out).toContain("autopilot@autopilot");
    const details = await claude(["plugin", "details", "autopilot@autopilot"]);
    expect(details.code, details.out).toBe(0);
    console.log(`[clients] claude plugin details autopilot@autopilot:\n${details.out}`);
    for (const part of ["harness-planner", "autopilot"]) expect(details.out).toContain(part);
  });

  it("the plugin's /autopilot:autopilot docs/spec.md --fast runs to DONE in a project where nothing was installed", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const repo = await makeProject();
    repos.push(repo);
    const p = await playClaude(
      installed.bin,
      "claude-plugin-fast",
      repo.dir,
      "/autopilot:autopilot docs/spec.md --fast",
      { env: (url) => userEnv(url) },
    );
    expect(p.model.errors, explain(p)).toEqual([]);
    let state: any;
    expect(() => (state = readSession(repo.dir).state), explain(p)).not.toThrow();
    expect(state.currentState, explain(p)).toBe("DONE");
    expect(state.rigorLevel).toBe("fast");
    expect(state.phases.map((ph: any) => ph.status)).toEqual(["complete", "complete", "complete"]);
    expect((await autopilotSubjects(repo.dir)).length).toBeGreaterThanOrEqual(3);
    // The host dispatched the plugin's agents by the names Claude Code gives them, as each todo said,
    // and Claude Code ran each as a subagent with the plugin's agent file as its prompt.
    expect(new Set(dispatchedAgents(p))).toEqual(
      new Set(["autopilot:harness-planner", "autopilot:harness-task-executor", "autopilot:harness-code-reviewer"]),
    );
    expect(new Set(p.model.requests.filter((r) => r.kind === "subagent").map((r) => r.persona))).toEqual(
      new Set(["harness-planner", "harness-task-executor", "harness-code-reviewer"]),
    );
    // The server ran from the plugin (its tools carry the plugin's prefix), started by npx.
    const called = p.model.requests.flatMap((r) =>
      r.decision?.kind === "tool_calls" ? r.decision.calls.map((c) => c.name) : [],
    );
    expect(called).toContain("mcp__plugin_autopilot_autopilot__autopilot_start");
    // Nothing was written into the project but autopilot's own session and commits.
    for (const f of [".mcp.json", ".claude"]) expect(existsSync(path.join(repo.dir, f)), f).toBe(false);
    const status = (await git(repo.dir, "status", "--porcelain"))
      .split("\n")
      .filter((l) => l.trim() && !l.includes(".harness/"));
    expect(status).toEqual([]);
  });

  it('the plugin\'s SessionStart hook: a session waiting at its plan, a new Claude Code, "continue", and the question comes back', async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const { repo, dir, slug, stepId } = await waitingProject();
    repos.push(repo);
    const log: string[] = [];
    const brain = new Brain(claudeCode);
    const model = await startModelServer({
      label: "plugin-hook",
      dialect: claudeCode,
      decide: (c) => brain.decide(c),
      log: (l) => log.push(l),
    });
    cleanups.push(() => model.close());
    const run = await runClaude(
      installed.bin,
      ["-p", "continue", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"],
      { cwd: dir, env: userEnv(model.url) },
    );
    const w = [
      `exit ${run.code}`,
      `stdout: ${run.stdout.slice(-2000)}`,
      `stderr: ${run.stderr.slice(-1500)}`,
      ...log.slice(-30),
    ].join("\n");
    expect(model.errors, w).toEqual([]);
    // The model knew of the session only from the hook's line, and went on with it.
    const host = model.requests.filter((r) => r.kind === "host");
    const next = host.flatMap((r) =>
      r.decision?.kind === "tool_calls"
        ? r.decision.calls
            .filter((c) => c.name === "mcp__plugin_autopilot_autopilot__autopilot_next")
            .map((c) => c.args)
        : [],
    );
    expect(next, w).toEqual([{ session: slug }]);
    const last = host.at(-1)?.decision;
    expect(last?.kind === "reply" ? last.text : "", w).toMatch(/Approve this plan and begin execution\?/);
    expect(readSession(dir).state.stepId).toBe(stepId);
    // Nothing of autopilot was installed into the project: the hook came with the plugin.
    for (const f of [".mcp.json", ".claude"]) expect(existsSync(path.join(dir, f)), f).toBe(false);
  });
});
