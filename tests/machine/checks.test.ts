// What the machine does with a persona result that fails a check in code: a plan with problems goes
// back to the planner (within the retry budget) and then pauses for a person with the reason; a
// blocking finding without a file, a line and a scenario goes back to the reviewer; an executor's
// plan defect goes to a revised plan, not to a retry.
import { describe, expect, it } from "vitest";
import { renderStep } from "../../src/engine/step.js";
import { briefContent, dispatchFor } from "../../src/personas/dispatch.js";
import { RETRY_BUDGET, sendBacksAllowed } from "../../src/rules/policy.js";
import type { PlanFacts } from "../../machines/autopilot.machine.js";
import { blocking, finishPhase, note, plan, planned, send, started, vagueBlocking, where } from "./helpers.js";

const slug = "changes--scanner--proposal";
const low = { name: "Core Scanner", complexity: "low" as const };
const reportOf = (s: Parameters<typeof renderStep>[0]) => renderStep(s, slug).report ?? "";
const briefOf = (s: Parameters<typeof briefContent>[0]) => briefContent(s, slug, {});

const unverifiable: PlanFacts = {
  ...plan(3),
  problems: [
    'Task 2 (Parse) has no verification step: end it with "**Verify:** `<command>` → <the result that proves it>".',
  ],
};
const SEND_BACKS = sendBacksAllowed(RETRY_BUDGET);

describe("the plan check", () => {
  it("sends a plan with problems back to the planner with the list, then runs the fixed plan", () => {
    let s = planned(started([low]), unverifiable);
    expect(where(s)).toBe("PLAN.planning");
    expect(reportOf(s)).toContain(
      `The plan check found 1 problem in the plan; it goes back to the planner (send-back 1 of ${SEND_BACKS}):`,
    );
    expect(reportOf(s)).toContain("Task 2 (Parse) has no verification step");
    expect(dispatchFor(s)!.prompt).toMatch(/^Revise the plan for phase 1\/1 "Core Scanner"/);
    expect(briefOf(s)).toContain("## Why the plan goes back to you");
    expect(briefOf(s)).toContain("- Task 2 (Parse) has no verification step");
    s = send(s, { type: "PLANNED", plan: plan(3) });
    expect(where(s)).toBe("EXECUTE.running");
    expect(s.decisions.at(-1)).toMatchObject({ decision: "auto_approved_plan", fired: [] });
  });

  it(`past ${SEND_BACKS} send-backs the planChecks signal pauses the plan for a person, with the reasons`, () => {
    let s = planned(started([low]), unverifiable);
    for (let i = 1; i < SEND_BACKS; i++) s = send(s, { type: "PLANNED", plan: unverifiable });
    expect(where(s)).toBe("PLAN.planning");
    s = send(s, { type: "PLANNED", plan: unverifiable });
    expect(where(s)).toBe("APPROVE_PLAN.review");
    expect(reportOf(s)).toMatch(/Plan check: 1 problem\(s\) \(triggered\)/);
    expect(reportOf(s)).toContain("  - plan check: Task 2 (Parse) has no verification step");
    s = send(s, { type: "DECIDE", answer: "yes", by: "terminal", rationale: "the task is a rename" });
    expect(s.decisions.at(-1)).toMatchObject({ decision: "approved_plan", fired: ["planChecks"] });
  });

  it("a plan the planner did not write (read from disk) is judged by a person, never sent to the planner", () => {
    let s = send(started([low]), { type: "ASSESSED", planPath: "docs/plans/p.md" });
    s = send(s, { type: "PLAN_FACTS", plan: unverifiable });
    expect(where(s)).toBe("APPROVE_PLAN.review");
  });
});

describe("the review check", () => {
  const reviewing = () => {
    let s = planned(started([low]), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    return send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
  };

  it("sends a blocking finding with no file, line or scenario back to the reviewer", () => {
    let s = send(reviewing(), { type: "REVIEWED", findings: [vagueBlocking, note] });
    expect(where(s)).toBe("REVIEW.running");
    expect(reportOf(s)).toContain('"something feels off" has no file, line or scenario');
    expect(briefOf(s)).toContain("## Your last review came back");
    // Nothing is recorded from a review that came back.
    expect(s.phaseRun.reviewRounds).toEqual([]);
    s = send(s, { type: "REVIEWED", findings: [blocking, note] });
    expect(where(s)).toBe("REVIEW.blocked");
    const ask = renderStep(s, slug).next;
    // The question shows every finding, numbered: the blocking one whole (its place, why it
    // matters and how it triggers), the note by its severity and title.
    expect(ask.kind === "ask" && ask.context?.split("\n").slice(0, 2)).toEqual([
      "1. [p1-r1-1] blocking: bug (src/scan.ts:3) Scenario: scan('') throws",
      "2. [p1-r1-2] note: nit",
    ]);
  });

  it(`past ${SEND_BACKS} send-backs the incomplete finding goes to the person as it is`, () => {
    let s = reviewing();
    for (let i = 0; i < SEND_BACKS; i++) s = send(s, { type: "REVIEWED", findings: [vagueBlocking] });
    expect(where(s)).toBe("REVIEW.running");
    s = send(s, { type: "REVIEWED", findings: [vagueBlocking] });
    expect(where(s)).toBe("REVIEW.blocked");
  });

  it("holds the final review to the same check", () => {
    let s = finishPhase(planned(started([low]), plan(2)));
    expect(where(s)).toBe("FINAL_REVIEW.running");
    s = send(s, { type: "REVIEWED", findings: [vagueBlocking] });
    expect(where(s)).toBe("FINAL_REVIEW.running");
    expect(reportOf(s)).toMatch(/The final review goes back to the reviewer/);
    s = send(s, { type: "REVIEWED", findings: [blocking] });
    expect(where(s)).toBe("FINAL_REVIEW.blocked");
  });
});

describe("the executor's plan defect", () => {
  const defect = {
    type: "EXECUTED" as const,
    outcome: "plan_defect" as const,
    task: { number: 2, name: "Register the command" },
    defect: "src/cli/index.js does not exist; commands live in bin/wc.js",
  };

  it("goes to a revised plan (not a retry): work so far committed, the defect in the planner's brief, execution resumes at that task", () => {
    let s = planned(started([low]), plan(3));
    s = send(s, {
      type: "EXECUTED",
      outcome: "checkpoint",
      task: { number: 1, name: "Count" },
      checkpoint: { type: "passed", label: "count" },
    });
    s = send(s, defect);
    expect(where(s)).toBe("PLAN.planning");
    expect(s.retryBudget.currentTask).toBeNull();
    expect(s.phaseRun.retriesUsed).toBe(0);
    expect(s.outbox).toEqual([
      expect.objectContaining({ type: "commit", args: expect.objectContaining({ recovery: true }) }),
    ]);
    expect(reportOf(s)).toContain(
      "Task 2: Register the command — the executor reports a defect in the plan: src/cli/index.js does not exist",
    );
    expect(briefOf(s)).toContain(
      "reports a defect in the plan: src/cli/index.js does not exist; commands live in bin/wc.js",
    );
    expect(briefOf(s)).toContain("keep them as they are (same numbers and headings)");
    s = send(s, { type: "PLANNED", plan: plan(3) });
    expect(where(s)).toBe("EXECUTE.running");
    expect(briefOf(s)).toContain("- Start at: Task 2 (task 1 is done and committed: do not redo it)");
  });

  it(`past ${SEND_BACKS} plan defects a person decides (revise the plan, fix by hand, stop)`, () => {
    let s = planned(started([low]), plan(3));
    for (let i = 0; i < SEND_BACKS; i++) {
      s = send(s, defect);
      s = send(s, { type: "PLANNED", plan: plan(3) });
    }
    s = send(s, defect);
    expect(where(s)).toBe("EXECUTE.exhausted");
  });
});
