// One fate per finding: the ledger the machine keeps as checks report, fix rounds fix and people
// decide. Each finding is one entry however many rounds report it, with an id and a fate that
// every text words the same way (src/session/findings.ts).
import { describe, expect, it } from "vitest";
import { blocking, note, plan, planned, send, started, where } from "./helpers.js";
import type { AutopilotState, Finding } from "../../src/session/schema.js";
import { fateTally, fateWords, findingsIn } from "../../src/session/findings.js";
import { migrateState } from "../../src/session/migrate.js";
import { renderNotices } from "../../src/session/notices.js";

const low = { name: "Scanner", complexity: "low" as const };
const warning: Finding = { severity: "warning", title: "performance.now is cheaper", file: "src/scan.ts", line: 9 };

function reviewed(findings: Finding[]): AutopilotState {
  let s = planned(started([low]), plan(2));
  s = send(s, { type: "EXECUTED", outcome: "complete" });
  s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
  return send(s, { type: "REVIEWED", findings });
}

const fates = (s: AutopilotState) => Object.fromEntries((s.findingLedger ?? []).map((e) => [e.id, fateWords(e)]));

describe("the finding ledger", () => {
  it("a review's findings each get an id and start open", () => {
    const s = reviewed([blocking, warning, note]);
    expect(where(s)).toBe("REVIEW.blocked");
    expect(s.findingLedger).toMatchObject([
      { id: "p1-r1-1", source: "review", phase: 0, round: 1, severity: "blocking", fate: "open", seen: [1] },
      { id: "p1-r1-2", severity: "warning", fate: "open" },
      { id: "p1-r1-3", severity: "note", fate: "open" },
    ]);
  });

  it("a fix round fixes what it was sent, by its commit; the warning it was not sent stays open, counted once over two rounds", () => {
    let s = reviewed([blocking, warning, note]);
    s = send(s, { type: "DECIDE", answer: "fix", by: "elicited" });
    expect(s.phaseRun.fix).toMatchObject({ source: "review", round: 1, ids: ["p1-r1-1"] });
    expect(fates(s)["p1-r1-1"]).toBe("open (sent to fix round 1)");
    s = send(s, { type: "FIXED", summary: "validated the input" });
    const commit = s.outbox.find((e) => e.type === "commit")!;
    expect(s.findingLedger![0]).toMatchObject({ fate: "fixed", fixRound: 1, commitEffect: commit.id });
    s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
    // The re-review reports the warning and the note again: the same findings, not new ones.
    s = send(s, { type: "REVIEWED", findings: [warning, note] });
    // The warning left: the person is asked about it before the phase completes.
    expect(where(s)).toBe("REVIEW.warnings");
    expect(s.findingLedger).toHaveLength(3);
    expect(s.findingLedger!.map((e) => [e.id, e.seen, e.fate])).toEqual([
      ["p1-r1-1", [1], "fixed"],
      ["p1-r1-2", [1, 2], "open"],
      ["p1-r1-3", [1, 2], "open"],
    ]);
    expect(fateTally(s.findingLedger!)).toBe("1 blocking fixed, 1 warning open, 1 note open");
  });

  it("a fix round takes the findings the person sent (the round's `sent`), warnings too", () => {
    let s = reviewed([blocking, warning, note]);
    s = send(s, { type: "DECIDE", answer: "fix blocking and warnings", by: "elicited" });
    expect(s.phaseRun.reviewRounds!.at(-1)!.sent).toEqual([0, 1]);
    expect(s.phaseRun.fix).toMatchObject({ ids: ["p1-r1-1", "p1-r1-2"] });
    s = send(s, { type: "FIXED", summary: "both" });
    expect(fates(s)).toEqual({
      "p1-r1-1": "fixed in fix round 1",
      "p1-r1-2": "fixed in fix round 1",
      "p1-r1-3": "open",
    });
  });

  it("a finding the re-review raises again after its fix is open again, and says so", () => {
    let s = reviewed([blocking]);
    s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    s = send(s, { type: "FIXED", summary: "tried" });
    s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
    s = send(s, { type: "REVIEWED", findings: [{ ...blocking, line: 4 }] });
    expect(where(s)).toBe("REVIEW.blocked");
    expect(s.findingLedger).toHaveLength(1);
    expect(fates(s)["p1-r1-1"]).toBe("open (raised again in round 2 after fix round 1)");
    s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    expect(s.phaseRun.fix).toMatchObject({ round: 2, ids: ["p1-r1-1"] });
  });

  it("a disputed finding keeps the fixer's evidence, matched by its id", () => {
    let s = reviewed([blocking, { ...blocking, title: "second bug", line: 20 }]);
    s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    s = send(s, {
      type: "FIXED",
      summary: "fixed one",
      disputed: [{ finding: "p1-r1-2", evidence: "src/scan.ts:20 is never reached: see test scan.test.ts:4" }],
    });
    expect(fates(s)).toEqual({
      "p1-r1-1": "fixed in fix round 1",
      "p1-r1-2": "disputed in fix round 1: src/scan.ts:20 is never reached: see test scan.test.ts:4",
    });
  });

  it("an override is the blocking findings' fate, by whoever answered; the warning stays open", () => {
    let s = reviewed([blocking, warning]);
    s = send(s, { type: "DECIDE", answer: "override", by: "terminal" });
    expect(fates(s)).toEqual({ "p1-r1-1": "overridden by a person at a terminal", "p1-r1-2": "open" });
    expect(s.findingLedger![0]).toMatchObject({ decision: "overrode_review", by: "terminal" });
  });

  it("a failed verification's findings are fixed by the fix round, or overridden when it is skipped", () => {
    let s = planned(started([low]), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    s = send(s, { type: "VERIFIED", verdict: "fail", findings: ["test x fails", "README not updated"] });
    const skipped = send(s, { type: "DECIDE", answer: "skip verification", by: "relayed" });
    expect(Object.values(fates(skipped))).toEqual([
      "overridden by the user (relayed by the host model)",
      "overridden by the user (relayed by the host model)",
    ]);
    s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    s = send(s, { type: "FIXED", summary: "fixed" });
    s = send(s, { type: "VERIFIED", verdict: "fail", findings: ["test y fails"] });
    expect(findingsIn(s.findingLedger, { source: "verification", phase: 0 }).map((e) => [e.id, e.fate])).toEqual([
      ["p1-v1-1", "fixed"],
      ["p1-v1-2", "fixed"],
      ["p1-v2-1", "open"],
    ]);
  });

  it("the final review's fix round fixes its blocking finding; an exhausted one fixed by hand says who said so", () => {
    let s = planned(started([low]), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
    s = send(s, { type: "REVIEWED", findings: [] });
    expect(s.currentState).toBe("FINAL_REVIEW");
    s = send(s, { type: "REVIEWED", findings: [blocking, warning] });
    s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    expect(where(s)).toBe("FINAL_REVIEW.fixing");
    expect(fates(s)).toEqual({ "final-r1-1": "open (sent to fix round 1)", "final-r1-2": "open" });
    s = send(s, { type: "FIXED", summary: "fixed" });
    expect(fates(s)["final-r1-1"]).toBe("fixed in fix round 1");
    // The fix does not hold, round after round, until the fix rounds run out; a person fixes it.
    for (let round = 2; where(s) !== "FINAL_REVIEW.exhausted"; round++) {
      s = send(s, { type: "VALIDATED", passed: true, summary: "ok" });
      s = send(s, { type: "REVIEWED", findings: [blocking] });
      s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
      if (where(s) === "FINAL_REVIEW.fixing") s = send(s, { type: "FIXED", summary: "tried again" });
      expect(round).toBeLessThan(10);
    }
    expect(fates(s)["final-r1-1"]).toMatch(/^open \(raised again in round \d after fix round \d\)$/);
    s = send(s, { type: "DECIDE", answer: "fix manually and continue", by: "terminal" });
    expect(fates(s)["final-r1-1"]).toBe("fixed by hand (said by a person at a terminal)");
    expect(fates(s)["final-r1-2"]).toBe("open");
  });
});

describe("the texts that show findings", () => {
  it("the phase summary counts each finding once with its fate: the warning nobody fixed is open, not 'fixed; re-reviewed'", () => {
    const two = [low, { name: "CLI", complexity: "low" as const }];
    let s = planned(started(two), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
    s = send(s, { type: "REVIEWED", findings: [blocking, warning, note] });
    s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    s = send(s, { type: "FIXED", summary: "fixed" });
    s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
    s = send(s, { type: "REVIEWED", findings: [warning, note] });
    // The person leaves the warning for later: its fate says by whom.
    s = send(s, { type: "DECIDE", answer: "move on", by: "host" });
    expect(s.currentState).toBe("PHASE_COMPLETE");
    const report = renderNotices(s.notices)!;
    expect(report).toContain("Review: 1 blocking fixed, 1 warning deferred by the host model, 1 note open (2 rounds)");
    expect(report).not.toContain("fixed; re-reviewed");
  });

  it("DONE shows each final finding left standing with its fate, and counts the blocking one its fix round fixed", () => {
    let s = planned(started([low]), plan(2));
    s = send(s, { type: "EXECUTED", outcome: "complete" });
    s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
    s = send(s, { type: "REVIEWED", findings: [] });
    s = send(s, { type: "REVIEWED", findings: [blocking, warning] });
    s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    s = send(s, { type: "FIXED", summary: "fixed" });
    s = send(s, { type: "VALIDATED", passed: true, summary: "ok" });
    s = send(s, { type: "REVIEWED", findings: [warning] });
    expect(s.currentState).toBe("DONE");
    const report = renderNotices(s.notices)!;
    expect(report).toContain("1 blocking finding fixed before it passed");
    expect(report).toContain("  - warning src/scan.ts:9 — performance.now is cheaper — open");
  });
});

describe("a state file written before the ledger", () => {
  it("gets one rebuilt from its rounds: the blocking finding fixed, the warning open, the override's channel kept", () => {
    let s = reviewed([blocking, warning]);
    s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    s = send(s, { type: "FIXED", summary: "fixed" });
    s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
    s = send(s, { type: "REVIEWED", findings: [{ ...blocking, title: "another bug" }, warning] });
    const { findingLedger: _kept, ...older } = s;
    const { state, notes } = migrateState(JSON.parse(JSON.stringify(older)));
    expect(notes.join("\n")).toMatch(/findingLedger rebuilt from the recorded rounds \(3 findings\)/);
    expect(state.findingLedger!.map((e) => [e.id, e.fate, e.seen])).toEqual([
      ["p1-r1-1", "fixed", [1]],
      ["p1-r1-2", "open", [1, 2]],
      ["p1-r2-1", "open", [2]],
    ]);
    // Its own ledger reads as it is; a ledger that does not read moves aside and is rebuilt.
    expect(migrateState(JSON.parse(JSON.stringify(s))).state.findingLedger).toEqual(s.findingLedger);
    const broken = migrateState({ ...JSON.parse(JSON.stringify(s)), findingLedger: "lost" });
    expect(broken.state).toMatchObject({ originalFindingLedger: "lost" });
    expect(broken.state.findingLedger).toHaveLength(3);
  });
});
