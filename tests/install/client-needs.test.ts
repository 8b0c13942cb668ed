// What Codex CLI and Gemini CLI need besides the files, printed by `autopilot install` (through the
// built CLI): facts found with the real clients (Codex 0.169, Gemini CLI 0.61; docs/clients.md).
// Codex reads a project's .codex/config.toml only once the project is trusted, and `codex exec`
// does not expand custom prompts (it does expand the `$autopilot` skill); Gemini CLI loads MCP servers only in a trusted folder and
// registers project agents only after an interactive acknowledgement.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { build, install, MAIN, tempDir } from "./helpers.js";
import { CLIENT_NAMES } from "../../src/install/client-list.js";

beforeAll(() => build(), 120_000);

describe("install prints what the client needs", () => {
  it("codex, project: trust (codex exec --trust or trust_level), and the $autopilot skill that also starts headless", () => {
    const home = tempDir("home");
    const project = tempDir("project");
    const r = install(["codex"], { cwd: project, home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("codex exec --trust");
    expect(r.stdout).toContain('trust_level = "trusted"');
    expect(r.stdout).toContain("Start: $autopilot docs/changes/<topic>/proposal.md");
    expect(r.stdout).toContain("also in `codex exec`");
    expect(readFileSync(join(project, ".agents", "skills", "autopilot", "SKILL.md"), "utf8")).toContain("spawn_agent");
  });

  it("codex, --global: the $autopilot start (the TUI's /prompts:autopilot too), and spawn_agent in the skill and the prompt", () => {
    const home = tempDir("home");
    const r = install(["codex", "--global"], { cwd: home, home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("Start: $autopilot docs/changes/<topic>/proposal.md");
    expect(r.stdout).toContain("/prompts:autopilot works too");
    for (const file of [
      join(home, ".codex", "prompts", "autopilot.md"),
      join(home, ".codex", "skills", "autopilot", "SKILL.md"),
    ]) {
      const text = readFileSync(file, "utf8");
      expect(text).toContain("spawn_agent");
      expect(text).toContain("wait_agent");
      expect(text).not.toContain("Codex has no named subagents");
    }
  });

  it("gemini, project: folder trust, and the acknowledgement project agents need (or --global)", () => {
    const home = tempDir("home");
    const project = tempDir("project");
    const r = install(["gemini"], { cwd: project, home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("GEMINI_CLI_TRUST_WORKSPACE=true");
    expect(r.stdout).toMatch(
      /registers project agents \(\.gemini\/agents\) only after you acknowledge them.*install with --global/,
    );
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

describe("install says what a spec needs", () => {
  it("every client's install ends with the spec format, and a spec written from that line is one autopilot reads", () => {
    for (const client of CLIENT_NAMES) {
      const home = tempDir("home");
      const project = tempDir("project");
      const r = install([client], { cwd: project, home });
      expect(r.status, `${client}: ${r.stderr}`).toBe(0);
      expect(r.stdout, client).toContain(
        "`## Implementation Order` section and one `### Phase 1: Name` heading per phase",
      );
    }
    // Follow the line word for word: the spec it describes has phases `autopilot spec` reads.
    const project = tempDir("spec");
    writeFileSync(
      join(project, "spec.md"),
      "# Counter\n\n## Implementation Order\n\n### Phase 1: Core\nCount words.\n\n### Phase 2: CLI\nPrint them.\n",
    );
    const r = spawnSync(process.execPath, [MAIN, "spec", join(project, "spec.md"), "--json"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).phases.map((p: { name: string }) => p.name)).toEqual(["Core", "CLI"]);
  });
});
