// What a user with an old or hand-edited state file sees when autopilot resumes it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AutopilotError } from "../../src/protocol/errors.js";
import { migrateState } from "../../src/session/migrate.js";
import { AutopilotState, renderNotices } from "../../src/session/schema.js";
import { renderStep } from "../../src/engine/step.js";
import { lostValues } from "./helpers/nothing-lost.js";
import { RETRY_BUDGET } from "../../src/rules/policy.js";

type Rec = Record<string, any>;
const fixture = (name: string): Rec =>
  JSON.parse(readFileSync(new URL(`../fixtures/state/${name}`, import.meta.url), "utf8")) as Rec;

function migrated(name: string, opts = {}) {
  const raw = fixture(name);
  const result = migrateState(raw, opts);
  expect(AutopilotState.safeParse(result.state).success).toBe(true);
  return { raw, ...result, s: result.state as Rec };
}

function corruptReason(raw: unknown): string {
  try {
    migrateState(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(AutopilotError);
    expect((e as AutopilotError).code).toBe("corrupt_state");
    return (e as Error).message;
  }
  throw new Error("expected corrupt_state");
}

describe("the skill's migration steps", () => {
  it("v1 (the pre-session singleton) gets a sessionDir from its spec's slug", () => {
    const { s, fromVersion } = migrated("v1-singleton.json");
    expect(fromVersion).toBe(1);
    expect(s.schemaVersion).toBe(5);
    expect(s.sessionDir).toBe(".harness/sessions/changes--session-scoping--proposal");
  });

  it("v1 stored where it actually lives keeps that sessionDir", () => {
    const { s } = migrated("v1-singleton.json", { sessionDir: ".harness/sessions/elsewhere" });
    expect(s.sessionDir).toBe(".harness/sessions/elsewhere");
  });

  it("< 3: startingCommit is the earliest commit named in history", () => {
    const { s, notes } = migrated("v1-singleton.json", { head: "ffffffffffffffffffffffffffffffffffffffff" });
    expect(s.startingCommit).toBe("0a1b2c3d4e5f60718293a4b5c6d7e8f901234567");
    expect(notes.join("\n")).toMatch(/earliest commit in history/);
  });

  it("< 3: with no commit in history, startingCommit is the current HEAD", () => {
    const { s, notes } = migrated("v2-no-commit.json", { head: "abc1234def" });
    expect(s.startingCommit).toBe("abc1234def");
    expect(notes.join("\n")).toMatch(/current HEAD/);
  });

  it("< 3: with neither, startingCommit is null and the note says why", () => {
    const { s, notes } = migrated("v2-no-commit.json");
    expect(s.startingCommit).toBeNull();
    expect(notes.join("\n")).toMatch(/HEAD unknown/);
  });

  it("< 3: decisions [] and a pending finalReview are backfilled", () => {
    const { s } = migrated("v2-no-commit.json");
    expect(s.decisions).toEqual([]);
    expect(s.finalReview).toEqual({ status: "pending", findings: [], retryCount: 0 });
  });

  it("< 4: reviewPlans is false", () => {
    const { s, fromVersion } = migrated("v3-no-review-plans.json");
    expect(fromVersion).toBe(3);
    expect(s.reviewPlans).toBe(false);
    expect(s.startingCommit).toBe("8f9f538b0a0a02f9338293d4276e5343599728fd");
  });

  it("< 5: rigorLevel is standard, and a v4 reviewPlans: true survives", () => {
    const { s } = migrated("v4-no-rigor.json");
    expect(s.rigorLevel).toBe("standard");
    expect(s.reviewPlans).toBe(true);
    expect(s.schemaVersion).toBe(5);
  });

  it("engine fields come from engineDefaults", () => {
    const { s } = migrated("v4-no-rigor.json");
    expect(s.stepId).toBe(0);
    expect(s.outbox).toEqual([]);
    expect(s.phaseRun.retriesUsed).toBe(0);
  });

  it("a clean v5 state reads back unchanged with no notes", () => {
    const first = migrated("v4-no-rigor.json").state;
    const again = migrateState(JSON.parse(JSON.stringify(first)), { sessionDir: first.sessionDir });
    expect(again.state).toEqual(first);
    expect(again.notes).toEqual([]);
    expect(again.fromVersion).toBe(5);
  });

  it("the caller's object is not modified", () => {
    const raw = fixture("v1-singleton.json");
    const copy = structuredClone(raw);
    migrateState(raw);
    expect(raw).toEqual(copy);
  });
});

describe("tolerant reading of real-world variants", () => {
  it("currentState COMPLETE resumes as DONE; other spellings map too", () => {
    const { s, notes } = migrated("complete-and-severities.json");
    expect(s.currentState).toBe("DONE");
    expect(s.originalCurrentState).toBe("COMPLETE");
    expect(notes).toContain('currentState "COMPLETE" read as "DONE"');
    for (const [word, state] of [
      ["done", "DONE"],
      ["Final Review", "FINAL_REVIEW"],
      ["approve-plan", "APPROVE_PLAN"],
      ["phase_complete", "PHASE_COMPLETE"],
      ["Completed", "DONE"],
    ]) {
      expect(migrateState({ ...fixture("v3-no-review-plans.json"), currentState: word }).state.currentState).toBe(
        state,
      );
    }
  });

  it("phase statuses PHASE_COMPLETE, COMPLETE, done, Skipped, in-progress, todo map onto pending|complete|skipped", () => {
    const { s, raw } = migrated("phase-status-variants.json");
    expect(s.phases.map((p: Rec) => p.status)).toEqual([
      "complete",
      "complete",
      "skipped",
      "pending",
      "complete",
      "pending",
    ]);
    expect(s.phases.map((p: Rec) => p.originalStatus)).toEqual(raw.phases.map((p: Rec) => p.status));
    expect(s.currentState).toBe("EXECUTE");
    expect(s.rigorLevel).toBe("standard");
    // in-progress is where we are: the phase index does not move.
    expect(s.currentPhase).toBe(3);
  });

  it("an unknown complexity reads as medium, keeping the word", () => {
    const { s } = migrated("phase-status-variants.json");
    expect(s.phases[1].complexity).toBe("medium");
    expect(s.phases[5].complexity).toBe("medium");
    expect(s.phases[5].originalComplexity).toBe("extreme");
  });

  it("a numeric retryBudget becomes { maxAttempts, currentTask: null }", () => {
    const { s, notes } = migrated("retry-budget-number.json");
    expect(s.retryBudget).toEqual({ maxAttempts: 5, currentTask: null });
    expect(notes.join("\n")).toMatch(/retryBudget 5 read as/);
  });

  it("a null or missing retryBudget gets the default", () => {
    expect(migrated("retry-budget-null.json").s.retryBudget).toEqual({ maxAttempts: RETRY_BUDGET, currentTask: null });
    expect(migrated("complete-and-severities.json").s.retryBudget).toEqual({
      maxAttempts: RETRY_BUDGET,
      currentTask: null,
    });
  });

  it("a file naming its sessionSlug but no sessionDir gets the directory from the slug", () => {
    expect(migrated("retry-budget-number.json").s.sessionDir).toBe(".harness/sessions/changes--tsx-refresh--proposal");
  });

  it("every decision shape becomes a Decision and keeps all its original fields", () => {
    const { s, raw } = migrated("decisions-mixed.json");
    const [plain, whatWhy, stateWhatWhy, at, context, clean] = s.decisions as Rec[];
    expect(plain).toEqual({ phase: null, decision: "note", timestamp: null, note: "Phase 1 plan approved by human" });
    expect(whatWhy).toMatchObject({
      ...raw.decisions[1],
      phase: null,
      decision: "Auto-approved Phase 1 plan",
      timestamp: null,
      note: "User instructed auto-approve all plans",
    });
    expect(stateWhatWhy).toMatchObject({
      ...raw.decisions[2],
      phase: null,
      decision: "Validated the draft spec",
      state: "BRAINSTORM",
    });
    // `at` is a state name here, not a date.
    expect(at).toMatchObject({ ...raw.decisions[3], timestamp: null, state: "APPROVE_PLAN" });
    expect(context).toMatchObject({
      ...raw.decisions[4],
      phase: null,
      timestamp: "2026-03-23",
      note: "7 tasks, low complexity",
    });
    expect(clean).toEqual(raw.decisions[5]);
    expect(lostValues(raw.decisions, s.decisions)).toEqual([]);
  });

  it("critical|important|suggestion findings get our severities and keep the original word", () => {
    const { s } = migrated("complete-and-severities.json");
    const f = s.finalReview.findings as Rec[];
    expect(f.map((x) => x.severity)).toEqual(["blocking", "warning", "note", "note", "note"]);
    expect(f.map((x) => x.originalSeverity)).toEqual(["critical", "important", "suggestion", "cosmetic", undefined]);
    expect(f[0].status).toBe("fixed");
    expect(s.finalReview.status).toBe("passed");
    expect(s.finalReview.originalStatus).toBe("complete");
    expect(s.finalReview.retryCount).toBe(1);
  });

  it("findings without a title get one from their text; a string line becomes a number", () => {
    const { s } = migrated("complete-and-severities.json");
    const f = s.finalReview.findings as Rec[];
    expect(f[2].title).toBe("Rename the hook for clarity");
    expect(f[2].description).toBe("Rename the hook for clarity\nIt reads better.");
    expect(f[2].line).toBe(12);
    expect(f[3].title).toBe("Trailing whitespace");
    expect(f[4].title).toBe("Document the new flag");
  });

  it("phases numbered from 1 (n) make currentPhase 1-based", () => {
    const { s, notes } = migrated("one-based-numbered.json");
    expect(s.currentPhase).toBe(1);
    expect(s.phases[1].name).toBe("Refuse redirects");
    expect(s.originalCurrentPhase).toBe(2);
    expect(notes.join("\n")).toMatch(/1-based because its phases are numbered from 1/);
    expect(s.phases.map((p: Rec) => p.n)).toEqual([1, 2, 3]);
  });

  it("phases numbered from 0 (index) keep currentPhase as is", () => {
    const { s } = migrated("zero-based-indexed.json");
    expect(s.currentPhase).toBe(1);
    expect(s.originalCurrentPhase).toBeUndefined();
  });

  it("currentPhase equal to the phase count in a working state is read as 1-based", () => {
    const { s, notes } = migrated("one-based-past-end.json");
    expect(s.currentPhase).toBe(1);
    expect(notes.join("\n")).toMatch(/equals the number of phases in state REVIEW/);
  });

  it("a pending phase behind currentPhase means the file counts from 1", () => {
    const { s, notes } = migrated("one-based-pending-behind.json");
    expect(s.currentPhase).toBe(1);
    expect(notes.join("\n")).toMatch(/still pending while every phase before it is done/);
  });

  it("a DONE file pointing past the last phase is clamped, not failed", () => {
    const raw = { ...fixture("one-based-past-end.json"), currentState: "DONE" };
    expect(migrateState(raw).state.currentPhase).toBe(1);
  });

  it("history entries of other shapes are kept, with phase: null", () => {
    const { s, raw } = migrated("one-based-numbered.json");
    expect(s.history).toEqual([
      { ...raw.history[0], phase: null },
      { phase: null, note: "planned by hand" },
    ]);
  });

  it("unknown fields written by people or other tools are carried through", () => {
    expect(migrated("one-based-numbered.json").s.humanGates).toEqual({ note: "ran as an autonomous agent" });
    expect(migrated("retry-budget-number.json").s.runtimeNotes).toHaveLength(1);
    expect(migrated("complete-and-severities.json").s.gates).toEqual({ typecheck: "PASS", test: "26/26 pass" });
    expect(migrated("v1-singleton.json").s.history[0].commit).toBe("0a1b2c3d4e5f60718293a4b5c6d7e8f901234567");
  });

  it.each([
    "v1-singleton.json",
    "v2-no-commit.json",
    "complete-and-severities.json",
    "phase-status-variants.json",
    "retry-budget-number.json",
    "decisions-mixed.json",
    "one-based-numbered.json",
  ])("%s: no value is lost", (name) => {
    const { raw, s } = migrated(name);
    const allowed = (p: string) =>
      p === "$.schemaVersion" ||
      (p === "$.retryBudget" && typeof raw.retryBudget === "number") ||
      /^\$\.phases\[\d+\]\.complexity$/.test(p) ||
      p === "$.rigorLevel";
    expect(lostValues(raw, s, "$", allowed)).toEqual([]);
  });

  it("keys come out in the skill's order, then the file's extras, then engine fields", () => {
    const keys = Object.keys(migrated("one-based-numbered.json").state);
    expect(keys.slice(0, 4)).toEqual(["schemaVersion", "sessionDir", "specPath", "startingCommit"]);
    expect(keys.indexOf("humanGates")).toBeGreaterThan(keys.indexOf("finalReview"));
    expect(keys.indexOf("stepId")).toBeGreaterThan(keys.indexOf("humanGates"));
  });
});

describe("the phase records added for the personas' work", () => {
  const SESSION_DIR = migrated("v4-no-rigor.json").state.sessionDir;
  /** A v5 file written before them: its phaseRun lacks every new field. */
  function before(stage: string, fix: unknown = null): Rec {
    const s = structuredClone(migrated("v4-no-rigor.json").state) as Rec;
    for (const k of [
      "startCommit",
      "nextTask",
      "planProblems",
      "planChecks",
      "assumptions",
      "deferred",
      "planDefects",
      "verificationRounds",
      "reviewRounds",
      "reviewChecks",
      "reviewProblems",
      "fixRounds",
      "disputed",
      "evidence",
    ])
      delete s.phaseRun[k];
    return { ...s, currentState: "EXECUTE", stage, phaseRun: { ...s.phaseRun, fix } };
  }

  it("a phaseRun without them reads with their defaults (no start commit, no start task, no rounds)", () => {
    const { state, notes } = migrateState(before("running"), { sessionDir: SESSION_DIR });
    expect(state.phaseRun).toMatchObject({
      startCommit: null,
      nextTask: null,
      verificationRounds: [],
      reviewRounds: [],
      planChecks: 0,
      fixRounds: 0,
      disputed: [],
    });
    expect(notes).toEqual([]);
    // Without a recorded phase start, a phase review's range falls back to the session's start.
    expect(renderStep(state, SESSION_DIR.split("/").at(-1)!).next.kind).toBe("dispatch");
  });

  it('a fix round saved in EXECUTE.running moves to EXECUTE.fixing, whose persona replies "fixed"', () => {
    const { state, notes } = migrateState(before("running", { source: "review", findings: ["bug (src/a.ts:3)"] }), {
      sessionDir: SESSION_DIR,
    });
    expect(state.stage).toBe("fixing");
    expect(notes).toEqual(['stage: the fix round in progress moved to EXECUTE.fixing (its persona replies "fixed")']);
    const next = renderStep(state, SESSION_DIR.split("/").at(-1)!).next;
    expect(next.kind === "dispatch" && next.expects.result).toBe("fixed");
  });
});

describe("the usage ledger and budget (declared optional fields)", () => {
  const ledger = {
    total: {
      dispatches: 2,
      reported: 1,
      tokens: 1200,
      inputTokens: null,
      outputTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      toolUses: 3,
      durationMs: 900,
      costUsd: null,
      costReported: 0,
    },
    byPhase: {
      "1": {
        name: "Core",
        dispatches: 2,
        reported: 1,
        tokens: 1200,
        inputTokens: null,
        outputTokens: null,
        cacheReadTokens: null,
        cacheWriteTokens: null,
        toolUses: 3,
        durationMs: 900,
        costUsd: null,
        costReported: 0,
      },
    },
    byPersona: {},
  };

  it("a file without them (every upstream file, every file before them) reads without notes about them and gains none", () => {
    const { s, notes } = migrated("v4-no-rigor.json");
    expect(s.usage).toBeUndefined();
    expect(s.budget).toBeUndefined();
    expect(notes.join("\n")).not.toMatch(/usage|budget/);
  });

  it("a file with them round-trips unchanged, unknown figures staying null", () => {
    const first = migrated("v4-no-rigor.json").state;
    const withUsage = { ...first, usage: ledger, budget: { tokens: 200000, usd: null, continueOnceAt: null } };
    const again = migrateState(JSON.parse(JSON.stringify(withUsage)), { sessionDir: first.sessionDir });
    expect(again.notes).toEqual([]);
    expect(again.state.usage).toEqual(ledger);
    expect(again.state.usage!.total.inputTokens).toBeNull();
    expect(again.state.budget).toEqual({ tokens: 200000, usd: null, continueOnceAt: null });
  });

  it("a hand-broken ledger or budget moves aside rather than failing the file", () => {
    const first = migrated("v4-no-rigor.json").state;
    const broken = { ...first, usage: { total: "lots" }, budget: "$5" };
    const r = migrateState(JSON.parse(JSON.stringify(broken)), { sessionDir: first.sessionDir });
    expect(AutopilotState.safeParse(r.state).success).toBe(true);
    expect(r.state.usage).toBeUndefined();
    expect((r.state as Rec).originalUsage).toEqual({ total: "lots" });
    expect((r.state as Rec).originalBudget).toBe("$5");
    expect(r.notes).toEqual(expect.arrayContaining([expect.stringMatching(/"usage" had an unexpected value/)]));
  });

  it("a parallel session's settings and waves round-trip; hand-broken ones move aside, the rest of the phase's data kept", () => {
    const first = migrated("v4-no-rigor.json").state;
    const waves = {
      parallel: true,
      waves: [["1", "2", "3"], ["4"]],
      reason: "2 waves, at most 3 tasks at once",
      serialized: [],
    };
    const ok = { ...first, parallel: { minIndependent: 3 }, phaseRun: { ...first.phaseRun, taskCount: 4, waves } };
    const kept = migrateState(JSON.parse(JSON.stringify(ok)), { sessionDir: first.sessionDir });
    expect(kept.notes).toEqual([]);
    expect(kept.state.parallel).toEqual({ minIndependent: 3 });
    expect(kept.state.phaseRun.waves).toEqual(waves);
    const broken = { ...first, parallel: true, phaseRun: { ...first.phaseRun, taskCount: 4, waves: [["1"]] } };
    const r = migrateState(JSON.parse(JSON.stringify(broken)), { sessionDir: first.sessionDir });
    expect(AutopilotState.safeParse(r.state).success).toBe(true);
    expect(r.state.parallel).toBeUndefined();
    expect((r.state as Rec).originalParallel).toBe(true);
    expect(r.state.phaseRun.taskCount).toBe(4);
    expect(r.state.phaseRun.waves).toBeUndefined();
    expect((r.state.phaseRun as Rec).originalWaves).toEqual([["1"]]);
  });

  it("the suggested pull request is kept when it fits and moves aside when hand-broken", () => {
    const first = migrated("v4-no-rigor.json").state;
    const pr = { title: "Security scanner", body: "## Phases\n" };
    const kept = migrateState(JSON.parse(JSON.stringify({ ...first, pullRequest: pr })), {
      sessionDir: first.sessionDir,
    });
    expect(kept.state.pullRequest).toEqual(pr);
    const broken = migrateState(JSON.parse(JSON.stringify({ ...first, pullRequest: { title: 42 } })), {
      sessionDir: first.sessionDir,
    });
    expect(AutopilotState.safeParse(broken.state).success).toBe(true);
    expect(broken.state.pullRequest).toBeUndefined();
    expect((broken.state as Rec).originalPullRequest).toEqual({ title: 42 });
  });
});

describe("an outbox a crash left (effects the machine owed, not yet performed)", () => {
  // Each entry exactly as earlier engine builds saved it: the writeSummary of builds before
  // `lastActive` was kept has none, a final-review commit has phase null, a finding carries an
  // extra field of its reviewer's.
  const OLD_OUTBOX = [
    { id: "s7-commit", type: "commit", args: { label: "Checkpoint 1: types", recovery: false, phase: 0 } },
    { id: "s9-commit", type: "commit", args: { label: "Final review fixes (round 1)", recovery: false, phase: null } },
    {
      id: "s8-appendFailure",
      type: "appendFailure",
      args: { date: "2026-03-19", skill: "harness-autopilot", type: "retry-exhausted", text: "t" },
    },
    {
      id: "s8-writeReview",
      type: "writeReview",
      args: { phase: 0, findings: [{ severity: "warning", title: "w", reviewer: "x" }] },
    },
    { id: "s10-clearScratchpad", type: "clearScratchpad", args: { phase: "Core" } },
    { id: "s10-syncRoadmap", type: "syncRoadmap", args: {} },
    {
      id: "s10-writeSummary",
      type: "writeSummary",
      args: { phase: "1 of 2", status: "Phase 1 complete. 3/3 tasks.", plan: null, keyContext: "k", nextStep: "n" },
    },
    { id: "s12-writeFinalHandoff", type: "writeFinalHandoff", args: {} },
    { id: "s12-appendLearnings", type: "appendLearnings", args: {} },
    { id: "s12-roadmapDone", type: "roadmapDone", args: {} },
    { id: "s1-commitUserChanges", type: "commitUserChanges", args: {} },
  ];

  it("every effect type as earlier builds saved it loads unchanged, with no note", () => {
    const first = migrated("v4-no-rigor.json").state;
    const r = migrateState(JSON.parse(JSON.stringify({ ...first, outbox: OLD_OUTBOX })), {
      sessionDir: first.sessionDir,
    });
    expect(r.state.outbox).toEqual(OLD_OUTBOX);
    expect(r.notes).toEqual([]);
  });

  it("an entry whose args do not fit its type moves aside with a note rather than being performed", () => {
    const first = migrated("v4-no-rigor.json").state;
    const broken = [{ id: "s7-commit", type: "commit", args: { recovery: false } }];
    const r = migrateState(JSON.parse(JSON.stringify({ ...first, outbox: broken })), { sessionDir: first.sessionDir });
    expect(r.state.outbox).toEqual([]);
    expect((r.state as Rec).originalOutbox).toEqual(broken);
    expect(r.notes).toEqual(expect.arrayContaining([expect.stringMatching(/engine field "outbox" was invalid/)]));
  });
});

describe("a file saved before notices (the Step's text kept as prose in `report`)", () => {
  const PROSE =
    "Checkpoint passed: Checkpoint 1: types\nCheckpoint 1: types — committed (1a2b3c4)\n\nVerification: pass";

  it("loads, its prose kept as one plain-text notice that renders to the same text", () => {
    const { s, notes } = migrated("v5-prose-report.json");
    expect(s.report).toBeUndefined();
    expect(s.notices).toEqual([{ kind: "text", text: PROSE }]);
    expect(renderNotices(s.notices)).toBe(PROSE);
    expect(notes).toEqual(["report: the saved report became a plain-text notice"]);
  });

  it("the Step made from it shows the same report the old engine would have shown", () => {
    const { state } = migrated("v5-prose-report.json");
    expect(renderStep(state, "core").report).toBe(PROSE);
  });

  it("an empty report (null) leaves no notice and no note; the migrated file reads back unchanged", () => {
    const raw: Record<string, any> = { ...fixture("v5-prose-report.json"), report: null };
    const r = migrateState(raw, { sessionDir: raw.sessionDir });
    expect(r.state.notices).toEqual([]);
    expect(r.notes).toEqual([]);
    const again = migrateState(JSON.parse(JSON.stringify(migrated("v5-prose-report.json").state)), {
      sessionDir: raw.sessionDir,
    });
    expect(again.notes).toEqual([]);
    expect(again.state.notices).toEqual([{ kind: "text", text: PROSE }]);
  });

  it("a notice of a kind this build does not know moves the notices aside rather than failing the file", () => {
    const first = migrated("v4-no-rigor.json").state;
    const odd = [{ kind: "fromTheFuture", x: 1 }];
    const r = migrateState(JSON.parse(JSON.stringify({ ...first, notices: odd })), { sessionDir: first.sessionDir });
    expect(r.state.notices).toEqual([]);
    expect((r.state as Rec).originalNotices).toEqual(odd);
  });
});

describe("files autopilot must not guess about", () => {
  it("an unknown currentState → corrupt_state naming it", () => {
    expect(corruptReason(fixture("unknown-state.json"))).toMatch(/"BRAINSTORM" is not an autopilot state/);
  });
  it("a future schemaVersion → corrupt_state saying to upgrade", () => {
    expect(corruptReason(fixture("future-version.json"))).toMatch(/schemaVersion 6 .*newer autopilot.*upgrade/);
  });
  it.each([
    [null, /null/],
    [[], /a list/],
    ["state", /a string/],
    [3, /a number/],
  ])("%j → corrupt_state", (raw, why) => {
    expect(corruptReason(raw)).toMatch(why);
  });
  it("no phases, no specPath, a nonsense schemaVersion → corrupt_state", () => {
    const base = fixture("v3-no-review-plans.json");
    expect(corruptReason({ ...base, phases: undefined })).toMatch(/no "phases"/);
    expect(corruptReason({ ...base, specPath: undefined })).toMatch(/no specPath/);
    expect(corruptReason({ ...base, schemaVersion: "latest" })).toMatch(/not a version number/);
    expect(corruptReason({ ...base, schemaVersion: 0 })).toMatch(/not a version/);
  });
  it("a missing specPath can come from the caller", () => {
    const base = fixture("v3-no-review-plans.json");
    delete base.specPath;
    expect(migrateState(base, { specPath: "docs/x.md" }).state.specPath).toBe("docs/x.md");
  });
});
