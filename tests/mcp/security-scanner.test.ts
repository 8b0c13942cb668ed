// The skill's own example over MCP: Core Scanner (low), Rule Engine (high), CLI Integration (low).
// Phase 2 waits for an interactive plan; the human writes it, resumes, and the plan pauses for
// approval because of its high complexity.
import { autopilotCommits } from "../helpers/git.js";
import { afterEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import {
  agreeable,
  call,
  openSession,
  planText,
  playHost,
  SCANNER_PATH,
  SCANNER_SLUG,
  stepCall,
  writeProjectFile,
  type Session,
} from "../helpers/mcp-client.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

describe("security-scanner example", () => {
  it("runs three phases to DONE through the interactive-plan wait and the high-complexity pause", async () => {
    s = await openSession();
    // The executor works through as many tasks as the human's plan has.
    const runner = new ScriptedRunner({ phases: { 1: { tasks: 4 } } });
    const first = await s.start();
    expect(first.session).toBe(SCANNER_SLUG);
    expect(first.report).toContain("Phase 2: Rule Engine (complexity: high)");
    expect(first.next).toMatchObject({ kind: "dispatch", persona: "harness-planner" });

    // Phase 1 plans, executes, verifies and reviews on its own; the only question is "continue?".
    const atWait = await playHost(s.srv.client, s.root, first, runner, agreeable);
    expect(atWait.state).toBe("PLAN");
    expect(atWait.phase).toMatchObject({ number: 2, name: "Rule Engine", complexity: "high" });
    expect(atWait.next.kind).toBe("wait");
    if (atWait.next.kind !== "wait") return;
    expect(atWait.next.reason).toMatch(/high-complexity/);
    expect(atWait.next.resumeWith).toContain("autopilot_start");

    // Resuming before the plan exists waits again and changes nothing else.
    const again = await s.start();
    expect(again.next.kind).toBe("wait");
    expect(again.state).toBe("PLAN");

    // The human plans interactively and saves the plan where the planner would.
    const plan = "docs/changes/security-scanner/plans/2026-03-19-rule-engine-plan.md";
    await writeProjectFile(s.root, plan, planText("Rule Engine", 4));
    const resumed = await call(s.srv.client, "autopilot_start", { spec: SCANNER_PATH });
    expect(resumed.step?.state).toBe("APPROVE_PLAN");
    expect(resumed.text).toMatch(/Resuming autopilot from state/);
    const ask = resumed.step!;
    expect(ask.next).toMatchObject({ kind: "ask", options: ["yes", "revise", "skip phase", "stop"] });
    expect(ask.report ?? "").toMatch(/Complexity: high/);

    const done = await playHost(s.srv.client, s.root, ask, runner, agreeable);
    expect(done.state).toBe("DONE");
    expect(done.next.kind).toBe("done");

    const state = await s.state();
    expect(state.phases.map((p: any) => [p.name, p.status])).toEqual([
      ["Core Scanner", "complete"],
      ["Rule Engine", "complete"],
      ["CLI Integration", "complete"],
    ]);
    expect(state.phases[1].planPath).toBe(plan);
    const planDecisions = state.decisions.filter((d: any) => d.signals);
    expect(planDecisions.map((d: any) => [d.phase, d.by])).toEqual([
      [0, "auto"],
      [1, "host"],
      [2, "auto"],
    ]);
    expect(planDecisions[1].fired).toContain("highComplexity");
    expect(state.finalReview.status).toBe("passed");
    expect(state.history).toHaveLength(3);

    const own = await autopilotCommits(s.root);
    for (const name of ["Core Scanner", "Rule Engine", "CLI Integration"])
      expect(own.some((c) => c.subject.includes(name) && c.step.includes(name))).toBe(true);
    expect(existsSync(path.join(s.root, "src/rule-engine/task-4.ts"))).toBe(true);

    const log = await call(s.srv.client, "autopilot_decisions", { session: SCANNER_SLUG });
    expect(log.result.isError).toBeFalsy();
    const sc = log.result.structuredContent as any;
    expect(sc.decisions.length).toBe(state.decisions.length);
    expect(sc.phases.map((p: any) => p.outcome)).toEqual(["complete", "complete", "complete"]);
    expect(sc.finalReview.status).toBe("passed");
    expect(sc.commits.length).toBeGreaterThanOrEqual(3);

    // A finished session's Step is stable.
    expect((await stepCall(s.srv.client, "autopilot_next", { session: SCANNER_SLUG })).state).toBe("DONE");
  });
});
