// Each decision the machine records is declared once (machines/decisions.ts) with the question
// that records it, its label and its kind; the decision log reads them from there, not from the
// words of the name.
import { describe, expect, it } from "vitest";
import { buildDecisionLog } from "../../src/log/model.js";
import { DECISIONS } from "../../machines/decisions.js";
import { QUESTIONS } from "../../machines/questions.js";
import type { AutopilotState, Decision } from "../../src/session/schema.js";
import { started } from "./helpers.js";

function logged(decisions: Decision[]) {
  const s: AutopilotState = { ...started([{ name: "Core", complexity: "low" }]), decisions };
  return buildDecisionLog(s, "core").decisions.map((d) => [d.decision, d.what, d.kind]);
}

const at = (decision: string, state: string): Decision => ({ decision, state, phase: 0, timestamp: null });

describe("decision names, declared beside their questions", () => {
  it("each names a question the table has, or none, or the stop every question offers", () => {
    for (const [name, d] of Object.entries(DECISIONS))
      if (d.question !== null && d.question !== "every question") expect(QUESTIONS, name).toHaveProperty(d.question);
  });

  it("the log shows the declared label and kind, not what the name's words suggest", () => {
    expect(
      logged([
        at("fix_review", "VERIFY"),
        at("skipped_verification", "REVIEW"),
        at("retried_step", "PLAN"),
        at("retried_step", "VERIFY"),
        at("committed_without_hooks", "PHASE_COMPLETE"),
      ]),
    ).toEqual([
      ["fix_review", "Fix blocking review findings", "review"],
      ["skipped_verification", "Verification skipped", "verification"],
      ["retried_step", "Retried a failed persona step", "plan"],
      ["retried_step", "Retried a failed persona step", "verification"],
      ["committed_without_hooks", "Committed without the repository's hooks, this once", "execution"],
    ]);
  });

  it("a name the machine never records (a hand-written or upstream file) is shown as written, grouped by its state", () => {
    expect(logged([at("reviewed_by_hand", "EXECUTE"), at("some_review_note", "INIT")])).toEqual([
      ["reviewed_by_hand", "Reviewed by hand", "execution"],
      ["some_review_note", "Some review note", "note"],
    ]);
  });
});
