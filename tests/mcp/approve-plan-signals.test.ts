// Each concern signal on its own pauses APPROVE_PLAN over MCP, and the decision records which
// signal fired; with no signal the plan is auto-approved.
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { ScriptedPhase } from "../../src/runners/script.js";
import type { Step } from "../../src/protocol/step.js";
import {
  agreeable,
  openSession,
  planText,
  playHost,
  specWith,
  stepCall,
  writeProjectFile,
  type Session,
} from "../helpers/mcp-client.js";

const SPEC_PATH = "docs/specs/widget.md";
const SLUG = "specs--widget";

let s: Session | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

interface Case {
  signal: string;
  complexity: "low" | "medium" | "high";
  flags?: string;
  phase?: ScriptedPhase;
  reportMatch: RegExp;
  override?: string;
}

const CASES: Case[] = [
  {
    signal: "reviewPlans",
    complexity: "low",
    flags: "--review-plans",
    reportMatch: /Review mode: (manual|--review-plans)/i,
  },
  { signal: "highComplexity", complexity: "high", reportMatch: /Complexity: high/ },
  { signal: "complexityOverride", complexity: "low", phase: { tasks: 11 }, reportMatch: /medium/, override: "medium" },
  {
    signal: "plannerConcerns",
    complexity: "low",
    phase: { concerns: ["The rule format is undecided"] },
    reportMatch: /The rule format is undecided/,
  },
  { signal: "taskCount", complexity: "medium", phase: { tasks: 16 }, reportMatch: /Tasks: 16 \(threshold: 15\)/ },
];

describe("APPROVE_PLAN signals", () => {
  for (const c of CASES) {
    it(`${c.signal} alone pauses the plan for review`, async () => {
      s = await openSession({ spec: specWith([{ name: "Widget", complexity: c.complexity }]), specPath: SPEC_PATH });
      const runner = new ScriptedRunner({ phases: { 0: c.phase ?? {} } });
      let step = await s.start(c.flags);
      if (c.complexity === "high") {
        expect(step).toMatchObject({ state: "PLAN", next: { kind: "wait" } });
        await writeProjectFile(s.root, "docs/plans/2026-01-01-widget-plan.md", planText("Widget", 3));
        step = await s.start();
      }
      const ask = await playHost(s.srv.client, s.root, step, runner, agreeable, {
        until: (x) => x.next.kind === "ask",
      });
      expect(ask.state).toBe("APPROVE_PLAN");
      expect(ask.next).toMatchObject({ kind: "ask", options: ["yes", "revise", "skip phase", "stop"] });
      expect(ask.report ?? "").toMatch(/Pausing for review/);
      expect(ask.report ?? "").toMatch(c.reportMatch);
      if (c.override) expect(ask.phase?.complexityOverride).toBe(c.override);

      const after = await stepCall(s.srv.client, "autopilot_decide", {
        session: SLUG,
        stepId: ask.stepId,
        answer: "yes",
      });
      expect(after.state).toBe("EXECUTE");
      const d = (await s.state(SLUG)).decisions.filter((x: any) => x.signals);
      expect(d).toHaveLength(1);
      expect(d[0]).toMatchObject({ phase: 0, by: "host", answer: "yes", fired: [c.signal] });
    });
  }

  it("no signal: the plan is auto-approved with its report", async () => {
    s = await openSession({ spec: specWith([{ name: "Widget", complexity: "low" }]), specPath: SPEC_PATH });
    const trace = { steps: [] as Step[] };
    await playHost(s.srv.client, s.root, await s.start(), new ScriptedRunner({}), agreeable, {
      trace,
      until: (x) => x.state === "EXECUTE",
    });
    expect(trace.steps.some((x) => x.state === "APPROVE_PLAN")).toBe(false);
    expect(trace.steps.at(-1)!.report).toMatch(/Auto-approved Phase 1: Widget/);
    const d = (await s.state(SLUG)).decisions.filter((x: any) => x.signals);
    expect(d[0]).toMatchObject({ by: "auto", fired: [] });
  });
});
