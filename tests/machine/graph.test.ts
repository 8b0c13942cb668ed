// Tests generated from the machine itself: @xstate/graph walks every reachable state from sample
// events, and we check that every state node and every transition the machine defines is taken
// by some path, and that invariants hold on every state reached.
import { describe, expect, it } from "vitest";
import { getAdjacencyMap, getShortestPaths, getStateNodes } from "@xstate/graph";
import type { AnyStateNode } from "xstate";
import { autopilotMachine, type AutopilotEvent } from "../../machines/autopilot.machine.js";
import { QUESTIONS } from "../../machines/questions.js";
import { budgetSpent, emptyLedger } from "../../src/session/usage.js";
import { askFor } from "../../src/engine/step.js";
import { probeFor, restingMeta } from "../../src/engine/machine-state.js";
import { dispatchFor } from "../../src/personas/dispatch.js";
import type { StageMeta } from "../../machines/autopilot.machine.js";
import { isTransient } from "../../machines/stages.js";
import { AutopilotState as StateSchema, type AutopilotState } from "../../src/session/schema.js";
import { NOW, blocking, initState, note, plan, vagueBlocking } from "./helpers.js";
import { FINAL_REVIEW_FIX_BUDGET } from "../../src/rules/policy.js";

const warning = { severity: "warning" as const, title: "slow loop", file: "src/scan.ts", line: 5 };

/** The decisions the machine records (the `decision` of each recordDecision / recordPlanDecision). */
const EVERY_DECISION = [
  "approved_plan",
  "auto_approved_plan",
  "commit_rejected",
  "committed_without_hooks",
  "auto_approved_plan_fast",
  "continued",
  "fix_final_review",
  "fix_review",
  "fix_verification",
  "fixed_commit_manually",
  "fixed_manually",
  "overrode_final_review",
  "overrode_review",
  "plan_revised",
  "retried_step",
  "revise_plan_after_failure",
  "revised_plan",
  "skipped_phase",
  "skipped_verification",
  "stopped",
];
/** The decisions only a parallel session's wave records (the third walk). */
const WAVE_DECISIONS = ["rerun_wave_task", "wave_task_by_hand"];

type Snap = ReturnType<typeof autopilotMachine.resolveState>;

function ctxOf(s: Snap): AutopilotState {
  return s.context;
}

/**
 * The events worth trying from a state: the answers it offers plus each kind of persona result.
 * `oneStart`: only the standard start without --review-plans (the budget walk's corner).
 */
function eventsFor(s: Snap, oneStart: boolean | "fastAndStandard" = false): AutopilotEvent[] {
  const c = ctxOf(s);
  const now = NOW;
  const out: AutopilotEvent[] = [];
  if (s.matches({ INIT: "fresh" }) && oneStart) {
    const all = eventsFor(s);
    return (oneStart === "fastAndStandard" ? [all[0], all[2]] : [all[2]]).filter((e) => s.can(e));
  }
  if (s.matches({ INIT: "fresh" })) {
    for (const rigorLevel of ["fast", "standard", "thorough"] as const)
      for (const reviewPlans of [false, true])
        out.push({
          type: "START",
          phases: [
            { name: "Core Scanner", complexity: "low" },
            { name: "Rule Engine", complexity: "high" },
          ],
          specPath: "docs/changes/scanner/proposal.md",
          sessionDir: ".harness/sessions/changes--scanner--proposal",
          startingCommit: "0000000",
          rigorLevel,
          reviewPlans,
          now,
        });
    // A start on a working tree with changes autopilot did not make: the user-changes gate.
    out.push({ ...(out[2] as Extract<AutopilotEvent, { type: "START" }>), userChanges: ["README.md", "notes.txt"] });
    return out;
  }
  out.push({ type: "RESUME", now });
  out.push({ type: "ASSESSED", planPath: null, now }, { type: "ASSESSED", planPath: "docs/plans/p.md", now });
  // A parallel session's plans come with their waves (src/engine/results.ts reads them).
  const withWaves = (f: ReturnType<typeof plan>) => (c.parallel ? { ...f, waves: WAVES } : f);
  for (const facts of [plan(3), plan(11), plan(21), plan(16), plan(3, 0, ["risk"])].map(withWaves)) {
    out.push({ type: "PLANNED", plan: facts, now }, { type: "PLAN_FACTS", plan: facts, now });
  }
  out.push(...waveEvents(c));
  // A planner's plan the plan check finds problems in (read from disk, it pauses like a concern does).
  out.push({ type: "PLANNED", plan: { ...plan(3), problems: ["Task 2 (t) has no verification step"] }, now });
  out.push(
    { type: "EXECUTED", outcome: "complete", now },
    { type: "EXECUTED", outcome: "checkpoint", checkpoint: { type: "passed", label: "cp" }, now },
    // A commit point at the last task of a 3-task plan: its commit ends the execution.
    {
      type: "EXECUTED",
      outcome: "checkpoint",
      task: { number: 3, name: "t" },
      checkpoint: { type: "passed", label: "cp" },
      now,
    },
    { type: "EXECUTED", outcome: "checkpoint", checkpoint: { type: "human-verify", label: "look" }, now },
    { type: "EXECUTED", outcome: "failed", task: { number: 1, name: "t" }, error: "e", now },
    {
      type: "EXECUTED",
      outcome: "plan_defect",
      task: { number: 2, name: "t" },
      defect: "the plan names a file that does not exist",
      now,
    },
    { type: "VALIDATED", passed: true, summary: "ok", now },
    { type: "VALIDATED", passed: false, summary: "bad", now },
    { type: "VERIFIED", verdict: "pass", findings: [], now },
    { type: "VERIFIED", verdict: "fail", findings: ["x"], now },
    { type: "REVIEWED", findings: [note], now },
    // Warnings and no blocking finding: at standard and thorough, the person is asked.
    { type: "REVIEWED", findings: [warning], now },
    { type: "REVIEWED", findings: [blocking], now },
    { type: "REVIEWED", findings: [vagueBlocking], now },
    { type: "FIXED", summary: "f", now },
    { type: "PERSONA_FAILED", error: "e", now },
    { type: "PLAN_CHANGED", from: "a", to: "b", now },
  );
  // A commit the repository's hooks refused arrives right after the transition that owed it (a
  // checkpoint, the phase's execution, a fix round, a recovery, or the same commit made again).
  // Tried on one corner of the graph (first phase or final review, without --review-plans, no task
  // retry under way, at most one final fix round): everywhere would triple the walk, and the
  // refusal's transitions do not depend on the rest.
  const owed = justOwedCommit(c);
  const corner =
    !c.reviewPlans &&
    (c.currentPhase === 0 || s.matches("FINAL_REVIEW")) &&
    !(c.retryBudget.currentTask?.attemptsUsed ?? 0) &&
    c.finalReview.retryCount <= 1;
  if (owed && corner)
    out.push(
      {
        type: "COMMIT_REJECTED",
        commit: owed,
        hook: "pre-commit",
        output: "src/a.ts:1: console.log",
        paths: ["src/a.ts"],
        now,
      },
      {
        type: "COMMIT_REJECTED",
        commit: owed,
        hook: "commit-msg",
        output: "subject may not be empty",
        paths: ["src/a.ts"],
        now,
      },
    );
  const ask = askFor({ ...c, currentState: topOf(s), stage: stageOf(s) });
  for (const answer of ask?.options ?? []) out.push({ type: "DECIDE", answer, by: "host", now });
  // "revise" with notes sends the plan back to the planner with them.
  if (ask?.options.includes("revise"))
    out.push({ type: "DECIDE", answer: "revise", rationale: "split task 2", by: "host", now });
  return out.filter((e) => s.can(e));
}

const WAVES = {
  parallel: true,
  waves: [["1", "2"], ["3"]],
  reason: "2 waves, at most 2 tasks at once",
  serialized: [],
};
type WaveTask = NonNullable<AutopilotState["phaseRun"]["waveRun"]>["tasks"][number];
function waveTask(task: string, status: WaveTask["status"]): WaveTask {
  const worktree = {
    task,
    attempt: 1,
    path: `.harness/worktrees/x--task-${task}`,
    branch: `autopilot-task/x/${task}`,
    base: "0000000",
  };
  return { task, name: `t${task}`, scope: { files: [`src/${task}.ts`], owns: [] }, attempt: 1, worktree, status };
}

/** A parallel session's wave: its worktrees opened, each task's report, and what the merge queue can make of them. */
function waveEvents(c: AutopilotState): AutopilotEvent[] {
  if (!c.parallel) return [];
  const now = NOW;
  const run = c.phaseRun.waveRun ?? null;
  const out: AutopilotEvent[] = [];
  const next = run ? (run.tasks.every((t) => t.status === "merged") ? run.wave + 1 : run.wave) : 0;
  const opened = { wave: next, tasks: (WAVES.waves[next] ?? []).map((t) => waveTask(t, "running")) };
  out.push({ type: "WAVE_OPENED", run: opened, now });
  // Opened again with everything merged (a re-entry after the last wave), or a task still stopped.
  if (run)
    out.push({
      type: "WAVE_OPENED",
      run: { ...run, tasks: run.tasks.map((t) => ({ ...t, status: "merged" as const })) },
      now,
    });
  if (run)
    out.push({
      type: "WAVE_OPENED",
      run: { ...run, tasks: run.tasks.map((t, i) => ({ ...t, status: i === 0 ? ("outside" as const) : t.status })) },
      now,
    });
  for (const t of run?.tasks ?? [])
    if (t.status === "running" && !t.reported)
      out.push(
        { type: "TASK_REPORTED", task: t.task, done: true, evidence: ["ok"], now },
        { type: "TASK_REPORTED", task: t.task, done: false, error: "e", learnings: ["l"], now },
        // Stopped at a human checkpoint: the serial checkpoint question once the wave's reports are
        // in (in the first wave of the walk without a budget: everywhere would not end).
        ...(c.budget || run?.wave !== 0
          ? []
          : [
              {
                type: "TASK_REPORTED" as const,
                task: t.task,
                done: false,
                checkpoint: { type: "human-verify" as const, label: "look" },
                now,
              },
            ]),
      );
  if (run) {
    const as = (status: (i: number) => WaveTask["status"]) => ({
      ...run,
      tasks: run.tasks.map((t, i) => ({ ...t, status: status(i), reported: null })),
    });
    const first = run.tasks[0]?.task ?? "1";
    out.push(
      {
        type: "WAVE_MERGED",
        run: as(() => "merged"),
        events: run.tasks.map((t) => ({
          kind: "merged" as const,
          task: t.task,
          sha: `sha${t.task}`,
          validation: "ok",
        })),
        now,
      },
      {
        type: "WAVE_MERGED",
        run: as((i) => (i === 0 ? "running" : "merged")),
        events: [{ kind: "retry", task: first, attempt: 2, why: "conflict", error: "c" }],
        now,
      },
      {
        type: "WAVE_MERGED",
        run: as((i) => (i === 0 ? "outside" : "done")),
        events: [{ kind: "outside", task: first, files: ["README.md"] }],
        now,
      },
      {
        type: "WAVE_MERGED",
        run: as((i) => (i === 0 ? "exhausted" : "done")),
        events: [{ kind: "exhausted", task: first, error: "e" }],
        now,
      },
      // An executor's plan defect within the phase's send-backs: the others merged, the plan goes back
      // to the planner (in the first wave of the first phase, once: everywhere would pass the walk's limit).
      ...(run.wave === 0 && c.currentPhase === 0 && !c.phaseRun.planDefects
        ? [{ type: "WAVE_MERGED" as const, run: as((i) => (i === 0 ? "defect" : "merged")), events: [], now }]
        : []),
    );
  }
  return out;
}

function topOf(s: Snap): AutopilotState["currentState"] {
  const v = s.value as string | Record<string, string>;
  return (typeof v === "string" ? v : Object.keys(v)[0]) as AutopilotState["currentState"];
}
function stageOf(s: Snap): string | null {
  const v = s.value as string | Record<string, string>;
  return typeof v === "string" ? null : Object.values(v)[0];
}

/** What distinguishes states for the walk: finite, so the graph is finite. */
function serialize(s: Snap): string {
  const c = ctxOf(s);
  return JSON.stringify([
    s.value,
    c.rigorLevel,
    c.reviewPlans,
    c.currentPhase,
    c.stopped,
    c.phases.map((p) => p.status),
    c.phases[c.currentPhase]?.complexityOverride ?? null,
    c.retryBudget.currentTask?.attemptsUsed ?? 0,
    // "fix manually and continue" may follow any number of exhausted rounds: past the budget
    // every count behaves the same.
    Math.min(c.finalReview.retryCount, FINAL_REVIEW_FIX_BUDGET + 1),
    c.consecutiveExhausted,
    c.phaseRun.exhausted,
    c.phaseRun.fix?.source ?? null,
    // A refusal, while its commit is held (kept finite: the rest of the graph would multiply by
    // every count; tests/machine/rules.test.ts follows one commit through the whole budget).
    ["commitFix", "commitBlocked"].includes(stageOf(s) ?? "")
      ? [
          Math.min(c.phaseRun.rejectedCommit?.attempts.length ?? 0, c.retryBudget.maxAttempts + 1),
          c.phaseRun.rejectedCommit?.hook,
        ]
      : null,
    // The send-back counters, each only where it decides something (a finite graph stays small).
    topOf(s) === "PLAN" ? (c.phaseRun.planChecks ?? 0) : null,
    ["PLAN", "APPROVE_PLAN", "EXECUTE"].includes(topOf(s)) ? (c.phaseRun.planDefects ?? 0) : null,
    topOf(s) === "REVIEW" ? (c.phaseRun.reviewChecks ?? 0) : null,
    topOf(s) === "FINAL_REVIEW" ? (c.finalReview.checks ?? 0) : null,
    // A parallel session's wave, without its attempts (a retry is the same state again); a report
    // at a checkpoint told apart from the others (two tasks at checkpoints ask twice).
    c.phaseRun.waveRun
      ? [
          c.phaseRun.waveRun.wave,
          c.phaseRun.waveRun.tasks.map((t) => [
            t.status,
            t.reported ? (t.reported.checkpoint ? "checkpoint" : true) : false,
          ]),
        ]
      : null,
  ]);
}

/** The commit the last transition owed (the walk never performs effects: the outbox only grows). */
function justOwedCommit(c: AutopilotState) {
  const owed = c.outbox
    .slice(-2)
    .filter((e) => e.type === "commit")
    .at(-1);
  return owed?.type === "commit" ? owed : null;
}

const mainPaths = getShortestPaths(autopilotMachine, {
  input: initState(),
  events: (s) => eventsFor(s),
  serializeState: serialize,
  limit: 200_000,
});

// The budget gate: a session whose spending budget is spent asks before every dispatch. A second,
// smaller walk (one start: standard, without --review-plans) from a session far past a 1k-token
// budget ("raise budget" doubles it: still spent, asked again). "continue once" lets through the
// dispatch of the step it answers: this walk moves the step counter before each event as the
// engine does (apply), so the next dispatch asks again. Its states are told apart by whether the
// budget would stop a dispatch.
const budgetInput: AutopilotState = {
  ...initState(),
  budget: { tokens: 1000, usd: null, continueOnceAt: null },
  usage: { ...emptyLedger(), total: { ...emptyLedger().total, dispatches: 5, reported: 5, tokens: 1e12 } },
};
const stepped = Object.assign(Object.create(autopilotMachine) as typeof autopilotMachine, {
  transition: (snap: Snap, event: AutopilotEvent, scope: never) => {
    const c = ctxOf(snap);
    return autopilotMachine.transition(
      autopilotMachine.resolveState({ value: snap.value, context: { ...c, stepId: c.stepId + 1 } }),
      event,
      scope,
    );
  },
});
const budgetBlocks = (c: AutopilotState) =>
  !!c.budget && !!budgetSpent(c.budget, c.usage) && c.budget.continueOnceAt !== c.stepId;
const budgetWalk = {
  input: budgetInput,
  events: (s: Snap) => eventsFor(s, true),
  serializeState: (s: Snap) => serialize(s) + (budgetBlocks(ctxOf(s)) ? "$" : ""),
  limit: 200_000,
};
const budgetPaths = getShortestPaths(stepped, budgetWalk);
// A parallel session: a third walk, fast and standard starts, plans with waves.
const waveWalk = {
  input: { ...initState(), parallel: { minIndependent: 2 } },
  events: (s: Snap) => eventsFor(s, "fastAndStandard"),
  serializeState: serialize,
  limit: 600_000,
};
const wavePaths = getShortestPaths(autopilotMachine, waveWalk);
// A parallel session far past its budget: the wave's budget gates (before a wave, before a task sent back).
const waveBudgetWalk = { ...budgetWalk, input: { ...budgetInput, parallel: { minIndependent: 2 } } };
const waveBudgetPaths = getShortestPaths(stepped, waveBudgetWalk);
const paths = [...mainPaths, ...budgetPaths, ...wavePaths, ...waveBudgetPaths];

// The walk is exhaustive and CPU-bound (about 43,000 states in the main walk with the refused commits and the
// send-back counters; 14-30 s for the largest test alone on 2 cores): the default 60 s timed out
// while other suites loaded the machine, and the transitions test took 240 s at load 12 once the
// wave walks grew, so these tests get more time, not a smaller walk.
describe("the machine, walked by @xstate/graph", { timeout: 1_200_000 }, () => {
  it("reaches every state node the machine defines", () => {
    const reached = new Set<string>();
    for (const p of paths) for (const id of p.state._nodes.map((n: AnyStateNode) => n.id)) reached.add(id);
    const all = getStateNodes(autopilotMachine.root).map((n) => n.id);
    // Transient nodes (evaluate, fixBudgetCheck: machines/stages.ts isTransient) are passed through
    // within one step; they are covered by the transitions test below.
    const transient = getStateNodes(autopilotMachine.root)
      .filter(isTransient)
      .map((n) => n.id);
    expect(transient.length).toBeGreaterThan(0);
    const missing = all.filter((id) => !reached.has(id) && !transient.includes(id));
    expect(missing).toEqual([]);
    expect(paths.length).toBeGreaterThan(100);
  });

  it("takes every transition the machine defines, eventless ones included", () => {
    // Every edge of the reachable graph, not only the shortest paths: ask the machine which
    // transition definitions each (state, event) pair takes.
    const taken = new Set<unknown>();
    const adjacency = getAdjacencyMap(autopilotMachine, {
      input: initState(),
      events: (s) => eventsFor(s),
      serializeState: serialize,
      limit: 200_000,
    });
    const budgetAdjacency = getAdjacencyMap(stepped, budgetWalk);
    const waveAdjacency = getAdjacencyMap(autopilotMachine, waveWalk);
    const waveBudgetAdjacency = getAdjacencyMap(stepped, waveBudgetWalk);
    for (const { state, transitions } of [
      ...Object.values(adjacency),
      ...Object.values(budgetAdjacency),
      ...Object.values(waveAdjacency),
      ...Object.values(waveBudgetAdjacency),
    ])
      for (const { event } of Object.values<{ event: unknown }>(transitions))
        for (const t of autopilotMachine.getTransitionData(state as never, event as never)) taken.add(t);
    const untaken: string[] = [];
    for (const node of getStateNodes(autopilotMachine.root)) {
      for (const [eventType, defs] of node.transitions) {
        for (const d of defs)
          if (!taken.has(d))
            untaken.push(`${node.id} on ${eventType} → ${d.target?.map((t) => t.id).join(",") ?? "(self)"}`);
      }
    }
    expect(untaken).toEqual([]);
    // Eventless branches, by their outcome: each APPROVE_PLAN.evaluate branch and each
    // FINAL_REVIEW.fixBudgetCheck branch leaves its own mark.
    const decisions = new Set(paths.flatMap((p) => ctxOf(p.state).decisions.map((d) => d.decision)));
    // Every decision the machine records is recorded on some edge of the graph (a missing one fails here).
    const everyEdge = new Set(
      Object.values(adjacency).flatMap(({ transitions }) =>
        Object.values<{ state: unknown }>(transitions).flatMap(({ state }) =>
          ctxOf(state as Snap).decisions.map((d) => d.decision),
        ),
      ),
    );
    expect([...everyEdge].sort()).toEqual(expect.arrayContaining(EVERY_DECISION));
    const budgetEdges = new Set(
      Object.values(budgetAdjacency).flatMap(({ transitions }) =>
        Object.values<{ state: unknown }>(transitions).flatMap(({ state }) =>
          ctxOf(state as Snap).decisions.map((d) => d.decision),
        ),
      ),
    );
    expect([...budgetEdges]).toEqual(
      expect.arrayContaining(["raised_budget", "budget_continue_once", "stopped_budget"]),
    );
    const waveEdges = new Set(
      Object.values(waveAdjacency).flatMap(({ transitions }) =>
        Object.values<{ state: unknown }>(transitions).flatMap(({ state }) =>
          ctxOf(state as Snap).decisions.map((d) => d.decision),
        ),
      ),
    );
    expect([...waveEdges]).toEqual(expect.arrayContaining(WAVE_DECISIONS));
    for (const d of [
      "auto_approved_plan",
      "auto_approved_plan_fast",
      "approved_plan",
      "revised_plan",
      "skipped_phase",
      "stopped",
    ])
      expect(decisions.has(d), d).toBe(true);
    const values = new Set(paths.map((p) => JSON.stringify(p.state.value)));
    expect(values.has(JSON.stringify({ APPROVE_PLAN: "review" }))).toBe(true);
    expect(values.has(JSON.stringify({ FINAL_REVIEW: "fixing" }))).toBe(true);
    expect(values.has(JSON.stringify({ FINAL_REVIEW: "exhausted" }))).toBe(true);
  });

  it("every state reached is a valid schemaVersion 5 state file whose currentState matches the machine", () => {
    for (const p of paths) {
      const c = ctxOf(p.state);
      expect(() => StateSchema.parse(c)).not.toThrow();
      expect(c.currentState).toBe(topOf(p.state));
    }
  });

  it("never exceeds the retry budget or the final review's fix budget, on any path", () => {
    for (const p of paths) {
      const c = ctxOf(p.state);
      expect(c.retryBudget.currentTask?.attemptsUsed ?? 0).toBeLessThanOrEqual(c.retryBudget.maxAttempts);
      if (p.state.matches({ FINAL_REVIEW: "fixing" }))
        expect(c.finalReview.retryCount).toBeLessThanOrEqual(FINAL_REVIEW_FIX_BUDGET);
      // A refused commit goes to the executor at most maxAttempts times, and only the pre-commit hook's.
      if (stageOf(p.state) === "commitFix") {
        expect(c.phaseRun.rejectedCommit?.attempts.length ?? 0).toBeLessThanOrEqual(c.retryBudget.maxAttempts);
        expect(c.phaseRun.rejectedCommit?.hook).toBe("pre-commit");
      }
    }
  });

  it("never reaches EXECUTE without a plan decision for the phase", () => {
    for (const p of paths) {
      if (!p.state.matches("EXECUTE")) continue;
      const c = ctxOf(p.state);
      const approvals = c.decisions.filter(
        (d) =>
          d.phase === c.currentPhase &&
          ["auto_approved_plan", "auto_approved_plan_fast", "approved_plan"].includes(d.decision),
      );
      expect(approvals.length).toBeGreaterThan(0);
    }
  });

  it("every ask offers only answers the machine accepts", () => {
    for (const p of paths) {
      const c = ctxOf(p.state);
      const ask = askFor(c);
      if (!ask) continue;
      for (const answer of ask.options)
        expect(
          p.state.can({ type: "DECIDE", answer, by: "host", now: NOW }),
          `${JSON.stringify(p.state.value)} ${answer}`,
        ).toBe(true);
    }
  });

  it("on every state reached, the Step asks, dispatches and probes what the resting node's meta declares", () => {
    const seen = { ask: 0, dispatch: 0, probe: 0 };
    for (const p of paths) {
      // As the engine saves it: apply() writes the stage the machine rests in.
      const c = { ...ctxOf(p.state), currentState: topOf(p.state), stage: stageOf(p.state) };
      if (c.stopped) continue;
      // Only the node the session rests in carries meta: at most one entry.
      const metas = Object.values(p.state.getMeta() as Record<string, StageMeta>);
      expect(metas.length, JSON.stringify(p.state.value)).toBeLessThanOrEqual(1);
      const meta = metas[0] ?? null;
      const where = JSON.stringify(p.state.value);
      expect(restingMeta(c), where).toBe(meta);
      const ask = askFor(c);
      const dispatch = dispatchFor(c);
      expect(ask !== null, where).toBe(
        !!meta?.ask &&
          !(meta.ask === "checkpoint" && !c.phaseRun.checkpoint) &&
          !(meta.ask === "continuePhase" && !c.phases[c.currentPhase + 1]),
      );
      expect(dispatch?.persona ?? null, where).toBe(meta?.dispatch?.persona ?? null);
      expect(dispatch?.expects.result ?? null, where).toBe(meta?.dispatch?.result ?? null);
      expect(probeFor(c), where).toBe(meta?.probe ?? null);
      if (ask) seen.ask++;
      if (dispatch) seen.dispatch++;
      if (meta?.probe) seen.probe++;
    }
    expect(seen.ask).toBeGreaterThan(0);
    expect(seen.dispatch).toBeGreaterThan(0);
    expect(seen.probe).toBeGreaterThan(0);
  });

  it("offers the skill's options at each gate, in its order, and on findings the choice of what a fix round fixes", () => {
    expect(QUESTIONS.approvePlan.options).toEqual(["yes", "revise", "skip phase", "stop"]);
    expect(QUESTIONS.exhausted.options).toEqual(["fix manually and continue", "revise plan", "stop"]);
    // The skill's "fix" is every failure (or the blocking findings); "fix these" a list the person names.
    expect(QUESTIONS.verifyFailed.options).toEqual(["fix", "fix these", "skip verification", "stop"]);
    expect(QUESTIONS.reviewBlocked.options).toEqual([
      "fix",
      "fix blocking and warnings",
      "fix these",
      "override",
      "stop",
    ]);
    expect(QUESTIONS.continuePhase.options).toEqual(["yes", "stop"]);
  });
});
