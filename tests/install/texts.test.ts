// The texts a model reads agree with each other and with what its client shows: one way to start
// and resume, one way to pass flags, one handoff shape, one result kind for a fix, one syntax of a
// commit point, one test-first rule, the usage block explained, no JSON field names where the
// client shows only text, and each rule stated once in an agent file. Install offers the
// .gitignore lines for .harness/sessions/.
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO } from "./helpers.js";
import { makeRepo, type TempRepo } from "../helpers/git.js";
import { claudeCommandBody, commandBody, readPersonas } from "../../src/install/templates.js";
import { startArgs } from "../clients/brain/brain.js";
import { planInstall, sessionsIgnoreNote } from "../../src/install/clients.js";
import { briefContent, dispatchFor, RECORDS_WITH_RESULT_TOOL } from "../../src/personas/dispatch.js";
import { plan, send, started } from "../machine/helpers.js";

const personas = readPersonas(REPO);
const agent = (name: string) => personas.find((p) => p.name === name)!.body;
const skill = (name: string) => readFileSync(join(REPO, "skills", name, "SKILL.md"), "utf8");
const home = "/nonexistent-home";
const server = { command: "autopilot", args: ["serve"], source: "on PATH", machineLocal: false };

function commandOf(client: "gemini" | "cursor" | "vscode", project: string): string {
  const plan = planInstall({ client, global: false, project, home, root: REPO, server });
  const file = plan.files.find((f) => /autopilot\.(toml|md|prompt\.md)$/.test(f.path))!;
  return file.after;
}

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

describe("what the host model reads", () => {
  it("Claude Code's command: flags in `flags`, and resuming is autopilot_start (not autopilot_next, which needs a slug the model may have lost)", () => {
    const body = claudeCommandBody();
    expect(body).toContain(
      "`spec` = the first word of the arguments (a quoted path is one word, unquoted) and `flags` = the other words",
    );
    // A model that reads the command as written takes a quoted spec path with spaces whole.
    expect(startArgs(body.replace("$ARGUMENTS", '"docs/word count spec.md" --fast'))).toEqual({
      spec: "docs/word count spec.md",
      flags: "--fast",
    });
    // "none" once read as "no flags" (a helper model's trial): the no-argument case says so whole.
    expect(body).toContain("No arguments at all: call autopilot_status and ask the user which session or spec.");
    expect(body).not.toMatch(/context reset: autopilot_next/);
    expect(body).toMatch(/a context reset\): autopilot_start with its spec path resumes it/);
  });

  it("Gemini CLI's command (text results only) names no JSON field it cannot see, and gives the start instruction once", async () => {
    repo = await makeRepo();
    const toml = commandOf("gemini", repo.dir);
    for (const field of [
      "next.kind",
      "next.persona",
      "next.prompt",
      "next.description",
      "next.question",
      "next.options",
    ])
      expect(toml).not.toContain(field);
    expect(toml.match(/autopilot_start/g)).toHaveLength(1);
  });

  it("every command explains the usage block, userWords, and why step numbers skip", async () => {
    repo = await makeRepo();
    for (const client of ["gemini", "cursor", "vscode"] as const) {
      const text = commandOf(client, repo.dir);
      expect(text, client).toMatch(/usage.*the token and cost figures the subagent tool\s+returned/s);
      expect(text, client).toContain("`userWords`");
      expect(text, client).toMatch(/numbers may skip/);
    }
    // The skill body is the commands' shared loop.
    expect(commandBody(REPO, { argumentsText: "x", dispatchText: "y" })).toContain("Start or resume");
  });
});

describe("what the personas read", () => {
  it("one handoff shape: the planner's file and the planning brief name the same fields", () => {
    const brief = briefContent(
      send(started([{ name: "Core", complexity: "low" }]), { type: "ASSESSED", planPath: null }),
      "changes--scanner--proposal",
      {},
    );
    const briefShape = /Write \S+handoff\.json \(replace the file\) with (\{.*\})\.$/m.exec(brief)![1];
    const fields = [...briefShape.matchAll(/"(\w+)":/g)].map((m) => m[1]).sort();
    expect(fields).toEqual(
      [
        "checkpointCount",
        "concerns",
        "deferred",
        "assumptions",
        "fromSkill",
        "phase",
        "planPath",
        "summary",
        "taskCount",
      ].sort(),
    );
    const planner = agent("harness-planner");
    const listed = /Write the handoff file \(replace it\) with the JSON the brief shows: ([^.]*)\./s.exec(planner)![1];
    expect([...listed.matchAll(/`(\w+)`/g)].map((m) => m[1]).sort()).toEqual(fields);
  });

  it('one result kind for a fix, in every text: "fixed"', () => {
    const executor = agent("harness-task-executor");
    expect(executor).toContain('A fix round replies `"kind": "fixed"`, also when the fix is the final review\'s');
    expect(executor).not.toMatch(/fix[^.\n]*"kind": "executed"/i);
  });

  it("one syntax of an automated commit point, and one test-first rule", () => {
    for (const text of [agent("harness-planner"), agent("harness-task-executor")])
      expect(text).toContain("[checkpoint:commit]");
    const planning = agent("harness-planner");
    expect(planning).not.toMatch(/prefer test first|test first where it makes sense/i);
    expect(planning).toContain(
      "Each task ends with the project's checks green, so the red step happens inside\n     the task, never across tasks.",
    );
  });

  it("the final-message rule: the client's hand-back tool when there is one, else one fenced json block", () => {
    for (const p of personas) {
      expect(p.body, p.name).toMatch(
        /Deliver the result through the client's hand-back tool when it gives you one \(for example\s+`SubagentHandback`, the result as its message\); otherwise end your final message with it as plain text: one fenced `json`\s+block/,
      );
      expect(p.body.match(/hand-back tool/g), p.name).toHaveLength(1);
    }
  });

  it("each agent file states each rule once: no sentence appears twice once the method is folded in", () => {
    for (const p of personas) {
      const sentences = p.body
        .replace(/```[\s\S]*?```/g, " ")
        .split(/(?<=[.!?:])\s+|\n\s*[-*]\s+|\n#+ /)
        .map((s) => s.replace(/\s+/g, " ").trim().toLowerCase())
        .filter((s) => s.split(" ").length >= 8);
      const seen = new Set<string>();
      const twice = sentences.filter((s) => (seen.has(s) ? true : (seen.add(s), false)));
      expect(twice, p.name).toEqual([]);
    }
  });

  it("each persona's agent file and brief name only the way of handing back its result that its tools allow", () => {
    // A brief at each persona's dispatch: planning, the plan's execution, verification, review.
    const slug = "changes--scanner--proposal";
    const planning = send(started([{ name: "Core", complexity: "low" }]), { type: "ASSESSED", planPath: null });
    const executing = send(planning, { type: "PLANNED", plan: plan(3) });
    const verifying = send(executing, { type: "EXECUTED", outcome: "complete" });
    const reviewing = send(verifying, { type: "VERIFIED", verdict: "pass", findings: [] });
    const at = {
      "harness-planner": planning,
      "harness-task-executor": executing,
      "harness-verifier": verifying,
      "harness-code-reviewer": reviewing,
    } as const;
    for (const p of personas) {
      const tools = (p.tools ?? "").split(/,\s*/);
      const resultTool = tools.includes("mcp__autopilot__autopilot_result");
      // Every persona either records its result with the tool or writes the file: never offered the other way.
      expect(resultTool || tools.includes("Write"), p.name).toBe(true);
      expect(RECORDS_WITH_RESULT_TOOL.has(p.name), p.name).toBe(resultTool);
      const state = at[p.name];
      expect(dispatchFor(state)?.persona, p.name).toBe(p.name);
      const line = /^- Result: .*$/m.exec(briefContent(state, slug, {}))![0];
      if (resultTool) {
        expect(line, p.name).toMatch(
          /\(record your JSON result with autopilot_result, stepId \d+: it writes this file\)$/,
        );
        expect(p.body.replace(/\s+/g, " "), p.name).toContain(
          "The one autopilot MCP tool you call is `autopilot_result`",
        );
      } else {
        expect(line, p.name).toMatch(/\(write your JSON result there too\)$/);
        expect(p.body, p.name).not.toContain("autopilot_result");
        expect(p.body, p.name).toMatch(/Write the same JSON object to the result file the brief names/);
      }
    }
  });

  it("every role refuses its usual shortcuts", () => {
    for (const name of ["harness-planning", "harness-execution", "harness-verification", "harness-code-review"])
      expect(skill(name), name).toContain("## Shortcuts to refuse");
  });
});

describe("install offers the .gitignore lines", () => {
  it("in a repository that does not ignore .harness/sessions/ yet, and not once it does", async () => {
    repo = await makeRepo();
    const note = sessionsIgnoreNote(repo.dir);
    expect(note).toContain("adding to .gitignore:\n  .harness/sessions/");
    const plan = planInstall({ client: "claude", global: false, project: repo.dir, home, root: REPO, server });
    expect(plan.notes).toContain(note);
    // install never edits .gitignore itself
    expect(plan.files.some((f) => f.path.endsWith(".gitignore"))).toBe(false);
    await writeFile(join(repo.dir, ".gitignore"), ".harness/sessions/\n");
    expect(sessionsIgnoreNote(repo.dir)).toBeNull();
  });
});
