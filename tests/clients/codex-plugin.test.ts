// The Codex plugin, end to end in the real Codex CLI (from the npm registry, pinned, in the cache):
// `codex plugin marketplace add` of this checkout (its .agents/plugins/marketplace.json) and
// `codex plugin add autopilot@autopilot` into a fresh CODEX_HOME, then the plugin's skill headless
// (`codex exec`) in a project where nothing else was installed, to DONE. The plugin's .mcp.json
// starts the server with `npx -y autopilot-mcp@<version> serve`, resolved through a local npm
// registry (verdaccio on loopback) where this checkout's tarball was published. Codex has no
// validator of its own for a plugin (0.169 has no `plugin validate`): `marketplace add` and `add`
// read and check both manifests, and the run shows what Codex made of them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ensureBuilt, projectRoot } from "../helpers/build.js";
import type { TempRepo } from "../helpers/git.js";
import { Brain } from "./brain/brain.js";
import type { ClaudeRun, Installed } from "./claude-code.js";
import { codex } from "./dialects/codex.js";
import {
  codexHome,
  ensureCodex,
  expectFastTwoPhaseDone,
  explain,
  play,
  SPEC_TWO_PHASES,
  START_ARGS,
} from "./codex-gemini.js";
import { startLocalRegistry, type LocalRegistry } from "./local-registry.js";
import { makeProject } from "./project.js";
import { startResponsesModel } from "./responses-sse.js";

const execFileP = promisify(execFile);

let installed: Installed;
let registry: LocalRegistry | { skip: string };
const cleanups: Array<() => unknown> = [];
const repos: TempRepo[] = [];

beforeAll(async () => {
  await ensureBuilt();
  installed = await ensureCodex();
  if ("skip" in installed) return console.warn(`[clients] Codex plugin tests skip: ${installed.skip}`);
  console.log(`[clients] Codex CLI ${installed.version} at ${installed.bin}`);
  registry = await startLocalRegistry();
  if ("skip" in registry) {
    installed = { skip: registry.skip };
    return console.warn(`[clients] Codex plugin tests skip: ${registry.skip}`);
  }
  const r = registry;
  cleanups.push(() => r.close());
});

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  if (!process.env.AUTOPILOT_KEEP_CLIENT_REPOS) for (const r of repos) await r.cleanup();
});

// As in codex.test.ts: headless, no approvals. The plugin's server is `required`, so exec waits for it.
const EXEC = ["--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"];

function threadOf(run: ClaudeRun): string {
  const id = run.events.find((e) => e.type === "thread.started")?.thread_id;
  if (typeof id !== "string") throw new Error(`codex printed no thread.started event:\n${run.stdout.slice(0, 2000)}`);
  return id;
}

describe("Codex CLI (real binary): the autopilot plugin from its marketplace", () => {
  it(`marketplace add + plugin add, then $autopilot:autopilot ${START_ARGS} runs a two-phase spec to DONE`, async (ctx) => {
    if ("skip" in installed || "skip" in registry) return ctx.skip("skip" in installed ? installed.skip : "");
    const reg = registry;
    const bin = installed.bin;
    const repo = await makeProject(SPEC_TWO_PHASES);
    repos.push(repo);
    const home = mkdtempSync(path.join(tmpdir(), "autopilot-codex-plugin-home-"));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));

    const log: string[] = [];
    const brain = new Brain(codex);
    const model = await startResponsesModel({
      dialect: codex,
      decide: (c) => brain.decide(c),
      log: (l) => log.push(l),
    });
    cleanups.push(() => model.close());
    // Codex starts an MCP server with only a few of its own variables: the registry comes from the
    // user's ~/.npmrc, where `npm config set registry` puts it.
    const env = codexHome(home, model.url).env;
    reg.writeNpmrc(home);
    const codexCli = (args: string[]) =>
      execFileP(bin, args, { env, cwd: home, timeout: 300_000 }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, out: stdout + stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({
          code: e.code,
          stdout: e.stdout,
          out: `${e.stdout}${e.stderr}`,
        }),
      );
    const add = await codexCli(["plugin", "marketplace", "add", projectRoot]);
    expect(add.code, add.out).toBe(0);
    const plugin = await codexCli(["plugin", "add", "autopilot@autopilot", "--json"]);
    expect(plugin.code, plugin.out).toBe(0);
    expect(JSON.parse(plugin.stdout)).toMatchObject({ pluginId: "autopilot@autopilot", version: reg.version });

    let first: ClaudeRun | undefined;
    const runs = await play(bin, {
      onRun: (r) => (first ??= r),
      cwd: repo.dir,
      env,
      model,
      // Codex names a plugin's skill <plugin>:<skill>.
      first: ["exec", ...EXEC, `$autopilot:autopilot ${START_ARGS}`],
      next: (answer) => ["exec", "resume", ...EXEC, threadOf(first!), answer],
    });
    const why = explain("codex plugin", runs, log);
    expect(model.errors, why).toEqual([]);
    await expectFastTwoPhaseDone(repo.dir, model, runs, why, START_ARGS);
    const personas = new Set(model.requests.filter((r) => r.kind === "subagent").map((r) => r.persona));
    expect(personas).toEqual(new Set(["harness-planner", "harness-task-executor", "harness-code-reviewer"]));
    // Nothing was written into the project.
    for (const f of [".codex", ".agents"]) expect(existsSync(path.join(repo.dir, f)), f).toBe(false);
  });
});
