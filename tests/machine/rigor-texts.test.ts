// What the session's rigor does with what a persona reports, said where the persona and the person
// read it: at --fast a planner's concern does not pause the plan, so the planner is told to state the
// assumption it builds on, and every view of the Step (Claude Code's JSON, the text of the other
// clients) shows the concern and the assumption in full. Each persona's brief says what follows its
// report at the session's rigor; each persona's agent file says it for every rigor.
import { describe, expect, it } from "vitest";
import { renderStep } from "../../src/engine/step.js";
import { briefContent } from "../../src/personas/dispatch.js";
import { stepResult } from "../../src/mcp/render.js";
import { readPersonas } from "../../src/install/templates.js";
import { REPO } from "../install/helpers.js";
import type { AutopilotState } from "../../src/session/schema.js";
import type { RigorLevel } from "../../src/vocabulary.js";
import { plan, planned, send, started, where } from "./helpers.js";

const slug = "changes--scanner--proposal";
const low = { name: "Dates", complexity: "low" as const };
const CONCERN = "dates in any column are normalised: to what format?";
const ASSUMPTION = "normalised means ISO 8601 (YYYY-MM-DD)";
const brief = (s: AutopilotState) => briefContent(s, slug, {});

function withConcern(rigor: RigorLevel): AutopilotState {
  const s = send(started([low], { rigor }), { type: "ASSESSED", planPath: null });
  return send(s, { type: "PLANNED", plan: { ...plan(2, 0, [CONCERN]), assumptions: [ASSUMPTION] } });
}

describe("at --fast a planner's concern", () => {
  it("does not pause the plan, and every view shows it and the assumption in full", () => {
    const s = withConcern("fast");
    expect(where(s)).toBe("EXECUTE.running");
    const step = renderStep(s, slug);
    expect(step.report).toContain(`  - concern (recorded; it did not pause the plan): ${CONCERN}`);
    expect(step.report).toContain(`  - assumption: ${ASSUMPTION}`);
    // Claude Code's model reads the JSON; Gemini CLI's, the text; Codex's, the JSON in full.
    for (const host of ["claude-code", "gemini", "codex"] as const) {
      const r = stepResult(step, { host });
      const shown = host === "gemini" ? (r.content[0] as { text: string }).text : JSON.stringify(r.structuredContent);
      expect(shown, host).toContain(CONCERN.replace(/"/g, '\\"'));
      expect(shown, host).toContain(ASSUMPTION);
    }
  });

  it("the planner is told so before it plans: at --fast, state the assumption; at standard, a concern pauses", () => {
    const planning = (rigor: RigorLevel) =>
      brief(send(started([low], { rigor }), { type: "ASSESSED", planPath: null }));
    expect(planning("fast")).toContain(
      "What follows your report (rigor fast): nothing pauses the plan; it runs at once. Your concerns are recorded and shown to the person in full, but nobody answers them before the work starts: for each concern, also put in assumptions the reading you build the plan on.",
    );
    expect(planning("standard")).toContain("What follows your report (rigor standard): a concern pauses the plan");
    expect(planning("thorough")).toContain(
      "What follows your report (rigor thorough): every plan is put to a person before it runs",
    );
  });

  it("at standard the same concern pauses the plan, shown in full", () => {
    const s = withConcern("standard");
    expect(where(s)).toBe("APPROVE_PLAN.review");
    expect(renderStep(s, slug).report).toContain(`  - concern: ${CONCERN}`);
  });
});

describe("what follows each persona's report", () => {
  it("each brief says it, at the session's rigor", () => {
    let s = withConcern("fast");
    expect(brief(s)).toContain(
      "What follows your report (rigor fast): the server commits your work, then the project's validation commands check the phase (no verifier), then the reviewer reviews it; a blocking finding is put to the person, who chooses what a fix round fixes; warnings and notes are recorded and shown at the end, without a question.",
    );
    s = send(planned(started([low]), plan(2)), { type: "EXECUTED", outcome: "complete" });
    expect(brief(s)).toContain("What follows your report (rigor standard): a fail is put to the person");
    s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
    expect(brief(s)).toContain(
      "What follows your report (rigor standard): each finding is shown to the person whole (severity, file:line, title)",
    );
    expect(brief(s)).toContain("warnings without a blocking finding are put to the person too");
  });

  it("each persona's agent file says it for every rigor", () => {
    const body = (name: string) =>
      readPersonas(REPO)
        .find((p) => p.name === name)!
        .body.replace(/\s+/g, " ");
    expect(body("harness-planner")).toContain(
      "at fast nothing pauses: the concern is recorded and shown to the person in full",
    );
    expect(body("harness-task-executor")).toContain("at fast rigor the project's validation commands");
    expect(body("harness-verifier")).toContain("At fast rigor there is no verifier");
    expect(body("harness-code-reviewer")).toContain(
      "at fast (and in the final review), warnings and notes are recorded and shown at the end",
    );
    // The planner's method says it where it sorts the unknowns.
    expect(body("harness-planner")).toContain(
      "at fast it does not, so also write down, as an assumption, the reading you plan on",
    );
  });
});
