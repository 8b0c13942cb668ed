// The SessionStart hook install writes, run by the real clients: a project has a session waiting at
// its plan approval, the user starts the client fresh and says only "continue". The scripted model
// knows nothing of the session but what the client shows it; with the hook's line ("autopilot
// session <slug> is at APPROVE_PLAN (step N); call autopilot_start with spec ... to resume it
// (autopilot_next with session "<slug>" continues it too)") it calls
// autopilot_next and puts the question to the user; without it, it can only ask for a spec.
// Claude Code in print mode (the hook's "startup" source; /clear and /compact are in the TUI
// suite), Codex `exec` (whose hooks run only once trusted) and Gemini CLI `-p`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureBuilt } from "../helpers/build.js";
import type { TempRepo } from "../helpers/git.js";
import { git } from "../helpers/git.js";
import { startModelServer } from "./anthropic-sse.js";
import { Brain } from "./brain/brain.js";
import type { Dialect } from "./brain/types.js";
import { claudeCode } from "./dialects/claude-code.js";
import { codex } from "./dialects/codex.js";
import { gemini } from "./dialects/gemini.js";
import { claudeEnv, ensureClaudeCode, runClaude, type ClaudeRun } from "./claude-code.js";
import { clientWithPackage, codexHome, ensureCodex, ensureGemini, geminiHome, installFor } from "./codex-gemini.js";
import type { LoopbackModel } from "./loopback.js";
import { startResponsesModel } from "./responses-sse.js";
import { startGeminiModel } from "./gemini-sse.js";
import { readSession, waitingProject as waitingProjectIn } from "./project.js";

type Client = Awaited<ReturnType<typeof clientWithPackage>>;
let claude: Client;
let codexCli: Client;
let geminiCli: Client;
beforeAll(async () => {
  await ensureBuilt();
  claude = await clientWithPackage("Claude Code", ensureClaudeCode);
  codexCli = await clientWithPackage("Codex CLI", ensureCodex);
  geminiCli = await clientWithPackage("Gemini CLI", ensureGemini);
});

const cleanups: Array<() => void | Promise<void>> = [];
const repos: TempRepo[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
  if (!process.env.AUTOPILOT_KEEP_CLIENT_REPOS) for (const r of repos) await r.cleanup();
});

async function waitingProject(): Promise<{ dir: string; slug: string; stepId: number }> {
  const w = await waitingProjectIn();
  repos.push(w.repo);
  return w;
}

function home(): string {
  const h = mkdtempSync(path.join(tmpdir(), "autopilot-hook-home-"));
  cleanups.push(() => rmSync(h, { recursive: true, force: true }));
  return h;
}

/** What the model did with "continue": the autopilot_next call it made, and its last words. */
function outcome(model: LoopbackModel, dialect: Dialect): { next: unknown[]; said: string } {
  const host = model.requests.filter((r) => r.kind === "host");
  const next = host.flatMap((r) =>
    r.decision?.kind === "tool_calls"
      ? r.decision.calls.filter((c) => dialect.autopilotToolOf(c.name) === "autopilot_next").map((c) => c.args)
      : [],
  );
  const last = host.at(-1)?.decision;
  return { next, said: last?.kind === "reply" ? last.text : "" };
}

function why(run: ClaudeRun, log: string[]): string {
  return [
    `exit ${run.code}`,
    `stdout: ${run.stdout.slice(-2000)}`,
    `stderr: ${run.stderr.slice(-1500)}`,
    ...log.slice(-30),
  ].join("\n");
}

describe('the SessionStart hook in the real clients: a new session, "continue", and the session goes on', () => {
  it("Claude Code (install claude, print mode): the hook's line on startup leads the model to autopilot_next and the open question", async (ctx) => {
    if ("skip" in claude) return ctx.skip(claude.skip);
    const { dir, slug, stepId } = await waitingProject();
    await installInto(dir, "claude", claude.autopilot);
    const log: string[] = [];
    const brain = new Brain(claudeCode);
    const model = await startModelServer({
      label: "hook-claude",
      dialect: claudeCode,
      decide: (c) => brain.decide(c),
      log: (l) => log.push(l),
    });
    cleanups.push(() => model.close());
    const env = {
      ...claudeEnv(home(), model.url),
      PATH: `${claude.autopilot.binDir}${path.delimiter}${process.env.PATH}`,
    };
    const run = await runClaude(
      claude.bin,
      ["-p", "continue", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"],
      { cwd: dir, env },
    );
    const w = why(run, log);
    expect(model.errors, w).toEqual([]);
    const { next, said } = outcome(model, claudeCode);
    expect(next, w).toEqual([{ session: slug }]);
    expect(said, w).toMatch(
      /Approve this plan and begin execution\?[\s\S]*Options: yes \/ revise \/ skip phase \/ stop/,
    );
    expect(readSession(dir).state.stepId).toBe(stepId);
  });

  it("Codex (install codex --global): once the hook is trusted it names the session; untrusted, Codex does not run it and the model cannot resume", async (ctx) => {
    if ("skip" in codexCli) return ctx.skip(codexCli.skip);
    const { dir, slug } = await waitingProject();
    const exec = [
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--dangerously-bypass-approvals-and-sandbox",
      "-c",
      "mcp_servers.autopilot.required=true",
      "-c",
      "mcp_servers.autopilot.startup_timeout_sec=60",
    ];
    for (const trusted of [false, true]) {
      const log: string[] = [];
      const brain = new Brain(codex);
      const model = await startResponsesModel({
        dialect: codex,
        decide: (c) => brain.decide(c),
        log: (l) => log.push(l),
      });
      cleanups.push(() => model.close());
      const { output, env } = await installFor("codex", dir, codexHome(home(), model.url).env, codexCli.autopilot, [
        "--global",
      ]);
      expect(output).toContain("open /hooks in Codex and trust the autopilot SessionStart hook");
      // A hook reviewed and trusted in /hooks runs; `--dangerously-bypass-hook-trust` stands in for that review here.
      const run = await runClaude(
        codexCli.bin,
        [...exec, ...(trusted ? ["--dangerously-bypass-hook-trust"] : []), "continue"],
        { cwd: dir, env, timeoutMs: 600_000 },
      );
      const w = why(run, log);
      expect(model.errors, w).toEqual([]);
      const { next, said } = outcome(model, codex);
      if (trusted) {
        expect(next, w).toEqual([{ session: slug }]);
        expect(said, w).toMatch(/Approve this plan and begin execution\?/);
      } else {
        expect(next, w).toEqual([]);
        expect(said, w).toMatch(/Which spec should the autopilot run\?/);
      }
    }
  });

  it("Gemini CLI (install gemini --global, -p): the hook's JSON context leads the model to autopilot_next and the open question", async (ctx) => {
    if ("skip" in geminiCli) return ctx.skip(geminiCli.skip);
    const { dir, slug } = await waitingProject();
    const log: string[] = [];
    const brain = new Brain(gemini);
    const model = await startGeminiModel({ dialect: gemini, decide: (c) => brain.decide(c), log: (l) => log.push(l) });
    cleanups.push(() => model.close());
    const { env } = await installFor("gemini", dir, geminiHome(home(), model.url).env, geminiCli.autopilot, [
      "--global",
    ]);
    const run = await runClaude(geminiCli.bin, ["-p", "continue", "--yolo", "--output-format", "stream-json"], {
      cwd: dir,
      env,
      timeoutMs: 600_000,
    });
    const w = why(run, log);
    expect(model.errors, w).toEqual([]);
    const { next, said } = outcome(model, gemini);
    expect(next, w).toEqual([{ session: slug }]);
    expect(said, w).toMatch(/Approve this plan and begin execution\?/);
  });
});

/** `autopilot install <client>` in the project, committed as a team does. */
async function installInto(dir: string, client: string, autopilot: { bin: string; binDir: string }): Promise<void> {
  await installFor(client, dir, { ...process.env, NO_COLOR: "1" }, autopilot);
  writeFileSync(path.join(dir, ".gitignore"), ".harness/sessions/\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", `install autopilot for ${client}`);
}
