// The harness-autopilot statechart. Pure: states, events, named guards and named actions that only
// change context or name an effect (appended to `outbox`; the engine performs it). No I/O, no clock,
// no randomness: time and every fact read from disk arrive inside events.
//
// Top-level states are the skill's ten states (persisted as `currentState`); children are the
// places a state can rest in (persisted as `stage`). Guard and action names follow the skill's
// wording so a reviewer can match them line by line.
// The table reads top to bottom as the skill's states; the guards are in guards.ts, the actions in
// actions/ (grouped by concern), the events in events.ts, their pure helpers in the modules of their
// concerns (complexity, blocking findings, effects, retries, the plan gate, review rounds).
import { and, not, or, setup } from "xstate";
import type { AutopilotState } from "../src/session/schema.js";
import type { PersonaName, ResultKind } from "../src/vocabulary.js";
import { answer, type QuestionName } from "./questions.js";
import { RIGOR } from "../src/rules/policy.js";
import type { AutopilotEvent } from "./events.js";
import { guards } from "./guards.js";
import { sessionActions } from "./actions/session.js";
import { planActions } from "./actions/plan.js";
import { executeActions } from "./actions/execute.js";
import { recordActions } from "./actions/record.js";
import { reviewActions } from "./actions/review.js";
import { waveActions, waveGuards } from "./actions/wave.js";

// Re-exported for the machine's readers (the engine, the Step, the tests).
export { type AutopilotEvent, type PlanFacts, type SpecPhaseInput } from "./events.js";
export { MAX_FINAL_REVIEW_FIXES } from "./review-rounds.js";
export { complexityOverrideFor, effectiveComplexity } from "./complexity.js";
// ---------------------------------------------------------------------------------------------
// What a resting stage means. Declared once, as `meta` on the state node the session rests in;
// the stage list, the asks, the dispatches, the probes and the brief's facts are read from it
// (machines/stages.ts).

/** A fact the engine reads from disk before the session can rest (the machine waits for its event). */
export type Probe = "assess" | "planFacts" | "validate" | "waveOpen" | "waveMerge";
/** The question a stage asks: an entry of QUESTIONS (machines/questions.ts: its options, human-only answers, --yes policy). */
type AskName = QuestionName;
/** What a dispatch brief is given from disk (src/engine/facts.ts reads each). */
export type DispatchFact = "phaseDescription" | "diffStat" | "phaseFindings" | "learnings" | "commitChecks";
/** The persona job a stage dispatches (src/personas/dispatch.ts words its prompt and brief). */
export type DispatchJob =
  "plan" | "execute" | "executeTask" | "fix" | "verify" | "review" | "finalReview" | "finalFix" | "commitFix";

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
    ? ([
        { guard: "verifiesByValidation", target: "validating", actions: "retryRejectedCommit" },
        { target, actions: "retryRejectedCommit" },
      ] as const)
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
      meta: {
        dispatch: {
          job: "commitFix",
          persona: "harness-task-executor",
          result: "fixed",
          facts: ["learnings", "commitChecks"],
        },
      },
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
        {
          guard: answer("budget", "raise budget"),
          target: stage,
          actions: [{ type: "recordDecision", params: { decision: "raised_budget" } }, "raiseBudget"],
        },
        {
          guard: answer("budget", "continue once"),
          target: stage,
          actions: [{ type: "recordDecision", params: { decision: "budget_continue_once" } }, "continueOnce"],
        },
        {
          guard: answer("budget", "stop"),
          actions: [{ type: "recordDecision", params: { decision: "stopped_budget" } }, "stopForBudget"],
        },
      ],
    },
  } as const;
}

/**
 * The budget gate before a parallel wave's dispatches: they count against the budget
 * together, before any starts (`waveOverBudget`: what was spent plus each run's estimated cost).
 * The same question and answers as budgetStage; "raise budget" checks the raised budget again, and
 * "continue once" lets the whole wave through. Nothing of the wave is opened while it rests here.
 */
function waveBudgetStage<S extends string, B extends string>(stage: S, self: B) {
  return {
    meta: { ask: "budget" },
    always: [{ guard: not("waveOverBudget"), target: stage }],
    on: {
      DECIDE: [
        {
          guard: answer("budget", "raise budget"),
          target: self,
          reenter: true,
          actions: [{ type: "recordDecision", params: { decision: "raised_budget" } }, "raiseBudget"],
        },
        {
          guard: answer("budget", "continue once"),
          target: stage,
          actions: [{ type: "recordDecision", params: { decision: "budget_continue_once" } }, "continueOnce"],
        },
        {
          guard: answer("budget", "stop"),
          actions: [{ type: "recordDecision", params: { decision: "stopped_budget" } }, "stopForBudget"],
        },
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
    // XState reads the meta type from this assertion; without it every node's meta is untyped.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    meta: {} as StageMeta,
    context: {} as Ctx,
    events: {} as AutopilotEvent,
    input: {} as Ctx,
  },
  guards: { ...guards, ...waveGuards },
  actions: { ...sessionActions, ...planActions, ...executeActions, ...recordActions, ...reviewActions, ...waveActions },
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
              {
                guard: "startedWithUserChanges",
                target: "userChanges",
                actions: ["initFromStart", "holdForUserChanges"],
              },
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
              {
                guard: answer("userChanges", "commit them first"),
                target: "#autopilot.ASSESS",
                actions: [
                  { type: "recordUserChangesDecision", params: { decision: "committed_user_changes" } },
                  "commitUserChanges",
                  "markPhaseStarted",
                ],
              },
              {
                guard: answer("userChanges", "leave them out"),
                target: "#autopilot.ASSESS",
                actions: [
                  { type: "recordUserChangesDecision", params: { decision: "left_out_user_changes" } },
                  "markPhaseStarted",
                ],
              },
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
          {
            guard: "planAlreadyExists",
            target: "APPROVE_PLAN",
            actions: ["setPlanPath", "markPhaseStarted", "recordPhaseStart"],
          },
          {
            guard: "phaseIsHighComplexity",
            target: "PLAN.awaitingInteractivePlan",
            actions: ["awaitInteractivePlan", "markPhaseStarted", "recordPhaseStart"],
          },
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
          meta: {
            dispatch: {
              job: "plan",
              persona: "harness-planner",
              result: "planned",
              facts: ["phaseDescription", "learnings"],
            },
          },
          always: [budgetCheck("budgetPlanning")],
          on: {
            PLANNED: [
              // The plan check (src/markdown/plan.ts): vague, unverifiable or oversized tasks go back
              // to the planner with the list, within the retry budget; past it the planChecks signal
              // pauses the plan for a person.
              {
                guard: and(["planHasProblems", "planCheckBudgetLeft"]),
                target: "planning",
                reenter: true,
                actions: ["storePlanFacts", "sendPlanBack"],
              },
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
        // The conditional review gate, in the skill's order: rigor first, then the signals (src/rules/signals.ts).
        evaluate: {
          always: [
            {
              guard: "planGateSkipped",
              target: "#autopilot.EXECUTE.running",
              actions: [{ type: "autoApprove", params: { mode: "fast" } }, "approvePlanHash"],
            },
            // A plan edited after its approval is asked again, whatever the signals say.
            { guard: "planChangedAfterApproval", target: "review", actions: "pauseReport" },
            { guard: "anySignalFires", target: "review", actions: "pauseReport" },
            {
              target: "#autopilot.EXECUTE.running",
              actions: [{ type: "autoApprove", params: { mode: "auto" } }, "approvePlanHash"],
            },
          ],
        },
        review: {
          meta: { ask: "approvePlan" },
          on: {
            DECIDE: [
              {
                guard: answer("approvePlan", "yes"),
                target: "#autopilot.EXECUTE.running",
                actions: [
                  { type: "recordPlanDecision", params: { decision: "approved_plan" } },
                  "approvePlanHash",
                  "clearReport",
                ],
              },
              // "revise" with notes in the reason: the planner revises with them; without: the user edits the file.
              {
                guard: "reviseWithNotes",
                target: "#autopilot.PLAN.planning",
                actions: [
                  { type: "recordPlanDecision", params: { decision: "revised_plan" } },
                  "clearReport",
                  "setReviewNotes",
                ],
              },
              {
                guard: answer("approvePlan", "revise"),
                target: "revising",
                actions: [{ type: "recordPlanDecision", params: { decision: "revised_plan" } }, "clearReport"],
              },
              {
                guard: answer("approvePlan", "skip phase"),
                target: "#autopilot.PHASE_COMPLETE",
                actions: [
                  { type: "recordPlanDecision", params: { decision: "skipped_phase" } },
                  "skipPhase",
                  "clearReport",
                ],
              },
              STOP,
            ],
            PLAN_CHANGED: { target: "gather", actions: "notePlanChanged" },
          },
        },
        revising: {
          meta: { ask: "revised" },
          on: {
            DECIDE: [
              {
                guard: answer("revised", "done"),
                target: "gather",
                actions: [{ type: "recordDecision", params: { decision: "plan_revised" } }],
              },
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
          meta: {
            dispatch: {
              job: "execute",
              persona: "harness-task-executor",
              result: "executed",
              facts: ["learnings", "commitChecks"],
            },
          },
          // A fix round still pending (a plan approved again while fixing) goes on as the fix.
          // A parallel session's plan with waves: one executor per task of the wave, each in its own worktree.
          always: [
            { guard: "fixPending", target: "fixing" },
            budgetCheck("budgetRunning"),
            { guard: "runsInWaves", target: "budgetWave", actions: "commitPlanForWave" },
          ],
          on: {
            EXECUTED: [
              {
                guard: and(["outcomeComplete", "verifiesByValidation"]),
                target: "#autopilot.VERIFY.validating",
                actions: ["commitExecutionComplete", "keepLearnings"],
              },
              {
                guard: "outcomeComplete",
                target: "#autopilot.VERIFY.running",
                actions: ["commitExecutionComplete", "keepLearnings"],
              },
              // A commit point at the last task: its commit ends the execution (no dispatch to a task past the plan).
              {
                guard: and(["checkpointPassed", "atLastTask", "verifiesByValidation"]),
                target: "#autopilot.VERIFY.validating",
                actions: ["commitCheckpoint", "resetRetryBudget", "keepLearnings"],
              },
              {
                guard: and(["checkpointPassed", "atLastTask"]),
                target: "#autopilot.VERIFY.running",
                actions: ["commitCheckpoint", "resetRetryBudget", "keepLearnings"],
              },
              {
                guard: "checkpointPassed",
                target: "running",
                reenter: true,
                actions: ["commitCheckpoint", "keepLearnings"],
              },
              { guard: "checkpointNeedsHuman", target: "checkpoint", actions: ["holdCheckpoint", "keepLearnings"] },
              // The plan is wrong (not the code): back to the planner with the defect, within the retry budget.
              {
                guard: "planDefectWithinBudget",
                target: "#autopilot.PLAN.planning",
                actions: ["planDefect", "keepLearnings"],
              },
              // Plan defects past that budget: a person decides (revise the plan, fix by hand, stop).
              { guard: "outcomePlanDefect", target: "exhausted", actions: ["exhaustBudget", "keepLearnings"] },
              { guard: "retryBudgetLeft", target: "running", reenter: true, actions: ["recordRetry", "keepLearnings"] },
              { target: "exhausted", actions: ["exhaustBudget", "keepLearnings"] },
            ],
            PERSONA_FAILED: ASK_RETRY,
          },
        },
        // A parallel session's wave: its worktrees open (the engine's probe), its tasks
        // run at once (one dispatch Step naming each), each reports alone, and when the last has
        // reported the merge queue runs (the engine's probe): then the next wave, the tasks sent
        // back alone, or a question about a task the queue stopped.
        waveOpen: {
          meta: { probe: "waveOpen" },
          on: {
            WAVE_OPENED: [
              { guard: "waveNeedsPerson", target: "waveTask", actions: "storeWaveOpened" },
              {
                guard: and(["waveAllMerged", not("moreWaves"), "verifiesByValidation"]),
                target: "#autopilot.VERIFY.validating",
                actions: ["storeWaveOpened", "waveExecutionComplete"],
              },
              {
                guard: and(["waveAllMerged", not("moreWaves")]),
                target: "#autopilot.VERIFY.running",
                actions: ["storeWaveOpened", "waveExecutionComplete"],
              },
              { target: "wave", actions: "storeWaveOpened" },
            ],
          },
        },
        wave: {
          meta: {
            dispatch: {
              job: "executeTask",
              persona: "harness-task-executor",
              result: "executed",
              facts: ["learnings", "commitChecks"],
            },
          },
          on: {
            TASK_REPORTED: [
              // A task at a human checkpoint: the person answers before the wave merges; the task then goes on.
              {
                guard: and(["lastTaskReport", "waveCheckpointOwed"]),
                target: "waveCheckpoint",
                actions: ["recordTaskReport", "holdWaveCheckpoint", "keepLearnings"],
              },
              { guard: "lastTaskReport", target: "waveMerge", actions: ["recordTaskReport", "keepLearnings"] },
              { actions: ["recordTaskReport", "keepLearnings"] },
            ],
          },
        },
        waveMerge: {
          meta: { probe: "waveMerge" },
          on: {
            WAVE_MERGED: [
              { guard: "waveNeedsPerson", target: "waveTask", actions: "storeWaveMerged" },
              // An executor's plan defect (within the phase's send-backs): the wave's done tasks are
              // merged, the others keep their work unmerged, and the plan goes back to the planner.
              {
                guard: "waveSendsPlanBack",
                target: "#autopilot.PLAN.planning",
                actions: ["storeWaveMerged", "waveDefect"],
              },
              { guard: and(["waveAllMerged", "moreWaves"]), target: "budgetWave", actions: "storeWaveMerged" },
              {
                guard: and(["waveAllMerged", "verifiesByValidation"]),
                target: "#autopilot.VERIFY.validating",
                actions: ["storeWaveMerged", "waveExecutionComplete"],
              },
              {
                guard: "waveAllMerged",
                target: "#autopilot.VERIFY.running",
                actions: ["storeWaveMerged", "waveExecutionComplete"],
              },
              // Tasks sent back: their new runs count against the budget too.
              { target: "budgetWaveRetry", actions: "storeWaveMerged" },
            ],
          },
        },
        // A wave's task stopped at a human checkpoint: the serial checkpoint question, then that task
        // goes on in its worktree with the answer (through the wave's budget gate); the others wait.
        waveCheckpoint: {
          meta: { ask: "checkpoint" },
          on: {
            DECIDE: [
              STOP,
              {
                guard: "moreWaveCheckpoints",
                target: "waveCheckpoint",
                reenter: true,
                actions: ["answerCheckpoint", "resumeWaveCheckpoint", "holdWaveCheckpoint"],
              },
              { target: "budgetWaveRetry", actions: ["answerCheckpoint", "resumeWaveCheckpoint"] },
            ],
          },
        },
        // The merge queue stopped a task (outside its Files/Owns, or its retry budget spent): never a silent merge.
        waveTask: {
          meta: { ask: "waveTask" },
          on: {
            DECIDE: [
              STOP,
              { guard: answer("waveTask", "re-run"), target: "budgetWave", actions: "waveRerun" },
              { guard: answer("waveTask", "done by hand"), target: "waveMerge", actions: "waveByHand" },
            ],
          },
        },
        // A fix round (verification or review findings): the executor replies "fixed", then the
        // phase is verified and reviewed again.
        fixing: {
          meta: {
            dispatch: {
              job: "fix",
              persona: "harness-task-executor",
              result: "fixed",
              facts: ["learnings", "commitChecks"],
            },
          },
          always: [budgetCheck("budgetFixing")],
          on: {
            FIXED: [
              {
                guard: "verifiesByValidation",
                target: "#autopilot.VERIFY.validating",
                actions: ["commitFix", "keepLearnings"],
              },
              { target: "#autopilot.VERIFY.running", actions: ["commitFix", "keepLearnings"] },
            ],
            PERSONA_FAILED: ASK_RETRY,
          },
        },
        checkpoint: {
          meta: { ask: "checkpoint" },
          on: {
            DECIDE: [STOP, { target: "running", actions: "answerCheckpoint" }],
          },
        },
        exhausted: {
          meta: { ask: "exhausted" },
          on: {
            DECIDE: [
              {
                guard: answer("exhausted", "fix manually and continue"),
                target: "running",
                actions: [{ type: "recordDecision", params: { decision: "fixed_manually" } }, "resetRetryBudget"],
              },
              {
                guard: answer("exhausted", "revise plan"),
                target: "#autopilot.PLAN.planning",
                actions: [
                  { type: "recordDecision", params: { decision: "revise_plan_after_failure" } },
                  "setRevision",
                  "resetRetryBudget",
                ],
              },
              STOP,
            ],
          },
        },
        // A persona failure while fixing retries the fix, otherwise the plan's execution.
        personaFailed: {
          meta: { ask: "personaFailed" },
          on: {
            DECIDE: [
              {
                guard: and([answer("personaFailed", "retry"), "fixPending"]),
                target: "fixing",
                actions: [{ type: "recordDecision", params: { decision: "retried_step" } }, "clearPersonaError"],
              },
              {
                guard: answer("personaFailed", "retry"),
                target: "running",
                actions: [{ type: "recordDecision", params: { decision: "retried_step" } }, "clearPersonaError"],
              },
              STOP,
            ],
          },
        },
        // A checkpoint's commit the pre-commit hook refused: fixed, then made, then the plan goes on.
        ...commitRejectedStages("running"),
        budgetRunning: budgetStage("running"),
        budgetFixing: budgetStage("fixing"),
        budgetCommitFix: budgetStage("commitFix"),
        // Before a wave's worktrees open (its tasks, or those a person asked for again), and before
        // the runs of tasks the merge queue sent back: the wave's dispatches counted together.
        budgetWave: waveBudgetStage("waveOpen", "budgetWave"),
        budgetWaveRetry: waveBudgetStage("wave", "budgetWaveRetry"),
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
              {
                guard: "validationPassed",
                target: "#autopilot.REVIEW",
                actions: ["storeValidation", "verificationPass"],
              },
              { target: "failed", actions: ["storeValidation", "verificationFail"] },
            ],
          },
        },
        failed: {
          meta: { ask: "verifyFailed" },
          on: {
            DECIDE: [
              {
                guard: or([answer("verifyFailed", "fix"), answer("verifyFailed", "fix these")]),
                target: "#autopilot.EXECUTE.fixing",
                actions: [{ type: "recordDecision", params: { decision: "fix_verification" } }, "fixVerification"],
              },
              {
                guard: answer("verifyFailed", "skip verification"),
                target: "#autopilot.REVIEW",
                actions: [{ type: "recordDecision", params: { decision: "skipped_verification" } }, "skipVerification"],
              },
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
          meta: {
            dispatch: { job: "review", persona: "harness-code-reviewer", result: "reviewed", facts: ["diffStat"] },
          },
          always: [budgetCheck("budgetRunning")],
          on: {
            REVIEWED: [
              // Warnings and no blocking finding (standard, thorough): the person decides whether to fix them first.
              { guard: and(["noBlockingFindings", "asksAboutWarnings"]), target: "warnings", actions: "storeReview" },
              { guard: "noBlockingFindings", target: "#autopilot.PHASE_COMPLETE", actions: "storeReview" },
              {
                guard: and(["reviewIncomplete", "reviewCheckBudgetLeft"]),
                target: "running",
                reenter: true,
                actions: "sendReviewBack",
              },
              { target: "blocked", actions: "storeReview" },
            ],
            PERSONA_FAILED: ASK_RETRY,
          },
        },
        blocked: {
          meta: { ask: "reviewBlocked" },
          on: {
            DECIDE: [
              {
                guard: or([
                  answer("reviewBlocked", "fix"),
                  answer("reviewBlocked", "fix blocking and warnings"),
                  answer("reviewBlocked", "fix these"),
                ]),
                target: "#autopilot.EXECUTE.fixing",
                actions: [{ type: "recordDecision", params: { decision: "fix_review" } }, "fixReview"],
              },
              {
                guard: answer("reviewBlocked", "override"),
                target: "#autopilot.PHASE_COMPLETE",
                actions: [{ type: "recordDecision", params: { decision: "overrode_review" } }, "overrideReview"],
              },
              STOP,
            ],
          },
        },
        warnings: {
          meta: { ask: "reviewWarnings" },
          on: {
            DECIDE: [
              {
                guard: or([answer("reviewWarnings", "fix warnings"), answer("reviewWarnings", "fix these")]),
                target: "#autopilot.EXECUTE.fixing",
                actions: [{ type: "recordDecision", params: { decision: "fix_review_warnings" } }, "fixReview"],
              },
              {
                guard: answer("reviewWarnings", "move on"),
                target: "#autopilot.PHASE_COMPLETE",
                actions: [{ type: "recordDecision", params: { decision: "left_warnings" } }, "deferWarnings"],
              },
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
          {
            guard: answer("continuePhase", "yes"),
            target: "ASSESS",
            actions: [{ type: "recordDecision", params: { decision: "continued" } }, "advancePhase"],
          },
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
          meta: {
            dispatch: {
              job: "finalReview",
              persona: "harness-code-reviewer",
              result: "reviewed",
              facts: ["diffStat", "phaseFindings"],
            },
          },
          always: [budgetCheck("budgetRunning")],
          on: {
            REVIEWED: [
              {
                guard: "noBlockingFindings",
                target: "#autopilot.DONE",
                actions: ["storeFinalFindings", "finalReviewPassed"],
              },
              {
                guard: and(["reviewIncomplete", "finalReviewCheckBudgetLeft"]),
                target: "running",
                reenter: true,
                actions: "sendFinalReviewBack",
              },
              { target: "blocked", actions: "storeFinalFindings" },
            ],
            PERSONA_FAILED: ASK_RETRY,
          },
        },
        blocked: {
          meta: { ask: "finalBlocked" },
          on: {
            DECIDE: [
              {
                guard: or([
                  answer("finalBlocked", "fix"),
                  answer("finalBlocked", "fix blocking and warnings"),
                  answer("finalBlocked", "fix these"),
                ]),
                target: "fixBudgetCheck",
                actions: [
                  { type: "recordDecision", params: { decision: "fix_final_review" } },
                  { type: "resolveFinalRound", params: { resolution: "fix" } },
                ],
              },
              {
                guard: answer("finalBlocked", "override"),
                target: "#autopilot.DONE",
                actions: [
                  { type: "recordDecision", params: { decision: "overrode_final_review" } },
                  { type: "resolveFinalRound", params: { resolution: "override" } },
                  "overrideFinalReview",
                ],
              },
              STOP,
            ],
          },
        },
        // At most FINAL_REVIEW_FIX_BUDGET fix rounds (src/rules/policy.ts); the next "fix" escalates to the human.
        fixBudgetCheck: {
          always: [
            { guard: "finalFixBudgetLeft", target: "fixing", actions: "countFinalFix" },
            { target: "exhausted", actions: "finalFixesExhausted" },
          ],
        },
        fixing: {
          meta: {
            dispatch: {
              job: "finalFix",
              persona: "harness-task-executor",
              result: "fixed",
              facts: ["diffStat", "phaseFindings", "learnings", "commitChecks"],
            },
          },
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
              {
                guard: answer("finalExhausted", "fix manually and continue"),
                target: "running",
                actions: [{ type: "recordDecision", params: { decision: "fixed_manually" } }, "finalFixedByHand"],
              },
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

/** Where a restored state rests: top-level state plus stage, as the machine's state value. */
export type StateValue = string | { [state: string]: string };
