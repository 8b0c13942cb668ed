// The machine's named guards, with the skill's names. Pure: each reads the context and the event.
import { assertEvent } from "xstate";
import type { AutopilotState } from "../src/session/schema.js";
import type { AutopilotEvent } from "./events.js";
import { effectiveComplexity } from "./complexity.js";
import { hasBlocking, incompleteBlocking } from "./blocking.js";
import { sameTaskAs, goesToExecutor } from "./retries.js";
import { MAX_FINAL_REVIEW_FIXES } from "./review-rounds.js";
import { firedSignals, signalsFor } from "../src/rules/signals.js";
import { RIGOR, planDefectSendBackLeft, sendBacksAllowed } from "../src/rules/policy.js";
import { budgetSpent } from "../src/session/usage.js";
import type { AnswerOf } from "./questions.js";
import { saidWith } from "./words.js";

type Args = { context: AutopilotState; event: AutopilotEvent };

/** The plan gate's "revise" (reviseWithNotes compares with it). */
const REVISE: AnswerOf<"approvePlan"> = "revise";

export const guards = {
  // INIT
  startedWithUserChanges: ({ event }: Args) => {
    assertEvent(event, "START");
    return (event.userChanges ?? []).length > 0;
  },
  // ASSESS
  planAlreadyExists: ({ event }: Args) => {
    assertEvent(event, "ASSESSED");
    return event.planPath !== null;
  },
  phaseIsHighComplexity: ({ context }: Args) => effectiveComplexity(context.phases[context.currentPhase]) === "high",
  // PLAN: the plan check (src/markdown/plan.ts) found problems, and the planner may try again
  planHasProblems: ({ event }: Args) => {
    assertEvent(event, "PLANNED");
    return (event.plan.problems ?? []).length > 0;
  },
  planCheckBudgetLeft: ({ context }: Args) =>
    (context.phaseRun.planChecks ?? 0) < sendBacksAllowed(context.retryBudget.maxAttempts),
  // APPROVE_PLAN
  planGateSkipped: ({ context }: Args) => RIGOR[context.rigorLevel].planGate === "skip",
  anySignalFires: ({ context }: Args) => firedSignals(signalsFor(context)).length > 0,
  planChangedAfterApproval: ({ context }: Args) => !!context.phaseRun.planChanged,
  // EXECUTE
  outcomeComplete: ({ event }: Args) => {
    assertEvent(event, "EXECUTED");
    return event.outcome === "complete";
  },
  verifiesByValidation: ({ context }: Args) => RIGOR[context.rigorLevel].verifyBy === "validation",
  checkpointPassed: ({ event }: Args) => {
    assertEvent(event, "EXECUTED");
    return event.outcome === "checkpoint" && event.checkpoint?.type === "passed";
  },
  /** The checkpoint came at the plan's last task: nothing is left for the executor to do. */
  atLastTask: ({ context, event }: Args) => {
    assertEvent(event, "EXECUTED");
    const last = context.phaseRun.taskCount;
    return typeof last === "number" && last > 0 && typeof event.task?.number === "number" && event.task.number >= last;
  },
  outcomePlanDefect: ({ event }: Args) => {
    assertEvent(event, "EXECUTED");
    return event.outcome === "plan_defect";
  },
  /** The executor reports a plan defect and the phase may still send its plan back. */
  planDefectWithinBudget: ({ context, event }: Args) => {
    assertEvent(event, "EXECUTED");
    return (
      event.outcome === "plan_defect" &&
      planDefectSendBackLeft(context.phaseRun.planDefects, context.retryBudget.maxAttempts)
    );
  },
  fixPending: ({ context }: Args) => context.phaseRun.fix !== null,
  checkpointNeedsHuman: ({ event }: Args) => {
    assertEvent(event, "EXECUTED");
    return event.outcome === "checkpoint" && !!event.checkpoint && event.checkpoint.type !== "passed";
  },
  retryBudgetLeft: ({ context, event }: Args) => {
    assertEvent(event, "EXECUTED");
    const cur = context.retryBudget.currentTask;
    const sameTask = cur && sameTaskAs(cur, event.task);
    const used = sameTask ? cur.attemptsUsed : 0;
    return used < context.retryBudget.maxAttempts;
  },
  // A commit the repository's hooks refused
  rejectedRecoveryCommit: ({ event }: Args) => {
    assertEvent(event, "COMMIT_REJECTED");
    return event.commit.args.recovery;
  },
  commitFixLeft: ({ context, event }: Args) => {
    assertEvent(event, "COMMIT_REJECTED");
    return goesToExecutor(context, event);
  },
  // VERIFY
  verificationPassed: ({ event }: Args) => {
    assertEvent(event, "VERIFIED");
    return event.verdict === "pass";
  },
  validationPassed: ({ event }: Args) => {
    assertEvent(event, "VALIDATED");
    return event.passed;
  },
  // REVIEW / FINAL_REVIEW
  noBlockingFindings: ({ event }: Args) => {
    assertEvent(event, "REVIEWED");
    return !hasBlocking(event.findings);
  },
  /** Standard and thorough: warnings without a blocking finding are put to the person before moving on. */
  asksAboutWarnings: ({ context, event }: Args) => {
    assertEvent(event, "REVIEWED");
    return RIGOR[context.rigorLevel].warningsGate && event.findings.some((f) => f.severity === "warning");
  },
  // The review check: a blocking finding without a file, a line and a scenario goes back.
  reviewIncomplete: ({ event }: Args) => {
    assertEvent(event, "REVIEWED");
    return incompleteBlocking(event.findings).length > 0;
  },
  reviewCheckBudgetLeft: ({ context }: Args) =>
    (context.phaseRun.reviewChecks ?? 0) < sendBacksAllowed(context.retryBudget.maxAttempts),
  finalReviewCheckBudgetLeft: ({ context }: Args) =>
    (context.finalReview.checks ?? 0) < sendBacksAllowed(context.retryBudget.maxAttempts),
  finalFixBudgetLeft: ({ context }: Args) => context.finalReview.retryCount < MAX_FINAL_REVIEW_FIXES,
  // PHASE_COMPLETE
  noMorePhases: ({ context }: Args) => context.currentPhase >= context.phases.length - 1,
  // The budget gate: spent, and this step is not the one "continue once" let through
  budgetSpent: ({ context }: Args) =>
    !!context.budget &&
    !!budgetSpent(context.budget, context.usage) &&
    context.budget.continueOnceAt !== context.stepId,
  // answers
  answered: ({ event }: Args, params: { answer: string }) => event.type === "DECIDE" && event.answer === params.answer,
  /** "revise" with the reviewer's notes in the reason: the planner revises with them. */
  reviseWithNotes: ({ event }: Args) =>
    event.type === "DECIDE" && event.answer === REVISE && saidWith(event).length > 0,
};
