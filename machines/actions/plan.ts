// The actions of ASSESS, PLAN and APPROVE_PLAN: the phase starts, the plan's facts, the plan check's
// send-back, the plan gate's decisions.
// Pure, as the machine: each only changes context or appends an effect to the outbox.
import { assertEvent } from "xstate";
import type { Notice } from "../../src/session/schema.js";
import { channelPhrase } from "../../src/vocabulary.js";
import { quoted, saidWith } from "../words.js";
import { signalsFor } from "../../src/rules/signals.js";
import { RIGOR, sendBacksAllowed } from "../../src/rules/policy.js";
import { effectiveComplexity, complexityOverrideFor, higherComplexity } from "../complexity.js";
import { effect } from "../effect.js";
import { planHash, planWaves, gateNotice, phaseNamed, planSignals, wavesWithout } from "../plan-gate.js";
import { answered, decision, type DecisionName } from "../decisions.js";
import { act } from "./act.js";

export const planActions = {
  // ASSESS ------------------------------------------------------------------------------
  /**
   * The phase starts: its first commit is HEAD now (the phase review's range starts there), and
   * the executor's state.json is reset, so an earlier phase's "Task 1: complete" cannot pass for
   * this phase's.
   */
  recordPhaseStart: act(({ context, event }) => {
    assertEvent(event, "ASSESSED");
    const phase = context.phases[context.currentPhase];
    return {
      phaseRun: { ...context.phaseRun, startCommit: context.phaseRun.startCommit ?? event.head ?? null },
      outbox: phase
        ? [...context.outbox, effect(context, { type: "resetExecutionState", args: { phase: phase.name } })]
        : context.outbox,
    };
  }),
  setPlanPath: act(({ context, event }) => {
    assertEvent(event, "ASSESSED");
    const path = event.planPath;
    return {
      phases: context.phases.map((p, i) => (i === context.currentPhase ? { ...p, planPath: path } : p)),
    };
  }),
  awaitInteractivePlan: act(({ context }) => ({
    awaitingInteractivePlan: true,
    notices: [...context.notices, { kind: "interactivePlanning", ...phaseNamed(context) }],
  })),
  assessReport: act(({ context }) => {
    const phase = context.phases[context.currentPhase];
    const c = effectiveComplexity(phase);
    const reviewed = context.reviewPlans || RIGOR[context.rigorLevel].planGate === "always";
    return {
      awaitingInteractivePlan: false,
      notices: [
        ...context.notices,
        { kind: "assessed", ...phaseNamed(context), complexity: c, ...(reviewed ? { reviewed } : {}) },
      ],
    };
  }),
  // PLAN --------------------------------------------------------------------------------
  storePlanFacts: act(({ context, event }) => {
    assertEvent(event, ["PLANNED", "PLAN_FACTS"]);
    const i = context.currentPhase;
    const phase = context.phases[i];
    const override = complexityOverrideFor(phase.complexity, event.plan.taskCount, event.plan.checkpointCount);
    const newOverride = higherComplexity(override, phase.complexityOverride);
    let note: Notice | null = null;
    if (override === "high" && phase.complexityOverride !== "high")
      note = { kind: "planLarger", override: "high", taskCount: event.plan.taskCount };
    else if (override === "medium" && phase.complexityOverride === null)
      note = { kind: "planLarger", override: "medium", taskCount: event.plan.taskCount };
    return {
      awaitingInteractivePlan: false,
      phases: context.phases.map((p, j) =>
        j === i ? { ...p, planPath: event.plan.path, complexityOverride: newOverride } : p,
      ),
      phaseRun: {
        ...context.phaseRun,
        taskCount: event.plan.taskCount,
        checkpointCount: event.plan.checkpointCount,
        concerns: [...event.plan.concerns],
        assumptions: [...(event.plan.assumptions ?? [])],
        deferred: [...(event.plan.deferred ?? [])],
        planProblems: [...(event.plan.problems ?? [])],
        revision: null,
        planSha256: event.plan.sha256 ?? null,
        nextTask: context.phaseRun.nextTask ?? 1,
        // A plan read again (a new plan, or one changed after its approval) starts its waves afresh:
        // an earlier plan's merged tasks are on the branch, its unmerged branches kept for the user.
        // After an executor's plan defect in a wave, the tasks merged under the earlier plan stay out.
        ...(event.plan.waves !== undefined
          ? { waves: wavesWithout(event.plan.waves, context.phaseRun.tasksMerged), waveRun: null }
          : {}),
      },
      notices: note ? [...context.notices, note] : context.notices,
    };
  }),
  /** The plan check found problems: the planner gets the plan back with the list. */
  sendPlanBack: act(({ context, event }) => {
    assertEvent(event, "PLANNED");
    const problems = event.plan.problems ?? [];
    const attempt = (context.phaseRun.planChecks ?? 0) + 1;
    return {
      phaseRun: {
        ...context.phaseRun,
        planChecks: attempt,
        revision: `The server's plan check sent the plan back (${attempt} of ${sendBacksAllowed(context.retryBudget.maxAttempts)}). Fix each of these in ${event.plan.path}, keep the rest:\n${problems.map((p) => `- ${p}`).join("\n")}`,
      },
      notices: [
        ...context.notices,
        { kind: "planSentBack", problems, attempt, max: sendBacksAllowed(context.retryBudget.maxAttempts) },
      ],
    };
  }),
  /** "revise" with notes: the planner revises the plan with the reviewer's words. */
  setReviewNotes: act(({ context, event }) => {
    assertEvent(event, "DECIDE");
    return {
      phaseRun: {
        ...context.phaseRun,
        revision: `The plan was reviewed and sent back for a revision with these notes (answer "revise", ${channelPhrase(event.by)}): ${quoted(saidWith(event))}`,
      },
    };
  }),
  // APPROVE_PLAN --------------------------------------------------------------------------
  /** Approved without asking: the fast rigor skips the gate, or no signal fired. */
  autoApprove: act(({ context, event }, params: { mode: "fast" | "auto" }) => {
    const signals = signalsFor(context);
    return {
      decisions: [
        ...context.decisions,
        decision(context, event, {
          decision: params.mode === "fast" ? "auto_approved_plan_fast" : "auto_approved_plan",
          by: "auto",
          ...planHash(context),
          ...planWaves(context),
          signals,
          fired: [],
        }),
      ],
      notices: [...context.notices, gateNotice(context, params.mode)],
    };
  }),
  pauseReport: act(({ context }) => ({ notices: [...context.notices, gateNotice(context, "pause")] })),
  recordPlanDecision: act(({ context, event }, params: { decision: DecisionName }) => {
    assertEvent(event, "DECIDE");
    return {
      decisions: [
        ...context.decisions,
        answered(context, event, params.decision, {
          ...planSignals(context),
          ...planHash(context),
          ...planWaves(context),
        }),
      ],
    };
  }),
  /** The approval belongs to the plan as read: its hash is what later calls compare against. */
  approvePlanHash: act(({ context }) => ({
    phaseRun: { ...context.phaseRun, approvedPlanSha256: context.phaseRun.planSha256 ?? null, planChanged: null },
  })),
  notePlanChanged: act(({ context, event }) => {
    assertEvent(event, "PLAN_CHANGED");
    const phase = context.phases[context.currentPhase];
    return {
      phaseRun: { ...context.phaseRun, approvedPlanSha256: null, planChanged: { from: event.from, to: event.to } },
      notices: [
        ...context.notices,
        {
          kind: "planChanged",
          planPath: phase?.planPath ?? null,
          whileAsking: context.currentState === "APPROVE_PLAN",
          from: event.from,
          to: event.to,
        },
      ],
    };
  }),
  skipPhase: act(({ context }) => ({
    phases: context.phases.map((p, i) => (i === context.currentPhase ? { ...p, status: "skipped" as const } : p)),
  })),
};
