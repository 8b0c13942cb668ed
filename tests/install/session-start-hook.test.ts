// The SessionStart hook install writes for Claude Code, Codex and Gemini CLI: one line for the model
// when the project has an autopilot session in progress (so "continue" after /clear, a compaction
// or a new client picks it up), nothing otherwise; the user's settings and their own hooks keep
// every byte; a second install changes nothing. The hook runs here as the client runs it: the
// command from the settings file, through the shell, in the project folder.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, build, install, readJson, tempDir, write } from "./helpers.js";
import { makeRepo, type TempRepo } from "../helpers/git.js";
import { startServer, stepCall } from "../helpers/mcp-client.js";

beforeAll(() => build(), 120_000);

const repos: TempRepo[] = [];
afterAll(async () => {
  for (const r of repos) await r.cleanup();
});

const SCRIPT = readFileSync(join(REPO, "hooks", "autopilot-session-start.mjs"), "utf8");
const SPEC =
  "# Greetings\n\n## Implementation Order\n\n### Phase 1: Core\n<!-- complexity: low -->\nA greet function.\n\n### Phase 2: More\n<!-- complexity: low -->\nA farewell function.\n";

/** Run a hook group's command as the client does: through the shell, in the project folder. */
function runHook(
  group: any,
  cwd: string,
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const command = group.hooks[0].command as string;
  const r = spawnSync("/bin/sh", ["-c", command], {
    cwd,
    env: { PATH: process.env.PATH!, ...env },
    encoding: "utf8",
    input: '{"hook_event_name":"SessionStart","source":"clear"}',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function ours(settings: any): any {
  const groups = (settings.hooks?.SessionStart ?? []).filter((g: any) =>
    JSON.stringify(g).includes("autopilot-session-start.mjs"),
  );
  expect(groups).toHaveLength(1);
  return groups[0];
}

/** A project with a real session in progress: autopilot_start through the built server. */
async function projectWithSession(): Promise<{ dir: string; slug: string; stepId: number }> {
  const repo = await makeRepo({ files: { "README.md": "# p\n", "docs/spec.md": SPEC } });
  repos.push(repo);
  const srv = await startServer({ cwd: repo.dir });
  try {
    const step = await stepCall(srv.client, "autopilot_start", { spec: "docs/spec.md" });
    return { dir: repo.dir, slug: step.session, stepId: step.stepId };
  } finally {
    await srv.close();
  }
}

describe("autopilot install claude: the SessionStart hook", () => {
  it("goes into .claude/settings.json next to the user's own hooks, every byte of theirs kept; a reinstall changes nothing", () => {
    const project = tempDir("hook");
    const home = tempDir("home");
    const before =
      '{\n    "model": "opus",\n    "hooks": {\n        "SessionStart": [\n            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}\n        ],\n        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}]\n    }\n}\n';
    write(join(project, ".claude/settings.json"), before);
    const r = install(["claude"], { cwd: project, home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /merge +\.claude\/settings\.json \(adds the autopilot SessionStart hook to hooks\.SessionStart\)/,
    );
    expect(r.stdout).toMatch(/create +\.claude\/hooks\/autopilot-session-start\.mjs/);
    expect(r.stdout).toContain('After /clear, a compaction or a restart, say "continue"');
    const after = readFileSync(join(project, ".claude/settings.json"), "utf8");
    // The user's text is a prefix and a suffix of the new file: only our group was inserted.
    const cut = before.indexOf("\n        ],");
    expect(after.startsWith(before.slice(0, cut))).toBe(true);
    expect(after.endsWith(before.slice(cut))).toBe(true);
    const settings = JSON.parse(after);
    expect(settings.hooks.SessionStart[0]).toEqual({
      matcher: "startup",
      hooks: [{ type: "command", command: "echo hello" }],
    });
    expect(settings.hooks.PreToolUse).toHaveLength(1);
    expect(ours(settings)).toEqual({
      matcher: "startup|resume|clear|compact",
      hooks: [
        {
          type: "command",
          command: 'node "$CLAUDE_PROJECT_DIR/.claude/hooks/autopilot-session-start.mjs"',
          timeout: 10,
        },
      ],
    });
    expect(readFileSync(join(project, ".claude/hooks/autopilot-session-start.mjs"), "utf8")).toBe(SCRIPT);
    // Idempotent.
    expect(install(["claude"], { cwd: project, home }).stdout).toContain("Nothing to change");
    expect(readFileSync(join(project, ".claude/settings.json"), "utf8")).toBe(after);
  });

  it("an earlier install's hook group is replaced in place, not added twice", () => {
    const project = tempDir("hook-old");
    const home = tempDir("home");
    const old =
      '{"matcher": "startup", "hooks": [{"type": "command", "command": "node .claude/hooks/autopilot-session-start.mjs"}]}';
    const before = `{\n  "hooks": {\n    "SessionStart": [\n      ${old},\n      {"hooks": [{"type": "command", "command": "echo mine"}]}\n    ]\n  }\n}\n`;
    write(join(project, ".claude/settings.json"), before);
    expect(install(["claude"], { cwd: project, home }).status).toBe(0);
    const after = readFileSync(join(project, ".claude/settings.json"), "utf8");
    expect(after.replace(/\{\n\s*"matcher": "startup\|resume\|clear\|compact"[\s\S]*?\n {6}\}/, old)).toBe(before);
    const groups = JSON.parse(after).hooks.SessionStart;
    expect(groups).toHaveLength(2);
    expect(groups[1]).toEqual({ hooks: [{ type: "command", command: "echo mine" }] });
    expect(ours(JSON.parse(after)).matcher).toBe("startup|resume|clear|compact");
  });

  it("refuses a settings file whose hooks it cannot read, and writes nothing", () => {
    const project = tempDir("hook-bad");
    const home = tempDir("home");
    write(join(project, ".claude/settings.json"), '{ "hooks": { "SessionStart": {} } }');
    const r = install(["claude"], { cwd: project, home });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/"hooks\.SessionStart" is not a list\. Nothing was changed/);
    expect(readFileSync(join(project, ".claude/settings.json"), "utf8")).toBe('{ "hooks": { "SessionStart": {} } }');
  });

  it("--global: ~/.claude/settings.json runs the script by its absolute path", () => {
    const home = tempDir("home");
    expect(install(["claude", "--global"], { cwd: home, home }).status).toBe(0);
    const group = ours(readJson(join(home, ".claude/settings.json")));
    expect(group.hooks[0].command).toBe(
      `node ${JSON.stringify(join(home, ".claude/hooks/autopilot-session-start.mjs"))}`,
    );
    expect(readFileSync(join(home, ".claude/hooks/autopilot-session-start.mjs"), "utf8")).toBe(SCRIPT);
  });

  it("run as Claude Code runs it: one line naming the session in progress, nothing without one, exit 0 either way", async () => {
    const { dir, slug, stepId } = await projectWithSession();
    const home = tempDir("home");
    expect(install(["claude"], { cwd: dir, home }).status).toBe(0);
    const group = ours(readJson(join(dir, ".claude/settings.json")));
    const env = { CLAUDE_PROJECT_DIR: dir };
    // From a subfolder too: Claude Code names the project root.
    const r = runHook(group, join(dir, "docs"), env);
    expect(r).toEqual({
      status: 0,
      stdout: `autopilot session ${slug} is at PLAN (step ${stepId}); call autopilot_start with spec "docs/spec.md" to resume it (autopilot_next with session "${slug}" continues it too).\n`,
      stderr: "",
    });

    // A second session, saved later, is the one named; the other is counted.
    const stateFile = join(dir, ".harness/sessions", slug, "autopilot-state.json");
    const state = JSON.parse(readFileSync(stateFile, "utf8"));
    write(
      join(dir, ".harness/sessions/other/autopilot-state.json"),
      JSON.stringify({ ...state, currentState: "EXECUTE", stepId: 9, updatedAt: "2999-01-01T00:00:00.000Z" }),
    );
    expect(runHook(group, dir, env).stdout).toBe(
      'autopilot session other is at EXECUTE (step 9); call autopilot_start with spec "docs/spec.md" to resume it (autopilot_next with session "other" continues it too). 1 more in progress: autopilot_status lists them.\n',
    );

    // Finished, stopped, unreadable: nothing to continue.
    write(join(dir, ".harness/sessions/other/autopilot-state.json"), "{ not json");
    writeFileSync(stateFile, JSON.stringify({ ...state, stopped: true }));
    expect(runHook(group, dir, env)).toEqual({ status: 0, stdout: "", stderr: "" });
    writeFileSync(stateFile, JSON.stringify({ ...state, currentState: "DONE" }));
    expect(runHook(group, dir, env)).toEqual({ status: 0, stdout: "", stderr: "" });
    // No .harness at all (a project that never ran autopilot), or .harness not a folder.
    const bare = tempDir("bare");
    write(join(bare, ".claude/hooks/autopilot-session-start.mjs"), SCRIPT);
    expect(runHook(group, bare, { CLAUDE_PROJECT_DIR: bare })).toEqual({ status: 0, stdout: "", stderr: "" });
    writeFileSync(join(bare, ".harness"), "a file");
    expect(runHook(group, bare, { CLAUDE_PROJECT_DIR: bare })).toEqual({ status: 0, stdout: "", stderr: "" });
  });
});

describe("the same hook for Codex and Gemini CLI", () => {
  it("codex: .codex/hooks.json (the script found from the repository root), and a note to trust it in /hooks", async () => {
    const { dir, slug } = await projectWithSession();
    const home = tempDir("home");
    const r = install(["codex"], { cwd: dir, home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("open /hooks in Codex and trust the autopilot SessionStart hook");
    const group = ours(readJson(join(dir, ".codex/hooks.json")));
    expect(group.matcher).toBe("startup|resume|clear|compact");
    expect(runHook(group, join(dir, "docs")).stdout).toMatch(new RegExp(`^autopilot session ${slug} is at PLAN `));
    expect(install(["codex"], { cwd: dir, home }).stdout).toContain("Nothing to change");
  });

  it("gemini: a SessionStart group in .gemini/settings.json (comments kept) that answers in Gemini CLI's JSON", async () => {
    const { dir, slug } = await projectWithSession();
    const home = tempDir("home");
    const before = '{\n\t// mine\n\t"ui": {"theme": "Dracula"}\n}\n';
    write(join(dir, ".gemini/settings.json"), before);
    expect(install(["gemini"], { cwd: dir, home }).status).toBe(0);
    const after = readFileSync(join(dir, ".gemini/settings.json"), "utf8");
    expect(after).toContain("\t// mine\n");
    const settings = parseJsonc(after);
    expect(settings.ui).toEqual({ theme: "Dracula" });
    const group = ours(settings);
    expect(group.matcher).toBeUndefined();
    expect(group.hooks[0]).toMatchObject({ type: "command", name: "autopilot-session-start", timeout: 10_000 });
    const out = runHook(group, dir, { GEMINI_PROJECT_DIR: dir });
    expect(out.status).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: "SessionStart",
        additionalContext: expect.stringMatching(
          new RegExp(
            `^autopilot session ${slug} is at PLAN \\(step \\d+\\); call autopilot_start with spec "docs/spec\\.md" to resume it \\(autopilot_next with session "${slug}" continues it too\\)\\.$`,
          ),
        ),
      },
    });
    expect(install(["gemini"], { cwd: dir, home }).stdout).toContain("Nothing to change");
  });
});
