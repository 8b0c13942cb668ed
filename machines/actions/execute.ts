// The actions of EXECUTE: commit points, fix rounds, checkpoints, retries and an exhausted retry
// budget, a plan defect, and a commit the repository's hooks refused.
// Pure, as the machine: each only changes context or appends an effect to the outbox.
import { assertEvent } from "xstate";
import type { Effect, Notice } from "../../src/session/schema.js";
import { phaseLabel, effect } from "../effect.js";
import { refusalsOf, goesToExecutor, sameTaskAs } from "../retries.js";
import { namingFixed, phaseOf, workCommit } from "../commit-args.js";
import { checkpointDecision, decision } from "../decisions.js";
import { FIXABLE_HOOK } from "../events.js";
import { quoted, saidWith } from "../words.js";
import { act } from "./act.js";
import { scopeOf, settleFix } from "../fates.js";
import { hookCause } from "../hook-cause.js";

export const executeActions = {
  // EXECUTE -------------------------------------------------------------------------------
  commitCheckpoint: act(({ context, event }) => {
    assertEvent(event, "EXECUTED");
    const label = event.checkpoint!.label;
    return {
      outbox: [
        ...context.outbox,
        effect(context, {
          type: "commit",
          args: { ...workCommit(context, event, "work"), label, topic: label, recovery: false },
        }),
      ],
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
  commitExecutionComplete: act(({ context, event }) => {
    const fix = context.phaseRun.fix;
    const label = fix ? `${phaseLabel(context)} — ${fix.source} fixes` : `${phaseLabel(context)} — execution complete`;
    const commit = effect(context, {
      type: "commit",
      args: { ...workCommit(context, event, fix ? "fix" : "work"), label, recovery: false },
    });
    // A fix round saved by an earlier version replies "executed": what it was sent is fixed by this commit.
    const settled = fix ? settleFix(context, scopeOf(context, fix.source), fix.round, [], commit.id) : {};
    return {
      // A fix round saved by an earlier version replies "executed": what it was sent is fixed by this commit.
      ...settled,
      outbox: [...context.outbox, namingFixed(commit, settled.findingLedger)],
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
  commitFix: act(({ context, event }) => {
    assertEvent(event, "FIXED");
    const fix = context.phaseRun.fix;
    const label = `${phaseLabel(context)} — ${fix?.source ?? "review"} fixes${fix?.round ? ` (round ${fix.round})` : ""}`;
    const disputed = event.disputed ?? [];
    const commit = effect(context, {
      type: "commit",
      args: { ...workCommit(context, event, "fix"), label, recovery: false },
    });
    const settled = fix ? settleFix(context, scopeOf(context, fix.source), fix.round, disputed, commit.id) : {};
    return {
      ...settled,
      outbox: [...context.outbox, namingFixed(commit, settled.findingLedger)],
      retryBudget: { ...context.retryBudget, currentTask: null },
      phaseRun: {
        ...context.phaseRun,
        checkpointAnswer: null,
        fix: null,
        personaError: null,
        disputed: [...disputed],
        ...(event.evidence?.length ? { evidence: [...event.evidence] } : {}),
      },
      notices: disputed.length
        ? [...context.notices, { kind: "fixDisputed", disputed: [...disputed] }]
        : context.notices,
    };
  }),
  /** What a persona says later phases should know goes into the session's learnings. */
  keepLearnings: act(({ context, event }) => {
    const items =
      event.type === "EXECUTED" || event.type === "FIXED" || event.type === "TASK_REPORTED"
        ? (event.learnings ?? []).map((l) => l.trim()).filter(Boolean)
        : [];
    if (!items.length) return {};
    return {
      outbox: [
        ...context.outbox,
        effect(context, {
          type: "appendSessionLearnings",
          args: { date: event.now.slice(0, 10), skill: "harness-execution", items },
        }),
      ],
    };
  }),
  /**
   * The executor says the plan is wrong at a task: the work done before it is kept in a commit and
   * the plan goes back to the planner with the defect (not to a retry of the same plan).
   */
  planDefect: act(({ context, event }) => {
    assertEvent(event, "EXECUTED");
    const task = event.task ?? { number: null, name: "unnamed task" };
    const defect = event.defect ?? event.error ?? "the executor gave no detail";
    const label = `${phaseLabel(context)} — work before the plan revision at task ${task.number ?? task.name}`;
    return {
      outbox: [
        ...context.outbox,
        effect(context, {
          type: "commit",
          args: { ...workCommit(context, event, "recovery"), label, recovery: true, topic: phaseOf(context) },
        }),
      ],
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
  holdCheckpoint: act(({ context, event }) => {
    assertEvent(event, "EXECUTED");
    return {
      phaseRun: {
        ...context.phaseRun,
        // The task the human step belongs to: the executor resumes there once it is answered.
        checkpoint: {
          ...event.checkpoint!,
          ...(typeof event.task?.number === "number" ? { taskNumber: event.task.number } : {}),
        },
        checkpointAnswer: null,
      },
      notices: [
        ...context.notices,
        {
          kind: "checkpointReached",
          type: event.checkpoint!.type,
          label: event.checkpoint!.label,
          details: event.checkpoint!.details ?? null,
        },
      ],
    };
  }),
  answerCheckpoint: act(({ context, event }) => {
    assertEvent(event, "DECIDE");
    const cp = context.phaseRun.checkpoint;
    return {
      decisions: [
        ...context.decisions,
        decision(context, event, {
          decision: checkpointDecision(cp?.type),
          answer: event.answer,
          by: event.by,
          checkpoint: cp?.label,
          ...(event.rationale ? { rationale: event.rationale } : {}),
        }),
      ],
      phaseRun: {
        ...context.phaseRun,
        checkpoint: null,
        checkpointAnswer: `${cp?.label ?? "checkpoint"}: ${event.answer}${saidWith(event).length ? ` (${quoted(saidWith(event))})` : ""}`,
        nextTask: typeof cp?.taskNumber === "number" ? cp.taskNumber : context.phaseRun.nextTask,
      },
    };
  }),
  recordRetry: act(({ context, event }) => {
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
      phaseRun: {
        ...context.phaseRun,
        retriesUsed: context.phaseRun.retriesUsed + 1,
        nextTask: task.number ?? context.phaseRun.nextTask,
      },
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
  exhaustBudget: act(({ context, event }) => {
    assertEvent(event, "EXECUTED");
    const task = event.task ?? context.retryBudget.currentTask ?? { number: null, name: "unnamed task" };
    const cur = context.retryBudget.currentTask;
    const attempts = cur && sameTaskAs(cur, event.task) ? cur.attempts : [];
    const attemptText = attempts
      .map((a) => `attempt ${a.attempt}: ${a.fixAttempted ? `${a.fixAttempted} → ` : ""}${a.error}`)
      .join("; ");
    const label = `${phaseLabel(context)} — recovery at task ${task.number ?? task.name}`;
    const topic = `task ${task.number ?? "?"} (${task.name})`;
    const failureText = `${phaseLabel(context)}, task ${task.number ?? "?"} (${task.name}) failed after ${context.retryBudget.maxAttempts} retries. Last error: ${event.error ?? "unknown"}.${attemptText ? ` Attempts: ${attemptText}.` : ""}`;
    const consecutive = context.consecutiveExhausted + 1;
    const exhausted: Notice = {
      kind: "budgetExhausted",
      taskNumber: task.number ?? null,
      taskName: task.name,
      attempts: attempts.map((a) => ({
        attempt: a.attempt,
        ...(a.fixAttempted ? { fixAttempted: a.fixAttempted } : {}),
        error: a.error,
      })),
      error: event.error ?? "unknown",
      repeated: consecutive >= 2,
    };
    return {
      outbox: [
        ...context.outbox,
        effect(context, {
          type: "commit",
          args: { label, recovery: true, phase: context.currentPhase, kind: "recovery", topic },
        }),
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
  resetRetryBudget: act(({ context }) => ({
    retryBudget: { ...context.retryBudget, currentTask: null },
  })),
  setRevision: act(({ context, event }) => {
    assertEvent(event, "DECIDE");
    const cur = context.retryBudget.currentTask;
    return {
      phaseRun: {
        ...context.phaseRun,
        revision: `Execution exhausted its retry budget${cur ? ` at task ${cur.number ?? "?"} (${cur.name}): ${cur.attempts.at(-1)?.error ?? ""}` : ""}.${saidWith(event).length ? ` The person's words: ${quoted(saidWith(event))}.` : ""} Revise the plan so the remaining work can succeed.`,
      },
    };
  }),
  // A commit the repository's hooks refused ----------------------------------------------------
  recordCommitRejected: act(({ context, event }) => {
    assertEvent(event, "COMMIT_REJECTED");
    const prior = refusalsOf(context, event.commit) ? (context.phaseRun.rejectedCommit?.attempts ?? []) : [];
    const attempt = prior.length + 1;
    const toExecutor = goesToExecutor(context, event);
    const label = event.commit.args.label;
    const cause = hookCause(event.output);
    // Why the hook refused is kept for every later executor of the session, not only this fix.
    const learning = effect(context, {
      type: "appendSessionLearnings",
      args: {
        date: event.now.slice(0, 10),
        skill: "harness-execution",
        items: [
          `The repository's ${event.hook} hook refused a commit: ${cause.replace(/\.$/, "")}. Before you reply, run the repository's commit checks (your brief lists them) over the files you changed, and fix what they report.`,
        ],
      },
    });
    return {
      ...(event.hook === FIXABLE_HOOK ? { outbox: [...context.outbox, learning] } : {}),
      phaseRun: {
        ...context.phaseRun,
        rejectedCommit: {
          effect: event.commit,
          label,
          hook: event.hook,
          output: event.output,
          paths: event.paths.slice(0, 50),
          attempts: [
            ...prior,
            { attempt, timestamp: event.now, error: event.output.slice(0, 2000), result: "rejected" },
          ],
        },
        retriesUsed: context.phaseRun.retriesUsed + (toExecutor ? 1 : 0),
        personaError: null,
      },
      decisions: [
        ...context.decisions,
        decision(context, event, {
          decision: "commit_rejected",
          by: "auto",
          note: `The ${event.hook} hook rejected "${label}" (attempt ${attempt}); ${toExecutor ? "sent to the task executor to fix" : "the user is asked"}: ${cause}`,
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
  recoveryCommitRejected: act(({ context, event }) => {
    assertEvent(event, "COMMIT_REJECTED");
    const label = event.commit.args.label;
    return {
      decisions: [
        ...context.decisions,
        decision(context, event, {
          decision: "commit_rejected",
          by: "auto",
          note: `The ${event.hook} hook rejected the recovery commit "${label}"; its work stays uncommitted: ${hookCause(event.output)}`,
        }),
      ],
      notices: [
        ...context.notices,
        {
          kind: "commitRejected",
          hook: event.hook,
          label,
          output: event.output,
          attempt: 1,
          maxAttempts: 1,
          next: "recovery",
        },
      ],
    };
  }),
  /** The refused commit, owed again: the same effect (the same id, so it is made once). */
  retryRejectedCommit: act(({ context }, params?: { noVerify?: boolean }) => {
    const held = context.phaseRun.rejectedCommit;
    if (!held || held.effect.type !== "commit") return {};
    const commit: Effect = params?.noVerify
      ? { ...held.effect, args: { ...held.effect.args, noVerify: true } }
      : held.effect;
    return { outbox: [...context.outbox, commit] };
  }),
};
