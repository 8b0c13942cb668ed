// The README's "From the npm registry" lines, word for word, against a real registry: verdaccio
// on loopback (tests/clients/local-registry.ts) where this checkout's `npm pack` tarball was
// published with `npm publish`. Each line runs in a shell in a clean project, with only
// `npm_config_registry` (and a global prefix of the test's own) pointing npm at that registry;
// then the real Claude Code starts the server from the entry install wrote
// (`npx -y autopilot-mcp@<version> serve`) and runs /autopilot to DONE. Only the publish to the
// public registry itself is not run.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, projectRoot } from "../helpers/build.js";
import { git, type TempRepo } from "../helpers/git.js";
import { claudeEnv, ensureClaudeCode, type Installed } from "../clients/claude-code.js";
import { dispatchedAgents, explain, playClaude } from "../clients/claude-play.js";
import { startLocalRegistry, type LocalRegistry } from "../clients/local-registry.js";
import { autopilotSubjects, makeProject, readSession } from "../clients/project.js";

const execFileP = promisify(execFile);

/** The shell lines of the README's code block under the given bold heading. */
function readmeLines(heading: string): string[] {
  const readme = readFileSync(path.join(projectRoot, "README.md"), "utf8");
  const at = readme.indexOf(heading);
  if (at < 0) throw new Error(`README.md has no ${JSON.stringify(heading)}`);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!block) throw new Error(`README.md has no sh block after ${JSON.stringify(heading)}`);
  return block[1].split("\n").filter((l) => l.trim().length > 0);
}

const LINES = readmeLines("**From the npm registry**");

let registry: LocalRegistry | { skip: string };
let claude: Installed;
const work = mkdtempSync(path.join(tmpdir(), "autopilot-registry-test-"));
const repos: TempRepo[] = [];

beforeAll(async () => {
  await ensureBuilt();
  registry = await startLocalRegistry();
  if ("skip" in registry) return console.warn(`[package] registry tests skip: ${registry.skip}`);
  console.log(
    `[package] local registry ${registry.url}: started ${registry.timings.start} ms, published ${registry.timings.publish} ms, first npx ${registry.timings.warm} ms`,
  );
  claude = await ensureClaudeCode();
}, 1_200_000);

afterAll(async () => {
  if (registry && !("skip" in registry)) await registry.close();
  if (!process.env.AUTOPILOT_KEEP_CLIENT_REPOS) for (const r of repos) await r.cleanup();
  rmSync(work, { recursive: true, force: true });
});

/**
 * A user's shell: the registry, and a global prefix of this user's own inside their home (so
 * `npm i -g` stays in the test, and one test's global install is not on another's PATH).
 */
function shellEnv(home: string): NodeJS.ProcessEnv {
  if ("skip" in registry) throw new Error("unreachable");
  const prefix = path.join(home, ".npm-global");
  return {
    ...process.env,
    ...registry.env,
    HOME: home,
    npm_config_prefix: prefix,
    PATH: `${path.join(prefix, "bin")}${path.delimiter}${process.env.PATH}`,
    NO_COLOR: "1",
  };
}

describe("the README's registry install, against a local npm registry", () => {
  it("the README gives the npx line", () => {
    expect(LINES.some((l) => l.startsWith("npx -y autopilot-mcp install claude"))).toBe(true);
  });

  it.for(LINES)("%s: works as written in a clean project", async (line, ctx) => {
    if ("skip" in registry) return ctx.skip(registry.skip);
    const repo = await makeProject();
    repos.push(repo);
    const home = path.join(work, `home-${repos.length}`);
    mkdirSync(home, { recursive: true });
    const { stdout, stderr } = await execFileP("sh", ["-c", line], {
      cwd: repo.dir,
      env: shellEnv(home),
      timeout: 600_000,
      maxBuffer: 16 << 20,
    });
    const out = stdout + stderr;
    const entry = JSON.parse(readFileSync(path.join(repo.dir, ".mcp.json"), "utf8")).mcpServers.autopilot;
    // npx: the exact version, which any teammate's npx fetches; a global install: the command on PATH.
    if (line.startsWith("npx ")) {
      expect(entry, out).toEqual({
        type: "stdio",
        command: "npx",
        args: ["-y", `autopilot-mcp@${registry.version}`, "serve"],
      });
      expect(out).toContain("run through npx: pinned to the version that ran this install");
    } else {
      expect(entry, out).toEqual({ type: "stdio", command: "autopilot", args: ["serve"] });
    }
    for (const p of ["harness-planner", "harness-task-executor", "harness-verifier", "harness-code-reviewer"]) {
      expect(readFileSync(path.join(repo.dir, ".claude", "agents", `${p}.md`), "utf8")).toContain(`You are **${p}**`);
    }
  });

  it("the real Claude Code starts the server from the npx entry install wrote and runs /autopilot to DONE", async (ctx) => {
    if ("skip" in registry) return ctx.skip(registry.skip);
    if ("skip" in claude) return ctx.skip(claude.skip);
    const reg = registry;
    const repo = await makeProject();
    repos.push(repo);
    const home = mkdtempSync(path.join(work, "claude-home-"));
    await execFileP("sh", ["-c", LINES.find((l) => l.startsWith("npx "))!], {
      cwd: repo.dir,
      env: shellEnv(home),
      timeout: 600_000,
    });
    // A team commits the client config install wrote (autopilot asks about uncommitted changes first).
    await git(repo.dir, "add", "-A");
    await git(repo.dir, "commit", "-q", "-m", "install autopilot for claude");
    // Nothing of autopilot on PATH: the server can only come from npx and the registry.
    const p = await playClaude(claude.bin, "registry-npx-entry", repo.dir, "/autopilot docs/spec.md --fast", {
      env: (url) => ({ ...claudeEnv(home, url), ...reg.env }),
      debugFile: path.join(home, "claude-debug.log"),
    });
    expect(p.model.errors, explain(p)).toEqual([]);
    let state: any;
    expect(() => (state = readSession(repo.dir).state), explain(p)).not.toThrow();
    expect(state.currentState, explain(p)).toBe("DONE");
    expect(state.phases.map((ph: any) => ph.status)).toEqual(["complete", "complete", "complete"]);
    expect(new Set(dispatchedAgents(p))).toEqual(
      new Set(["harness-planner", "harness-task-executor", "harness-code-reviewer"]),
    );
    expect((await autopilotSubjects(repo.dir)).length).toBeGreaterThanOrEqual(3);
  });
});
