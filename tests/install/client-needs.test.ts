// What Codex CLI and Gemini CLI need besides the files, printed by `autopilot install` (through the
// built CLI): facts found with the real clients (Codex 0.169, Gemini CLI 0.61; docs/clients.md).
// Codex reads a project's .codex/config.toml only once the project is trusted, and `codex exec`
// does not expand custom prompts; Gemini CLI loads MCP servers only in a trusted folder and
// registers project agents only after an interactive acknowledgement.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { build, install, tempDir } from "./helpers.js";

beforeAll(() => build(), 120_000);

describe("install prints what the client needs", () => {
  it("codex, project: trust (codex exec --trust or trust_level), and no prompt expansion headless", () => {
    const home = tempDir("home");
    const project = tempDir("project");
    const r = install(["codex"], { cwd: project, home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("codex exec --trust");
    expect(r.stdout).toContain('trust_level = "trusted"');
    expect(r.stdout).toMatch(/`codex exec`, which does not expand prompts/);
    expect(r.stdout).toContain("autopilot install codex --global");
  });

  it("codex, --global: the /prompts:autopilot start, its headless limit, and spawn_agent in the prompt", () => {
    const home = tempDir("home");
    const r = install(["codex", "--global"], { cwd: home, home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("Start: /prompts:autopilot");
    expect(r.stdout).toMatch(/`codex exec` does not expand \/prompts:autopilot: ask in words/);
    const prompt = readFileSync(join(home, ".codex", "prompts", "autopilot.md"), "utf8");
    expect(prompt).toContain("`spawn_agent`");
    expect(prompt).toContain("`wait_agent`");
    expect(prompt).not.toContain("Codex has no named subagents");
  });

  it("gemini, project: folder trust, and the acknowledgement project agents need (or --global)", () => {
    const home = tempDir("home");
    const project = tempDir("project");
    const r = install(["gemini"], { cwd: project, home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("GEMINI_CLI_TRUST_WORKSPACE=true");
    expect(r.stdout).toMatch(/registers project agents \(\.gemini\/agents\) only after you acknowledge them.*install with --global/);
    const command = readFileSync(join(project, ".gemini", "commands", "autopilot.toml"), "utf8");
    expect(command).toContain("`invoke_agent`");
  });

  it("gemini, --global: no acknowledgement needed, so none is asked for", () => {
    const home = tempDir("home");
    const r = install(["gemini", "--global"], { cwd: home, home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("GEMINI_CLI_TRUST_WORKSPACE=true");
    expect(r.stdout).not.toContain("acknowledge");
  });
});
