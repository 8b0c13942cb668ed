// The harness-autopilot statechart. Pure: states, events, named guards and named actions that only
// change context or name an effect (appended to `outbox`; the engine performs it). No I/O, no clock,
// no randomness: time and every fact read from disk arrive inside events.
//
// Top-level states are the skill's ten states (persisted as `currentState`); children are the
// places a state can rest in (persisted as `stage`). Guard and action names follow the skill's
// wording so a reviewer can match them line by line.
import { and, assertEvent, assign, not, setup } from "xstate";
import type {
  AutopilotState,
  Complexity,
  Decision,
  DecisionChannel,
  Disputed,
  Effect,
  EffectBody,
  EffectOf,
  Finding,
  Phase,
  PendingCheckpoint,
  ReviewRound,
  RigorLevel,
  VerificationRound,
} from "../session/schema.js";
import { emptyPhaseRun } from "../session/schema.js";
import type { PersonaName, ResultKind } from "../protocol/step.js";
import { channelCounts, channelPhrase } from "../vocabulary.js";
import { countBySeverity, doneNotice, phaseSummaryNotice, sessionSoFar } from "./reports.js";
import { SPEC_PHASES_SHOWN, type Notice } from "../session/notices.js";
import { firedSignals, signalsFor } from "./signals.js";
import { FINAL_REVIEW_FIX_BUDGET, RIGOR, sendBacksAllowed } from "./policy.js";
import { answer, checkpointOptions, type AnswerOf, type QuestionName } from "./questions.js";
import { budgetSpent, formatBudget, formatCost, raisedBudget } from "../session/usage.js";

/** The hook whose refusal is the executor's to fix (it checks the change); other hooks check the message. */
export const FIXABLE_HOOK = "pre-commit";

// ---------------------------------------------------------------------------------------------
// Events

/** What the engine learned about a plan file: it exists, and what it contains. */
export interface PlanFacts {
  path: string;
  taskCount: number;
  checkpointCount: number;
  concerns: string[];
  /** sha256 of the plan file's content, as read (absent: not computed). */
  sha256?: string | null;
  /** What the plan check found (src/markdown/plan.ts planProblems); absent or empty: nothing. */
  problems?: string[];
  /** The planner's assumptions and deferred unknowns: recorded and shown, they do not pause. */
  assumptions?: string[];
  deferred?: string[];
}

export interface SpecPhaseInput {
  name: string;
  complexity: Complexity;
}

type Now = { now: string };
export type AutopilotEvent =
  | ({
      type: "START";
      phases: SpecPhaseInput[];
      specPath: string;
      sessionDir: string;
      startingCommit: string | null;
      rigorLevel: RigorLevel;
      reviewPlans: boolean;
      /**
       * Paths that already differed from HEAD (modified, staged, deleted, untracked) when the
       * session started, session files aside. Non-empty: ask the user before anything else.
       */
      userChanges?: string[];
    } & Now)
  | ({ type: "RESUME" } & Now)
  | ({ type: "ASSESSED"; planPath: string | null; /** HEAD as the phase starts. */ head?: string | null } & Now)
  | ({ type: "PLAN_FACTS"; plan: PlanFacts } & Now)
  | ({ type: "PLANNED"; plan: PlanFacts; summary?: string } & Now)
  | ({
      type: "EXECUTED";
      /** `plan_defect`: the plan is wrong at `task`; it goes back to the planner, not to a retry. */
      outcome: "complete" | "checkpoint" | "failed" | "plan_defect";
      checkpoint?: PendingCheckpoint;
      task?: { number: number | null; name: string };
      error?: string;
      fixAttempted?: string;
      summary?: string;
      /** plan_defect: what is wrong in the plan, with the evidence. */
      defect?: string;
      /** What the executor ran and saw (commands and their outcome). */
      evidence?: string[];
      /** What it says later phases should know (kept in the session's learnings). */
      learnings?: string[];
    } & Now)
  | ({ type: "VALIDATED"; passed: boolean; summary: string } & Now)
  | ({ type: "VERIFIED"; verdict: "pass" | "fail"; findings: string[]; evidence?: string[] } & Now)
  | ({ type: "REVIEWED"; findings: Finding[] } & Now)
  | ({
      type: "FIXED";
      summary: string;
      /** Findings the fixer disputes, with its evidence (the next check judges them). */
      disputed?: Disputed[];
      evidence?: string[];
      learnings?: string[];
    } & Now)
  | ({ type: "PERSONA_FAILED"; error: string } & Now)
  | ({ type: "PLAN_CHANGED"; from: string | null; to: string | null } & Now)
  /**
   * The repository's hooks refused a commit the outbox owed (the effect performer saw it; the commit
   * stays owed, held in `phaseRun.rejectedCommit`). `output` is what the hook printed, trimmed.
   */
  | ({ type: "COMMIT_REJECTED"; commit: EffectOf<"commit">; hook: string; output: string; paths: string[] } & Now)
  | ({ type: "DECIDE"; answer: string; rationale?: string; by: DecisionChannel; /** by "relayed": the user's words as the host quoted them. */ userWords?: string } & Now);

export type EventType = AutopilotEvent["type"];

// ---------------------------------------------------------------------------------------------
// What a resting stage means. Declared once, as `meta` on the state node the session rests in;
// the stage list, the asks, the dispatches, the probes and the brief's facts are read from it
// (src/machine/stages.ts).

/** A fact the engine reads from disk before the session can rest (the machine waits for its event). */
export type Probe = "assess" | "planFacts" | "validate";
/** The question a stage asks: an entry of QUESTIONS (src/machine/questions.ts: its options, human-only answers, --yes policy). */
export type AskName = QuestionName;
/** What a dispatch brief is given from disk (src/engine/facts.ts reads each). */
export type DispatchFact = "phaseDescription" | "diffStat" | "phaseFindings" | "learnings";
/** The persona job a stage dispatches (src/personas/dispatch.ts words its prompt and brief). */
export type DispatchJob = "plan" | "execute" | "fix" | "verify" | "review" | "finalReview" | "finalFix" | "commitFix";

export type StageMeta = {
  /** The session asks the user (or the host) this question (its options and human-only answers: QUESTIONS). */
  ask?: AskName;
  /** The session hands this job to a persona and waits for its result. */
  dispatch?: { job: DispatchJob; persona: PersonaName; result: ResultKind; facts: readonly DispatchFact[] };
  /** The engine reads this fact and answers with its event; the session never rests here for long. */
  probe?: Probe;
  /** The session waits for work outside autopilot (interactive planning), then a resume. */
  wait?: "interactivePlan";
  /** The session waits for START (a new session) or is over (DONE). */
  start?: true;
  done?: true;
  /**
   * A state file that names no stage (upstream files never do) rests here when this holds;
   * otherwise in its state's `initial` stage.
   */
  defaultWhen?: (state: AutopilotState) => boolean;
};

/** The final review's fix budget (the policy's); kept under this name for readers of the machine. */
export const MAX_FINAL_REVIEW_FIXES = FINAL_REVIEW_FIX_BUDGET;

// ---------------------------------------------------------------------------------------------
// Pure helpers (exported for tests and for the Step renderer)

export function effectiveComplexity(phase: Phase): Complexity {
  return phase.complexityOverride ?? phase.complexity;
}

/**
 * The skill's planning override: a phase annotated low whose plan is bigger than expected is
 * reviewed as medium (>10 tasks or >3 checkpoints) or high (>20 or >6). Only ever raises.
 */
export function complexityOverrideFor(
  specComplexity: Complexity,
  taskCount: number,
  checkpointCount: number,
): Complexity | null {
  if (specComplexity !== "low") return null;
  if (taskCount > 20 || checkpointCount > 6) return "high";
  if (taskCount > 10 || checkpointCount > 3) return "medium";
  return null;
}

/** The signal registry's snapshot and verdict, re-exported for readers of the machine. */
export { firedSignals, signalsFor };

export function hasBlocking(findings: Finding[]): boolean {
  return findings.some((f) => f.severity === "blocking");
}

/**
 * The review check: each blocking finding must name a file, a line and the concrete scenario that
 * triggers it. What is missing, one line per finding (empty: the review passes the check).
 */
export function incompleteBlocking(findings: Finding[]): string[] {
  const out: string[] = [];
  for (const f of findings) {
    if (f.severity !== "blocking") continue;
    const missing = [!f.file?.trim() && "file", f.line === undefined && "line", !f.scenario?.trim() && "scenario"].filter(Boolean);
    if (missing.length) out.push(`"${f.title}" has no ${missing.join(", ").replace(/, ([^,]*)$/, " or $1")}`);
  }
  return out;
}

/** A blocking finding as the fixer and the question read it: title, place, why, how it triggers. */
export function findingLine(f: Finding): string {
  return `${f.title}${f.file ? ` (${f.file}${f.line ? `:${f.line}` : ""})` : ""}${f.rationale ? ` — ${f.rationale}` : ""}${f.scenario ? ` Scenario: ${f.scenario}` : ""}`;
}

export { checkpointOptions };

function phaseLabel(state: AutopilotState): string {
  const phase = state.phases[state.currentPhase];
  return `Phase ${state.currentPhase + 1}: ${phase?.name ?? "?"}`;
}

/** An effect the machine owes (its types and args: src/session/effects.ts), with its id. */
function effect(state: AutopilotState, body: EffectBody): Effect {
  // stepId is bumped by the engine before each event, so ids are unique within the session and
  // stable if the same transition is replayed from the saved outbox.
  const n = state.outbox.filter((e) => e.type === body.type).length;
  return { id: `s${state.stepId}-${body.type}${n ? `-${n}` : ""}`, ...body };
}

function decision(
  state: AutopilotState,
  ev: { now: string; userWords?: string },
  fields: Partial<Decision> & { decision: string },
): Decision {
  return {
    phase: ["INIT", "FINAL_REVIEW", "DONE"].includes(state.currentState) ? null : state.currentPhase,
    timestamp: ev.now,
    state: state.currentState,
    ...fields,
    // A host that relays the user's answer says so: kept as its claim, beside the channel.
    ...(ev.userWords ? { userWords: ev.userWords.slice(0, 2000) } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// The machine

type Ctx = AutopilotState;

/** "stop" at any question: the session is saved where it is (every question offers it: tests/machine/questions.test.ts). */
const STOP = { guard: { type: "answered", params: { answer: "stop" } }, actions: "markStopped" } as const;

/** The plan file changed after its approval (the engine compares hashes on every call). */
const PLAN_CHANGED_AFTER_APPROVAL = {
  PLAN_CHANGED: { target: "#autopilot.APPROVE_PLAN.gather", actions: "notePlanChanged" },
} as const;

/** A persona's "I could not": rest in the stage's `personaFailed` child (personaFailedStage). */
const ASK_RETRY = { target: "personaFailed", actions: "personaFailed" } as const;

/**
 * A persona said it could not do its job: ask "retry the step or stop?" (the skill's escalation
 * for a delegated skill that fails to produce its output). Shared by every dispatching state.
 */
function personaFailedStage(retryTarget: string) {
  return {
    meta: { ask: "personaFailed" },
    on: {
      DECIDE: [
        {
          guard: answer("personaFailed", "retry"),
          target: retryTarget,
          actions: [{ type: "recordDecision", params: { decision: "retried_step" } }, "clearPersonaError"],
        },
        STOP,
      ],
    },
  } as const;
}

/** How many times the repository's hooks have refused this commit already (0 for a new one). */
function refusalsOf(context: AutopilotState, commit: Effect): number {
  const held = context.phaseRun.rejectedCommit;
  return held && held.effect.id === commit.id ? held.attempts.length : 0;
}

/** A refused commit goes to the executor: the pre-commit hook refused it, and retries are left. */
function goesToExecutor(context: AutopilotState, event: { commit: Effect; hook: string }): boolean {
  return event.hook === FIXABLE_HOOK && refusalsOf(context, event.commit) < context.retryBudget.maxAttempts;
}

/**
 * A commit the repository's hooks refused, in a state that owes commits (EXECUTE: checkpoints;
 * VERIFY: the phase's execution; FINAL_REVIEW: the fix rounds). The pre-commit hook's complaint is
 * the executor's to fix, as a failed task is, within the retry budget (`commitFix`); past the budget,
 * or when a hook refused the message itself, the user is asked (`commitBlocked`). Either way the
 * same commit is made again afterwards, and the session goes on to `resume`, where it was headed.
 * A recovery commit (the budget of a task ran out) is not retried: its work stays in the tree.
 */
function onCommitRejected(recovery: boolean) {
  return [
    ...(recovery ? [{ guard: "rejectedRecoveryCommit", actions: "recoveryCommitRejected" } as const] : []),
    { guard: "commitFixLeft", target: ".commitFix", actions: "recordCommitRejected" },
    { target: ".commitBlocked", actions: "recordCommitRejected" },
  ] as const;
}

/** The plan gate's "revise" (reviseWithNotes compares with it). */
const REVISE: AnswerOf<"approvePlan"> = "revise";

const ANSWER_FIXED_BY_HAND = answer("commitRejected", "fix it yourself and continue");
const ANSWER_WITHOUT_HOOKS = answer("commitRejected", "commit without hooks this once");
const FIXED_BY_HAND = [
  { type: "recordDecision", params: { decision: "fixed_commit_manually" } },
  "clearPersonaError",
  "retryRejectedCommit",
] as const;
const WITHOUT_HOOKS = [
  { type: "recordDecision", params: { decision: "committed_without_hooks" } },
  "clearPersonaError",
  { type: "retryRejectedCommit", params: { noVerify: true } },
] as const;

/**
 * The two stages of a refused commit in a state: `commitFix` (the executor fixes what the
 * pre-commit hook reported) and `commitBlocked` (the user is asked). Both make the held commit again
 * and go on to `target`; in VERIFY with `--fast`, to the validation instead (`viaValidation`).
 */
function commitRejectedStages<T extends string>(target: T, viaValidation = false) {
  const fixed = viaValidation
    ? ([{ guard: "verifiesByValidation", target: "validating", actions: "retryRejectedCommit" }, { target, actions: "retryRejectedCommit" }] as const)
    : ([{ target, actions: "retryRejectedCommit" }] as const);
  const answered = viaValidation
    ? ([
        { guard: and([ANSWER_FIXED_BY_HAND, "verifiesByValidation"]), target: "validating", actions: FIXED_BY_HAND },
        { guard: ANSWER_FIXED_BY_HAND, target, actions: FIXED_BY_HAND },
        { guard: and([ANSWER_WITHOUT_HOOKS, "verifiesByValidation"]), target: "validating", actions: WITHOUT_HOOKS },
        { guard: ANSWER_WITHOUT_HOOKS, target, actions: WITHOUT_HOOKS },
      ] as const)
    : ([
        { guard: ANSWER_FIXED_BY_HAND, target, actions: FIXED_BY_HAND },
        { guard: ANSWER_WITHOUT_HOOKS, target, actions: WITHOUT_HOOKS },
      ] as const);
  return {
    commitFix: {
      meta: { dispatch: { job: "commitFix", persona: "harness-task-executor", result: "fixed", facts: [] } },
      always: [budgetCheck("budgetCommitFix")],
      on: {
        FIXED: fixed,
        PERSONA_FAILED: { target: "commitBlocked", actions: "personaFailed" },
      },
    },
    commitBlocked: {
      meta: { ask: "commitRejected" },
      on: { DECIDE: [...answered, STOP] },
    },
  } as const;
}

/**
 * The budget gate before a dispatching stage: a session whose spending budget is spent rests here
 * and asks (raise the budget, continue once, or stop) instead of handing `stage`'s work to a
 * persona; answered, or once the budget is no longer spent (a resume with a larger --budget), it
 * goes on to `stage`. Each dispatching stage has its own (`budgetRunning` before `running`, ...), so
 * where the session goes on is in the state tree, not in the state file.
 */
function budgetStage<S extends string>(stage: S) {
  return {
    meta: { ask: "budget" },
    always: [{ guard: not("budgetSpent"), target: stage }],
    on: {
      DECIDE: [
        { guard: answer("budget", "raise budget"), target: stage, actions: [{ type: "recordDecision", params: { decision: "raised_budget" } }, "raiseBudget"] },
        { guard: answer("budget", "continue once"), target: stage, actions: [{ type: "recordDecision", params: { decision: "budget_continue_once" } }, "continueOnce"] },
        { guard: answer("budget", "stop"), actions: [{ type: "recordDecision", params: { decision: "stopped_budget" } }, "stopForBudget"] },
      ],
    },
  } as const;
}

/** A dispatching stage's check before it dispatches: a spent budget asks first (budgetStage). */
function budgetCheck<S extends string>(budgetStageName: S) {
  return { guard: "budgetSpent", target: budgetStageName } as const;
}

export const autopilotMachine = setup({
  types: {
    meta: {} as StageMeta,
    context: {} as Ctx,
    events: {} as AutopilotEvent,
    input: {} as Ctx,
  },
  guards: {
    // INIT
    startedWithUserChanges: ({ event }) => {
      assertEvent(event, "START");
      return (event.userChanges ?? []).length > 0;
    },
    // ASSESS
    planAlreadyExists: ({ event }) => {
      assertEvent(event, "ASSESSED");
      return event.planPath !== null;
    },
    phaseIsHighComplexity: ({ context }) => effectiveComplexity(context.phases[context.currentPhase]) === "high",
    // PLAN: the plan check (src/markdown/plan.ts) found problems, and the planner may try again
    planHasProblems: ({ event }) => {
      assertEvent(event, "PLANNED");
      return (event.plan.problems ?? []).length > 0;
    },
    planCheckBudgetLeft: ({ context }) => (context.phaseRun.planChecks ?? 0) < sendBacksAllowed(context.retryBudget.maxAttempts),
    // APPROVE_PLAN
    planGateSkipped: ({ context }) => RIGOR[context.rigorLevel].planGate === "skip",
    anySignalFires: ({ context }) => firedSignals(signalsFor(context)).length > 0,
    planChangedAfterApproval: ({ context }) => !!context.phaseRun.planChanged,
    // EXECUTE
    outcomeComplete: ({ event }) => {
      assertEvent(event, "EXECUTED");
      return event.outcome === "complete";
    },
    verifiesByValidation: ({ context }) => RIGOR[context.rigorLevel].verifyBy === "validation",
    checkpointPassed: ({ event }) => {
      assertEvent(event, "EXECUTED");
      return event.outcome === "checkpoint" && event.checkpoint?.type === "passed";
    },
    /** The checkpoint came at the plan's last task: nothing is left for the executor to do. */
    atLastTask: ({ context, event }) => {
      assertEvent(event, "EXECUTED");
      const last = context.phaseRun.taskCount;
      return typeof last === "number" && last > 0 && typeof event.task?.number === "number" && event.task.number >= last;
    },
    outcomePlanDefect: ({ event }) => {
      assertEvent(event, "EXECUTED");
      return event.outcome === "plan_defect";
    },
    /** The executor reports a plan defect and the phase may still send its plan back. */
    planDefectWithinBudget: ({ context, event }) => {
      assertEvent(event, "EXECUTED");
      return event.outcome === "plan_defect" && (context.phaseRun.planDefects ?? 0) < sendBacksAllowed(context.retryBudget.maxAttempts);
    },
    fixPending: ({ context }) => context.phaseRun.fix !== null,
    checkpointNeedsHuman: ({ event }) => {
      assertEvent(event, "EXECUTED");
      return event.outcome === "checkpoint" && !!event.checkpoint && event.checkpoint.type !== "passed";
    },
    retryBudgetLeft: ({ context, event }) => {
      assertEvent(event, "EXECUTED");
      const cur = context.retryBudget.currentTask;
      const sameTask = cur && sameTaskAs(cur, event.task);
      const used = sameTask ? cur.attemptsUsed : 0;
      return used < context.retryBudget.maxAttempts;
    },
    // A commit the repository's hooks refused
    rejectedRecoveryCommit: ({ event }) => {
      assertEvent(event, "COMMIT_REJECTED");
      return event.commit.args.recovery;
    },
    commitFixLeft: ({ context, event }) => {
      assertEvent(event, "COMMIT_REJECTED");
      return goesToExecutor(context, event);
    },
    // VERIFY
    verificationPassed: ({ event }) => {
      assertEvent(event, "VERIFIED");
      return event.verdict === "pass";
    },
    validationPassed: ({ event }) => {
      assertEvent(event, "VALIDATED");
      return event.passed;
    },
    // REVIEW / FINAL_REVIEW
    noBlockingFindings: ({ event }) => {
      assertEvent(event, "REVIEWED");
      return !hasBlocking(event.findings);
    },
    // The review check: a blocking finding without a file, a line and a scenario goes back.
    reviewIncomplete: ({ event }) => {
      assertEvent(event, "REVIEWED");
      return incompleteBlocking(event.findings).length > 0;
    },
    reviewCheckBudgetLeft: ({ context }) => (context.phaseRun.reviewChecks ?? 0) < sendBacksAllowed(context.retryBudget.maxAttempts),
    finalReviewCheckBudgetLeft: ({ context }) => (context.finalReview.checks ?? 0) < sendBacksAllowed(context.retryBudget.maxAttempts),
    finalFixBudgetLeft: ({ context }) => context.finalReview.retryCount < MAX_FINAL_REVIEW_FIXES,
    // PHASE_COMPLETE
    noMorePhases: ({ context }) => context.currentPhase >= context.phases.length - 1,
    // The budget gate: spent, and this step is not the one "continue once" let through
    budgetSpent: ({ context }) => !!context.budget && !!budgetSpent(context.budget, context.usage) && context.budget.continueOnceAt !== context.stepId,
    // answers
    answered: ({ event }, params: { answer: string }) =>
      event.type === "DECIDE" && event.answer === params.answer,
    answeredOtherThanStop: ({ event }) => event.type === "DECIDE" && event.answer !== "stop",
    /** "revise" with the reviewer's notes in the reason: the planner revises with them. */
    reviseWithNotes: ({ event }) => event.type === "DECIDE" && event.answer === REVISE && !!event.rationale?.trim(),
  },
  actions: {
    // Keeps the upstream `currentState` field in step with the machine's top-level state.
    enterState: assign((_, params: { state: AutopilotState["currentState"] }) => ({ currentState: params.state })),
    initFromStart: assign(({ event }) => {
      assertEvent(event, "START");
      return {
        specPath: event.specPath,
        sessionDir: event.sessionDir,
        startingCommit: event.startingCommit,
        rigorLevel: event.rigorLevel,
        reviewPlans: event.reviewPlans,
        currentPhase: 0,
        phases: event.phases.map(
          (p): Phase => ({
            name: p.name,
            complexity: p.complexity,
            complexityOverride: null,
            planPath: null,
            status: "pending",
          }),
        ),
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
    holdForUserChanges: assign(({ context, event }) => {
      assertEvent(event, "START");
      const paths = event.userChanges ?? [];
      return {
        userChanges: { count: paths.length, paths: paths.slice(0, 50) },
        notices: [...context.notices, { kind: "userChanges", count: paths.length }],
      };
    }),
    recordUserChangesDecision: assign(({ context, event }, params: { decision: string }) => {
      assertEvent(event, "DECIDE");
      const uc = context.userChanges;
      return {
        decisions: [
          ...context.decisions,
          decision(context, event, {
            decision: params.decision,
            answer: event.answer,
            by: event.by,
            ...(event.rationale ? { rationale: event.rationale } : {}),
            ...(uc ? { paths: uc.paths, pathCount: uc.count } : {}),
          }),
        ],
        notices: [],
      };
    }),
    commitUserChanges: assign(({ context }) => ({
      outbox: [...context.outbox, effect(context, { type: "commitUserChanges", args: {} })],
    })),
    resumeReport: assign(({ context }) => {
      const notices: Notice[] = [
        ...context.notices,
        {
          kind: "resumed",
          state: context.currentState,
          phaseNumber: context.currentPhase + 1,
          phaseName: context.phases[context.currentPhase]?.name ?? null,
          soFar: sessionSoFar(context),
        },
      ];
      // A plan paused for review: the question alone ("Approve this plan?") says nothing of why
      // it paused; show the concern and signal lines again, as autopilot_next does.
      if (context.currentState === "APPROVE_PLAN" && context.stage === "review" && context.phases[context.currentPhase]) {
        notices.push(gateNotice(context, "pause"));
      }
      return { notices };
    }),
    clearReport: assign({ notices: () => [] }),
    clearStopped: assign({ stopped: () => false }),
    markStopped: assign(({ context, event }) => {
      assertEvent(event, "DECIDE");
      return {
        stopped: true,
        notices: [...context.notices, { kind: "stopped", state: context.currentState }],
        decisions: [
          ...context.decisions,
          decision(context, event, {
            decision: "stopped",
            answer: event.answer,
            by: event.by,
            ...(event.rationale ? { rationale: event.rationale } : {}),
            ...(context.currentState === "APPROVE_PLAN" ? planSignals(context) : {}),
          }),
        ],
      };
    }),
    markPhaseStarted: assign(({ context, event }) => {
      const phases = context.phases.map((p, i) =>
        i === context.currentPhase && !p.startedAt ? { ...p, startedAt: event.now } : p,
      );
      const run = context.phaseRun.startedAt ? context.phaseRun : { ...context.phaseRun, startedAt: event.now };
      return { phases, phaseRun: run };
    }),
    // ASSESS ------------------------------------------------------------------------------
    /**
     * The phase starts: its first commit is HEAD now (the phase review's range starts there), and
     * the executor's state.json is reset, so an earlier phase's "Task 1: complete" cannot pass for
     * this phase's.
     */
    recordPhaseStart: assign(({ context, event }) => {
      assertEvent(event, "ASSESSED");
      const phase = context.phases[context.currentPhase];
      return {
        phaseRun: { ...context.phaseRun, startCommit: context.phaseRun.startCommit ?? event.head ?? null },
        outbox: phase ? [...context.outbox, effect(context, { type: "resetExecutionState", args: { phase: phase.name } })] : context.outbox,
      };
    }),
    setPlanPath: assign(({ context, event }) => {
      assertEvent(event, "ASSESSED");
      const path = event.planPath;
      return {
        phases: context.phases.map((p, i) => (i === context.currentPhase ? { ...p, planPath: path } : p)),
      };
    }),
    awaitInteractivePlan: assign(({ context }) => ({
      awaitingInteractivePlan: true,
      notices: [...context.notices, { kind: "interactivePlanning", ...phaseNamed(context) }],
    })),
    assessReport: assign(({ context }) => {
      const phase = context.phases[context.currentPhase];
      const c = effectiveComplexity(phase);
      const reviewed = context.reviewPlans || RIGOR[context.rigorLevel].planGate === "always";
      return {
        awaitingInteractivePlan: false,
        notices: [...context.notices, { kind: "assessed", ...phaseNamed(context), complexity: c, ...(reviewed ? { reviewed } : {}) }],
      };
    }),
    // PLAN --------------------------------------------------------------------------------
    storePlanFacts: assign(({ context, event }) => {
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
        },
        notices: note ? [...context.notices, note] : context.notices,
      };
    }),
    /** The plan check found problems: the planner gets the plan back with the list. */
    sendPlanBack: assign(({ context, event }) => {
      assertEvent(event, "PLANNED");
      const problems = event.plan.problems ?? [];
      const attempt = (context.phaseRun.planChecks ?? 0) + 1;
      return {
        phaseRun: {
          ...context.phaseRun,
          planChecks: attempt,
          revision: `The server's plan check sent the plan back (${attempt} of ${sendBacksAllowed(context.retryBudget.maxAttempts)}). Fix each of these in ${event.plan.path}, keep the rest:\n${problems.map((p) => `- ${p}`).join("\n")}`,
        },
        notices: [...context.notices, { kind: "planSentBack", problems, attempt, max: sendBacksAllowed(context.retryBudget.maxAttempts) }],
      };
    }),
    /** "revise" with notes: the planner revises the plan with the reviewer's words. */
    setReviewNotes: assign(({ context, event }) => {
      assertEvent(event, "DECIDE");
      return {
        phaseRun: {
          ...context.phaseRun,
          revision: `The plan was reviewed and sent back for a revision with these notes (answer "revise", ${channelPhrase(event.by)}): ${event.rationale ?? ""}`,
        },
      };
    }),
    // APPROVE_PLAN --------------------------------------------------------------------------
    /** Approved without asking: the fast rigor skips the gate, or no signal fired. */
    autoApprove: assign(({ context, event }, params: { mode: "fast" | "auto" }) => {
      const signals = signalsFor(context);
      return {
        decisions: [
          ...context.decisions,
          decision(context, event, {
            decision: params.mode === "fast" ? "auto_approved_plan_fast" : "auto_approved_plan",
            by: "auto",
            ...planHash(context),
            signals,
            fired: [],
          }),
        ],
        notices: [...context.notices, gateNotice(context, params.mode)],
      };
    }),
    pauseReport: assign(({ context }) => ({ notices: [...context.notices, gateNotice(context, "pause")] })),
    recordPlanDecision: assign(({ context, event }, params: { decision: string }) => {
      assertEvent(event, "DECIDE");
      return {
        decisions: [
          ...context.decisions,
          decision(context, event, {
            decision: params.decision,
            answer: event.answer,
            by: event.by,
            ...(event.rationale ? { rationale: event.rationale } : {}),
            ...planSignals(context),
            ...planHash(context),
          }),
        ],
      };
    }),
    /** The approval belongs to the plan as read: its hash is what later calls compare against. */
    approvePlanHash: assign(({ context }) => ({
      phaseRun: { ...context.phaseRun, approvedPlanSha256: context.phaseRun.planSha256 ?? null, planChanged: null },
    })),
    notePlanChanged: assign(({ context, event }) => {
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
    skipPhase: assign(({ context }) => ({
      phases: context.phases.map((p, i) => (i === context.currentPhase ? { ...p, status: "skipped" as const } : p)),
    })),
    // EXECUTE -------------------------------------------------------------------------------
    commitCheckpoint: assign(({ context, event }) => {
      assertEvent(event, "EXECUTED");
      const label = event.checkpoint!.label;
      return {
        outbox: [...context.outbox, effect(context, { type: "commit", args: { label, recovery: false, phase: context.currentPhase } })],
        phaseRun: {
          ...context.phaseRun,
          checkpointsPassed: [...context.phaseRun.checkpointsPassed, label],
          checkpointAnswer: null,
          // The next dispatch starts after the task that reached the commit point.
          nextTask: typeof event.task?.number === "number" ? event.task.number + 1 : context.phaseRun.nextTask,
          ...(event.evidence?.length ? { evidence: [...event.evidence] } : {}),
        },
        notices: [...context.notices, { kind: "checkpointPassed", label }],
      };
    }),
    commitExecutionComplete: assign(({ context, event }) => {
      const label = context.phaseRun.fix
        ? `${phaseLabel(context)} — ${context.phaseRun.fix.source} fixes`
        : `${phaseLabel(context)} — execution complete`;
      return {
        outbox: [...context.outbox, effect(context, { type: "commit", args: { label, recovery: false, phase: context.currentPhase } })],
        retryBudget: { ...context.retryBudget, currentTask: null },
        phaseRun: {
          ...context.phaseRun,
          checkpointAnswer: null,
          fix: null,
          personaError: null,
          ...(event.type === "EXECUTED" && event.evidence?.length ? { evidence: [...event.evidence] } : {}),
        },
      };
    }),
    /** A fix round is done (EXECUTE.fixing): commit it; disputed findings go to the re-check. */
    commitFix: assign(({ context, event }) => {
      assertEvent(event, "FIXED");
      const fix = context.phaseRun.fix;
      const label = `${phaseLabel(context)} — ${fix?.source ?? "review"} fixes${fix?.round ? ` (round ${fix.round})` : ""}`;
      const disputed = event.disputed ?? [];
      return {
        outbox: [...context.outbox, effect(context, { type: "commit", args: { label, recovery: false, phase: context.currentPhase } })],
        retryBudget: { ...context.retryBudget, currentTask: null },
        phaseRun: {
          ...context.phaseRun,
          checkpointAnswer: null,
          fix: null,
          personaError: null,
          disputed: [...disputed],
          ...(event.evidence?.length ? { evidence: [...event.evidence] } : {}),
        },
        notices: disputed.length ? [...context.notices, { kind: "fixDisputed", disputed: [...disputed] }] : context.notices,
      };
    }),
    /** What a persona says later phases should know goes into the session's learnings. */
    keepLearnings: assign(({ context, event }) => {
      const items = event.type === "EXECUTED" || event.type === "FIXED" ? (event.learnings ?? []).map((l) => l.trim()).filter(Boolean) : [];
      if (!items.length) return {};
      return {
        outbox: [
          ...context.outbox,
          effect(context, { type: "appendSessionLearnings", args: { date: event.now.slice(0, 10), skill: "harness-execution", items } }),
        ],
      };
    }),
    /**
     * The executor says the plan is wrong at a task: the work done before it is kept in a commit and
     * the plan goes back to the planner with the defect (not to a retry of the same plan).
     */
    planDefect: assign(({ context, event }) => {
      assertEvent(event, "EXECUTED");
      const task = event.task ?? { number: null, name: "unnamed task" };
      const defect = event.defect ?? event.error ?? "the executor gave no detail";
      const label = `${phaseLabel(context)} — work before the plan revision at task ${task.number ?? task.name}`;
      return {
        outbox: [...context.outbox, effect(context, { type: "commit", args: { label, recovery: true, phase: context.currentPhase } })],
        retryBudget: { ...context.retryBudget, currentTask: null },
        phaseRun: {
          ...context.phaseRun,
          planDefects: (context.phaseRun.planDefects ?? 0) + 1,
          nextTask: task.number ?? context.phaseRun.nextTask,
          revision: `The executor stopped at task ${task.number ?? "?"} (${task.name}) and reports a defect in the plan: ${defect}\nTasks before it are done and committed: keep them as they are (same numbers and headings) and revise task ${task.number ?? "?"} and what follows so the work can succeed.`,
        },
        notices: [...context.notices, { kind: "planDefect", taskNumber: task.number, taskName: task.name, defect }],
      };
    }),
    holdCheckpoint: assign(({ context, event }) => {
      assertEvent(event, "EXECUTED");
      return {
        phaseRun: {
          ...context.phaseRun,
          // The task the human step belongs to: the executor resumes there once it is answered.
          checkpoint: { ...event.checkpoint!, ...(typeof event.task?.number === "number" ? { taskNumber: event.task.number } : {}) },
          checkpointAnswer: null,
        },
        notices: [
          ...context.notices,
          { kind: "checkpointReached", type: event.checkpoint!.type, label: event.checkpoint!.label, details: event.checkpoint!.details ?? null },
        ],
      };
    }),
    answerCheckpoint: assign(({ context, event }) => {
      assertEvent(event, "DECIDE");
      const cp = context.phaseRun.checkpoint;
      return {
        decisions: [
          ...context.decisions,
          decision(context, event, {
            decision: `checkpoint_${cp?.type ?? "unknown"}`.replace(/-/g, "_"),
            answer: event.answer,
            by: event.by,
            checkpoint: cp?.label,
            ...(event.rationale ? { rationale: event.rationale } : {}),
          }),
        ],
        phaseRun: {
          ...context.phaseRun,
          checkpoint: null,
          checkpointAnswer: `${cp?.label ?? "checkpoint"}: ${event.answer}${event.rationale ? ` (${event.rationale})` : ""}`,
          nextTask: typeof cp?.taskNumber === "number" ? cp.taskNumber : context.phaseRun.nextTask,
        },
      };
    }),
    recordRetry: assign(({ context, event }) => {
      assertEvent(event, "EXECUTED");
      const cur = context.retryBudget.currentTask;
      const task = event.task ?? { number: null, name: "unnamed task" };
      const base =
        cur && sameTaskAs(cur, event.task)
          ? cur
          : { number: task.number ?? null, name: task.name, attemptsUsed: 0, attempts: [] };
      const attempt = base.attemptsUsed + 1;
      return {
        retryBudget: {
          ...context.retryBudget,
          currentTask: {
            ...base,
            attemptsUsed: attempt,
            attempts: [
              ...base.attempts,
              {
                attempt,
                timestamp: event.now,
                error: event.error ?? "unknown error",
                ...(event.fixAttempted ? { fixAttempted: event.fixAttempted } : {}),
                result: "failed",
              },
            ],
          },
        },
        phaseRun: { ...context.phaseRun, retriesUsed: context.phaseRun.retriesUsed + 1, nextTask: task.number ?? context.phaseRun.nextTask },
        notices: [
          ...context.notices,
          {
            kind: "taskFailed",
            taskNumber: task.number ?? null,
            taskName: task.name,
            error: event.error ?? "unknown error",
            attempt,
            maxAttempts: context.retryBudget.maxAttempts,
          },
        ],
      };
    }),
    exhaustBudget: assign(({ context, event }) => {
      assertEvent(event, "EXECUTED");
      const task = event.task ?? context.retryBudget.currentTask ?? { number: null, name: "unnamed task" };
      const cur = context.retryBudget.currentTask;
      const attempts = cur && sameTaskAs(cur, event.task) ? cur.attempts : [];
      const attemptText = attempts
        .map((a) => `attempt ${a.attempt}: ${a.fixAttempted ? `${a.fixAttempted} → ` : ""}${a.error}`)
        .join("; ");
      const label = `${phaseLabel(context)} — recovery at task ${task.number ?? task.name}`;
      const failureText = `${phaseLabel(context)}, task ${task.number ?? "?"} (${task.name}) failed after ${context.retryBudget.maxAttempts} retries. Last error: ${event.error ?? "unknown"}.${attemptText ? ` Attempts: ${attemptText}.` : ""}`;
      const consecutive = context.consecutiveExhausted + 1;
      const exhausted: Notice = {
        kind: "budgetExhausted",
        taskNumber: task.number ?? null,
        taskName: task.name,
        attempts: attempts.map((a) => ({ attempt: a.attempt, ...(a.fixAttempted ? { fixAttempted: a.fixAttempted } : {}), error: a.error })),
        error: event.error ?? "unknown",
        repeated: consecutive >= 2,
      };
      return {
        outbox: [
          ...context.outbox,
          effect(context, { type: "commit", args: { label, recovery: true, phase: context.currentPhase } }),
          effect(context, {
            type: "appendFailure",
            args: {
              date: event.now.slice(0, 10),
              skill: "harness-autopilot",
              type: "retry-exhausted",
              text: failureText,
            },
          }),
        ],
        phaseRun: { ...context.phaseRun, exhausted: true, retriesUsed: context.phaseRun.retriesUsed },
        consecutiveExhausted: context.phaseRun.exhausted ? context.consecutiveExhausted : consecutive,
        notices: [...context.notices, exhausted],
      };
    }),
    recordDecision: assign(({ context, event }, params: { decision: string }) => {
      assertEvent(event, "DECIDE");
      return {
        decisions: [
          ...context.decisions,
          decision(context, event, {
            decision: params.decision,
            answer: event.answer,
            by: event.by,
            ...(event.rationale ? { rationale: event.rationale } : {}),
          }),
        ],
      };
    }),
    resetRetryBudget: assign(({ context }) => ({
      retryBudget: { ...context.retryBudget, currentTask: null },
    })),
    setRevision: assign(({ context, event }) => {
      assertEvent(event, "DECIDE");
      const cur = context.retryBudget.currentTask;
      return {
        phaseRun: {
          ...context.phaseRun,
          revision: `Execution exhausted its retry budget${cur ? ` at task ${cur.number ?? "?"} (${cur.name}): ${cur.attempts.at(-1)?.error ?? ""}` : ""}.${event.rationale ? ` Human note: ${event.rationale}` : ""} Revise the plan so the remaining work can succeed.`,
        },
      };
    }),
    // A commit the repository's hooks refused ----------------------------------------------------
    recordCommitRejected: assign(({ context, event }) => {
      assertEvent(event, "COMMIT_REJECTED");
      const prior = refusalsOf(context, event.commit) ? (context.phaseRun.rejectedCommit?.attempts ?? []) : [];
      const attempt = prior.length + 1;
      const toExecutor = goesToExecutor(context, event);
      const label = event.commit.args.label;
      return {
        phaseRun: {
          ...context.phaseRun,
          rejectedCommit: {
            effect: event.commit,
            label,
            hook: event.hook,
            output: event.output,
            paths: event.paths.slice(0, 50),
            attempts: [...prior, { attempt, timestamp: event.now, error: event.output.slice(0, 2000), result: "rejected" }],
          },
          retriesUsed: context.phaseRun.retriesUsed + (toExecutor ? 1 : 0),
          personaError: null,
        },
        decisions: [
          ...context.decisions,
          decision(context, event, {
            decision: "commit_rejected",
            by: "auto",
            note: `The ${event.hook} hook rejected "${label}" (attempt ${attempt}); ${toExecutor ? "sent to the task executor to fix" : "the user is asked"}: ${firstLine(event.output)}`,
          }),
        ],
        notices: [
          ...context.notices,
          {
            kind: "commitRejected",
            hook: event.hook,
            label,
            output: event.output,
            attempt,
            maxAttempts: context.retryBudget.maxAttempts,
            next: toExecutor ? "executor" : event.hook === FIXABLE_HOOK ? "ask" : "askMessage",
          },
        ],
      };
    }),
    recoveryCommitRejected: assign(({ context, event }) => {
      assertEvent(event, "COMMIT_REJECTED");
      const label = event.commit.args.label;
      return {
        decisions: [
          ...context.decisions,
          decision(context, event, {
            decision: "commit_rejected",
            by: "auto",
            note: `The ${event.hook} hook rejected the recovery commit "${label}"; its work stays uncommitted: ${firstLine(event.output)}`,
          }),
        ],
        notices: [
          ...context.notices,
          { kind: "commitRejected", hook: event.hook, label, output: event.output, attempt: 1, maxAttempts: 1, next: "recovery" },
        ],
      };
    }),
    /** The refused commit, owed again: the same effect (the same id, so it is made once). */
    retryRejectedCommit: assign(({ context }, params?: { noVerify?: boolean }) => {
      const held = context.phaseRun.rejectedCommit;
      if (!held || held.effect.type !== "commit") return {};
      const commit: Effect = params?.noVerify ? { ...held.effect, args: { ...held.effect.args, noVerify: true } } : held.effect;
      return { outbox: [...context.outbox, commit] };
    }),
    // VERIFY --------------------------------------------------------------------------------
    verificationPass: assign(({ context, event }) => ({
      phaseRun: {
        ...context.phaseRun,
        verification: "pass" as const,
        verificationFindings: [],
        verificationRounds: [...(context.phaseRun.verificationRounds ?? []), verificationRound(event, "pass")],
        disputed: [],
      },
      notices: [...context.notices, { kind: "verificationPassed" }],
    })),
    verificationFail: assign(({ context, event }) => {
      const findings =
        event.type === "VERIFIED" ? event.findings : event.type === "VALIDATED" ? [event.summary] : [];
      return {
        phaseRun: {
          ...context.phaseRun,
          verification: "fail" as const,
          verificationFindings: findings,
          // The first result is kept: a re-check adds a round, it never replaces one.
          verificationRounds: [...(context.phaseRun.verificationRounds ?? []), verificationRound(event, "fail")],
          disputed: [],
        },
        notices: [...context.notices, { kind: "verificationFailed", findings: [...findings] }],
      };
    }),
    storeValidation: assign(({ context, event }) => {
      assertEvent(event, "VALIDATED");
      return { phaseRun: { ...context.phaseRun, lastValidation: { passed: event.passed, summary: event.summary } } };
    }),
    fixVerification: assign(({ context }) => ({
      phaseRun: {
        ...context.phaseRun,
        fix: { source: "verification" as const, findings: [...context.phaseRun.verificationFindings], round: (context.phaseRun.fixRounds ?? 0) + 1 },
        fixRounds: (context.phaseRun.fixRounds ?? 0) + 1,
      },
      retryBudget: { ...context.retryBudget, currentTask: null },
    })),
    skipVerification: assign(({ context }) => ({
      phaseRun: { ...context.phaseRun, verification: "skipped" as const },
    })),
    // REVIEW --------------------------------------------------------------------------------
    storeReview: assign(({ context, event }) => {
      assertEvent(event, "REVIEWED");
      const rounds = [...(context.phaseRun.reviewRounds ?? []), { findings: event.findings, resolution: null }];
      return {
        phaseRun: { ...context.phaseRun, reviewFindings: event.findings, reviewRounds: rounds, reviewProblems: [], disputed: [] },
        outbox: [...context.outbox, writeReviewEffect(context, rounds)],
        notices: [...context.notices, { kind: "review", counts: countBySeverity(event.findings), ...(rounds.length > 1 ? { round: rounds.length } : {}) }],
      };
    }),
    /** The review check: blocking findings without a file, a line or a scenario go back to the reviewer. */
    sendReviewBack: assign(({ context, event }) => {
      assertEvent(event, "REVIEWED");
      const problems = incompleteBlocking(event.findings);
      return {
        phaseRun: { ...context.phaseRun, reviewChecks: (context.phaseRun.reviewChecks ?? 0) + 1, reviewProblems: problems },
        notices: [...context.notices, { kind: "reviewSentBack", problems, final: false }],
      };
    }),
    fixReview: assign(({ context }) => {
      const rounds = resolveLastRound(context.phaseRun.reviewRounds, "fix");
      return {
        phaseRun: {
          ...context.phaseRun,
          fix: {
            source: "review" as const,
            findings: context.phaseRun.reviewFindings.filter((f) => f.severity === "blocking").map(findingLine),
            round: (context.phaseRun.fixRounds ?? 0) + 1,
          },
          fixRounds: (context.phaseRun.fixRounds ?? 0) + 1,
          reviewRounds: rounds,
        },
        outbox: rounds.length ? [...context.outbox, writeReviewEffect(context, rounds)] : context.outbox,
        retryBudget: { ...context.retryBudget, currentTask: null },
      };
    }),
    overrideReview: assign(({ context }) => {
      const rounds = resolveLastRound(context.phaseRun.reviewRounds, "override");
      return {
        phaseRun: { ...context.phaseRun, reviewOverridden: true, reviewRounds: rounds },
        outbox: rounds.length ? [...context.outbox, writeReviewEffect(context, rounds)] : context.outbox,
      };
    }),
    // PHASE_COMPLETE --------------------------------------------------------------------------
    completePhase: assign(({ context, event }) => {
      const now = event.now;
      const i = context.currentPhase;
      const phase = context.phases[i];
      const skipped = phase.status === "skipped";
      const run = context.phaseRun;
      // What the reviewer found is the first round; re-reviews after a fix are counted beside it.
      const reviewRounds = run.reviewRounds ?? [];
      const counts = countBySeverity(reviewRounds[0]?.findings ?? run.reviewFindings);
      const verificationFailures = (run.verificationRounds ?? []).filter((r) => r.verdict === "fail").length;
      const phases = context.phases.map((p, j) =>
        j === i ? { ...p, status: skipped ? ("skipped" as const) : ("complete" as const), completedAt: now } : p,
      );
      const next: AutopilotState = { ...context, phases };
      const entry = {
        phase: i,
        name: phase.name,
        ...(run.startedAt ? { startedAt: run.startedAt } : {}),
        completedAt: now,
        tasksCompleted: skipped ? 0 : (run.taskCount ?? 0),
        retriesUsed: run.retriesUsed,
        verificationPassed: run.verification === "pass",
        verification: skipped ? "skipped" : (run.verification ?? "not run"),
        reviewFindings: counts,
        ...(verificationFailures ? { verificationFailures } : {}),
        ...(run.fixRounds ? { fixRounds: run.fixRounds } : {}),
        ...(reviewRounds.length > 1 ? { reviewRounds: reviewRounds.map((r) => countBySeverity(r.findings)) } : {}),
        ...(skipped ? { skipped: true } : {}),
        ...(run.reviewOverridden ? { reviewOverridden: true } : {}),
      };
      const effects: Effect[] = [];
      const withOutbox = (e: Effect) => {
        effects.push(e);
        next.outbox = [...context.outbox, ...effects];
      };
      next.outbox = context.outbox;
      if (RIGOR[context.rigorLevel].scratchpad !== "none")
        withOutbox(effect(next, { type: "clearScratchpad", args: { phase: phase.name } }));
      withOutbox(effect(next, { type: "syncRoadmap", args: {} }));
      const nextPhase = context.phases[i + 1];
      withOutbox(
        effect(next, {
          type: "writeSummary",
          args: {
            lastActive: now,
            phase: `${i + 1} of ${context.phases.length}`,
            status: skipped
              ? `Phase ${i + 1} skipped.`
              : `Phase ${i + 1} complete. ${run.taskCount ?? 0}/${run.taskCount ?? 0} tasks.`,
            plan: phase.planPath,
            keyContext: `${phase.name}: ${skipped ? "skipped by decision" : phaseRecord(run)}.${gatesAnswered(context.decisions.filter((d) => d.phase === i))}`,
            nextStep: nextPhase ? `Continue to Phase ${i + 2}: ${nextPhase.name}` : "Final review, then DONE",
          },
        }),
      );
      const summaryState: AutopilotState = { ...next, history: [...context.history, entry] };
      return {
        phases,
        history: summaryState.history,
        outbox: next.outbox,
        consecutiveExhausted: run.exhausted ? context.consecutiveExhausted : 0,
        notices: [...context.notices, phaseSummaryNotice(summaryState, i)],
      };
    }),
    advancePhase: assign(({ context, event }) => ({
      currentPhase: context.currentPhase + 1,
      retryBudget: { ...context.retryBudget, currentTask: null },
      phaseRun: emptyPhaseRun(event.now),
      awaitingInteractivePlan: false,
    })),
    // FINAL_REVIEW -----------------------------------------------------------------------------
    startFinalReview: assign(({ context }) => ({
      finalReview: { ...context.finalReview, status: "in_progress" as const },
    })),
    storeFinalFindings: assign(({ context, event }) => {
      assertEvent(event, "REVIEWED");
      const rounds = [...(context.finalReview.rounds ?? []), { findings: event.findings, resolution: null }];
      return {
        finalReview: { ...context.finalReview, findings: event.findings, rounds, problems: [], disputed: [] },
        notices: [...context.notices, { kind: "finalReview", counts: countBySeverity(event.findings), ...(rounds.length > 1 ? { round: rounds.length } : {}) }],
      };
    }),
    sendFinalReviewBack: assign(({ context, event }) => {
      assertEvent(event, "REVIEWED");
      const problems = incompleteBlocking(event.findings);
      return {
        finalReview: { ...context.finalReview, checks: (context.finalReview.checks ?? 0) + 1, problems },
        notices: [...context.notices, { kind: "reviewSentBack", problems, final: true }],
      };
    }),
    resolveFinalRound: assign(({ context }, params: { resolution: "fix" | "override" }) => ({
      finalReview: { ...context.finalReview, rounds: resolveLastRound(context.finalReview.rounds, params.resolution) },
    })),
    finalReviewPassed: assign(({ context }) => ({
      finalReview: { ...context.finalReview, status: "passed" as const },
    })),
    countFinalFix: assign(({ context }) => ({
      finalReview: { ...context.finalReview, retryCount: context.finalReview.retryCount + 1 },
    })),
    finalFixesExhausted: assign(({ context, event }) => {
      const now = event.now;
      const blocking = context.finalReview.findings.filter((f) => f.severity === "blocking");
      return {
        finalReview: { ...context.finalReview, retryCount: context.finalReview.retryCount + 1 },
        outbox: [
          ...context.outbox,
          effect(context, {
            type: "appendFailure",
            args: {
              date: now.slice(0, 10),
              skill: "harness-autopilot",
              type: "final-review",
              text: `Final review still has ${blocking.length} blocking finding(s) after ${MAX_FINAL_REVIEW_FIXES} fix rounds: ${blocking.map((f) => f.title).join("; ")}`,
            },
          }),
        ],
        notices: [...context.notices, { kind: "finalFixesExhausted", rounds: MAX_FINAL_REVIEW_FIXES }],
      };
    }),
    commitFinalFix: assign(({ context, event }) => ({
      finalReview: { ...context.finalReview, disputed: event.type === "FIXED" ? [...(event.disputed ?? [])] : [] },
      notices:
        event.type === "FIXED" && event.disputed?.length
          ? [...context.notices, { kind: "fixDisputed" as const, disputed: [...event.disputed] }]
          : context.notices,
      outbox: [
        ...context.outbox,
        effect(context, {
          type: "commit",
          args: {
            label: `Final review fixes (round ${context.finalReview.retryCount})`,
            recovery: false,
            phase: null,
          },
        }),
      ],
    })),
    overrideFinalReview: assign(({ context }) => ({
      finalReview: { ...context.finalReview, status: "overridden" as const },
    })),
    // DONE ----------------------------------------------------------------------------------------
    finish: assign(({ context, event }) => {
      const next: AutopilotState = { ...context, outbox: context.outbox };
      const add = (body: EffectBody) => {
        next.outbox = [...next.outbox, effect(next, body)];
      };
      add({ type: "writeFinalHandoff", args: {} });
      add({ type: "appendLearnings", args: {} });
      add({ type: "roadmapDone", args: {} });
      const fr = context.finalReview;
      const open = fr.findings.filter((f) => f.severity !== "blocking" || fr.status === "overridden");
      const record = context.history
        .map((h) => {
          const extra = [
            h.verificationFailures ? `${h.verificationFailures} failed verification(s) fixed` : "",
            h.reviewRounds && h.reviewRounds.length > 1 ? `${h.reviewRounds[0].blocking ?? 0} blocking review finding(s) fixed after ${h.reviewRounds.length - 1} re-review(s)` : "",
            (h as Record<string, unknown>).reviewOverridden ? "review overridden" : "",
          ].filter(Boolean);
          return extra.length ? ` Phase ${(h.phase ?? 0) + 1}: ${extra.join(", ")}.` : "";
        })
        .join("");
      add({
        type: "writeSummary",
        args: {
          lastActive: event.now,
          status: `DONE. ${context.phases.filter((p) => p.status === "complete").length} phases, ${context.history.reduce((n, h) => n + (h.tasksCompleted ?? 0), 0)} tasks complete.`,
          keyContext: `Autopilot carried ${context.specPath} through ${context.phases.length} phases; final review ${fr.status} (${countBySeverity(fr.findings).blocking} blocking, ${countBySeverity(fr.findings).warning} warning, ${countBySeverity(fr.findings).note} note${(fr.rounds ?? []).length > 1 ? ` in its last of ${fr.rounds!.length} rounds` : ""})${open.length ? `; not fixed: ${open.map((f) => `${f.severity} ${f.title}${f.file ? ` (${f.file})` : ""}`).join("; ")}` : ""}.${record} Decisions: ${channelCounts(context.decisions)}.`,
          nextStep: "All phases complete. Create a PR or close the session. Commit .harness/learnings.md (and .harness/failures.md, if any) if your team keeps them; keep .harness/sessions/ out of git (add it to .gitignore).",
        },
      });
      add({ type: "reportHarnessFiles", args: {} });
      return { outbox: next.outbox, notices: [...context.notices, doneNotice(context)] };
    }),
    personaFailed: assign(({ context, event }) => {
      assertEvent(event, "PERSONA_FAILED");
      return {
        phaseRun: { ...context.phaseRun, personaError: event.error },
        notices: [...context.notices, { kind: "personaFailed", error: event.error }],
      };
    }),
    // The budget gate ---------------------------------------------------------------------------
    raiseBudget: assign(({ context, event }) => {
      assertEvent(event, "DECIDE");
      const budget = context.budget!;
      const raised = raisedBudget(budget, event.rationale);
      return {
        budget: raised,
        notices: [...context.notices, { kind: "budgetAnswered", answer: "raised", budget: formatBudget(budget), raised: formatBudget(raised), spent: formatCost(context.usage?.total) }],
      };
    }),
    /** The one dispatch let through is this step's (the engine moved the step counter before the event). */
    continueOnce: assign(({ context }) => ({
      budget: { ...context.budget!, continueOnceAt: context.stepId },
      notices: [...context.notices, { kind: "budgetAnswered", answer: "continueOnce", budget: formatBudget(context.budget!), spent: formatCost(context.usage?.total) }],
    })),
    stopForBudget: assign(({ context }) => ({
      stopped: true,
      notices: [...context.notices, { kind: "budgetAnswered", answer: "stopped", budget: formatBudget(context.budget!), spent: formatCost(context.usage?.total) }],
    })),
    clearPersonaError: assign(({ context }) => ({
      phaseRun: { ...context.phaseRun, personaError: null },
    })),
  },
}).createMachine({
  id: "autopilot",
  context: ({ input }) => input,
  initial: "INIT",
  on: {
    // A resumed session: clear a "stop", and let eventless transitions finish anything a crash or
    // an older tool left half-way (e.g. a PHASE_COMPLETE whose last phase is done).
    RESUME: { actions: ["clearStopped", "resumeReport"] },
  },
  states: {
    INIT: {
      entry: { type: "enterState", params: { state: "INIT" } },
      initial: "fresh",
      states: {
        fresh: {
          meta: { start: true },
          on: {
            START: [
              { guard: "startedWithUserChanges", target: "userChanges", actions: ["initFromStart", "holdForUserChanges"] },
              { target: "#autopilot.ASSESS", actions: ["initFromStart", "markPhaseStarted"] },
            ],
          },
        },
        // The user's uncommitted work: commit it first (at their word), leave it out of every
        // autopilot commit, or stop. Nothing else happens before the answer.
        userChanges: {
          meta: { ask: "userChanges" },
          on: {
            DECIDE: [
              { guard: answer("userChanges", "commit them first"), target: "#autopilot.ASSESS", actions: [{ type: "recordUserChangesDecision", params: { decision: "committed_user_changes" } }, "commitUserChanges", "markPhaseStarted"] },
              { guard: answer("userChanges", "leave them out"), target: "#autopilot.ASSESS", actions: [{ type: "recordUserChangesDecision", params: { decision: "left_out_user_changes" } }, "markPhaseStarted"] },
              STOP,
            ],
          },
        },
      },
    },
    ASSESS: {
      meta: { probe: "assess" },
      entry: { type: "enterState", params: { state: "ASSESS" } },
      on: {
        ASSESSED: [
          { guard: "planAlreadyExists", target: "APPROVE_PLAN", actions: ["setPlanPath", "markPhaseStarted", "recordPhaseStart"] },
          { guard: "phaseIsHighComplexity", target: "PLAN.awaitingInteractivePlan", actions: ["awaitInteractivePlan", "markPhaseStarted", "recordPhaseStart"] },
          { target: "PLAN.planning", actions: ["assessReport", "markPhaseStarted", "recordPhaseStart"] },
        ],
      },
    },
    PLAN: {
      entry: { type: "enterState", params: { state: "PLAN" } },
      // The recovery commit of the work done before an executor's plan defect, refused by a hook:
      // recorded, its work left in the tree, as at an exhausted retry budget.
      on: { COMMIT_REJECTED: { guard: "rejectedRecoveryCommit", actions: "recoveryCommitRejected" } },
      initial: "planning",
      states: {
        planning: {
          meta: { dispatch: { job: "plan", persona: "harness-planner", result: "planned", facts: ["phaseDescription", "learnings"] } },
          always: [budgetCheck("budgetPlanning")],
          on: {
            PLANNED: [
              // The plan check (src/markdown/plan.ts): vague, unverifiable or oversized tasks go back
              // to the planner with the list, within the retry budget; past it the planChecks signal
              // pauses the plan for a person.
              { guard: and(["planHasProblems", "planCheckBudgetLeft"]), target: "planning", reenter: true, actions: ["storePlanFacts", "sendPlanBack"] },
              { target: "#autopilot.APPROVE_PLAN.evaluate", actions: "storePlanFacts" },
            ],
            PERSONA_FAILED: ASK_RETRY,
          },
        },
        awaitingInteractivePlan: {
          meta: { wait: "interactivePlan", defaultWhen: (s) => s.awaitingInteractivePlan },
          on: {
            PLANNED: { target: "#autopilot.APPROVE_PLAN.evaluate", actions: "storePlanFacts" },
          },
        },
        personaFailed: personaFailedStage("planning"),
        budgetPlanning: budgetStage("planning"),
      },
    },
    APPROVE_PLAN: {
      entry: { type: "enterState", params: { state: "APPROVE_PLAN" } },
      initial: "gather",
      states: {
        // Read the plan (task and checkpoint counts, planner concerns): the engine answers with
        // PLAN_FACTS. Entered for plans that existed before this phase's planning, and after revise.
        gather: {
          meta: { probe: "planFacts" },
          on: {
            PLAN_FACTS: { target: "evaluate", actions: "storePlanFacts" },
          },
        },
        // The conditional review gate, in the skill's order: rigor first, then the signals (src/machine/signals.ts).
        evaluate: {
          always: [
            { guard: "planGateSkipped", target: "#autopilot.EXECUTE.running", actions: [{ type: "autoApprove", params: { mode: "fast" } }, "approvePlanHash"] },
            // A plan edited after its approval is asked again, whatever the signals say.
            { guard: "planChangedAfterApproval", target: "review", actions: "pauseReport" },
            { guard: "anySignalFires", target: "review", actions: "pauseReport" },
            { target: "#autopilot.EXECUTE.running", actions: [{ type: "autoApprove", params: { mode: "auto" } }, "approvePlanHash"] },
          ],
        },
        review: {
          meta: { ask: "approvePlan" },
          on: {
            DECIDE: [
              { guard: answer("approvePlan", "yes"), target: "#autopilot.EXECUTE.running", actions: [{ type: "recordPlanDecision", params: { decision: "approved_plan" } }, "approvePlanHash", "clearReport"] },
              // "revise" with notes in the reason: the planner revises with them; without: the user edits the file.
              { guard: "reviseWithNotes", target: "#autopilot.PLAN.planning", actions: [{ type: "recordPlanDecision", params: { decision: "revised_plan" } }, "clearReport", "setReviewNotes"] },
              { guard: answer("approvePlan", "revise"), target: "revising", actions: [{ type: "recordPlanDecision", params: { decision: "revised_plan" } }, "clearReport"] },
              { guard: answer("approvePlan", "skip phase"), target: "#autopilot.PHASE_COMPLETE", actions: [{ type: "recordPlanDecision", params: { decision: "skipped_phase" } }, "skipPhase", "clearReport"] },
              STOP,
            ],
            PLAN_CHANGED: { target: "gather", actions: "notePlanChanged" },
          },
        },
        revising: {
          meta: { ask: "revised" },
          on: {
            DECIDE: [
              { guard: answer("revised", "done"), target: "gather", actions: [{ type: "recordDecision", params: { decision: "plan_revised" } }] },
              STOP,
            ],
          },
        },
      },
    },
    EXECUTE: {
      entry: { type: "enterState", params: { state: "EXECUTE" } },
      on: { ...PLAN_CHANGED_AFTER_APPROVAL, COMMIT_REJECTED: onCommitRejected(true) },
      initial: "running",
      states: {
        running: {
          meta: { dispatch: { job: "execute", persona: "harness-task-executor", result: "executed", facts: ["learnings"] } },
          // A fix round still pending (a plan approved again while fixing) goes on as the fix.
          always: [{ guard: "fixPending", target: "fixing" }, budgetCheck("budgetRunning")],
          on: {
            EXECUTED: [
              { guard: and(["outcomeComplete", "verifiesByValidation"]), target: "#autopilot.VERIFY.validating", actions: ["commitExecutionComplete", "keepLearnings"] },
              { guard: "outcomeComplete", target: "#autopilot.VERIFY.running", actions: ["commitExecutionComplete", "keepLearnings"] },
              // A commit point at the last task: its commit ends the execution (no dispatch to a task past the plan).
              { guard: and(["checkpointPassed", "atLastTask", "verifiesByValidation"]), target: "#autopilot.VERIFY.validating", actions: ["commitCheckpoint", "resetRetryBudget", "keepLearnings"] },
              { guard: and(["checkpointPassed", "atLastTask"]), target: "#autopilot.VERIFY.running", actions: ["commitCheckpoint", "resetRetryBudget", "keepLearnings"] },
              { guard: "checkpointPassed", target: "running", reenter: true, actions: ["commitCheckpoint", "keepLearnings"] },
              { guard: "checkpointNeedsHuman", target: "checkpoint", actions: ["holdCheckpoint", "keepLearnings"] },
              // The plan is wrong (not the code): back to the planner with the defect, within the retry budget.
              { guard: "planDefectWithinBudget", target: "#autopilot.PLAN.planning", actions: ["planDefect", "keepLearnings"] },
              // Plan defects past that budget: a person decides (revise the plan, fix by hand, stop).
              { guard: "outcomePlanDefect", target: "exhausted", actions: ["exhaustBudget", "keepLearnings"] },
              { guard: "retryBudgetLeft", target: "running", reenter: true, actions: ["recordRetry", "keepLearnings"] },
              { target: "exhausted", actions: ["exhaustBudget", "keepLearnings"] },
            ],
            PERSONA_FAILED: ASK_RETRY,
          },
        },
        // A fix round (verification or review findings): the executor replies "fixed", then the
        // phase is verified and reviewed again.
        fixing: {
          meta: { dispatch: { job: "fix", persona: "harness-task-executor", result: "fixed", facts: ["learnings"] } },
          always: [budgetCheck("budgetFixing")],
          on: {
            FIXED: [
              { guard: "verifiesByValidation", target: "#autopilot.VERIFY.validating", actions: ["commitFix", "keepLearnings"] },
              { target: "#autopilot.VERIFY.running", actions: ["commitFix", "keepLearnings"] },
            ],
            PERSONA_FAILED: ASK_RETRY,
          },
        },
        checkpoint: {
          meta: { ask: "checkpoint" },
          on: {
            DECIDE: [
              STOP,
              { target: "running", actions: "answerCheckpoint" },
            ],
          },
        },
        exhausted: {
          meta: { ask: "exhausted" },
          on: {
            DECIDE: [
              { guard: answer("exhausted", "fix manually and continue"), target: "running", actions: [{ type: "recordDecision", params: { decision: "fixed_manually" } }, "resetRetryBudget"] },
              { guard: answer("exhausted", "revise plan"), target: "#autopilot.PLAN.planning", actions: [{ type: "recordDecision", params: { decision: "revise_plan_after_failure" } }, "setRevision", "resetRetryBudget"] },
              STOP,
            ],
          },
        },
        // A persona failure while fixing retries the fix, otherwise the plan's execution.
        personaFailed: {
          meta: { ask: "personaFailed" },
          on: {
            DECIDE: [
              { guard: and([answer("personaFailed", "retry"), "fixPending"]), target: "fixing", actions: [{ type: "recordDecision", params: { decision: "retried_step" } }, "clearPersonaError"] },
              { guard: answer("personaFailed", "retry"), target: "running", actions: [{ type: "recordDecision", params: { decision: "retried_step" } }, "clearPersonaError"] },
              STOP,
            ],
          },
        },
        // A checkpoint's commit the pre-commit hook refused: fixed, then made, then the plan goes on.
        ...commitRejectedStages("running"),
        budgetRunning: budgetStage("running"),
        budgetFixing: budgetStage("fixing"),
        budgetCommitFix: budgetStage("commitFix"),
      },
    },
    VERIFY: {
      entry: { type: "enterState", params: { state: "VERIFY" } },
      on: { ...PLAN_CHANGED_AFTER_APPROVAL, COMMIT_REJECTED: onCommitRejected(false) },
      initial: "running",
      states: {
        // Standard and thorough: the harness-verifier persona.
        running: {
          meta: { dispatch: { job: "verify", persona: "harness-verifier", result: "verified", facts: [] } },
          always: [budgetCheck("budgetRunning")],
          on: {
            VERIFIED: [
              { guard: "verificationPassed", target: "#autopilot.REVIEW", actions: "verificationPass" },
              { target: "failed", actions: "verificationFail" },
            ],
            PERSONA_FAILED: ASK_RETRY,
          },
        },
        // Fast: the project's validation commands only; the engine runs them and reports VALIDATED.
        validating: {
          meta: { probe: "validate", defaultWhen: (s) => RIGOR[s.rigorLevel].verifyBy === "validation" },
          on: {
            VALIDATED: [
              { guard: "validationPassed", target: "#autopilot.REVIEW", actions: ["storeValidation", "verificationPass"] },
              { target: "failed", actions: ["storeValidation", "verificationFail"] },
            ],
          },
        },
        failed: {
          meta: { ask: "verifyFailed" },
          on: {
            DECIDE: [
              { guard: answer("verifyFailed", "fix"), target: "#autopilot.EXECUTE.fixing", actions: [{ type: "recordDecision", params: { decision: "fix_verification" } }, "fixVerification"] },
              { guard: answer("verifyFailed", "skip verification"), target: "#autopilot.REVIEW", actions: [{ type: "recordDecision", params: { decision: "skipped_verification" } }, "skipVerification"] },
              STOP,
            ],
          },
        },
        personaFailed: personaFailedStage("running"),
        // The phase's commit (execution complete, or its fixes) the hook refused: fixed and made
        // before the phase is verified.
        ...commitRejectedStages("running", true),
        budgetRunning: budgetStage("running"),
        budgetCommitFix: budgetStage("commitFix"),
      },
    },
    REVIEW: {
      entry: { type: "enterState", params: { state: "REVIEW" } },
      on: PLAN_CHANGED_AFTER_APPROVAL,
      initial: "running",
      states: {
        running: {
          meta: { dispatch: { job: "review", persona: "harness-code-reviewer", result: "reviewed", facts: ["diffStat"] } },
          always: [budgetCheck("budgetRunning")],
          on: {
            REVIEWED: [
              { guard: "noBlockingFindings", target: "#autopilot.PHASE_COMPLETE", actions: "storeReview" },
              { guard: and(["reviewIncomplete", "reviewCheckBudgetLeft"]), target: "running", reenter: true, actions: "sendReviewBack" },
              { target: "blocked", actions: "storeReview" },
            ],
            PERSONA_FAILED: ASK_RETRY,
          },
        },
        blocked: {
          meta: { ask: "reviewBlocked" },
          on: {
            DECIDE: [
              { guard: answer("reviewBlocked", "fix"), target: "#autopilot.EXECUTE.fixing", actions: [{ type: "recordDecision", params: { decision: "fix_review" } }, "fixReview"] },
              { guard: answer("reviewBlocked", "override"), target: "#autopilot.PHASE_COMPLETE", actions: [{ type: "recordDecision", params: { decision: "overrode_review" } }, "overrideReview"] },
              STOP,
            ],
          },
        },
        personaFailed: personaFailedStage("running"),
        budgetRunning: budgetStage("running"),
      },
    },
    PHASE_COMPLETE: {
      meta: { ask: "continuePhase" },
      entry: [{ type: "enterState", params: { state: "PHASE_COMPLETE" } }, "completePhase"],
      always: [{ guard: "noMorePhases", target: "FINAL_REVIEW" }],
      on: {
        DECIDE: [
          { guard: answer("continuePhase", "yes"), target: "ASSESS", actions: [{ type: "recordDecision", params: { decision: "continued" } }, "advancePhase"] },
          STOP,
        ],
      },
    },
    FINAL_REVIEW: {
      entry: [{ type: "enterState", params: { state: "FINAL_REVIEW" } }, "startFinalReview"],
      on: { COMMIT_REJECTED: onCommitRejected(false) },
      initial: "running",
      states: {
        running: {
          meta: { dispatch: { job: "finalReview", persona: "harness-code-reviewer", result: "reviewed", facts: ["diffStat", "phaseFindings"] } },
          always: [budgetCheck("budgetRunning")],
          on: {
            REVIEWED: [
              { guard: "noBlockingFindings", target: "#autopilot.DONE", actions: ["storeFinalFindings", "finalReviewPassed"] },
              { guard: and(["reviewIncomplete", "finalReviewCheckBudgetLeft"]), target: "running", reenter: true, actions: "sendFinalReviewBack" },
              { target: "blocked", actions: "storeFinalFindings" },
            ],
            PERSONA_FAILED: ASK_RETRY,
          },
        },
        blocked: {
          meta: { ask: "finalBlocked" },
          on: {
            DECIDE: [
              { guard: answer("finalBlocked", "fix"), target: "fixBudgetCheck", actions: [{ type: "recordDecision", params: { decision: "fix_final_review" } }, { type: "resolveFinalRound", params: { resolution: "fix" } }] },
              { guard: answer("finalBlocked", "override"), target: "#autopilot.DONE", actions: [{ type: "recordDecision", params: { decision: "overrode_final_review" } }, { type: "resolveFinalRound", params: { resolution: "override" } }, "overrideFinalReview"] },
              STOP,
            ],
          },
        },
        // At most FINAL_REVIEW_FIX_BUDGET fix rounds (src/machine/policy.ts); the next "fix" escalates to the human.
        fixBudgetCheck: {
          always: [
            { guard: "finalFixBudgetLeft", target: "fixing", actions: "countFinalFix" },
            { target: "exhausted", actions: "finalFixesExhausted" },
          ],
        },
        fixing: {
          meta: { dispatch: { job: "finalFix", persona: "harness-task-executor", result: "fixed", facts: ["diffStat", "phaseFindings"] } },
          always: [budgetCheck("budgetFixing")],
          on: {
            FIXED: { target: "validating", actions: ["clearReport", "commitFinalFix", "keepLearnings"] },
            PERSONA_FAILED: ASK_RETRY,
          },
        },
        // After a fix round the project's validation runs (the engine reports VALIDATED), then the
        // whole review runs again.
        validating: {
          meta: { probe: "validate" },
          on: {
            VALIDATED: { target: "running", reenter: true, actions: "storeValidation" },
          },
        },
        exhausted: {
          meta: { ask: "finalExhausted" },
          on: {
            DECIDE: [
              { guard: answer("finalExhausted", "fix manually and continue"), target: "running", actions: [{ type: "recordDecision", params: { decision: "fixed_manually" } }] },
              STOP,
            ],
          },
        },
        personaFailed: personaFailedStage("running"),
        // A fix round's commit the hook refused: fixed and made, then validated as usual.
        ...commitRejectedStages("validating"),
        budgetRunning: budgetStage("running"),
        budgetFixing: budgetStage("fixing"),
        budgetCommitFix: budgetStage("commitFix"),
      },
    },
    DONE: {
      meta: { done: true },
      entry: [{ type: "enterState", params: { state: "DONE" } }, "finish"],
      type: "final",
    },
  },
});

// ---------------------------------------------------------------------------------------------

function sameTaskAs(
  cur: { number: number | null; name: string },
  task: { number?: number | null; name: string } | undefined,
): boolean {
  if (!task) return true; // a failure that names no task is the same task again
  if (cur.number !== null && task.number !== undefined && task.number !== null) return cur.number === task.number;
  return cur.name === task.name;
}

const RANK: Record<Complexity, number> = { low: 0, medium: 1, high: 2 };
function higherComplexity(a: Complexity | null, b: Complexity | null): Complexity | null {
  if (a === null) return b;
  if (b === null) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

function planHash(context: AutopilotState): Pick<Decision, "planSha256"> {
  const h = context.phaseRun.planSha256;
  return h ? { planSha256: h } : {};
}

/** The plan gate's lines for the current phase: signals read, which fired, and what follows. */
/** The plan gate's report, with the signals as read now. */
function gateNotice(context: AutopilotState, mode: "fast" | "auto" | "pause"): Notice {
  const signals = signalsFor(context);
  return {
    kind: "planGate",
    phaseNumber: context.currentPhase + 1,
    phaseName: context.phases[context.currentPhase].name,
    signals,
    fired: mode === "pause" ? firedSignals(signals) : [],
    rigor: context.rigorLevel,
    mode,
    checkpointCount: context.phaseRun.checkpointCount ?? 0,
    ...(context.phaseRun.assumptions?.length ? { assumptions: [...context.phaseRun.assumptions] } : {}),
    ...(context.phaseRun.deferred?.length ? { deferred: [...context.phaseRun.deferred] } : {}),
  };
}

/** "Phase 2: Name", as a notice's fields. */
function phaseNamed(context: AutopilotState): { phaseNumber: number; phaseName: string | null } {
  return { phaseNumber: context.currentPhase + 1, phaseName: context.phases[context.currentPhase]?.name ?? null };
}

function planSignals(context: AutopilotState): Pick<Decision, "signals" | "fired"> {
  const signals = signalsFor(context);
  return { signals, fired: firedSignals(signals) };
}

/** " Gates: approved_plan "yes" (answered by the host model; no person may have seen it)." */
function gatesAnswered(decisions: Decision[]): string {
  const asked = decisions.filter((d) => d.by !== "auto" && d.answer !== undefined);
  if (!asked.length) return "";
  return ` Gates: ${asked.map((d) => `${d.decision} "${d.answer}" (${channelPhrase(d.by)})`).join("; ")}.`;
}


/** The first non-blank line of a tool's output, bounded (for one-line records). */
function firstLine(output: string): string {
  const line = output.split("\n").find((l) => l.trim())?.trim() ?? "";
  return line.length > 200 ? line.slice(0, 199) + "…" : line;
}

/** A verification as the phase keeps it (the first is never overwritten by a re-check). */
function verificationRound(event: AutopilotEvent, verdict: "pass" | "fail"): VerificationRound {
  if (event.type === "VERIFIED")
    return { verdict, findings: [...event.findings], ...(event.evidence?.length ? { evidence: [...event.evidence] } : {}) };
  if (event.type === "VALIDATED") return { verdict, findings: verdict === "fail" ? [event.summary] : [], evidence: [event.summary] };
  return { verdict, findings: [] };
}

/** The review rounds with the last one's blocking findings resolved as `resolution`. */
function resolveLastRound(rounds: ReviewRound[] | undefined, resolution: "fix" | "override"): ReviewRound[] {
  const all = [...(rounds ?? [])];
  if (all.length) all[all.length - 1] = { ...all[all.length - 1], resolution };
  return all;
}

/** The phase's review file: every round, so a re-review never overwrites what was found first. */
function writeReviewEffect(context: AutopilotState, rounds: ReviewRound[]): Effect {
  return effect(context, {
    type: "writeReview",
    args: {
      phase: context.currentPhase,
      name: context.phases[context.currentPhase]?.name,
      findings: rounds.at(-1)?.findings ?? [],
      rounds: rounds.map((r) => ({ findings: r.findings, resolution: r.resolution })),
    },
  });
}

/** The phase's record for its summary line: what verification and review found, and what was done. */
function phaseRecord(run: AutopilotState["phaseRun"]): string {
  const parts: string[] = [];
  const vr = run.verificationRounds ?? [];
  const failed = vr.filter((r) => r.verdict === "fail");
  parts.push(
    failed.length
      ? `verification failed ${failed.length === 1 ? "once" : `${failed.length} times`} (${failed.map((r) => r.findings.join("; ")).join(" | ").slice(0, 300)}), then ${run.verification ?? "not run"}`
      : `verification ${run.verification ?? "not run"}`,
  );
  const rr = run.reviewRounds ?? [];
  if (rr.length <= 1) {
    const c = countBySeverity(rr[0]?.findings ?? run.reviewFindings);
    parts.push(`review ${c.blocking} blocking / ${c.warning} warning / ${c.note} note${rr[0]?.resolution === "override" ? " (overridden)" : ""}`);
  } else {
    parts.push(
      `review ${rr
        .map((r, k) => {
          const c = countBySeverity(r.findings);
          return `round ${k + 1}: ${c.blocking} blocking / ${c.warning} warning / ${c.note} note${r.resolution === "fix" ? " (blocking sent back for a fix)" : r.resolution === "override" ? " (overridden)" : ""}`;
        })
        .join(", ")}`,
    );
  }
  return parts.join(", ");
}

/** Where a restored state rests: top-level state plus stage, as the machine's state value. */
export type StateValue = string | { [state: string]: string };
