// The budget gate is a stage of the machine: before each dispatching stage, a session whose spending
// budget is spent rests in that stage's budget question; its answers are DECIDE events recorded like
// any other decision, and where the session goes on is the stage it stood before.
import { describe, expect, it } from "vitest";
import { askFor, renderStep } from "../../src/engine/step.js";
import { BUDGET_QUESTION_HELD, migrateState } from "../../src/session/migrate.js";
import { RESTING_STAGES, stageMetaAt } from "../../machines/stages.js";
import { emptyLedger, type UsageLedger } from "../../src/session/usage.js";
import type { AutopilotState } from "../../src/session/schema.js";
import { plan, send, started, where } from "./helpers.js";

/** What the persona runs spent so far: `tokens` in all. */
function spent(tokens: number): UsageLedger {
  const l = emptyLedger();
  return { ...l, total: { ...l.total, dispatches: 3, reported: 3, tokens } };
}

/** A session at ASSESS of its first phase with a 25k-token budget, 30k spent. */
function overBudget(): AutopilotState {
  const s = started([
    { name: "Core", complexity: "low" },
    { name: "Rules", complexity: "low" },
  ]);
  return { ...s, budget: { tokens: 25_000, usd: null, continueOnceAt: null }, usage: spent(30_000) };
}

describe("the budget gate, a stage of the machine", () => {
  it("asks before the planner instead of dispatching it, with the question's name and options", () => {
    const s = send(overBudget(), { type: "ASSESSED", planPath: null });
    expect(where(s)).toBe("PLAN.budgetPlanning");
    const step = renderStep(s, "core");
    expect(step.next).toMatchObject({
      kind: "ask",
      name: "budget",
      options: ["raise budget", "continue once", "stop"],
      question: expect.stringContaining("budget is spent (30k tokens spent of a 25k-token budget)"),
    });
  });

  it("continue once: the one dispatch goes, recorded as a decision; the next dispatch asks again", () => {
    let s = send(overBudget(), { type: "ASSESSED", planPath: null });
    s = send(s, { type: "DECIDE", answer: "continue once", by: "host" });
    expect(where(s)).toBe("PLAN.planning");
    expect(s.budget!.continueOnceAt).toBe(s.stepId);
    expect(renderStep(s, "core").next).toMatchObject({ kind: "dispatch", persona: "harness-planner" });
    expect(s.decisions.at(-1)).toMatchObject({
      decision: "budget_continue_once",
      answer: "continue once",
      by: "host",
      phase: 0,
      state: "PLAN",
    });
    expect(renderStep(s, "core").report).toContain("one more persona run, then the session asks again");
    // The plan pauses nothing (3 tasks, no concern): execution is the next dispatch, and it asks.
    s = send(s, { type: "PLANNED", plan: plan(3) });
    expect(where(s)).toBe("EXECUTE.budgetRunning");
  });

  it("raise budget: the amount in the reason; the dispatch goes on where it stood", () => {
    let s = send(overBudget(), { type: "ASSESSED", planPath: null });
    s = send(s, { type: "DECIDE", answer: "raise budget", rationale: "to 200k", by: "terminal" });
    expect(where(s)).toBe("PLAN.planning");
    expect(s.budget).toEqual({ tokens: 200_000, usd: null, continueOnceAt: null });
    expect(s.decisions.at(-1)).toMatchObject({
      decision: "raised_budget",
      answer: "raise budget",
      by: "terminal",
      rationale: "to 200k",
    });
    expect(renderStep(s, "core").report).toContain("Budget raised from 25k tokens to 200k tokens");
    // Raised, but not past what was spent: asked again.
    let t = send(overBudget(), { type: "ASSESSED", planPath: null });
    t = send(t, { type: "DECIDE", answer: "raise budget", rationale: "to 26k", by: "host" });
    expect(where(t)).toBe("PLAN.budgetPlanning");
  });

  it("stop: stopped at the question (stopped_budget); a resume with a larger budget goes on to the dispatch", () => {
    let s = send(overBudget(), { type: "ASSESSED", planPath: null });
    s = send(s, { type: "DECIDE", answer: "stop", by: "policy" });
    expect(s.stopped).toBe(true);
    expect(where(s)).toBe("PLAN.budgetPlanning");
    expect(s.decisions.at(-1)).toMatchObject({ decision: "stopped_budget", answer: "stop", by: "policy" });
    expect(renderStep(s, "core").next.kind).toBe("wait");
    // Resumed as it was: the question again.
    const same = send(s, { type: "RESUME" });
    expect(where(same)).toBe("PLAN.budgetPlanning");
    expect(askFor(same)?.name).toBe("budget");
    // Resumed with --budget 1M (the engine sets it before RESUME): the planner is dispatched.
    const more = send({ ...s, budget: { tokens: 1_000_000, usd: null, continueOnceAt: null } }, { type: "RESUME" });
    expect(where(more)).toBe("PLAN.planning");
  });

  it("a fix round and a refused commit's fix each have their own question, and go on to their own dispatch", () => {
    let s = send(overBudget(), { type: "ASSESSED", planPath: null });
    s = send(s, { type: "DECIDE", answer: "continue once", by: "host" });
    s = send(s, { type: "PLANNED", plan: plan(3) });
    s = send(s, { type: "DECIDE", answer: "continue once", by: "host" });
    expect(where(s)).toBe("EXECUTE.running");
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    expect(where(s)).toBe("VERIFY.budgetRunning");
    s = send(s, { type: "DECIDE", answer: "continue once", by: "host" });
    s = send(s, { type: "VERIFIED", verdict: "fail", findings: ["x"] });
    s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    expect(where(s)).toBe("EXECUTE.budgetFixing");
    s = send(s, { type: "DECIDE", answer: "continue once", by: "host" });
    expect(where(s)).toBe("EXECUTE.fixing");
    expect(renderStep(s, "core").next).toMatchObject({ kind: "dispatch", expects: { result: "fixed" } });
  });

  it("a state file saved while the engine asked (resting in the dispatching stage) is read into the question's stage", () => {
    const s = send(overBudget(), { type: "ASSESSED", planPath: null });
    const old = { ...s, stage: "planning" };
    const { state, notes } = migrateState(JSON.parse(JSON.stringify(old)));
    expect(where(state)).toBe("PLAN.budgetPlanning");
    expect(notes.join("\n")).toContain("PLAN.budgetPlanning");
    expect(askFor(state)?.name).toBe("budget");
    // The one dispatch a "continue once" let through stays a dispatch.
    const let1 = { ...old, budget: { ...old.budget!, continueOnceAt: old.stepId } };
    expect(where(migrateState(JSON.parse(JSON.stringify(let1))).state)).toBe("PLAN.planning");
    // A budget not spent: nothing moves.
    expect(where(migrateState(JSON.parse(JSON.stringify({ ...old, usage: spent(10) }))).state)).toBe("PLAN.planning");
  });

  it("each stage the engine's budget question held in older files dispatches, and its question's stage is the machine's", () => {
    const held = Object.entries(BUDGET_QUESTION_HELD).flatMap(([top, stages]) => stages.map((st) => [top, st]));
    expect(held).toHaveLength(10);
    for (const [top, stage] of held) {
      expect(stageMetaAt(top, stage)?.dispatch, `${top}.${stage}`).toBeDefined();
      expect(RESTING_STAGES[top], `${top}.${stage}`).toContain(`budget${stage[0].toUpperCase()}${stage.slice(1)}`);
    }
  });
});
