// An install a team can commit: the server entry names no path of this machine (or warns when it
// must), the user's config files keep every byte that is not ours (comments, order, indentation),
// `--allow` writes each client's allow-list entries, and the agent files carry what a subagent
// really gets in Claude Code 2.1 (tools it has, the persona's method in its own prompt).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import matter from "gray-matter";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { beforeAll, describe, expect, it } from "vitest";
import { MAIN, REPO, build, install, readJson, snapshot, tempDir, write } from "./helpers.js";

const VERSION = (readJson(join(REPO, "package.json")) as { version: string }).version;

beforeAll(() => build(), 120_000);

/**
 * `after` must be `before` with text inserted (and, when `replaced` is given, that exact old text
 * replaced): the common head and tail cover everything else, byte for byte. Returns the new middle.
 */
function onlyInserted(before: string, after: string, replaced = ""): string {
  let head = 0;
  while (head < before.length && before[head] === after[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++;
  const removed = before.slice(head, before.length - tail);
  expect(replaced.includes(removed) || removed === "").toBe(true);
  return after.slice(head, after.length - tail);
}

describe("config files keep every byte that is not ours", () => {
  const cases = [
    {
      client: "vscode",
      file: ".vscode/mcp.json",
      key: "servers",
      // JSONC: comments, a trailing comma, odd (3-space) indentation, a one-line sibling entry
      before:
        '// workspace servers\n{\n   "inputs": [ { "type": "promptString", "id": "tok", "password": true } ], // secrets\n   "servers": {\n      /* git */ "git": { "type": "stdio", "command": "uvx", "args": ["mcp-server-git"] }, // keep me\n   },\n}\n',
    },
    {
      client: "gemini",
      file: ".gemini/settings.json",
      key: "mcpServers",
      // Gemini CLI strips comments before parsing: comments are kept, tabs too
      before: '{\n\t// look\n\t"ui": {"theme": "Dracula"},\n\t"mcpServers": {\n\t\t"git": {"command": "uvx"}\n\t}\n}',
    },
    {
      client: "claude",
      file: ".mcp.json",
      key: "mcpServers",
      // strict JSON, 4 spaces, CRLF, keys in the user's order
      before:
        '{\r\n    "mcpServers": {\r\n        "zeta": {"command": "z"},\r\n        "alpha": {"command": "a", "args": []}\r\n    },\r\n    "x": 1\r\n}\r\n',
    },
    {
      client: "cursor",
      file: ".cursor/mcp.json",
      key: "mcpServers",
      // minified on one line
      before: '{"mcpServers":{"git":{"command":"uvx"}}}',
    },
  ];

  it.each(cases)("$client: $file gets only our entry inserted", (c) => {
    const project = tempDir(c.client);
    const home = tempDir("home");
    write(join(project, c.file), c.before);
    const r = install([c.client], { cwd: project, home });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const after = readFileSync(join(project, c.file), "utf8");
    const added = onlyInserted(c.before, after);
    expect(added).toContain('"autopilot"');
    const parsed = parseJsonc(after, [], { allowTrailingComma: true });
    const previous = parseJsonc(c.before, [], { allowTrailingComma: true });
    expect(parsed[c.key].autopilot.command).toBe("autopilot");
    // (Gemini CLI's settings also get the SessionStart hook: tests/install/session-start-hook.test.ts.)
    expect({ ...parsed, [c.key]: { ...parsed[c.key], autopilot: undefined }, hooks: undefined }).toEqual({
      ...previous,
      [c.key]: { ...previous[c.key], autopilot: undefined },
    });
    // the file's own line endings and indentation are used for what we add
    if (c.before.includes("\r\n")) expect(added).not.toMatch(/[^\r]\n/);
    if (c.before.includes("\n\t")) expect(added).toContain("\n\t\t\t");
    // and a second run changes nothing
    expect(install([c.client], { cwd: project, home }).stdout).toContain("Nothing to change");
    expect(readFileSync(join(project, c.file), "utf8")).toBe(after);
  });

  it("an entry already there is replaced in place: the user's fields in it and everything around it stay", () => {
    const project = tempDir("vscode");
    const home = tempDir("home");
    const old = '{ "type": "stdio", "command": "node", "args": ["/old/main.js", "serve"], "env": { "DEBUG": "1" } }';
    const before = `{\n  // mine\n  "servers": {\n    "autopilot": ${old}, // ours\n    "git": { "command": "uvx" }\n  }\n}\n`;
    write(join(project, ".vscode/mcp.json"), before);
    expect(install(["vscode"], { cwd: project, home }).status).toBe(0);
    const after = readFileSync(join(project, ".vscode/mcp.json"), "utf8");
    onlyInserted(before, after, old);
    expect(parseJsonc(after).servers.autopilot).toEqual({
      type: "stdio",
      command: "autopilot",
      args: ["serve"],
      env: { DEBUG: "1" },
    });
    expect(after).toContain("}, // ours\n");
  });

  it("codex: config.toml is appended to, the user's text kept to its last byte", () => {
    const project = tempDir("codex");
    const home = tempDir("home");
    const before = '# mine\nmodel = "o3"   # odd spacing\n\n[mcp_servers.git]\ncommand = "uvx"\n\n\n';
    write(join(project, ".codex/config.toml"), before);
    expect(install(["codex"], { cwd: project, home }).status).toBe(0);
    const after = readFileSync(join(project, ".codex/config.toml"), "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect((parseToml(after) as any).mcp_servers.autopilot).toEqual({ command: "autopilot", args: ["serve"] });
  });
});

describe("the server command a teammate can run", () => {
  it("with the autopilot command on PATH: `autopilot serve`, no path of this machine anywhere", () => {
    const project = tempDir("team");
    const home = tempDir("home");
    const r = install(["claude"], { cwd: project, home });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("server command: autopilot serve  [the autopilot command on your PATH]");
    expect(readJson(join(project, ".mcp.json")).mcpServers.autopilot).toEqual({
      type: "stdio",
      command: "autopilot",
      args: ["serve"],
    });
    for (const [file, text] of Object.entries(snapshot(project))) {
      expect(text, file).not.toContain(REPO);
      expect(text, file).not.toContain("main.js");
    }
  });

  it("a checkout with nothing on PATH: the absolute path, with a warning not to commit it", () => {
    const project = tempDir("local");
    const home = tempDir("home");
    const r = install(["claude"], { cwd: project, home, onPath: false });
    expect(r.status).toBe(0);
    expect(readJson(join(project, ".mcp.json")).mcpServers.autopilot.args).toEqual([MAIN, "serve"]);
    expect(r.stderr).toMatch(
      /^warning: \.mcp\.json now starts the server with `node .*main\.js serve`, a path that only exists on this machine\. Do not commit it/,
    );
    expect(r.stderr).toContain(`--command "npx -y autopilot-mcp@${VERSION} serve"`);
  });

  it("the same checkout into the user's own config (--global): the path, no warning", () => {
    const home = tempDir("home");
    const r = install(["claude", "--global"], { cwd: home, home, onPath: false });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    expect(readJson(join(home, ".claude.json")).mcpServers.autopilot.args).toEqual([MAIN, "serve"]);
  });

  it("an `autopilot` on PATH that is some other program is not used", () => {
    const project = tempDir("other");
    const home = tempDir("home");
    const bin = tempDir("otherbin");
    write(join(bin, "autopilot"), "#!/bin/sh\necho another autopilot\n");
    const r = install(["claude"], { cwd: project, home, env: { PATH: bin } });
    expect(readJson(join(project, ".mcp.json")).mcpServers.autopilot.command).toBe("node");
    expect(r.stderr).toContain("warning:");
  });
});

describe("install --allow", () => {
  it("claude (project): mcp__autopilot in .claude/settings.local.json permissions.allow and the server approved, merged into the user's file", () => {
    const project = tempDir("allow");
    const home = tempDir("home");
    const before =
      '{\n  "permissions": {\n    "allow": ["Bash(npm test)"],\n    "deny": ["Read(.env)"]\n  },\n  "model": "opus"\n}\n';
    write(join(project, ".claude/settings.local.json"), before);
    const r = install(["claude", "--allow"], { cwd: project, home });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /merge +\.claude\/settings\.local\.json \(adds "mcp__autopilot" to permissions\.allow; "autopilot" to enabledMcpjsonServers\)/,
    );
    const after = readFileSync(join(project, ".claude/settings.local.json"), "utf8");
    const j = JSON.parse(after);
    expect(j.permissions).toEqual({ allow: ["Bash(npm test)", "mcp__autopilot"], deny: ["Read(.env)"] });
    expect(j.enabledMcpjsonServers).toEqual(["autopilot"]);
    expect(j.model).toBe("opus");
    expect(after.startsWith('{\n  "permissions": {\n    "allow": ["Bash(npm test)"')).toBe(true);
    expect(after).toContain('    "deny": ["Read(.env)"]\n  },\n  "model": "opus"');
    // the shared settings file gets no allow rule: trusting a server is each user's call
    expect(Object.keys(readJson(join(project, ".claude/settings.json")))).toEqual(["hooks"]);
    expect(install(["claude", "--allow"], { cwd: project, home }).stdout).toContain("Nothing to change");
  });

  it("claude --global: ~/.claude/settings.json", () => {
    const home = tempDir("home");
    expect(install(["claude", "--global", "--allow"], { cwd: home, home }).status).toBe(0);
    expect(readJson(join(home, ".claude/settings.json")).permissions).toEqual({ allow: ["mcp__autopilot"] });
  });

  it("without --allow nothing is allowed", () => {
    const project = tempDir("noallow");
    const home = tempDir("home");
    const r = install(["claude"], { cwd: project, home });
    expect(existsSync(join(project, ".claude/settings.local.json"))).toBe(false);
    expect(r.stdout).toContain("or install with --allow");
  });

  it("codex: default_tools_approval_mode = approve; gemini: trust", () => {
    const project = tempDir("allow2");
    const home = tempDir("home");
    expect(install(["codex", "--allow"], { cwd: project, home }).status).toBe(0);
    expect(
      (parseToml(readFileSync(join(project, ".codex/config.toml"), "utf8")) as any).mcp_servers.autopilot
        .default_tools_approval_mode,
    ).toBe("approve");
    expect(install(["gemini", "--allow"], { cwd: project, home }).status).toBe(0);
    expect(readJson(join(project, ".gemini/settings.json")).mcpServers.autopilot.trust).toBe(true);
  });

  it("cursor and vscode: says where to allow instead, writes no allow list", () => {
    const project = tempDir("allow3");
    const home = tempDir("home");
    const r = install(["cursor", "--allow"], { cwd: project, home });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("--allow: Cursor keeps tool approvals in its settings UI");
    expect(install(["vscode", "--allow"], { cwd: project, home }).stdout).toContain(
      "--allow: VS Code keeps tool approvals",
    );
  });

  it("refuses a settings file it cannot read, and writes nothing at all", () => {
    const project = tempDir("allow4");
    const home = tempDir("home");
    write(join(project, ".claude/settings.local.json"), '{ "permissions": { "allow": "mcp__x" } }');
    const r = install(["claude", "--allow"], { cwd: project, home });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/"permissions\.allow" is not a list\. Nothing was changed/);
    expect(Object.keys(snapshot(project))).toEqual([join(".claude", "settings.local.json")]);
  });
});

describe("Claude Code agent files", () => {
  const project = tempDir("agents");
  const home = tempDir("home");
  beforeAll(() => {
    write(
      join(project, ".claude/skills/harness-planning/SKILL.md"),
      "---\nname: harness-planning\ndescription: old\n---\nold\n",
    );
    expect(install(["claude"], { cwd: project, home }).status).toBe(0);
  });
  const agent = (n: string) => matter(readFileSync(join(project, ".claude/agents", `${n}.md`), "utf8"), {});

  // Claude Code 2.1 native builds have no Grep or Glob tool (search goes through Bash) and drop
  // unknown names silently, so a list naming them would promise what the subagent does not get.
  it("list only tools Claude Code 2.1 has; the reviewer and verifier have no Write or Edit", () => {
    for (const n of ["harness-planner", "harness-task-executor"])
      expect(String(agent(n).data.tools).split(/,\s*/)).toEqual(["Read", "Bash", "Write", "Edit"]);
    // Read-only: no Write, no Edit; their one MCP tool records their result (it changes no project file).
    for (const n of ["harness-verifier", "harness-code-reviewer"])
      expect(String(agent(n).data.tools).split(/,\s*/)).toEqual(["Read", "Bash", "mcp__autopilot__autopilot_result"]);
  });

  it("carry their skill's method in the prompt, before the final-message section; no skills are installed for the host", () => {
    const pairs = [
      ["harness-planner", "harness-planning"],
      ["harness-task-executor", "harness-execution"],
      ["harness-verifier", "harness-verification"],
      ["harness-code-reviewer", "harness-code-review"],
    ];
    for (const [persona, skill] of pairs) {
      const body = agent(persona).content;
      const method = body.indexOf(`(skill \`${skill}\`)`);
      expect(method, persona).toBeGreaterThan(0);
      expect(method).toBeLessThan(body.indexOf("## Your final message"));
      const skillText = matter(readFileSync(join(REPO, "skills", skill, "SKILL.md"), "utf8"), {}).content;
      const lines = skillText.trim().split("\n");
      const firstLine = lines.find((l, i) => i > 0 && /^[A-Za-z]/.test(l))!; // the text under the skill's title
      expect(body).toContain(firstLine);
      expect(agent(persona).data.skills).toBeUndefined();
    }
    expect(existsSync(join(project, ".claude/skills/harness-autopilot"))).toBe(false);
  });

  it("an earlier install's skills are left in place and named for deletion", () => {
    expect(existsSync(join(project, ".claude/skills/harness-planning/SKILL.md"))).toBe(true);
    const again = install(["claude"], { cwd: project, home });
    expect(again.stdout).toContain("No longer used: .claude/skills/harness-planning/");
  });
});
