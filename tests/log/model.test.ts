// The decision-log model: from a real session run to DONE by the engine, from upstream files (the
// corpus, and legacy shapes written out here), mid-phase, and with hostile text.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readdirSync } from "node:fs";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { git } from "../helpers/git.js";
import { finishedSession, SLUG, SPEC_PATH, type FinishedSession } from "./session-helper.js";
import { midPhaseState } from "./fixtures.js";
import {
  buildDecisionLog,
  formatDuration,
  readDecisionLog,
  renderHtml,
  renderMarkdown,
  type DecisionLog,
} from "../../src/log/index.js";
import { SessionStore } from "../../src/session/store.js";
import { migrateState } from "../../src/session/migrate.js";
import type { AutopilotState } from "../../src/session/schema.js";

const CORPUS = "/work/shared/corpus/upstream/sessions";

let done: FinishedSession;
let state: AutopilotState;
let log: DecisionLog;

beforeAll(async () => {
  done = await finishedSession();
  state = (await new SessionStore(done.repo.dir).read(SLUG)).state;
  log = buildDecisionLog(state, SLUG);
});
afterAll(async () => done?.repo.cleanup());

describe("decision log of a finished scripted session", () => {
  it("shows every verification and review round with its findings, and each finding once with its fate", () => {
    const rounds = log.checks.map((r) => [r.phase?.number ?? "final", r.check, r.round, r.verdict ?? r.resolution]);
    expect(rounds).toEqual([
      [1, "verification", 1, "pass"],
      [1, "review", 1, null],
      [2, "verification", 1, "pass"],
      [2, "review", 1, null],
      [3, "verification", 1, "pass"],
      [3, "review", 1, "override"],
      ["final", "final", 1, "fix"],
      ["final", "final", 2, null],
    ]);
    const overridden = log.findings.find((f) => f.phase?.number === 3 && f.severity === "blocking")!;
    expect(overridden).toMatchObject({
      id: "p3-r1-1",
      fate: "overridden",
      by: "terminal",
      decision: "overrode_review",
    });
    expect(overridden.fateText).toBe("overridden by a person at a terminal");
    expect(log.checks.find((r) => r.check === "final" && r.round === 1)!.findings).toContain("final-r1-1");
    const md = renderMarkdown(log);
    expect(md).toContain("## Checks: every verification and review round");
    expect(md).toMatch(
      /\| final-r1-1 \| final \| Final review \| blocking \| .* \| 1 \| fixed in fix round 1 \(commit [0-9a-f]{7}\) \|/,
    );
    expect(md).toContain("| 3. CLI Integration | Review | 1 | overridden | p3-r1-1 blocking:");
    const html = renderHtml(log);
    expect(html).toContain('<h2 id="checks-h">Checks and findings</h2>');
    expect(html).toContain("overridden by a person at a terminal");
  });

  it("says why a cost is unknown: the runs reported no usage", () => {
    expect(log.cost.display).toBe("unknown");
    const runs = state.usage!.total.dispatches;
    expect(runs).toBeGreaterThan(10);
    expect(log.cost.why).toBe(
      `${runs} persona runs reported, none with its usage (the host passes usage on only when its client gives it)`,
    );
    expect(renderMarkdown(log)).toContain(`Cost: unknown (${runs} persona runs reported, none with its usage`);
    expect(renderHtml(log)).toContain(`${runs} persona runs reported, none with its usage`);
  });

  it("shows the person's words the host relayed, beside its rationale", () => {
    const relayed = structuredClone(state);
    Object.assign(relayed.decisions[5], {
      by: "relayed",
      userWords: "override it, the key is a fixture <b>",
      rationale: "the user says it is a fixture",
    });
    const l = buildDecisionLog(relayed, SLUG);
    expect(l.decisions[5]).toMatchObject({ who: "relayed", userWords: "override it, the key is a fixture <b>" });
    expect(renderMarkdown(l)).toContain(
      `the user's words (relayed by the host model): "override it, the key is a fixture \\<b>" · the user says it is a fixture`,
    );
    const html = renderHtml(l);
    expect(html).toContain(
      "the user&#39;s words (relayed by the host model): &quot;override it, the key is a fixture &lt;b&gt;&quot;",
    );
    expect(html).not.toContain("fixture <b>");
  });

  it("shows a note the person gave between questions as their words, and a person's own reason as theirs", () => {
    const noted = structuredClone(state);
    const at = noted.decisions[5];
    noted.decisions.splice(5, 0, {
      ...at,
      decision: "noted",
      answer: undefined,
      by: "terminal",
      rationale: "keep the rule parser under 100 lines",
      userWords: undefined,
    });
    const l = buildDecisionLog(noted, SLUG);
    expect(l.decisions[5]).toMatchObject({
      decision: "noted",
      kind: "note",
      what: "The user's words, between questions (for the next persona)",
      who: "terminal",
      personWords: { words: "keep the rule parser under 100 lines", by: "at a terminal" },
    });
    // The plan approval at a terminal: the reason is the person's own.
    expect(l.decisions[2].personWords).toEqual({
      words: "Concerns are noted; the rule syntax is settled in task 1.",
      by: "at a terminal",
    });
    // A reason the policy gave is nobody's words.
    expect(l.decisions.filter((d) => d.who === "policy").map((d) => d.personWords)).toEqual(
      l.decisions.filter((d) => d.who === "policy").map(() => null),
    );
    const md = renderMarkdown(l);
    expect(md).toContain(`the user's words (at a terminal): "keep the rule parser under 100 lines"`);
    expect(md.split("keep the rule parser under 100 lines")).toHaveLength(2);
    const html = renderHtml(l);
    expect(html).toContain("the user&#39;s words (at a terminal): &quot;keep the rule parser under 100 lines&quot;");
    expect(JSON.parse(JSON.stringify(l)).decisions[5].personWords.words).toBe("keep the rule parser under 100 lines");
  });

  it("names the session, spec, rigor, outcome and starting commit", async () => {
    // HEAD when the session started: the commit that added the spec.
    const first = (await git(done.repo.dir, "log", "--format=%H", "--grep=^spec$")).trim();
    expect(log).toMatchObject({
      logVersion: 2,
      session: SLUG,
      title: "Security Scanner",
      spec: SPEC_PATH,
      rigor: "standard",
      reviewPlans: false,
      currentState: "DONE",
      currentPhase: null,
      stopped: false,
      outcome: { status: "done", headline: "Done: 3 of 3 phases complete; final review passed." },
    });
    expect(log.startingCommit).toBe(first);
  });

  it("records every decision: what, when, who, phase, and the answer and rationale", () => {
    expect(log.decisions.map((d) => [d.n, d.decision, d.who, d.phase?.number ?? null, d.state])).toEqual([
      [1, "auto_approved_plan", "auto", 1, "APPROVE_PLAN"],
      [2, "continued", "policy", 1, "PHASE_COMPLETE"],
      [3, "approved_plan", "terminal", 2, "APPROVE_PLAN"],
      [4, "continued", "policy", 2, "PHASE_COMPLETE"],
      [5, "auto_approved_plan", "auto", 3, "APPROVE_PLAN"],
      [6, "overrode_review", "terminal", 3, "REVIEW"],
      [7, "fix_final_review", "policy", null, "FINAL_REVIEW"],
    ]);
    expect(log.decisions.every((d) => d.timestamp && !Number.isNaN(Date.parse(d.timestamp)))).toBe(true);
    expect(log.decisions[2]).toMatchObject({
      what: "Plan approved after review",
      kind: "plan",
      answer: "yes",
      rationale: "Concerns are noted; the rule syntax is settled in task 1.",
      phase: { index: 1, number: 2, name: "Rule Engine" },
      whoInferred: false,
    });
    expect(log.decisions[5]).toMatchObject({
      kind: "review",
      answer: "override",
      rationale: expect.stringContaining("false positive"),
    });
    expect(log.decisions[6]).toMatchObject({ kind: "final-review", phase: null });
  });

  it("keeps the six signals behind each plan decision and which fired", () => {
    const gates = log.decisions.filter((d) => d.plan);
    expect(gates.map((d) => [d.n, d.plan!.mode, d.plan!.result, d.plan!.fired])).toEqual([
      [1, "auto", "approved", []],
      [3, "paused", "approved", ["plannerConcerns"]],
      [5, "auto", "approved", []],
    ]);
    const rows = gates[1].plan!.signals;
    expect(rows.map((r) => r.name)).toEqual([
      "reviewPlans",
      "highComplexity",
      "complexityOverride",
      "plannerConcerns",
      "taskCount",
      "planChecks",
    ]);
    expect(rows.map((r) => r.value)).toEqual([false, "medium", null, ["rule syntax undecided"], 5, []]);
    expect(rows.map((r) => r.fired)).toEqual([false, false, false, true, false, false]);
    expect(rows[4].rule).toBe("more than 15 tasks");
    // Decisions that are not plan gates carry no signal table.
    expect(log.decisions[1].plan).toBeNull();
  });

  it("has the per-phase history: tasks, retries, verification, findings by severity, time", () => {
    expect(log.phases.map((p) => [p.number, p.name, p.outcome, p.tasks, p.retries, p.verification])).toEqual([
      [1, "Core Scanner", "complete", 3, 0, "pass"],
      [2, "Rule Engine", "complete", 5, 2, "pass"],
      [3, "CLI Integration", "overridden", 3, 0, "pass"],
    ]);
    expect(log.phases[2]).toMatchObject({
      reviewFindings: { blocking: 1, warning: 0, note: 1 },
      reviewOverridden: true,
      overrides: ["overrode_review"],
    });
    for (const p of log.phases) {
      expect(p.durationMs).toBe(Date.parse(p.completedAt!) - Date.parse(p.startedAt!));
      expect(p.durationMs).toBeGreaterThan(0);
    }
    expect(log.phases.map((p) => p.decisions)).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    expect(log.phases.map((p) => p.commits)).toEqual([2, 1, 1]);
  });

  it("has the final review, the commits and the totals", async () => {
    expect(log.finalReview).toMatchObject({
      status: "passed",
      fixRounds: 1,
      findings: { blocking: 0, warning: 1, note: 0 },
      decisions: [7],
    });
    // Each final finding once with its fate: the blocking one its fix round fixed, and the warning left open.
    const finalFix = state.commits.find((c) => c.label === "Final review fixes (round 1)")!;
    expect(log.finalReview.items.map((f) => [f.id, f.severity, f.fate])).toEqual([
      ["final-r1-1", "blocking", `fixed in fix round 1 (commit ${finalFix.sha.slice(0, 7)})`],
      ["final-r1-2", "warning", "open"],
    ]);
    expect(log.finalReview.items[1]).toMatchObject({ title: expect.stringContaining("Naming") });
    const subjects = (await git(done.repo.dir, "log", "--format=%H %s")).trim().split("\n");
    expect(log.commits).toHaveLength(5);
    for (const c of log.commits) {
      // The log quotes each commit's subject as it was made, and keeps autopilot's step beside it.
      expect(subjects).toContain(`${c.sha} ${c.subject}`);
      expect(c.label).toMatch(/^(Checkpoint|Phase|Final review)/);
      expect(c.short).toBe(c.sha.slice(0, 7));
      expect(c.recovery).toBe(false);
    }
    expect(log.commits.map((c) => c.phase?.number ?? null)).toEqual([1, 1, 2, 3, null]);
    expect(log.totals).toMatchObject({
      phases: { total: 3, complete: 3, skipped: 0, pending: 0 },
      tasks: 11,
      retries: 2,
      decisions: { total: 7, auto: 2, terminal: 2, policy: 3, elicited: 0, host: 0, piped: 0, human: 0, unknown: 0 },
      plans: { auto: 2, fast: 0, paused: 1 },
      overrides: 1,
      commits: { total: 5, recovery: 0 },
      reviewFindings: { blocking: 1, warning: 0, note: 3 },
    });
    expect(log.totals.durationMs).toBeGreaterThan(0);
  });

  it("is plain JSON and the same every time it is built", async () => {
    expect(JSON.parse(JSON.stringify(log))).toEqual(log);
    expect(buildDecisionLog(state, SLUG)).toEqual(log);
    expect(await readDecisionLog(done.repo.dir, SLUG)).toEqual(log);
    expect(await readDecisionLog(done.repo.dir, "no--such--session")).toBeNull();
  });

  it("shows a session caught mid-phase as in progress", () => {
    const mid = buildDecisionLog(midPhaseState(state), SLUG);
    expect(mid.outcome).toEqual({
      status: "in progress",
      headline: "In progress at EXECUTE (Phase 2): 1 of 3 phases complete.",
    });
    expect(mid.currentPhase).toEqual({ index: 1, number: 2, name: "Rule Engine" });
    expect(mid.stage).toBe("running");
    expect(mid.phases.map((p) => p.outcome)).toEqual(["complete", "in progress", "pending"]);
    expect(mid.phases[1]).toMatchObject({ retries: 1, tasks: 5, completedAt: null, durationMs: null });
    expect(mid.totals.phases).toEqual({ total: 3, complete: 1, skipped: 0, pending: 2 });
    expect(mid.finalReview.status).toBe("pending");
  });
});

describe("decision log of a --fast session", () => {
  it("records plan approvals as fast: signals kept, not evaluated", async () => {
    const fast = await finishedSession({ flags: "--fast" });
    try {
      const s = (await new SessionStore(fast.repo.dir).read(SLUG)).state;
      const l = buildDecisionLog(s, SLUG);
      const gates = l.decisions.filter((d) => d.plan);
      expect(gates).toHaveLength(3);
      for (const g of gates) expect(g.plan).toMatchObject({ mode: "fast", evaluated: false, fired: [] });
      // Phase 2's planner raised a concern: under --fast it would have fired but did not count.
      const concerns = gates[1].plan!.signals.find((r) => r.name === "plannerConcerns")!;
      expect(concerns).toMatchObject({ fires: true, fired: false });
      expect(l.totals.plans).toEqual({ auto: 0, fast: 3, paused: 0 });
      expect(renderMarkdown(l)).toContain("auto-approved: --fast, signals not evaluated");
    } finally {
      await fast.repo.cleanup();
    }
  });
});

describe("decision log of upstream files", () => {
  // Shapes the skill wrote by hand, as the corpus shows them: plain-string decisions, {what, why},
  // no `by`, no `fired`, history entries per state, 1-based phase text.
  const legacy = {
    schemaVersion: 3,
    sessionDir: ".harness/sessions/changes--legacy--proposal",
    specPath: "docs/changes/legacy/proposal.md",
    startingCommit: "abc1234def",
    reviewPlans: false,
    currentState: "DONE",
    currentPhase: 1,
    phases: [
      { name: "One", complexity: "low", complexityOverride: null, planPath: "docs/plans/one.md", status: "complete" },
      { name: "Two", complexity: "medium", complexityOverride: "high", planPath: null, status: "complete" },
    ],
    retryBudget: { maxAttempts: 3, currentTask: null },
    history: [
      {
        phase: 0,
        name: "One",
        startedAt: "2026-03-20T14:00:00Z",
        completedAt: "2026-03-20T15:30:00Z",
        tasksCompleted: 13,
        retriesUsed: 1,
        verificationPassed: true,
        reviewFindings: { critical: 2, important: 7, suggestion: 6 },
      },
      { phase: 1, state: "EXECUTE", timestamp: "2026-03-21T10:00:00Z", result: "complete" },
      { phase: 1, state: "REVIEW", timestamp: "2026-03-21T10:40:00Z", result: "complete" },
    ],
    decisions: [
      "Phase 1 plan approved by human",
      { what: "Auto-approved Phase 2 plan", why: "User instructed auto-approve all plans" },
      {
        phase: 1,
        decision: "auto_approved_plan",
        timestamp: "2026-03-21T09:59:00Z",
        signals: {
          reviewPlans: false,
          highComplexity: "medium",
          complexityOverride: "high",
          plannerConcerns: ["a", "b"],
          taskCount: 20,
          taskThreshold: 15,
        },
      },
    ],
  };

  it("reads string decisions, notes and missing fields without guessing", () => {
    const s = migrateState(structuredClone(legacy)).state;
    const l = buildDecisionLog(s, "changes--legacy--proposal");
    expect(l.decisions.map((d) => [d.decision, d.who, d.phase?.number ?? null, d.phaseInferred])).toEqual([
      ["note", "unknown", 1, true],
      ["Auto-approved Phase 2 plan", "unknown", 2, true],
      ["auto_approved_plan", "auto", 2, false],
    ]);
    expect(l.decisions[0]).toMatchObject({
      what: "Phase 1 plan approved by human",
      kind: "note",
      timestamp: null,
      plan: null,
    });
    expect(l.decisions[1]).toMatchObject({
      what: "Auto-approved Phase 2 plan",
      note: "User instructed auto-approve all plans",
    });
    // No `by` recorded; the name says auto. No `fired` recorded: computed from the values.
    expect(l.decisions[2]).toMatchObject({
      whoInferred: true,
      plan: { mode: "auto", fired: ["complexityOverride", "plannerConcerns", "taskCount"] },
    });
    expect(l.phases[0]).toMatchObject({
      tasks: 13,
      retries: 1,
      verification: "pass",
      reviewFindings: { blocking: 2, warning: 7, note: 6 },
      durationMs: 90 * 60_000,
    });
    expect(l.phases[1]).toMatchObject({
      tasks: null,
      retries: null,
      verification: null,
      reviewFindings: null,
      complexityOverride: "high",
      durationMs: 40 * 60_000,
    });
    expect(l.commits).toEqual([]);
    expect(l.totals.decisions).toMatchObject({ total: 3, auto: 1, unknown: 2 });
    expect(l.title).toBe("Legacy");
    expect(() => renderMarkdown(l)).not.toThrow();
    expect(renderHtml(l)).toContain("Phase 1 plan approved by human");
  });

  it("files written before channels: `by` human, Human and policy still read, and human is not passed off as a person", () => {
    const older = structuredClone(legacy) as any;
    older.decisions = [
      { phase: 0, decision: "approved_plan", timestamp: "2026-03-20T14:00:00Z", answer: "yes", by: "human" },
      { phase: 0, decision: "overrode_review", timestamp: "2026-03-20T15:00:00Z", answer: "override", by: "Human" },
      { phase: 1, decision: "continued", timestamp: "2026-03-21T09:00:00Z", answer: "yes", by: "policy" },
      {
        phase: 1,
        decision: "approved_plan",
        timestamp: "2026-03-21T09:30:00Z",
        answer: "yes",
        by: "a person probably",
      },
    ];
    const { state: s } = migrateState(older);
    expect(s.decisions.map((d) => d.by)).toEqual(["human", "human", "policy", undefined]);
    const l = buildDecisionLog(s, "changes--legacy--proposal");
    expect(l.decisions.map((d) => [d.who, d.byPerson])).toEqual([
      ["human", null],
      ["human", null],
      ["policy", false],
      ["unknown", null],
    ]);
    expect(l.decisions[0].whoText).toMatch(/earlier version, which did not tell a person from the host model/);
    expect(l.totals.decisions).toMatchObject({ total: 4, human: 2, policy: 1, unknown: 1, host: 0, elicited: 0 });
    expect(renderMarkdown(l)).toContain('human: recorded as "human" by an earlier version');
  });

  const corpusPresent = existsSync(CORPUS);
  if (!corpusPresent) console.warn(`[skip] upstream corpus tests: ${CORPUS} is absent`);

  describe.skipIf(!corpusPresent)("the upstream corpus", () => {
    const slugs = corpusPresent
      ? readdirSync(CORPUS).filter((d) => existsSync(path.join(CORPUS, d, "autopilot-state.json")))
      : [];
    let root: string;
    beforeAll(async () => {
      root = await mkdtemp(path.join(tmpdir(), "autopilot-log-corpus-"));
      for (const slug of slugs)
        await cp(
          path.join(CORPUS, slug, "autopilot-state.json"),
          path.join(root, ".harness/sessions", slug, "autopilot-state.json"),
        );
    });
    afterAll(async () => root && rm(root, { recursive: true, force: true }));

    it("builds and renders a log for every real state file", async () => {
      expect(slugs.length).toBeGreaterThan(5);
      for (const slug of slugs) {
        const l = await readDecisionLog(root, slug);
        expect(l, slug).not.toBeNull();
        expect(JSON.parse(JSON.stringify(l))).toEqual(l);
        const raw = JSON.parse(await readFile(path.join(CORPUS, slug, "autopilot-state.json"), "utf8"));
        expect(l!.decisions, slug).toHaveLength(Array.isArray(raw.decisions) ? raw.decisions.length : 0);
        expect(l!.phases.length, slug).toBe(Array.isArray(raw.phases) ? raw.phases.length : l!.phases.length);
        expect(renderMarkdown(l!)).toContain("## Phases");
        expect(renderHtml(l!)).toContain('class="state-diagram"');
      }
    });

    it("changes--autopilot-auto-approve-plans--proposal: a session still at ASSESS", async () => {
      const slug = "changes--autopilot-auto-approve-plans--proposal";
      if (!slugs.includes(slug)) return console.warn(`[skip] ${slug} not in the corpus`);
      const l = (await readDecisionLog(root, slug))!;
      expect(l.currentState).toBe("ASSESS");
      expect(l.outcome.status).toBe("in progress");
      expect(l.decisions).toEqual([]);
    });

    it("changes--i18n-localization-skills--proposal: plain-string decisions, phase read from the text", async () => {
      const slug = "changes--i18n-localization-skills--proposal";
      if (!slugs.includes(slug)) return console.warn(`[skip] ${slug} not in the corpus`);
      const l = (await readDecisionLog(root, slug))!;
      expect(l.decisions.length).toBe(10);
      expect(l.decisions.every((d) => d.decision === "note" && d.who === "unknown")).toBe(true);
      expect(l.decisions[0]).toMatchObject({
        what: "Phase 1 plan approved by human",
        phase: { number: 1 },
        phaseInferred: true,
      });
      expect(l.phases[0]).toMatchObject({
        tasks: 13,
        retries: 1,
        reviewFindings: { blocking: 2, warning: 7, note: 6 },
      });
      expect(l.totals.durationMs).toBeGreaterThan(0);
    });

    it("changes--claude-mem-patterns--proposal: signals that fired on an auto-approval are shown as fired", async () => {
      const slug = "changes--claude-mem-patterns--proposal";
      if (!slugs.includes(slug)) return console.warn(`[skip] ${slug} not in the corpus`);
      const l = (await readDecisionLog(root, slug))!;
      expect(l.decisions[0]).toMatchObject({
        who: "auto",
        whoInferred: true,
        note: "User requested auto-approve all plans",
      });
      expect(l.decisions[0].plan!.fired).toEqual(["plannerConcerns", "taskCount"]);
    });
  });
});

describe("formatDuration", () => {
  it("reads like a person would say it", () => {
    expect([null, 45_000, 200_000, 3_840_000, 7_200_000, 90 * 3_600_000].map(formatDuration)).toEqual([
      "—",
      "45 s",
      "3 min 20 s",
      "1 h 4 min",
      "2 h",
      "3 d 18 h",
    ]);
  });
});
