// Resuming, tried as a new user would, over stdio against the built server: each Step says what
// it should once, a paused plan approval still shows why it paused, and the interactive-planning
// wait names the exact place the server looks for the plan.
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Step } from "../../src/protocol/step.js";
import {
  call,
  makeProject,
  planText,
  specWith,
  startServer,
  stepCall,
  taskFor,
  writeProjectFile,
  type ServerHandle,
} from "../helpers/mcp-client.js";
import type { TempRepo } from "../helpers/git.js";

const SPEC = "docs/changes/feature/proposal.md";
let srv: ServerHandle | undefined;
let repo: TempRepo | undefined;
afterEach(async () => {
  await srv?.close();
  await repo?.cleanup();
  srv = undefined;
  repo = undefined;
});

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

async function open(phases: Array<{ name: string; complexity: "low" | "medium" | "high" }>) {
  repo = await makeProject({ spec: specWith(phases), specPath: SPEC });
  srv = await startServer({ cwd: repo.dir });
  return { root: repo.dir, client: srv.client };
}

describe("resuming through autopilot_start", () => {
  it('says "Resuming autopilot from state …" once', async () => {
    const { client } = await open([{ name: "Core", complexity: "low" }]);
    await stepCall(client, "autopilot_start", { spec: SPEC });
    const again = await call(client, "autopilot_start", { spec: SPEC });
    expect(count(again.text, "Resuming autopilot from state")).toBe(1);
    expect(count(again.step!.report ?? "", "Resuming autopilot from state")).toBe(1);
  });

  it("at a paused plan approval, shows the concern and signal lines that caused the pause", async () => {
    const { root, client } = await open([{ name: "Core", complexity: "low" }]);
    const first = await stepCall(client, "autopilot_start", { spec: SPEC });
    const runner = new ScriptedRunner({ phases: { 0: { concerns: ["the cache key is undecided"] } } });
    const { result } = await runner.run(taskFor(root, first));
    const paused = await stepCall(client, "autopilot_report", { session: first.session, stepId: first.stepId, result });
    expect(paused.next.kind).toBe("ask");
    expect(paused.report).toContain("Planner concerns: 1 concern(s) (triggered)");

    // A new conversation: the user runs /autopilot again.
    const resumed = await call(client, "autopilot_start", { spec: SPEC });
    expect(resumed.step!.next.kind).toBe("ask");
    for (const line of [
      "Pausing for review -- Phase 1: Core",
      "Planner concerns: 1 concern(s) (triggered)",
      "- concern: the cache key is undecided",
      "Tasks: 3 (threshold: 15)",
    ])
      expect(resumed.text).toContain(line);
    // autopilot_next shows the same lines.
    const next = await stepCall(client, "autopilot_next", { session: first.session });
    expect(next.report).toContain("- concern: the cache key is undecided");
  });

  it("the high-complexity wait names the folder and file name; a resume without a plan says where it looked", async () => {
    const { root, client } = await open([{ name: "Rule Engine", complexity: "high" }]);
    const wait = await stepCall(client, "autopilot_start", { spec: SPEC });
    expect(wait.next.kind).toBe("wait");
    const reason = (wait.next as { reason: string }).reason;
    expect(reason).toMatch(/save the plan as docs\/changes\/feature\/plans\/\d{4}-\d{2}-\d{2}-rule-engine-plan\.md/);
    expect(reason).toContain(
      'autopilot looks in docs/changes/feature/plans/ and docs/plans/ for a .md file whose name contains "rule-engine"',
    );

    const again = await call(client, "autopilot_start", { spec: SPEC });
    expect(again.step!.next.kind).toBe("wait");
    expect(again.text).toMatch(
      /No plan for phase 1 yet: checked docs\/changes\/feature\/plans\/\d{4}-\d{2}-\d{2}-rule-engine-plan\.md/,
    );

    // Saved where the wait said (any date, the phase name in the file name): found.
    await writeProjectFile(
      root,
      "docs/changes/feature/plans/2020-01-01-rule-engine-plan.md",
      planText("Rule Engine", 4),
    );
    const found: Step = (await call(client, "autopilot_start", { spec: SPEC })).step!;
    expect(found.state).toBe("APPROVE_PLAN");
  });
});
