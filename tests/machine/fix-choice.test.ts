// What a review or verification gate shows and what the person's answer sends to the fix round:
// every finding numbered with its severity, place and title; "fix" (the blocking ones), "fix
// blocking and warnings", "fix these" (the numbers in the reason); the fix brief lists exactly those,
// and the round records them. A phase's review with warnings and no blocking finding asks before the
// phase completes at standard and thorough, not at --fast; --yes keeps the warnings.
import { describe, expect, it } from "vitest";
import { renderStep } from "../../src/engine/step.js";
import { briefContent } from "../../src/personas/dispatch.js";
import { QUESTIONS } from "../../machines/questions.js";
import { PolicyGate } from "../../src/headless/drive.js";
import type { AutopilotState, Finding } from "../../src/session/schema.js";
import { blocking, finishPhase, note, plan, planned, send, started, where } from "./helpers.js";
import type { RigorLevel } from "../../src/vocabulary.js";

const slug = "changes--scanner--proposal";
const low = { name: "Core Scanner", complexity: "low" as const };
const warning: Finding = { severity: "warning", title: "slow loop", file: "src/scan.ts", line: 9, rationale: "O(n²)" };
const warning2: Finding = { severity: "warning", title: "performance.now unused", file: "src/time.ts", line: 2 };
const ask = (s: AutopilotState) => {
  const next = renderStep(s, slug).next;
  if (next.kind !== "ask") throw new Error(`not an ask: ${where(s)}`);
  return next;
};
const brief = (s: AutopilotState) => briefContent(s, slug, {});

/** A one-phase session reviewed with these findings. */
function reviewed(findings: Finding[], rigor: RigorLevel = "standard"): AutopilotState {
  let s = planned(started([low], { rigor }), plan(2));
  s = send(s, { type: "EXECUTED", outcome: "complete" });
  s =
    s.stage === "validating"
      ? send(s, { type: "VALIDATED", passed: true, summary: "ok" })
      : send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
  return send(s, { type: "REVIEWED", findings });
}

describe("a review gate", () => {
  it("shows every finding numbered, with severity, place and title, and offers the fix choices that apply", () => {
    const s = reviewed([blocking, warning, note]);
    expect(where(s)).toBe("REVIEW.blocked");
    const q = ask(s);
    expect(q.options).toEqual(["fix", "fix blocking and warnings", "fix these", "override", "stop"]);
    // Each with its id in the finding ledger, as every later text names it.
    expect(q.context!.split("\n").slice(0, 3)).toEqual([
      "1. [p1-r1-1] blocking: bug (src/scan.ts:3) Scenario: scan('') throws",
      "2. [p1-r1-2] warning: slow loop (src/scan.ts:9)",
      "3. [p1-r1-3] note: nit",
    ]);
    expect(q.context).toContain('"fix these": only those your reason names by number ("1, 3")');
    // One blocking finding alone: nothing to choose between.
    expect(ask(reviewed([blocking])).options).toEqual(["fix", "override", "stop"]);
  });

  it('"fix" sends the blocking ones; "fix blocking and warnings" those and the warnings, not the notes', () => {
    let s = send(reviewed([blocking, warning, note]), { type: "DECIDE", answer: "fix", by: "host" });
    expect(where(s)).toBe("EXECUTE.fixing");
    expect(s.phaseRun.reviewRounds!.at(-1)).toMatchObject({ resolution: "fix", sent: [0] });
    expect(brief(s)).toContain(
      "## Blocking review findings to fix (fix round 1)\n\n- [p1-r1-1] blocking src/scan.ts:3 — bug Scenario: scan('') throws\n",
    );
    expect(brief(s)).not.toContain("slow loop");

    s = send(reviewed([blocking, warning, note]), {
      type: "DECIDE",
      answer: "fix blocking and warnings",
      by: "host",
    });
    expect(s.phaseRun.reviewRounds!.at(-1)!.sent).toEqual([0, 1]);
    const b = brief(s);
    expect(b).toContain("## Review findings to fix (fix round 1)");
    expect(b).toContain("- [p1-r1-1] blocking src/scan.ts:3 — bug");
    expect(b).toContain("- [p1-r1-2] warning src/scan.ts:9 — slow loop: O(n²)");
    expect(b).not.toContain("p1-r1-3");
  });

  it('"fix these" sends exactly the findings its reason names (by number or id), and the re-review is told which were sent', () => {
    let s = send(reviewed([blocking, warning, warning2, note]), {
      type: "DECIDE",
      answer: "fix these",
      by: "relayed",
      rationale: "1 and 3",
      userWords: "fix the bug and the performance.now one, leave the loop",
    });
    expect(s.phaseRun.reviewRounds!.at(-1)!.sent).toEqual([0, 2]);
    expect(s.phaseRun.fix!.findings).toEqual([
      "blocking: bug (src/scan.ts:3) Scenario: scan('') throws",
      "warning: performance.now unused (src/time.ts:2)",
    ]);
    // The fixer reads the person's words too, quoted.
    expect(brief(s)).toContain('"fix the bug and the performance.now one, leave the loop"');
    s = send(s, { type: "FIXED", summary: "fixed both" });
    s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
    expect(where(s)).toBe("REVIEW.running");
    const reReview = brief(s);
    expect(reReview).toContain("## This is a re-review (round 2), after fix round 1");
    expect(reReview).toContain("- [p1-r1-3] warning src/time.ts:2 — performance.now unused — fixed in fix round 1");
    // The warning the person did not name ("leave the loop") is theirs to leave: deferred, not open.
    expect(reReview).toContain(
      "- [p1-r1-2] warning src/scan.ts:9 — slow loop: O(n²) — deferred by the user (relayed by the host model)",
    );
    // By id works as by number.
    const byId = send(reviewed([blocking, warning, warning2, note]), {
      type: "DECIDE",
      answer: "fix these",
      by: "host",
      rationale: "p1-r1-3",
    });
    expect(byId.phaseRun.reviewRounds!.at(-1)!.sent).toEqual([2]);
  });
});

describe("a verification gate", () => {
  it('numbers the failures; "fix these" sends the ones named, "fix" every one', () => {
    let s = planned(started([low]), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    s = send(s, { type: "VERIFIED", verdict: "fail", findings: ["a: missing test", "b: wrong exit code"] });
    const q = ask(s);
    expect(q.options).toEqual(["fix", "fix these", "skip verification", "stop"]);
    expect(q.context!.split("\n").slice(0, 2)).toEqual([
      "1. [p1-v1-1] a: missing test",
      "2. [p1-v1-2] b: wrong exit code",
    ]);
    const chosen = send(s, { type: "DECIDE", answer: "fix these", by: "host", rationale: "2" });
    expect(chosen.phaseRun.fix!.findings).toEqual(["b: wrong exit code"]);
    expect(chosen.phaseRun.verificationRounds!.at(-1)!.sent).toEqual([1]);
    const all = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    expect(all.phaseRun.fix!.findings).toEqual(["a: missing test", "b: wrong exit code"]);
  });
});

describe("warnings and no blocking finding", () => {
  it('at standard, asks whether to fix them before the phase ends; "fix warnings" runs a fix round for them', () => {
    const s = reviewed([warning, warning2, note]);
    expect(where(s)).toBe("REVIEW.warnings");
    const q = ask(s);
    expect(q.question).toBe("The review found no blocking finding and 2 warnings. Fix them before moving on?");
    expect(q.options).toEqual(["fix warnings", "fix these", "move on", "stop"]);
    expect(q.context).toContain("1. [p1-r1-1] warning: slow loop (src/scan.ts:9)");
    const fixing = send(s, { type: "DECIDE", answer: "fix warnings", by: "host" });
    expect(where(fixing)).toBe("EXECUTE.fixing");
    expect(fixing.phaseRun.fix!.findings).toEqual([
      "warning: slow loop (src/scan.ts:9) — O(n²)",
      "warning: performance.now unused (src/time.ts:2)",
    ]);
    const moved = send(s, { type: "DECIDE", answer: "move on", by: "host" });
    expect(where(moved)).toBe("FINAL_REVIEW.running");
    expect(moved.decisions.at(-1)).toMatchObject({ decision: "left_warnings", answer: "move on" });
    // Left for later, by whoever answered: the warnings' fate.
    expect(moved.findingLedger!.filter((e) => e.severity === "warning").map((e) => [e.fate, e.by])).toEqual([
      ["deferred", "host"],
      ["deferred", "host"],
    ]);
  });

  it("at --fast the phase moves on with its warnings recorded, as before", () => {
    expect(where(reviewed([warning], "fast"))).toBe("FINAL_REVIEW.running");
  });

  it("--yes keeps today's policy and says so: the warnings stay, with the policy's reason recorded", async () => {
    const s = reviewed([warning]);
    const step = renderStep(s, slug);
    const got = await new PolicyGate().answer(step, ask(s));
    expect(got.answer).toBe("move on");
    expect(got.rationale).toMatch(/^--yes policy: a fix round runs for blocking findings only/);
    expect(QUESTIONS.reviewBlocked.yes).toMatchObject({ take: "fix" });
  });

  it("the final review asks at a blocking finding only; its fix round lists exactly the findings chosen", () => {
    let s = finishPhase(planned(started([low]), plan(2)));
    expect(where(s)).toBe("FINAL_REVIEW.running");
    // Warnings alone: recorded and shown at DONE, no question.
    expect(send(s, { type: "REVIEWED", findings: [warning] }).currentState).toBe("DONE");
    s = send(s, { type: "REVIEWED", findings: [blocking, warning, warning2] });
    expect(where(s)).toBe("FINAL_REVIEW.blocked");
    expect(ask(s).options).toEqual(["fix", "fix blocking and warnings", "fix these", "override", "stop"]);
    const fix = send(s, { type: "DECIDE", answer: "fix these", by: "host", rationale: "1, 3" });
    expect(where(fix)).toBe("FINAL_REVIEW.fixing");
    expect(fix.finalReview.rounds!.at(-1)).toMatchObject({ resolution: "fix", sent: [0, 2] });
    const b = brief(fix);
    expect(b).toContain(
      "## Findings to fix (fix round 1)\n\n- [final-r1-1] blocking src/scan.ts:3 — bug Scenario: scan('') throws\n- [final-r1-3] warning src/time.ts:2 — performance.now unused\n",
    );
    expect(b).not.toContain("slow loop");
  });
});
