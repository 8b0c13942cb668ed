// The Gemini CLI extension, end to end in the real CLI (from the npm registry, pinned, in the
// cache): `gemini extensions validate` and `gemini extensions install` of this checkout's
// plugins/gemini into a fresh home, then the extension's /autopilot command headless in a project
// where nothing else was installed, to DONE. The extension starts the server with
// `npx -y autopilot-mcp@<version> serve`, resolved through a local npm registry (verdaccio on
// loopback) where this checkout's tarball was published.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ensureBuilt, projectRoot } from "../helpers/build.js";
import type { TempRepo } from "../helpers/git.js";
import { Brain } from "./brain/brain.js";
import type { Installed } from "./claude-code.js";
import { gemini } from "./dialects/gemini.js";
import {
  ensureGemini,
  expectFastTwoPhaseDone,
  explain,
  geminiHome,
  play,
  SPEC_TWO_PHASES,
  START_ARGS,
} from "./codex-gemini.js";
import { startGeminiModel } from "./gemini-sse.js";
import { startLocalRegistry, type LocalRegistry } from "./local-registry.js";
import { makeProject } from "./project.js";

const execFileP = promisify(execFile);
const EXTENSION = path.join(projectRoot, "plugins", "gemini");

let installed: Installed;
let registry: LocalRegistry | { skip: string };
const cleanups: Array<() => unknown> = [];
const repos: TempRepo[] = [];

beforeAll(async () => {
  await ensureBuilt();
  installed = await ensureGemini();
  if ("skip" in installed) return console.warn(`[clients] Gemini extension tests skip: ${installed.skip}`);
  console.log(`[clients] Gemini CLI ${installed.version} at ${installed.bin}`);
  registry = await startLocalRegistry();
  if ("skip" in registry) {
    installed = { skip: registry.skip };
    return console.warn(`[clients] Gemini extension tests skip: ${registry.skip}`);
  }
  const r = registry;
  cleanups.push(() => r.close());
});

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  if (!process.env.AUTOPILOT_KEEP_CLIENT_REPOS) for (const r of repos) await r.cleanup();
});

const HEADLESS = ["--yolo", "--output-format", "stream-json"];

describe("Gemini CLI (real binary): the autopilot extension", () => {
  it(`extensions validate + install, then /autopilot ${START_ARGS} runs a two-phase spec to DONE`, async (ctx) => {
    if ("skip" in installed || "skip" in registry) return ctx.skip("skip" in installed ? installed.skip : "");
    const reg = registry;
    const bin = installed.bin;
    const repo = await makeProject(SPEC_TWO_PHASES);
    repos.push(repo);
    const home = mkdtempSync(path.join(tmpdir(), "autopilot-gemini-ext-home-"));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));

    const log: string[] = [];
    const brain = new Brain(gemini);
    const model = await startGeminiModel({ dialect: gemini, decide: (c) => brain.decide(c), log: (l) => log.push(l) });
    cleanups.push(() => model.close());
    const env = { ...geminiHome(home, model.url).env, ...reg.env };
    const geminiCli = (args: string[]) =>
      execFileP(bin, args, { env, cwd: home, timeout: 300_000 }).then(
        ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: `${e.stdout}${e.stderr}` }),
      );
    const valid = await geminiCli(["extensions", "validate", EXTENSION]);
    expect(valid.code, valid.out).toBe(0);
    expect(valid.out).toContain("successfully validated");
    const install = await geminiCli(["extensions", "install", EXTENSION, "--consent"]);
    expect(install.code, install.out).toBe(0);
    const list = await geminiCli(["extensions", "list"]);
    expect(list.out).toContain("autopilot");
    expect(list.out).toContain(reg.version);

    const runs = await play(bin, {
      cwd: repo.dir,
      env,
      model,
      first: ["-p", `/autopilot ${START_ARGS}`, ...HEADLESS],
      next: (answer) => ["-p", answer, "--resume", "latest", ...HEADLESS],
    });
    const why = explain("gemini extension", runs, log);
    expect(model.errors, why).toEqual([]);
    expect(runs[0].stderr, why).not.toMatch(/Conflicts detected for command/);
    await expectFastTwoPhaseDone(repo.dir, model, runs, why, `Arguments: ${START_ARGS}`);
    // Each persona ran as the extension's subagent (no acknowledgement needed, unlike project agents).
    const invoked = model.requests.flatMap((r) =>
      r.kind === "host" && r.decision?.kind === "tool_calls"
        ? r.decision.calls.filter((c) => c.name === "invoke_agent").map((c) => c.args.agent_name)
        : [],
    );
    expect(new Set(invoked)).toEqual(new Set(["harness-planner", "harness-task-executor", "harness-code-reviewer"]));
    for (const f of [".gemini"]) expect(existsSync(path.join(repo.dir, f)), f).toBe(false);
  });
});
