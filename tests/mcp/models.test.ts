// A model per persona over MCP: each client's Steps name the model in its own terms (Claude Code's
// Agent call only where it differs from the agent file's, Codex's spawn_agent always, Gemini CLI
// never: its invoke_agent takes none), a task's last attempt within the retry budget and the final
// review's last fix round run one tier up, and the state's ledger records which model ran each
// dispatch and why.
import { afterEach, describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Step } from "../../src/protocol/step.js";
import { agreeable, openSession, playHost, specWith, type Session } from "../helpers/mcp-client.js";
import { FINAL_REVIEW_FIX_BUDGET, RETRY_BUDGET } from "../../src/rules/policy.js";

const SPEC_PATH = "docs/specs/scanner.md";
const SLUG = "specs--scanner";
const SPEC = specWith([{ name: "Core Scanner", complexity: "low" }]);

let s: Session | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

type Run = { stepId: number; persona: string; model: string | null; tier: string; escalated: boolean; why: string };

async function play(client: string, script: ConstructorParameters<typeof ScriptedRunner>[0], config?: object) {
  s = await openSession({ spec: SPEC, specPath: SPEC_PATH, server: { name: client } });
  if (config) {
    await mkdir(path.join(s.root, ".harness"), { recursive: true });
    await writeFile(path.join(s.root, ".harness/config.json"), JSON.stringify(config));
  }
  const trace = { steps: [] as Step[] };
  const end = await playHost(s.srv.client, s.root, await s.start(), new ScriptedRunner(script), agreeable, { trace });
  expect(end.next.kind).toBe("done");
  const state = await s.state(SLUG);
  return { dispatches: trace.steps.filter((x) => x.next.kind === "dispatch"), runs: state.usage.runs as Run[] };
}

describe("the model of each dispatch", () => {
  it(`Claude Code: the agent files' models go unnamed; the task's last attempt (retry ${RETRY_BUDGET}/${RETRY_BUDGET}) names opus in the Agent call`, async () => {
    const { dispatches, runs } = await play("claude-code", {
      phases: { 0: { fail: { task: 2, times: RETRY_BUDGET } } },
    });
    const named = dispatches.filter((x) => x.next.kind === "dispatch" && x.next.model);
    expect(named).toHaveLength(1);
    const last = named[0];
    expect(last.next).toMatchObject({ persona: "harness-task-executor", model: "opus" });
    expect(last.report).toContain(`Retry ${RETRY_BUDGET}/${RETRY_BUDGET}`);
    expect(last.todo).toMatch(/^Agent tool: subagent_type next\.persona, model next\.model, prompt next\.prompt/);
    // The usual todo stays as it was (the host reads it once a conversation).
    expect(dispatches[0].todo).toMatch(/^Agent tool: subagent_type next\.persona, prompt next\.prompt/);

    const executor = runs.filter((r) => r.persona === "harness-task-executor");
    expect(executor.map((r) => r.model)).toEqual([...Array(RETRY_BUDGET).fill("sonnet"), "opus"]);
    expect(executor.at(-1)).toMatchObject({ tier: "strong", escalated: true });
    expect(executor.at(-1)!.why).toBe(
      `executor: standard tier, the default at standard rigor; the last attempt at task 2 within the retry budget (retry ${RETRY_BUDGET}/${RETRY_BUDGET}): one tier up, strong`,
    );
    expect(executor[0].why).toBe("executor: standard tier, the default at standard rigor");
    const byPersona = Object.fromEntries(runs.map((r) => [r.persona, r.model]));
    expect(byPersona).toMatchObject({
      "harness-planner": "opus",
      "harness-verifier": "sonnet",
      "harness-code-reviewer": "opus",
    });
  });

  it("Codex: every dispatch names its model for spawn_agent; the config's choice and the final review's last fix round", async () => {
    const { dispatches, runs } = await play(
      "codex-mcp-client",
      { finalBlocking: FINAL_REVIEW_FIX_BUDGET },
      { models: { verifier: "fast", reviewer: "gpt-6.1-terra" } },
    );
    const models = dispatches.map((x) => x.next.kind === "dispatch" && [x.next.persona, x.next.model]);
    expect(models.slice(0, 4)).toEqual([
      ["harness-planner", "gpt-6-astra"],
      ["harness-task-executor", "gpt-6.1-sol"],
      ["harness-verifier", "gpt-6-luna"],
      ["harness-code-reviewer", "gpt-6.1-terra"],
    ]);
    expect(dispatches[0].todo).toContain(
      'Call spawn_agent with model "gpt-6-astra" and message "You are harness-planner',
    );
    const fixes = runs.filter((r) => r.stepId > 0 && r.persona === "harness-task-executor").slice(1);
    expect(fixes.map((r) => [r.model, r.escalated])).toEqual([
      ...Array(FINAL_REVIEW_FIX_BUDGET - 1).fill(["gpt-6.1-sol", false]),
      ["gpt-6-astra", true],
    ]);
    expect(fixes.at(-1)!.why).toContain(
      `the final review's last fix round (${FINAL_REVIEW_FIX_BUDGET}/${FINAL_REVIEW_FIX_BUDGET}): one tier up, strong`,
    );
    expect(runs.find((r) => r.persona === "harness-code-reviewer")!.why).toBe(
      "reviewer: gpt-6.1-terra in .harness/config.json models",
    );
  });

  it('Gemini CLI: no Step names a model (invoke_agent takes none); "escalate": false keeps the last attempt on its tier', async () => {
    const { dispatches, runs } = await play(
      "gemini-cli-mcp-client",
      { phases: { 0: { fail: { task: 1, times: RETRY_BUDGET } } } },
      { models: { escalate: false } },
    );
    expect(dispatches.filter((x) => x.next.kind === "dispatch" && x.next.model)).toEqual([]);
    expect(dispatches.map((x) => x.todo).join("\n")).not.toMatch(/model/);
    const executor = runs.filter((r) => r.persona === "harness-task-executor");
    expect(executor.map((r) => [r.model, r.escalated])).toEqual(Array(RETRY_BUDGET + 1).fill(["flash", false]));
  });
});
