// One test per rule of the harness-autopilot skill: the rigor table, the five plan signals, the
// complexity override thresholds at and just past each boundary, the retry budget and the gates.
import { describe, expect, it } from "vitest";
import { blocking, finishPhase, note, plan, planned, send, started, where } from "./helpers.js";
import { complexityOverrideFor } from "../../machines/autopilot.machine.js";
import { briefContent, dispatchFor } from "../../src/personas/dispatch.js";
import { renderStep } from "../../src/engine/step.js";
import { renderNotices, type AutopilotState } from "../../src/session/schema.js";

/** The report a Step made from this state would show. */
const reportOf = (s: AutopilotState) => renderNotices(s.notices);
import { FINAL_REVIEW_FIX_BUDGET, RETRY_BUDGET } from "../../src/rules/policy.js";

const low = { name: "Core Scanner", complexity: "low" as const };
const medium = { name: "Rule Engine", complexity: "medium" as const };
const high = { name: "Rule Engine", complexity: "high" as const };
const slug = "changes--scanner--proposal";

/** What the persona is told: the short prompt plus the brief file it names. */
function told(s: AutopilotState): string {
  return `${dispatchFor(s)!.prompt}\n${briefContent(s, slug, {})}`;
}

function lastDecision(s: AutopilotState) {
  return s.decisions[s.decisions.length - 1];
}

describe("INIT", () => {
  it("starts at ASSESS for phase 1 with the flags recorded once", () => {
    const s = started([low, medium], { rigor: "thorough", reviewPlans: true });
    expect(s.currentState).toBe("ASSESS");
    expect(s.currentPhase).toBe(0);
    expect(s.rigorLevel).toBe("thorough");
    expect(s.reviewPlans).toBe(true);
    expect(s.phases.map((p) => [p.name, p.complexity, p.status, p.planPath, p.complexityOverride])).toEqual([
      ["Core Scanner", "low", "pending", null, null],
      ["Rule Engine", "medium", "pending", null, null],
    ]);
  });
  it("keeps the rigor level for the whole session (no event changes it)", () => {
    let s = started([low, low], { rigor: "fast" });
    s = planned(s, plan(3));
    s = finishPhase(s);
    s = send(s, { type: "DECIDE", answer: "yes", by: "host" });
    expect(s.rigorLevel).toBe("fast");
    s = send(s, { type: "RESUME" });
    expect(s.rigorLevel).toBe("fast");
  });
});

describe("ASSESS complexity matrix", () => {
  it("low: auto-plans via harness-planner", () => {
    const s = send(started([low]), { type: "ASSESSED", planPath: null });
    expect(where(s)).toBe("PLAN.planning");
    expect(dispatchFor(s)?.persona).toBe("harness-planner");
  });
  it("medium: auto-plans, the planner's brief asking for extra scrutiny (the user is told nothing the gate then contradicts)", () => {
    const s = send(started([medium]), { type: "ASSESSED", planPath: null });
    expect(where(s)).toBe("PLAN.planning");
    expect(briefContent(s, "s", {})).toMatch(/Medium complexity: plan it with extra scrutiny/);
    expect(reportOf(s)).not.toMatch(/scrutiny/);
    expect(briefContent(send(started([low]), { type: "ASSESSED", planPath: null }), "s", {})).not.toMatch(/scrutiny/);
  });
  it("high: pauses for interactive planning and waits", () => {
    const s = send(started([high]), { type: "ASSESSED", planPath: null });
    expect(where(s)).toBe("PLAN.awaitingInteractivePlan");
    expect(s.awaitingInteractivePlan).toBe(true);
    const step = renderStep(s, slug);
    expect(step.next.kind).toBe("wait");
  });
  it("an existing plan skips to APPROVE_PLAN", () => {
    const s = send(started([low]), { type: "ASSESSED", planPath: "docs/plans/x.md" });
    expect(where(s)).toBe("APPROVE_PLAN.gather");
    expect(s.phases[0].planPath).toBe("docs/plans/x.md");
  });
  it("a plan written interactively for a high phase leads to the gate, which pauses on high complexity", () => {
    let s = send(started([high]), { type: "ASSESSED", planPath: null });
    s = send(s, { type: "PLANNED", plan: plan(14) });
    expect(where(s)).toBe("APPROVE_PLAN.review");
    expect(lastDecision(s)).toBeUndefined();
    expect(reportOf(s)).toMatch(/Complexity: high \(triggered\)/);
  });
});

describe("complexity override after planning", () => {
  it.each([
    [10, 0, null],
    [11, 0, "medium"],
    [0, 3, null],
    [0, 4, "medium"],
    [20, 0, "medium"],
    [21, 0, "high"],
    [0, 6, "medium"],
    [0, 7, "high"],
  ] as const)("low phase with %i tasks and %i checkpoints → %s", (tasks, checkpoints, expected) => {
    expect(complexityOverrideFor("low", tasks, checkpoints)).toBe(expected);
    const s = planned(started([low]), plan(tasks, checkpoints));
    expect(s.phases[0].complexityOverride).toBe(expected);
  });
  it("never applies to medium or high phases", () => {
    expect(complexityOverrideFor("medium", 30, 10)).toBeNull();
    expect(complexityOverrideFor("high", 30, 10)).toBeNull();
  });
  it("tells the user why", () => {
    expect(reportOf(planned(started([low]), plan(11)))).toMatch(/Planning produced 11 tasks/);
    expect(reportOf(planned(started([low]), plan(21)))).toMatch(/significantly larger than expected/);
  });
});

describe("APPROVE_PLAN signals (standard rigor)", () => {
  it("no signal fires: auto-approves with the structured report and records the snapshot", () => {
    const s = planned(started([low]), plan(8));
    expect(where(s)).toBe("EXECUTE.running");
    const d = lastDecision(s);
    expect(d.decision).toBe("auto_approved_plan");
    expect(d.by).toBe("auto");
    expect(d.signals).toEqual({
      reviewPlans: false,
      highComplexity: "low",
      complexityOverride: null,
      plannerConcerns: [],
      taskCount: 8,
      taskThreshold: 15,
      planProblems: [],
    });
    expect(reportOf(s)).toContain("Auto-approved Phase 1: Core Scanner");
    expect(reportOf(s)).toContain("Tasks: 8 (threshold: 15)");
  });
  it("signal 1, reviewPlans: --review-plans pauses every plan", () => {
    const s = planned(started([low], { reviewPlans: true }), plan(3));
    expect(where(s)).toBe("APPROVE_PLAN.review");
    expect(reportOf(s)).toMatch(/Review mode: manual \(--review-plans flag set\) \(triggered\)/);
  });
  it("signal 2, highComplexity: a high phase pauses", () => {
    let s = send(started([high]), { type: "ASSESSED", planPath: null });
    s = send(s, { type: "PLANNED", plan: plan(3) });
    expect(where(s)).toBe("APPROVE_PLAN.review");
  });
  it("signal 3, complexityOverride: an override pauses", () => {
    const s = planned(started([low]), plan(11));
    expect(where(s)).toBe("APPROVE_PLAN.review");
    expect(reportOf(s)).toMatch(/Complexity override: low -> medium \(triggered\)/);
  });
  it("signal 4, plannerConcerns: any concern pauses", () => {
    const s = planned(started([medium]), plan(3, 0, ["auth flow unclear"]));
    expect(where(s)).toBe("APPROVE_PLAN.review");
    expect(reportOf(s)).toMatch(/Planner concerns: 1 concern\(s\) \(triggered\)/);
  });
  it("signal 5, taskCount: 15 tasks auto-approve, 16 pause", () => {
    expect(where(planned(started([medium]), plan(15)))).toBe("EXECUTE.running");
    const s = planned(started([medium]), plan(16));
    expect(where(s)).toBe("APPROVE_PLAN.review");
    expect(reportOf(s)).toMatch(/Tasks: 16 \(threshold: 15\) \(triggered\)/);
  });
  it.each([
    ["yes", "approved_plan", "EXECUTE.running"],
    // With notes in the reason, the planner revises with them (without, the user edits: below).
    ["revise", "revised_plan", "PLAN.planning"],
    ["skip phase", "skipped_phase", "FINAL_REVIEW.running"],
    ["stop", "stopped", "APPROVE_PLAN.review"],
  ])("answer %s is recorded as %s with the signal snapshot", (answer, decision, next) => {
    let s = planned(started([low], { reviewPlans: true }), plan(3));
    s = send(s, { type: "DECIDE", answer, by: "host", rationale: "because" });
    const d = s.decisions.find((x) => x.decision === decision)!;
    expect(d).toBeDefined();
    expect(d.signals?.reviewPlans).toBe(true);
    expect(d.fired).toEqual(["reviewPlans"]);
    expect(d.rationale).toBe("because");
    expect(where(s)).toBe(next);
  });
  it("revise re-presents the plan from step 1 once the user is done", () => {
    let s = planned(started([low], { reviewPlans: true }), plan(3));
    s = send(s, { type: "DECIDE", answer: "revise", by: "host" });
    s = send(s, { type: "DECIDE", answer: "done", by: "host" });
    expect(where(s)).toBe("APPROVE_PLAN.gather");
    s = send(s, { type: "PLAN_FACTS", plan: plan(4) });
    expect(where(s)).toBe("APPROVE_PLAN.review");
    expect(s.phaseRun.taskCount).toBe(4);
  });
  it("skip phase marks the phase skipped and records no work for it", () => {
    let s = planned(started([low, low], { reviewPlans: true }), plan(3));
    s = send(s, { type: "DECIDE", answer: "skip phase", by: "host" });
    expect(where(s)).toBe("PHASE_COMPLETE");
    expect(s.phases[0].status).toBe("skipped");
    expect(s.history[0]).toMatchObject({ phase: 0, tasksCompleted: 0, skipped: true });
  });
});

describe("rigor table", () => {
  it("PLAN fast: the planner skips the skeleton pass", () => {
    const s = send(started([low], { rigor: "fast" }), { type: "ASSESSED", planPath: null });
    expect(told(s)).toMatch(/skip the skeleton/);
  });
  it("PLAN thorough: the planner produces a skeleton for approval", () => {
    const s = send(started([low], { rigor: "thorough" }), { type: "ASSESSED", planPath: null });
    expect(told(s)).toMatch(/skeleton section/);
  });
  it("APPROVE_PLAN fast: auto-approves even when every signal fires", () => {
    const s = planned(started([low], { rigor: "fast", reviewPlans: true }), plan(25, 8, ["risk"]));
    expect(where(s)).toBe("EXECUTE.running");
    expect(lastDecision(s).decision).toBe("auto_approved_plan_fast");
    expect(reportOf(s)).toMatch(/fast mode — signal evaluation skipped/);
  });
  it("APPROVE_PLAN thorough: every plan pauses (as if --review-plans)", () => {
    const s = planned(started([low], { rigor: "thorough" }), plan(2));
    expect(where(s)).toBe("APPROVE_PLAN.review");
    expect(reportOf(s)).toMatch(/--thorough/);
  });
  it("EXECUTE: the scratchpad rule follows the rigor level", () => {
    const prompt = (rigor: "fast" | "standard" | "thorough") => {
      let s = planned(started([low], { rigor }), plan(2));
      if (rigor === "thorough") s = send(s, { type: "DECIDE", answer: "yes", by: "host" });
      return told(s);
    };
    expect(prompt("fast")).toMatch(/write no scratchpad files/);
    expect(prompt("standard")).toMatch(/longer than ~500 words/);
    expect(prompt("thorough")).toMatch(/write all research/);
  });
  it("VERIFY fast: runs the validation commands only (no verifier)", () => {
    let s = planned(started([low], { rigor: "fast" }), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    expect(where(s)).toBe("VERIFY.validating");
    expect(dispatchFor(s)).toBeNull();
  });
  it("VERIFY standard and thorough: dispatch the verifier (thorough with expanded checks)", () => {
    for (const rigor of ["standard", "thorough"] as const) {
      let s = planned(started([low], { rigor }), plan(2));
      if (rigor === "thorough") s = send(s, { type: "DECIDE", answer: "yes", by: "host" });
      s = send(s, { type: "EXECUTED", outcome: "complete" });
      expect(where(s)).toBe("VERIFY.running");
      const d = dispatchFor(s)!;
      expect(d.persona).toBe("harness-verifier");
      if (rigor === "thorough") expect(told(s)).toMatch(/expanded checks/);
      // Both compare the code with what the plan and the spec promise, edge inputs included, not only the tests' word.
      expect(told(s)).toMatch(/each task's \*\*Verify:\*\* step (run )?yourself/);
      expect(told(s)).toMatch(/edge case the spec or the plan names[^.]*\(file:line\)/);
    }
  });
  it("PHASE_COMPLETE fast: no scratchpad clear; standard: the phase's scratchpad is cleared", () => {
    const effects = (rigor: "fast" | "standard") => {
      let s = planned(started([low, low], { rigor }), plan(2));
      s = finishPhase(s);
      return s.outbox.map((e) => e.type);
    };
    expect(effects("fast")).not.toContain("clearScratchpad");
    expect(effects("standard")).toContain("clearScratchpad");
  });
});

describe("EXECUTE", () => {
  it("a passing checkpoint owes a checkpoint commit and continues execution", () => {
    let s = planned(started([low]), plan(3));
    s = send(s, {
      type: "EXECUTED",
      outcome: "checkpoint",
      checkpoint: { type: "passed", label: "Checkpoint 1: types" },
    });
    expect(where(s)).toBe("EXECUTE.running");
    expect(s.outbox).toEqual([
      expect.objectContaining({
        type: "commit",
        args: expect.objectContaining({ label: "Checkpoint 1: types", recovery: false }),
      }),
    ]);
    expect(told(s)).toMatch(/after checkpoint "Checkpoint 1: types"/);
  });
  it.each([
    ["human-verify", ["confirm", "reject", "stop"]],
    ["human-action", ["done", "stop"]],
  ] as const)("a %s checkpoint surfaces to the user", (type, options) => {
    let s = planned(started([low]), plan(3));
    s = send(s, { type: "EXECUTED", outcome: "checkpoint", checkpoint: { type, label: "Check the UI" } });
    expect(where(s)).toBe("EXECUTE.checkpoint");
    const next = renderStep(s, slug).next;
    expect(next.kind === "ask" && next.options).toEqual(options);
    s = send(s, { type: "DECIDE", answer: options[0], by: "host" });
    expect(where(s)).toBe("EXECUTE.running");
    expect(lastDecision(s).decision).toBe(`checkpoint_${type.replace("-", "_")}`);
    expect(told(s)).toMatch(/after the human checkpoint/);
  });
  it("a decision checkpoint offers the executor's options and records the choice", () => {
    let s = planned(started([low]), plan(3));
    s = send(s, {
      type: "EXECUTED",
      outcome: "checkpoint",
      checkpoint: { type: "decision", label: "Pick store", options: ["sqlite", "files"] },
    });
    const next = renderStep(s, slug).next;
    expect(next.kind === "ask" && next.options).toEqual(["sqlite", "files", "stop"]);
    s = send(s, { type: "DECIDE", answer: "files", by: "host" });
    expect(lastDecision(s)).toMatchObject({ decision: "checkpoint_decision", answer: "files" });
  });

  const fail = (s: AutopilotState, error = "boom") =>
    send(s, { type: "EXECUTED", outcome: "failed", task: { number: 4, name: "wire parser" }, error });

  it("retries a failed task up to the retry budget with escalating context, then succeeds", () => {
    let s = planned(started([low]), plan(5));
    // The skill's three escalation steps; attempts past the third repeat the last.
    const levels: RegExp[] = [/obvious fix/, /related files/, /full context/];
    for (let i = 0; i < RETRY_BUDGET; i++) {
      s = fail(s, `error ${i + 1}`);
      expect(where(s)).toBe("EXECUTE.running");
      expect(s.retryBudget.currentTask?.attemptsUsed).toBe(i + 1);
      expect(told(s)).toMatch(levels[Math.min(i, levels.length - 1)]);
    }
    expect(s.retryBudget.currentTask?.attempts.map((a) => a.error)).toEqual(
      Array.from({ length: RETRY_BUDGET }, (_, i) => `error ${i + 1}`),
    );
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    expect(where(s)).toBe("VERIFY.running");
    expect(s.retryBudget.currentTask).toBeNull();
  });
  it("never exceeds the budget: one failure past it stops with a recovery commit and a failures.md entry", () => {
    let s = planned(started([low]), plan(5));
    for (let i = 0; i <= RETRY_BUDGET; i++) s = fail(s);
    expect(where(s)).toBe("EXECUTE.exhausted");
    expect(s.outbox.map((e) => [e.type, e.args.recovery ?? null])).toEqual([
      ["commit", true],
      ["appendFailure", null],
    ]);
    expect(String(s.outbox[0].args.label)).toBe("Phase 1: Core Scanner — recovery at task 4");
    const next = renderStep(s, slug).next;
    expect(next.kind === "ask" && next.options).toEqual(["fix manually and continue", "revise plan", "stop"]);
    // Repeating the same failure report cannot push past the budget.
    expect(() => fail(s)).toThrow(/cannot take EXECUTED/);
  });
  it.each([
    ["fix manually and continue", "EXECUTE.running"],
    ["revise plan", "PLAN.planning"],
    ["stop", "EXECUTE.exhausted"],
  ])("after exhaustion, %s", (answer, next) => {
    let s = planned(started([low]), plan(5));
    for (let i = 0; i <= RETRY_BUDGET; i++) s = fail(s);
    s = send(s, { type: "DECIDE", answer, by: "host" });
    expect(where(s)).toBe(next);
    if (answer === "revise plan") expect(told(s)).toMatch(/revision of the plan/);
    if (answer === "stop") expect(renderStep(s, slug).next.kind).toBe("wait");
  });
  it("two phases in a row exhausting their budget suggest reviewing the spec", () => {
    let s = planned(started([low, low, low]), plan(2));
    for (let i = 0; i <= RETRY_BUDGET; i++) s = fail(s);
    s = send(s, { type: "DECIDE", answer: "fix manually and continue", by: "host" });
    s = finishPhase(s);
    s = send(s, { type: "DECIDE", answer: "yes", by: "host" });
    s = planned(s, plan(2));
    for (let i = 0; i <= RETRY_BUDGET; i++) s = fail(s);
    const next = renderStep(s, slug).next;
    expect(next.kind === "ask" && next.context).toMatch(/review the spec for systemic issues/);
  });
});

describe("VERIFY and REVIEW", () => {
  it("verification failure asks fix / skip verification / stop; fix re-enters EXECUTE with a fresh budget", () => {
    let s = planned(started([low]), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    s = send(s, { type: "VERIFIED", verdict: "fail", findings: ["test x fails"] });
    expect(where(s)).toBe("VERIFY.failed");
    s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    expect(where(s)).toBe("EXECUTE.fixing");
    expect(s.retryBudget.currentTask).toBeNull();
    expect(s.phaseRun.fix).toEqual({ source: "verification", findings: ["test x fails"], round: 1, ids: ["p1-v1-1"] });
    expect(s.findingLedger).toMatchObject([{ id: "p1-v1-1", title: "test x fails", fate: "open", fixRound: 1 }]);
    s = send(s, { type: "FIXED", summary: "fixed test x" });
    // Fixed by the fix round's commit (the effect the outbox owes; its sha once made).
    const commit = s.outbox.find((e) => e.type === "commit")!;
    expect(s.findingLedger).toMatchObject([{ id: "p1-v1-1", fate: "fixed", fixRound: 1, commitEffect: commit.id }]);
    s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
    expect(where(s)).toBe("REVIEW.running");
  });
  it("skipping verification is a recorded decision, never silent", () => {
    let s = planned(started([low]), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    s = send(s, { type: "VERIFIED", verdict: "fail", findings: ["x"] });
    s = send(s, { type: "DECIDE", answer: "skip verification", by: "host" });
    expect(where(s)).toBe("REVIEW.running");
    expect(lastDecision(s).decision).toBe("skipped_verification");
    s = send(s, { type: "REVIEWED", findings: [] });
    expect(s.history[0]).toMatchObject({ verificationPassed: false, verification: "skipped" });
  });
  it("fast VERIFY fails honestly when a validation command fails", () => {
    let s = planned(started([low], { rigor: "fast" }), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    s = send(s, { type: "VALIDATED", passed: false, summary: "npm test: exit 1" });
    expect(where(s)).toBe("VERIFY.failed");
  });
  it("review findings are persisted; blocking asks fix / override / stop; override is recorded", () => {
    let s = planned(started([low]), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
    s = send(s, { type: "REVIEWED", findings: [blocking, note] });
    expect(where(s)).toBe("REVIEW.blocked");
    expect(s.outbox[0]).toMatchObject({ type: "writeReview", args: { phase: 0 } });
    s = send(s, { type: "DECIDE", answer: "override", by: "host", rationale: "known" });
    expect(lastDecision(s)).toMatchObject({ decision: "overrode_review", rationale: "known" });
    expect(s.history[0].reviewFindings).toEqual({ blocking: 1, warning: 0, note: 1 });
  });
  it("review fix goes back through EXECUTE, VERIFY and REVIEW", () => {
    let s = planned(started([low]), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
    s = send(s, { type: "REVIEWED", findings: [blocking] });
    s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    expect(where(s)).toBe("EXECUTE.fixing");
    expect(dispatchFor(s)!.description).toMatch(/^Fix phase 1/);
    expect(dispatchFor(s)!.expects.result).toBe("fixed");
    s = finishPhase(s);
    expect(where(s)).toBe("FINAL_REVIEW.running");
  });
});

describe("PHASE_COMPLETE, FINAL_REVIEW and DONE", () => {
  it("records history, marks the phase complete, owes roadmap and summary, asks to continue", () => {
    let s = planned(started([low, medium]), plan(8));
    s = finishPhase(s);
    expect(where(s)).toBe("PHASE_COMPLETE");
    expect(s.phases[0].status).toBe("complete");
    expect(s.history[0]).toMatchObject({
      phase: 0,
      name: "Core Scanner",
      tasksCompleted: 8,
      retriesUsed: 0,
      verificationPassed: true,
    });
    expect(s.outbox.map((e) => e.type)).toEqual(expect.arrayContaining(["syncRoadmap", "writeSummary"]));
    expect(reportOf(s)).toContain("Phase 1: Core Scanner — COMPLETE");
    const next = renderStep(s, slug).next;
    expect(next.kind === "ask" && next.question).toMatch(
      /Next: Phase 2: Rule Engine \(complexity: medium\)\. Continue\?/,
    );
    s = send(s, { type: "DECIDE", answer: "yes", by: "host" });
    expect(s.currentPhase).toBe(1);
    expect(s.currentState).toBe("ASSESS");
  });
  it("the final review fixes at most its fix budget of rounds, then escalates and records it in failures.md", () => {
    let s = planned(started([low]), plan(2));
    s = finishPhase(s);
    expect(s.finalReview.status).toBe("in_progress");
    for (let round = 1; round <= FINAL_REVIEW_FIX_BUDGET; round++) {
      s = send(s, { type: "REVIEWED", findings: [blocking] });
      expect(where(s)).toBe("FINAL_REVIEW.blocked");
      s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
      expect(where(s)).toBe("FINAL_REVIEW.fixing");
      expect(s.finalReview.retryCount).toBe(round);
      s = send(s, { type: "FIXED", summary: "fixed" });
      expect(where(s)).toBe("FINAL_REVIEW.validating");
      s = send(s, { type: "VALIDATED", passed: true, summary: "ok" });
      expect(where(s)).toBe("FINAL_REVIEW.running");
    }
    s = send(s, { type: "REVIEWED", findings: [blocking] });
    s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    expect(where(s)).toBe("FINAL_REVIEW.exhausted");
    expect(s.outbox.some((e) => e.type === "appendFailure")).toBe(true);
  });
  it("final review override is recorded and the session is DONE with its final effects", () => {
    let s = planned(started([low]), plan(2));
    s = finishPhase(s);
    s = send(s, { type: "REVIEWED", findings: [blocking] });
    s = send(s, { type: "DECIDE", answer: "override", by: "host", rationale: "accepted risk" });
    expect(s.currentState).toBe("DONE");
    expect(s.finalReview.status).toBe("overridden");
    expect(lastDecision(s)).toMatchObject({ decision: "overrode_final_review", phase: null });
    expect(s.outbox.map((e) => e.type)).toEqual([
      "writeFinalHandoff",
      "appendLearnings",
      "roadmapDone",
      "writeSummary",
      "closeExecutionState",
      "reportHarnessFiles",
    ]);
    expect(renderStep(s, slug).next.kind).toBe("done");
  });
  it("a clean final review passes straight to DONE", () => {
    let s = planned(started([low]), plan(2));
    s = finishPhase(s);
    s = send(s, { type: "REVIEWED", findings: [note] });
    expect(s.currentState).toBe("DONE");
    expect(s.finalReview).toMatchObject({ status: "passed", findings: [note] });
  });
});

describe("gates", () => {
  it("no EXECUTE without passing APPROVE_PLAN: execution results are refused before approval", () => {
    const s = planned(started([low], { reviewPlans: true }), plan(2));
    expect(() => send(s, { type: "EXECUTED", outcome: "complete" })).toThrow(/cannot take EXECUTED/);
  });
  it("VERIFY and REVIEW cannot be skipped by reporting ahead", () => {
    let s = planned(started([low]), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    expect(() => send(s, { type: "REVIEWED", findings: [] })).toThrow();
  });
  it("stop anywhere leaves the same state; RESUME clears the stop", () => {
    let s = planned(started([low], { reviewPlans: true }), plan(2));
    s = send(s, { type: "DECIDE", answer: "stop", by: "host" });
    expect(s.stopped).toBe(true);
    expect(where(s)).toBe("APPROVE_PLAN.review");
    s = send(s, { type: "RESUME" });
    expect(s.stopped).toBe(false);
    expect(renderStep(s, slug).next.kind).toBe("ask");
  });
  it("a persona that cannot do its job asks retry or stop", () => {
    let s = send(started([low]), { type: "ASSESSED", planPath: null });
    s = send(s, { type: "PERSONA_FAILED", error: "no spec access" });
    expect(where(s)).toBe("PLAN.personaFailed");
    s = send(s, { type: "DECIDE", answer: "retry", by: "host" });
    expect(where(s)).toBe("PLAN.planning");
  });
  it("every accepted event moves the step counter by one", () => {
    const s0 = started([low]);
    const s1 = send(s0, { type: "ASSESSED", planPath: null });
    expect(s1.stepId).toBe(s0.stepId + 1);
  });
});
