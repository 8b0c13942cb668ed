// What the user is told agrees with what happens: no "Auto-planning." when the plan will be put to
// them, a report on every Step (an approved plan's dispatch included), and a blocking finding shown
// with why it matters, not its title alone.
import { describe, expect, it } from "vitest";
import { renderStep } from "../../src/engine/step.js";
import { blocking, plan, planned, send, started } from "./helpers.js";
import type { AutopilotState } from "../../src/session/schema.js";

const slug = "changes--scanner--proposal";
const low = { name: "Core Scanner", complexity: "low" as const };
const step = (s: AutopilotState) => renderStep(s, slug);

describe("the reports", () => {
  it('say "Auto-planning." only when the plan is approved automatically', () => {
    const auto = send(started([low]), { type: "ASSESSED", planPath: null });
    expect(step(auto).report).toContain("Phase 1: Core Scanner — complexity: low. Auto-planning.");
    for (const s of [started([low], { reviewPlans: true }), started([low], { rigor: "thorough" })]) {
      const reviewed = send(s, { type: "ASSESSED", planPath: null });
      expect(step(reviewed).report).not.toContain("Auto-planning");
      expect(step(reviewed).report).toContain("the plan comes to you for approval before any of it runs");
    }
  });

  it("every Step has one: an approved plan's first dispatch says where the session is and what comes next", () => {
    let s = planned(started([low], { reviewPlans: true }), plan(3));
    s = send(s, { type: "DECIDE", answer: "yes", by: "host" });
    expect(s.notices).toEqual([]);
    expect(step(s).report).toBe(
      "Phase 1/1: Core Scanner — next: harness-task-executor (Execute phase 1: Core Scanner from task 1).",
    );
  });

  it("the blocking review question shows each finding's place, rationale and scenario", () => {
    let s = planned(started([low]), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
    s = send(s, {
      type: "REVIEWED",
      findings: [{ ...blocking, rationale: "scan('') throws instead of returning []" }],
    });
    const next = step(s).next;
    expect(next.kind === "ask" && next.context).toBe(
      [
        "1. [p1-r1-1] blocking: bug (src/scan.ts:3) — scan('') throws instead of returning [] Scenario: scan('') throws",
        '"fix": the blocking ones. A fix round fixes exactly what you choose, and what you ask for in your reply; then the phase is verified and reviewed again. "override": complete the phase with the blocking findings as they are.',
      ].join("\n"),
    );
  });
});

describe("a resumed session's decided answers", () => {
  const resumedWith = (why: string) => {
    let s = planned(started([low], { reviewPlans: true }), plan(3));
    s = send(s, { type: "DECIDE", answer: "yes", by: "terminal", rationale: why });
    s = send(s, { type: "RESUME" });
    return step(s)
      .report!.split("\n")
      .find((l) => l.includes("Decided:"))!;
  };

  it("keep a long reason to whole words, never cut inside one", () => {
    const decided = resumedWith(
      "The plan keeps the parser separate from the printer, so the old output stays byte for byte the same and backwards clocks are handled.",
    );
    expect(decided).toContain(
      'approved_plan "yes" (terminal): The plan keeps the parser separate from the printer, so the old output stays….',
    );
  });

  it("keep a reason that ends at the bound whole, and a short one as it is", () => {
    const eighty = "Clocks can go backwards after an NTP step, so the bucket never refills on a jump";
    expect(eighty).toHaveLength(80);
    expect(resumedWith(`${eighty} backwards.`)).toContain(`(terminal): ${eighty}….`);
    expect(resumedWith("read the plan myself")).toContain('approved_plan "yes" (terminal): read the plan myself.');
  });
});
