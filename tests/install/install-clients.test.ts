// `autopilot install <client>` through the built CLI, in temp folders that already hold other
// servers and settings: merged, parsable in the client's format, idempotent, dry-run safe, and
// refusing files it cannot parse.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import matter from "gray-matter";
import { parse as parseToml } from "smol-toml";
import { beforeAll, describe, expect, it } from "vitest";
import { MAIN, build, install, readJson, snapshot, tempDir, write } from "./helpers.js";
import { CLIENT_NAMES, type Client } from "../../src/install/client-list.js";
import { PERSONAS } from "../../src/vocabulary.js";

interface Case {
  /** The config file, relative to the project. */
  config: string;
  /** Writes the pre-existing config (another server, other settings). */
  seed: (file: string) => void;
  /** Reads the config back in the client's own format and returns { ours, others }. */
  check: (file: string) => void;
  unparsable: string;
  agents: ((name: string) => string) | null;
  command: string;
  /** How the command file carries the user's arguments. */
  argsIn: (text: string) => void;
}

const otherServer = { command: "uvx", args: ["mcp-server-git"], env: { GIT_DIR: "/srv" } };

/** With the `autopilot` command on PATH (the helper's default), the entry names it, no path. */
function expectOurs(entry: any): void {
  expect(entry).toBeTruthy();
  expect(entry.command).toBe("autopilot");
  expect(entry.args).toEqual(["serve"]);
}

/** One per client: a client added to src/install/client-list.ts without its case here does not compile. */
const byClient: Record<Client, Case> = {
  claude: {
    config: ".mcp.json",
    seed: (f) => write(f, JSON.stringify({ mcpServers: { git: otherServer } }, null, 2) + "\n"),
    check: (f) => {
      const j = readJson(f);
      expect(j.mcpServers.git).toEqual(otherServer);
      expectOurs(j.mcpServers.autopilot);
      expect(j.mcpServers.autopilot.type).toBe("stdio");
    },
    unparsable: '{ "mcpServers": { "git": { "command": "uvx" }, } }',
    agents: (n) => `.claude/agents/${n}.md`,
    command: ".claude/commands/autopilot.md",
    argsIn: (t) => expect(t).toContain("$ARGUMENTS"),
  },
  cursor: {
    config: ".cursor/mcp.json",
    seed: (f) => write(f, JSON.stringify({ mcpServers: { git: otherServer } }, null, 4)),
    check: (f) => {
      const j = readJson(f);
      expect(j.mcpServers.git).toEqual(otherServer);
      expectOurs(j.mcpServers.autopilot);
    },
    unparsable: "{ mcpServers: {} }",
    agents: (n) => `.cursor/agents/${n}.md`,
    command: ".cursor/commands/autopilot.md",
    argsIn: (t) => expect(t).toMatch(/typed after `\/autopilot`/),
  },
  vscode: {
    config: ".vscode/mcp.json",
    seed: (f) =>
      write(
        f,
        JSON.stringify(
          {
            inputs: [{ type: "promptString", id: "token", description: "API token", password: true }],
            servers: { git: { type: "stdio", ...otherServer } },
          },
          null,
          "\t",
        ) + "\n",
      ),
    check: (f) => {
      const j = readJson(f);
      expect(j.inputs).toHaveLength(1);
      expect(j.servers.git).toEqual({ type: "stdio", ...otherServer });
      expectOurs(j.servers.autopilot);
      expect(j.servers.autopilot.type).toBe("stdio");
      expect(j.mcpServers).toBeUndefined();
      expect(readFileSync(f, "utf8")).toContain('\n\t"servers"'); // the file keeps its tab indentation
    },
    // VS Code's mcp.json is JSONC: comments and trailing commas are fine (see the byte tests), a broken file is not
    unparsable: '{\n  // my servers\n  "servers": {\n}\n',
    agents: (n) => `.github/agents/${n}.agent.md`,
    command: ".github/prompts/autopilot.prompt.md",
    argsIn: (t) => expect(t).toMatch(/typed after `\/autopilot`/),
  },
  codex: {
    config: ".codex/config.toml",
    seed: (f) =>
      write(
        f,
        [
          "# my codex settings",
          'model = "o3"',
          "",
          "[mcp_servers.git]",
          'command = "uvx"',
          'args = ["mcp-server-git"]',
          "",
          "[mcp_servers.git.env]",
          'GIT_DIR = "/srv"',
          "",
          "[profiles.fast]",
          'model = "o4-mini" # cheaper',
          "",
        ].join("\n"),
      ),
    check: (f) => {
      const text = readFileSync(f, "utf8");
      const t = parseToml(text) as any;
      expect(t.model).toBe("o3");
      expect(t.profiles.fast.model).toBe("o4-mini");
      expect(t.mcp_servers.git).toEqual(otherServer);
      expectOurs(t.mcp_servers.autopilot);
      expect(text).toContain("# my codex settings");
      expect(text).toContain("# cheaper");
    },
    unparsable: "[mcp_servers.git\ncommand = \n",
    agents: null,
    // The project's skill: `$autopilot <spec> <flags>` expands it, in `codex exec` too.
    command: ".agents/skills/autopilot/SKILL.md",
    argsIn: (t) => {
      expect(matter(t, {}).data.name).toBe("autopilot");
      expect(t).toMatch(/words after `\$autopilot`/);
      expect(t).toContain("spawn_agent");
    },
  },
  gemini: {
    config: ".gemini/settings.json",
    seed: (f) =>
      write(f, JSON.stringify({ ui: { theme: "Dracula" }, mcpServers: { git: otherServer } }, null, 2) + "\n"),
    check: (f) => {
      const j = readJson(f);
      expect(j.ui).toEqual({ theme: "Dracula" });
      expect(j.mcpServers.git).toEqual(otherServer);
      expectOurs(j.mcpServers.autopilot);
    },
    unparsable: '{"mcpServers": {"git": ',
    agents: (n) => `.gemini/agents/${n}.md`,
    command: ".gemini/commands/autopilot.toml",
    argsIn: (t) => {
      const cmd = parseToml(t) as { prompt: string; description: string };
      expect(cmd.description).toBeTruthy();
      expect(cmd.prompt).toContain("{{args}}");
      expect(cmd.prompt).toContain("autopilot_start");
    },
  },
};
const cases = CLIENT_NAMES.map((client) => ({ client, ...byClient[client] }));

beforeAll(() => build(), 120_000);

describe.each(cases)("autopilot install $client (project)", (c) => {
  it("merges into an existing config, keeping the other entries, and writes the client's files", () => {
    const project = tempDir(c.client);
    const home = tempDir("home");
    c.seed(join(project, c.config));
    const r = install([c.client], { cwd: project, home });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    c.check(join(project, c.config));
    if (c.agents) {
      for (const name of PERSONAS) {
        const fm = matter(readFileSync(join(project, c.agents(name)), "utf8"), {}).data;
        expect(fm.name).toBe(name);
        expect(typeof fm.description).toBe("string");
        expect(fm.description.length).toBeGreaterThan(20);
      }
    }
    if (c.command) {
      const text = readFileSync(join(project, c.command), "utf8");
      c.argsIn(text);
      if (c.client === "claude") {
        // Claude Code's command is a few lines: the Steps' todo names each call after (the lean view).
        expect(text).toContain("autopilot_start");
        expect(text).toContain("`todo`");
      } else {
        expect(text).toContain("autopilot_report");
        expect(text).toContain("autopilot_decide");
      }
    }
    expect(snapshot(home)).toEqual({}); // a project install leaves the home folder alone
  });

  it("changes nothing the second time, byte for byte, and says so", () => {
    const project = tempDir(c.client);
    const home = tempDir("home");
    c.seed(join(project, c.config));
    expect(install([c.client], { cwd: project, home }).status).toBe(0);
    const first = snapshot(project);
    const r = install([c.client, "--project", project], { cwd: home, home });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Nothing to change");
    expect(snapshot(project)).toEqual(first);
  });

  it("--dry-run shows the change and writes nothing", () => {
    const project = tempDir(c.client);
    const home = tempDir("home");
    c.seed(join(project, c.config));
    const before = snapshot(project);
    const r = install([c.client, "--dry-run"], { cwd: project, home });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Dry run");
    expect(r.stdout).toContain(`+++ b/${c.config}`);
    expect(r.stdout).toMatch(/^\+.*autopilot/m);
    expect(snapshot(project)).toEqual(before);
    expect(snapshot(home)).toEqual({});
  });

  it("refuses a config it cannot parse and leaves everything byte-identical", () => {
    const project = tempDir(c.client);
    const home = tempDir("home");
    write(join(project, c.config), c.unparsable);
    const before = snapshot(project);
    const r = install([c.client], { cwd: project, home });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(c.config.split("/").pop()!);
    expect(r.stderr).toMatch(/Nothing was changed/);
    expect(snapshot(project)).toEqual(before);
  });

  it("creates the config when there is none", () => {
    const project = tempDir(c.client);
    const home = tempDir("home");
    expect(install([c.client], { cwd: project, home }).status).toBe(0);
    expect(existsSync(join(project, c.config))).toBe(true);
  });
});

describe("autopilot install --global", () => {
  it("claude: merges ~/.claude.json's mcpServers and writes ~/.claude agents and command (no skills)", () => {
    const home = tempDir("home");
    const project = tempDir("cwd");
    const existing = {
      numStartups: 12,
      projects: { "/x": { mcpServers: { p: { command: "p" } } } },
      mcpServers: { git: otherServer },
    };
    write(join(home, ".claude.json"), JSON.stringify(existing, null, 2));
    const r = install(["claude", "--global"], { cwd: project, home });
    expect(r.status).toBe(0);
    const j = readJson(join(home, ".claude.json"));
    expect(j.numStartups).toBe(12);
    expect(j.projects).toEqual(existing.projects);
    expect(j.mcpServers.git).toEqual(otherServer);
    expectOurs(j.mcpServers.autopilot);
    for (const name of PERSONAS) expect(existsSync(join(home, ".claude", "agents", `${name}.md`))).toBe(true);
    expect(readFileSync(join(home, ".claude", "commands", "autopilot.md"), "utf8")).toContain("$ARGUMENTS");
    expect(existsSync(join(home, ".claude", "skills"))).toBe(false);
    expect(snapshot(project)).toEqual({});
    const again = install(["claude", "--global"], { cwd: project, home });
    expect(again.stdout).toContain("Nothing to change");
  });

  it("codex: ~/.codex/config.toml, the ~/.codex/prompts/autopilot.md prompt with $ARGUMENTS and the autopilot skill", () => {
    const home = tempDir("home");
    write(
      join(home, ".codex", "config.toml"),
      'model = "o3"\n\n[mcp_servers.git]\ncommand = "uvx"\nargs = ["mcp-server-git"]\n',
    );
    const r = install(["codex", "--global"], { cwd: home, home });
    expect(r.status).toBe(0);
    const t = parseToml(readFileSync(join(home, ".codex", "config.toml"), "utf8")) as any;
    expect(t.model).toBe("o3");
    expect(t.mcp_servers.git.command).toBe("uvx");
    expectOurs(t.mcp_servers.autopilot);
    const prompt = readFileSync(join(home, ".codex", "prompts", "autopilot.md"), "utf8");
    expect(prompt).toContain("$ARGUMENTS");
    expect(matter(prompt, {}).data.description).toBeTruthy();
    // The skill `codex exec` expands for `$autopilot ...` (the prompt above it does not).
    const skill = matter(readFileSync(join(home, ".codex", "skills", "autopilot", "SKILL.md"), "utf8"), {});
    expect(skill.data).toMatchObject({ name: "autopilot" });
    expect(skill.content).toMatch(/words after `\$autopilot`/);
    expect(r.stdout).toContain("Start: $autopilot docs/changes/<topic>/proposal.md");
  });

  it("codex honours CODEX_HOME", () => {
    const home = tempDir("home");
    const codexHome = tempDir("codex");
    expect(install(["codex", "--global"], { cwd: home, home, env: { CODEX_HOME: codexHome } }).status).toBe(0);
    expect(existsSync(join(codexHome, "config.toml"))).toBe(true);
    expect(existsSync(join(home, ".codex"))).toBe(false);
  });

  it.each([
    ["cursor", ".cursor/mcp.json", "mcpServers"],
    ["gemini", ".gemini/settings.json", "mcpServers"],
    [
      "vscode",
      process.platform === "darwin" ? "Library/Application Support/Code/User/mcp.json" : ".config/Code/User/mcp.json",
      "servers",
    ],
  ])("%s: writes the user-level config %s", (client, file, key) => {
    if (process.platform === "win32") return;
    const home = tempDir("home");
    write(join(home, file), JSON.stringify({ [key]: { git: otherServer } }));
    expect(install([client, "--global"], { cwd: home, home }).status).toBe(0);
    const j = readJson(join(home, file));
    expect(j[key].git).toEqual(otherServer);
    expectOurs(j[key].autopilot);
  });
});

describe("autopilot install: options", () => {
  it("--command overrides the server command; a changed entry is updated in place, keeping the user's extra fields", () => {
    const project = tempDir("cmd");
    const home = tempDir("home");
    write(
      join(project, ".mcp.json"),
      JSON.stringify(
        {
          mcpServers: { autopilot: { type: "stdio", command: "old", args: [], env: { DEBUG: "1" } }, git: otherServer },
        },
        null,
        2,
      ) + "\n",
    );
    const r = install(["claude", "--command", "npx -y autopilot-mcp serve"], { cwd: project, home });
    expect(r.status).toBe(0);
    const j = readJson(join(project, ".mcp.json"));
    expect(j.mcpServers.autopilot).toEqual({
      type: "stdio",
      command: "npx",
      args: ["-y", "autopilot-mcp", "serve"],
      env: { DEBUG: "1" },
    });
    expect(j.mcpServers.git).toEqual(otherServer);
    expect(Object.keys(j.mcpServers)).toEqual(["autopilot", "git"]);
  });

  it("replaces an edited agent file and keeps the user's copy as .bak", () => {
    const project = tempDir("bak");
    const home = tempDir("home");
    write(
      join(project, ".claude", "agents", "harness-planner.md"),
      "---\nname: harness-planner\ndescription: mine\n---\nmine\n",
    );
    const r = install(["claude"], { cwd: project, home });
    expect(r.status).toBe(0);
    expect(readFileSync(join(project, ".claude", "agents", "harness-planner.md.bak"), "utf8")).toContain("mine");
    expect(readFileSync(join(project, ".claude", "agents", "harness-planner.md"), "utf8")).toContain("**Tasks:** N");
  });

  it("usage errors exit 2", () => {
    const home = tempDir("home");
    expect(install([], { cwd: home, home }).status).toBe(2);
    expect(install(["emacs"], { cwd: home, home }).status).toBe(2);
    expect(install(["claude", "--frobnicate"], { cwd: home, home }).status).toBe(2);
    expect(install(["claude", "--project", join(home, "missing")], { cwd: home, home }).status).toBe(2);
  });

  it("the built CLI is what we run", () => {
    expect(existsSync(MAIN)).toBe(true);
  });
});
