// The actions every state shares: a start, a resume, a stop, a decision, a persona that could not
// finish, the user's own changes at the start, and the budget question's answers.
// Pure, as the machine: each only changes context or appends an effect to the outbox.
import { assertEvent } from "xstate";
import type { AutopilotState, Notice, Phase } from "../../src/session/schema.js";
import { emptyPhaseRun } from "../../src/session/schema.js";
import { sessionSoFar } from "../reports.js";
import { SPEC_PHASES_SHOWN } from "../../src/session/notices.js";
import { formatBudget, formatCost, raisedBudget } from "../../src/session/usage.js";
import { effect } from "../effect.js";
import { gateNotice, planSignals } from "../plan-gate.js";
import { answered, type DecisionName } from "../decisions.js";
import { act } from "./act.js";

/** Where the session stands and what was done and decided so far: what a host that lost its context needs first. */
export function resumedNotice(context: AutopilotState): Notice {
  return {
    kind: "resumed",
    state: context.currentState,
    phaseNumber: context.currentPhase + 1,
    phaseName: context.phases[context.currentPhase]?.name ?? null,
    soFar: sessionSoFar(context),
  };
}

export const sessionActions = {
  // Keeps the upstream `currentState` field in step with the machine's top-level state.
  enterState: act((_, params: { state: AutopilotState["currentState"] }) => ({ currentState: params.state })),
  initFromStart: act(({ event }) => {
    assertEvent(event, "START");
    return {
      specPath: event.specPath,
      sessionDir: event.sessionDir,
      startingCommit: event.startingCommit,
      rigorLevel: event.rigorLevel,
      reviewPlans: event.reviewPlans,
      currentPhase: 0,
      phases: event.phases.map((p): Phase => ({
        name: p.name,
        complexity: p.complexity,
        complexityOverride: null,
        planPath: null,
        status: "pending",
      })),
      phaseRun: emptyPhaseRun(event.now),
      notices: [
        {
          kind: "specRead",
          phaseCount: event.phases.length,
          // At most 5 listed: the report reaches the host model, and a long spec's list would make
          // its first Step grow with the spec (docs/performance.md keeps per-transition bytes flat).
          phases: event.phases.slice(0, SPEC_PHASES_SHOWN).map((p) => ({ name: p.name, complexity: p.complexity })),
          rigorLevel: event.rigorLevel,
          reviewPlans: event.reviewPlans,
          sessionDir: event.sessionDir,
        },
      ],
    };
  }),
  // INIT: changes autopilot did not make were in the working tree at the start --------------
  holdForUserChanges: act(({ context, event }) => {
    assertEvent(event, "START");
    const paths = event.userChanges ?? [];
    return {
      userChanges: { count: paths.length, paths: paths.slice(0, 50) },
      notices: [...context.notices, { kind: "userChanges", count: paths.length }],
    };
  }),
  recordUserChangesDecision: act(({ context, event }, params: { decision: DecisionName }) => {
    assertEvent(event, "DECIDE");
    const uc = context.userChanges;
    return {
      decisions: [
        ...context.decisions,
        answered(context, event, params.decision, uc ? { paths: uc.paths, pathCount: uc.count } : {}),
      ],
      notices: [],
    };
  }),
  commitUserChanges: act(({ context }) => ({
    outbox: [...context.outbox, effect(context, { type: "commitUserChanges", args: {} })],
  })),
  resumeReport: act(({ context }) => {
    const notices: Notice[] = [...context.notices, resumedNotice(context)];
    // A plan paused for review: the question alone ("Approve this plan?") says nothing of why
    // it paused; show the concern and signal lines again, as autopilot_next does.
    if (context.currentState === "APPROVE_PLAN" && context.stage === "review" && context.phases[context.currentPhase]) {
      notices.push(gateNotice(context, "pause"));
    }
    return { notices };
  }),
  clearReport: act(() => ({ notices: [] })),
  clearStopped: act(() => ({ stopped: false })),
  markStopped: act(({ context, event }) => {
    assertEvent(event, "DECIDE");
    return {
      stopped: true,
      notices: [...context.notices, { kind: "stopped", state: context.currentState }],
      decisions: [
        ...context.decisions,
        answered(context, event, "stopped", context.currentState === "APPROVE_PLAN" ? planSignals(context) : {}),
      ],
    };
  }),
  markPhaseStarted: act(({ context, event }) => {
    const phases = context.phases.map((p, i) =>
      i === context.currentPhase && !p.startedAt ? { ...p, startedAt: event.now } : p,
    );
    const run = context.phaseRun.startedAt ? context.phaseRun : { ...context.phaseRun, startedAt: event.now };
    return { phases, phaseRun: run };
  }),
  personaFailed: act(({ context, event }) => {
    assertEvent(event, "PERSONA_FAILED");
    return {
      phaseRun: { ...context.phaseRun, personaError: event.error },
      notices: [...context.notices, { kind: "personaFailed", error: event.error }],
    };
  }),
  // The budget gate ---------------------------------------------------------------------------
  raiseBudget: act(({ context, event }) => {
    assertEvent(event, "DECIDE");
    const budget = context.budget!;
    const raised = raisedBudget(budget, event.rationale);
    return {
      budget: raised,
      notices: [
        ...context.notices,
        {
          kind: "budgetAnswered",
          answer: "raised",
          budget: formatBudget(budget),
          raised: formatBudget(raised),
          spent: formatCost(context.usage?.total),
        },
      ],
    };
  }),
  /** The one dispatch let through is this step's (the engine moved the step counter before the event). */
  continueOnce: act(({ context }) => ({
    budget: { ...context.budget!, continueOnceAt: context.stepId },
    notices: [
      ...context.notices,
      {
        kind: "budgetAnswered",
        answer: "continueOnce",
        budget: formatBudget(context.budget!),
        spent: formatCost(context.usage?.total),
      },
    ],
  })),
  stopForBudget: act(({ context }) => ({
    stopped: true,
    notices: [
      ...context.notices,
      {
        kind: "budgetAnswered",
        answer: "stopped",
        budget: formatBudget(context.budget!),
        spent: formatCost(context.usage?.total),
      },
    ],
  })),
  clearPersonaError: act(({ context }) => ({
    phaseRun: { ...context.phaseRun, personaError: null },
  })),
};
