// What the user is told with a Step is saved as facts (notices), not prose, and worded when the
// Step is made: the text shows what was true at the transition, whatever the state says later.
import { describe, expect, it } from "vitest";
import { finishPhase, plan, planned, started } from "./helpers.js";
import { renderStep } from "../../src/engine/step.js";
import { AutopilotState, renderNotices } from "../../src/session/schema.js";

const low = { name: "Core Scanner", complexity: "low" as const };
const medium = { name: "Rule Engine", complexity: "medium" as const };

describe("notices", () => {
  it("the state file holds the phase summary as its figures, and the Step's report is their text", () => {
    const s = finishPhase(planned(started([low, medium]), plan(8)));
    const summary = s.notices.find((n) => n.kind === "phaseSummary");
    expect(summary).toMatchObject({
      kind: "phaseSummary",
      phaseNumber: 1,
      name: "Core Scanner",
      tasks: 8,
      next: { name: "Rule Engine" },
    });
    // Data a person can read in the file, and nothing in it is prose the machine wrote.
    expect(JSON.stringify(s.notices)).not.toContain("— COMPLETE");
    expect(AutopilotState.safeParse(s).success).toBe(true);
    const report = renderStep(s, "core").report!;
    expect(report).toContain("Phase 1: Core Scanner — COMPLETE\nTasks: 8/8 | Retries: 0");
    expect(report).toBe(renderNotices(s.notices));
  });

  it("a saved phase summary reads the same after the state moves on (its figures are captured, not re-read)", () => {
    const s = finishPhase(planned(started([low, medium]), plan(8)));
    const before = renderNotices(s.notices);
    // Later state: the phase's figures change (phases renamed, the run's counts moved).
    const later: AutopilotState = {
      ...s,
      phases: s.phases.map((p) => ({ ...p, name: `${p.name} (renamed)` })),
      phaseRun: { ...s.phaseRun, taskCount: 99, retriesUsed: 7 },
    };
    expect(renderNotices(later.notices)).toBe(before);
    expect(renderStep(later, "core").report).toBe(before);
  });
});
