// What `autopilot install` does with each persona's model (docs/models.md): the agent files of
// Claude Code and Gemini CLI carry the persona's default model, the plugins' too, and the output says
// plainly what each client does with a model: where a Step names one, and where a client cannot be
// told one at all.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import matter from "gray-matter";
import { describe, expect, it } from "vitest";
import { REPO, install, tempDir } from "./helpers.js";

const AGENT_MODELS = {
  "claude-code": {
    "harness-planner": "opus",
    "harness-task-executor": "sonnet",
    "harness-verifier": "sonnet",
    "harness-code-reviewer": "opus",
  },
  gemini: {
    "harness-planner": "pro",
    "harness-task-executor": "flash",
    "harness-verifier": "flash",
    "harness-code-reviewer": "pro",
  },
};

const modelOf = (file: string) => matter(readFileSync(file, "utf8"), {}).data.model;

describe("autopilot install: the personas' models", () => {
  it("claude: each agent file names its persona's model, and the output says when a Step names another", () => {
    const project = tempDir("cwd");
    const r = install(["claude"], { cwd: project, home: tempDir("home") });
    expect(r.status).toBe(0);
    for (const [persona, model] of Object.entries(AGENT_MODELS["claude-code"]))
      expect(modelOf(join(project, ".claude", "agents", `${persona}.md`)), persona).toBe(model);
    expect(r.stdout).toContain(
      "Models: each persona's agent file names its model (planner opus, executor sonnet, verifier sonnet, reviewer opus); a Step names another in the Agent call where a dispatch runs one tier up",
    );
  });

  it("gemini: the agent files carry the model, and the output says Gemini CLI cannot choose one per call", () => {
    const home = tempDir("home");
    const r = install(["gemini", "--global"], { cwd: tempDir("cwd"), home });
    expect(r.status).toBe(0);
    for (const [persona, model] of Object.entries(AGENT_MODELS.gemini))
      expect(modelOf(join(home, ".gemini", "agents", `${persona}.md`)), persona).toBe(model);
    expect(r.stdout).toContain(
      "Models: Gemini CLI cannot choose a subagent's model per call (invoke_agent takes none), so each persona runs on its agent file's model: in ~/.gemini/agents/ (planner pro, executor flash, verifier flash, reviewer pro)",
    );
  });

  it("codex names the model for spawn_agent; cursor and vscode say plainly that they cannot be told one", () => {
    const codex = install(["codex", "--global"], { cwd: tempDir("cwd"), home: tempDir("home") });
    expect(codex.stdout).toContain(
      "Models: each dispatch names the persona's model for spawn_agent (planner gpt-6-astra, executor gpt-6.1-sol, verifier gpt-6.1-sol, reviewer gpt-6-astra",
    );
    // What to do where those names are unknown: a Codex on another provider.
    expect(codex.stdout).toContain('set "models": {"clients": {"codex": "inherit"}}');
    for (const [client, name] of [
      ["cursor", "Cursor"],
      ["vscode", "VS Code"],
    ] as const) {
      const r = install([client], { cwd: tempDir("cwd"), home: tempDir("home") });
      expect(r.stdout, client).toContain(
        `Models: ${name} cannot be told a subagent's model by autopilot: the personas run on the chat's model`,
      );
    }
  });

  it("the plugins' agent files (npm run manifests) carry the same models", () => {
    for (const [persona, model] of Object.entries(AGENT_MODELS["claude-code"]))
      expect(modelOf(join(REPO, "plugins", "claude", "agents", `${persona}.md`)), persona).toBe(model);
    for (const [persona, model] of Object.entries(AGENT_MODELS.gemini))
      expect(modelOf(join(REPO, "plugins", "gemini", "agents", `${persona}.md`)), persona).toBe(model);
  });
});
