// The actions of a parallel session's wave: the ledger of the wave that runs now
// (`phaseRun.waveRun`: per task its worktree, branch, status and merged commit), each task's
// report, what the merge queue did, and a person's answer about a task the queue stopped.
// Pure, as the machine: the worktrees, merges and validations are the engine's probes
// (waveOpen, waveMerge in src/engine/session.ts, which run src/effects/wave-run.ts).
import { assertEvent } from "xstate";
import type { AutopilotState, Notice, WaveLedger } from "../../src/session/schema.js";
import { effect, phaseLabel } from "../effect.js";
import { answered } from "../decisions.js";
import { act } from "./act.js";
import { budgetCrossedBy } from "../../src/session/usage.js";

type Task = WaveLedger["tasks"][number];

function runOf(context: AutopilotState): WaveLedger | null {
  return context.phaseRun.waveRun ?? null;
}

/**
 * The state file's `waveLog` with this wave's entry as the ledger now stands (added, or replaced:
 * one entry per phase, plan and wave). Saved in the same write as the ledger, so the decision log
 * shows what the session knew, a crash and resume included.
 */
function logged(context: AutopilotState, run: WaveLedger): { waveLog: NonNullable<AutopilotState["waveLog"]> } {
  const phase = context.currentPhase;
  const plan = context.phases[phase]?.planPath ?? null;
  const planSha = (context.phaseRun.approvedPlanSha256 ?? context.phaseRun.planSha256 ?? null)?.slice(0, 12) ?? null;
  const revision = context.phaseRun.tasksMerged !== undefined ? (context.phaseRun.planDefects ?? 0) : undefined;
  const entry = {
    phase,
    plan,
    planSha,
    ...(revision !== undefined ? { revision } : {}),
    wave: run.wave,
    tasks: run.tasks.map(({ reported, dispatchedAt: _d, validationOutput: _v, ...t }) =>
      reported?.checkpoint
        ? { ...t, atCheckpoint: reported.checkpoint.label }
        : reported?.done
          ? { ...t, reportedDone: true }
          : t,
    ),
  };
  const log = context.waveLog ?? [];
  const at = log.findIndex(
    (e) => e.phase === phase && e.planSha === planSha && e.revision === revision && e.wave === run.wave,
  );
  return { waveLog: at < 0 ? [...log, entry] : log.map((e, i) => (i === at ? entry : e)) };
}

export const waveActions = {
  /**
   * Before a phase's first wave: the plan (and whatever else autopilot wrote in the checkout) is
   * committed, so every task's worktree, made from the session's head, holds the plan it follows.
   */
  commitPlanForWave: act(({ context }) =>
    context.phaseRun.waveRun
      ? {}
      : {
          outbox: [
            ...context.outbox,
            effect(context, {
              type: "commit",
              args: {
                label: `${phaseLabel(context)} — plan`,
                recovery: false,
                phase: context.currentPhase,
                kind: "plan",
                topic: context.phases[context.currentPhase]?.name ?? "",
              },
            }),
          ],
        },
  ),
  /** The wave's worktrees are open (the waveOpen probe): its tasks are dispatched at this step. */
  storeWaveOpened: act(({ context, event }) => {
    assertEvent(event, "WAVE_OPENED");
    const before = runOf(context);
    const fresh = !before || before.wave !== event.run.wave;
    // Every running task (new, or opened again for a person's re-run) is dispatched by this step.
    const run: WaveLedger = {
      ...event.run,
      tasks: event.run.tasks.map((t) =>
        t.status === "running" && !t.reported ? { ...t, dispatchedAt: context.stepId, reported: null } : t,
      ),
    };
    const opened = run.tasks.filter(
      (t) => t.status === "running" && (fresh || before?.tasks.find((b) => b.task === t.task)?.status !== "running"),
    );
    const notice: Notice = {
      kind: "waveOpened",
      wave: run.wave,
      waves: context.phaseRun.waves?.waves.length ?? run.wave + 1,
      tasks: opened.map((t) => ({ task: t.task, worktree: t.worktree.path, attempt: t.attempt })),
    };
    return {
      phaseRun: { ...context.phaseRun, waveRun: run },
      ...logged(context, run),
      notices: opened.length ? [...context.notices, notice] : context.notices,
    };
  }),
  /** One task's executor reported: recorded; the others are not waited on to record it. */
  recordTaskReport: act(({ context, event }) => {
    assertEvent(event, "TASK_REPORTED");
    const run = runOf(context)!;
    const next: WaveLedger = {
      ...run,
      tasks: run.tasks.map((t) =>
        t.task === event.task
          ? {
              ...t,
              reported: {
                done: event.done,
                ...(event.error ? { error: event.error } : {}),
                ...(event.summary ? { summary: event.summary } : {}),
                ...(event.checkpoint ? { checkpoint: event.checkpoint } : {}),
                ...(event.defect ? { defect: event.defect } : {}),
                ...(event.commitMessage ? { commitMessage: event.commitMessage } : {}),
              },
            }
          : t,
      ),
    };
    return {
      phaseRun: {
        ...context.phaseRun,
        waveRun: next,
        ...(event.evidence?.length ? { evidence: [...(context.phaseRun.evidence ?? []), ...event.evidence] } : {}),
      },
      ...logged(context, next),
    };
  }),
  /** The merge queue ran (the waveMerge probe): its ledger, each merge as a commit of the session, and what happened per task. */
  storeWaveMerged: act(({ context, event }) => {
    assertEvent(event, "WAVE_MERGED");
    const byTask = new Map<string, Task>(event.run.tasks.map((t) => [t.task, t]));
    const name = (task: string) => byTask.get(task)?.name ?? "";
    const notices: Notice[] = event.events.map((e): Notice => {
      const base = { kind: "waveTask" as const, task: e.task, name: name(e.task) };
      if (e.kind === "merged") return { ...base, what: "merged", detail: e.validation, sha: e.sha };
      if (e.kind === "retry")
        return {
          ...base,
          what: e.why,
          detail: e.error,
          attempt: e.attempt,
          maxAttempts: context.retryBudget.maxAttempts,
        };
      if (e.kind === "outside") return { ...base, what: "outside", detail: e.files.join(", ") };
      return { ...base, what: "exhausted", detail: e.error };
    });
    const commits = event.events
      .filter((e): e is Extract<typeof e, { kind: "merged" }> => e.kind === "merged")
      .filter((e) => !context.commits.some((c) => c.sha === e.sha))
      .map((e) => ({
        sha: e.sha,
        label: `${phaseLabel(context)} — Task ${e.task}: ${name(e.task)}`,
        recovery: false,
        phase: context.currentPhase,
        timestamp: event.now,
      }));
    // Every report was taken by the queue: the tasks running now (retries) are dispatched by this step.
    const merges = new Map(event.events.flatMap((e) => (e.kind === "merged" ? [[e.task, e] as const] : [])));
    const before = new Map((runOf(context)?.tasks ?? []).map((t) => [t.task, t.sentBack ?? []]));
    const run: WaveLedger = {
      ...event.run,
      tasks: event.run.tasks.map((t) => {
        const m = merges.get(t.task);
        // Why the queue sent it back, each time (the decision log shows them).
        const back = event.events.flatMap((e) =>
          e.kind === "retry" && e.task === t.task ? [{ attempt: e.attempt, why: e.why, error: e.error }] : [],
        );
        const sentBack = [...(t.sentBack ?? before.get(t.task) ?? []), ...back];
        return {
          ...t,
          reported: null,
          ...(t.status === "running" ? { dispatchedAt: context.stepId } : {}),
          ...(m ? { merged: m.sha, validation: m.validation } : {}),
          ...(sentBack.length ? { sentBack } : {}),
        };
      }),
    };
    const failures = event.events.filter((e) => e.kind === "exhausted" || e.kind === "outside");
    // Each task sent back (a failed attempt, a conflict, a validation failing after its merge) is a
    // retry of the phase, as in a serial run: the phase, done and learnings reports count them.
    const retries = event.events.filter((e) => e.kind === "retry").length;
    return {
      phaseRun: { ...context.phaseRun, waveRun: run, retriesUsed: context.phaseRun.retriesUsed + retries },
      ...logged(context, run),
      commits: [...context.commits, ...commits],
      notices: [...context.notices, ...notices],
      outbox: failures.length
        ? [
            ...context.outbox,
            effect(context, {
              type: "appendFailure",
              args: {
                date: event.now.slice(0, 10),
                skill: "harness-execution",
                type: "wave-task",
                text: failures
                  .map(
                    (e) =>
                      `${phaseLabel(context)}, task ${e.task} (${name(e.task)}): ${e.kind === "outside" ? `changed files outside its Files/Owns: ${e.files.join(", ")}` : `retry budget spent: ${e.error}`}`,
                  )
                  .join("; "),
              },
            }),
          ]
        : context.outbox,
    };
  }),
  /**
   * A task stopped at a human checkpoint and the wave's reports are in: its question is asked as in
   * a serial session (the checkpoint question), before anything of the wave merges.
   */
  holdWaveCheckpoint: act(({ context }) => {
    const t = checkpointTask(context);
    const cp = t?.reported?.checkpoint;
    if (!t || !cp) return {};
    const checkpoint = {
      ...cp,
      type: cp.type as "human-verify" | "human-action" | "decision",
      label: `Task ${t.task} (${t.name}): ${cp.label}`,
    };
    return {
      phaseRun: { ...context.phaseRun, checkpoint, checkpointAnswer: null },
      ...logged(context, runOf(context)!),
      notices: [
        ...context.notices,
        { kind: "checkpointReached", type: checkpoint.type, label: checkpoint.label, details: cp.details ?? null },
      ],
    };
  }),
  /** Answered (answerCheckpoint recorded it): that task goes on in its worktree with the answer, not as a retry. */
  resumeWaveCheckpoint: act(({ context }) => {
    const run = runOf(context)!;
    const t = checkpointTask(context);
    if (!t) return {};
    const next: WaveLedger = {
      ...run,
      tasks: run.tasks.map((x) =>
        x.task === t.task
          ? {
              ...x,
              reported: null,
              dispatchedAt: context.stepId,
              checkpointAnswer: context.phaseRun.checkpointAnswer ?? undefined,
            }
          : x,
      ),
    };
    return { phaseRun: { ...context.phaseRun, waveRun: next }, ...logged(context, next) };
  }),
  /**
   * An executor of the wave reported a defect in the plan, and the merge queue merged the wave's
   * done tasks (src/engine/wave.ts): the plan goes back to the planner with the defect, as in a
   * serial session (counted against the phase's send-backs). The tasks merged so far in this phase
   * are recorded: the revised plan keeps them, and its waves leave them out (storePlanFacts).
   */
  waveDefect: act(({ context, event }) => {
    assertEvent(event, "WAVE_MERGED");
    const run = event.run;
    const defects = run.tasks.filter((t) => t.status === "defect");
    const first = defects[0];
    const defect = first?.error ?? "the executor gave no detail";
    const byNumber = (a: string, b: string) => Number(a) - Number(b) || a.localeCompare(b);
    const mergedNow = run.tasks.filter((t) => t.status === "merged").map((t) => t.task);
    const earlier = (context.phaseRun.waves?.waves ?? []).slice(0, run.wave).flat();
    const merged = [...new Set([...(context.phaseRun.tasksMerged ?? []), ...earlier, ...mergedNow])].sort(byNumber);
    const kept = run.tasks.filter((t) => t.status !== "merged").map((t) => t.task);
    const others = defects
      .slice(1)
      .map((t) => `\nTask ${t.task} (${t.name}) also reports one: ${t.error ?? ""}`)
      .join("");
    const list = (ts: string[]) => `Task${ts.length === 1 ? "" : "s"} ${ts.join(", ")}`;
    const revision = [
      `The executor of task ${first?.task ?? "?"} (${first?.name ?? "unnamed task"}) stopped and reports a defect in the plan: ${defect}${others}`,
      merged.length
        ? `${list(merged)} ${merged.length === 1 ? "is" : "are"} done and merged: keep ${merged.length === 1 ? "it" : "them"} as ${merged.length === 1 ? "it is" : "they are"} (same numbers and headings). Revise task ${first?.task ?? "?"} and the tasks that depend on it so the work can succeed; every task not merged runs next, from your revised plan.`
        : `No task is merged yet. Revise task ${first?.task ?? "?"} and the tasks that depend on it so the work can succeed.`,
    ].join("\n");
    const n = Number(first?.task);
    return {
      retryBudget: { ...context.retryBudget, currentTask: null },
      phaseRun: {
        ...context.phaseRun,
        planDefects: (context.phaseRun.planDefects ?? 0) + 1,
        tasksMerged: merged,
        revision,
      },
      notices: [
        ...context.notices,
        {
          kind: "planDefect",
          taskNumber: Number.isInteger(n) ? n : null,
          taskName: first?.name ?? "unnamed task",
          defect,
          committed: false,
          wave: { merged: mergedNow, kept },
        },
      ],
    };
  }),
  /** Every wave merged: the phase's execution is done (its commits are the tasks' merges). */
  waveExecutionComplete: act(({ context }) => ({
    retryBudget: { ...context.retryBudget, currentTask: null },
    phaseRun: { ...context.phaseRun, checkpointAnswer: null, fix: null, personaError: null },
  })),
  /** A person asks for the stopped tasks again: each opens a new worktree from the merged result, with a fresh budget. */
  waveRerun: act(({ context, event }) => {
    assertEvent(event, "DECIDE");
    const run = runOf(context)!;
    const stopped = run.tasks.filter((t) => t.status === "outside" || t.status === "exhausted");
    const next: WaveLedger = {
      ...run,
      tasks: run.tasks.map((t) =>
        t.status === "outside" || t.status === "exhausted" ? { ...t, status: "rerun" as const, stopCause: undefined } : t,
      ),
    };
    return {
      decisions: [
        ...context.decisions,
        answered(context, event, "rerun_wave_task", {
          rationale: event.rationale ?? `Tasks ${stopped.map((t) => t.task).join(", ")} run again`,
        }),
      ],
      phaseRun: { ...context.phaseRun, waveRun: next },
      ...logged(context, next),
    };
  }),
  /** A person did the stopped tasks' work by hand (on the session's branch): they count as merged. */
  waveByHand: act(({ context, event }) => {
    assertEvent(event, "DECIDE");
    const run = runOf(context)!;
    const next: WaveLedger = {
      ...run,
      tasks: run.tasks.map((t) =>
        t.status === "outside" || t.status === "exhausted"
          ? { ...t, status: "merged" as const, error: "done by hand" }
          : t,
      ),
    };
    return {
      decisions: [...context.decisions, answered(context, event, "wave_task_by_hand")],
      phaseRun: { ...context.phaseRun, waveRun: next },
      ...logged(context, next),
    };
  }),
};

/**
 * The executor runs the wave's next dispatch starts at once: the tasks a person asked for again,
 * the tasks the merge queue sent back, or the next wave's tasks (the first, before any ran).
 */
export function waveRunsToStart(context: AutopilotState): number {
  const waves = context.phaseRun.waves?.waves ?? [];
  const run = runOf(context);
  if (!run) return waves[0]?.length ?? 0;
  const rerun = run.tasks.filter((t) => t.status === "rerun").length;
  if (rerun) return rerun;
  if (run.tasks.every((t) => t.status === "merged")) return waves[run.wave + 1]?.length ?? 0;
  return run.tasks.filter((t) => t.status === "running" && !t.reported).length;
}

/** The first running task whose report stopped at a human checkpoint. */
function checkpointTask(context: AutopilotState): Task | undefined {
  return runOf(context)?.tasks.find((t) => t.status === "running" && !!t.reported?.checkpoint);
}

/** Why the wave's dispatches, counted together before they start, cross the session's budget (words), or null. */
export function waveBudgetCrossed(context: AutopilotState): string | null {
  return budgetCrossedBy(context.budget, context.usage, waveRunsToStart(context), "harness-task-executor");
}

// ---- guards ----------------------------------------------------------------------------------

type Args = { context: AutopilotState; event: import("../events.js").AutopilotEvent };

export const waveGuards = {
  /** A parallel session whose plan runs in waves (not a fix round: that is one executor in the checkout). */
  runsInWaves: ({ context }: Args) =>
    !!context.parallel && context.phaseRun.waves?.parallel === true && !context.phaseRun.fix,
  /** This report is the last the wave's running tasks owed: the merge queue runs. */
  lastTaskReport: ({ context, event }: Args) => {
    assertEvent(event, "TASK_REPORTED");
    const run = context.phaseRun.waveRun;
    return !!run && run.tasks.filter((t) => t.status === "running" && t.task !== event.task).every((t) => !!t.reported);
  },
  /** The wave's dispatches together would cross the budget, and "continue once" did not let this step through. */
  waveOverBudget: ({ context }: Args) =>
    !!context.budget && !!waveBudgetCrossed(context) && context.budget.continueOnceAt !== context.stepId,
  /** A report of this wave stopped at a human checkpoint (this one, or one recorded before). */
  waveCheckpointOwed: ({ context, event }: Args) => {
    assertEvent(event, "TASK_REPORTED");
    return !!event.checkpoint || !!checkpointTask(context);
  },
  /** Another task of the wave waits at a human checkpoint besides the one being answered. */
  moreWaveCheckpoints: ({ context }: Args) =>
    (runOf(context)?.tasks.filter((t) => t.status === "running" && !!t.reported?.checkpoint).length ?? 0) > 1,
  waveNeedsPerson: ({ event }: Args) => {
    assertEvent(event, ["WAVE_MERGED", "WAVE_OPENED"]);
    return event.run.tasks.some((t) => t.status === "outside" || t.status === "exhausted");
  },
  /** A task of the wave reported a defect in the plan within the phase's send-backs (the merge queue held it): the plan goes back. */
  waveSendsPlanBack: ({ event }: Args) => {
    assertEvent(event, "WAVE_MERGED");
    return event.run.tasks.some((t) => t.status === "defect");
  },
  waveAllMerged: ({ event }: Args) => {
    assertEvent(event, ["WAVE_MERGED", "WAVE_OPENED"]);
    return event.run.tasks.every((t) => t.status === "merged");
  },
  moreWaves: ({ context, event }: Args) => {
    assertEvent(event, ["WAVE_MERGED", "WAVE_OPENED"]);
    return event.run.wave + 1 < (context.phaseRun.waves?.waves.length ?? 0);
  },
};
