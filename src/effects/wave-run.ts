// One wave of a parallel session (`--parallel`), run through the merge queue: every task of the wave
// gets its worktree from the same base; a task reported done is committed in its worktree, and the
// queue then merges done tasks strictly in task order (a later task that finishes first waits),
// running the validation commands after each merge. What goes wrong stays with that task alone:
// - a failure: the executor goes again in the same worktree (its partial work kept), within the
//   retry budget, counted per task;
// - a conflict: the task runs again from the session's head (the merged result) in a new worktree;
// - the validation failing after its merge: its work stays merged and the task runs again from
//   the merged result to repair it;
// - files outside its `Files`/`Owns`: a question for a person, never a merge.
// Tasks already merged stay merged. Only merged work's worktrees are removed. The ledger
// (`WaveRun`) is data the caller saves; every step here can run again after a crash (git is read
// back, commits are found by their effect id), so a resumed wave ends as an uninterrupted one.
// The session runs it from its probes (src/engine/session.ts: waveOpen, waveMerge), one wave at a time.
import { existsSync } from "node:fs";
import path from "node:path";
import {
  checkTask,
  commitTaskWork,
  type TaskCommitMessage,
  mergeTask,
  openTaskWorktree,
  removeTaskWorktree,
  undoInterruptedRebase,
  type TaskScope,
  type TaskWorktree,
} from "./merge-queue.js";
import { findEffectCommit, gitRunner } from "./git.js";

/**
 * `defect`: its executor reported a defect in the plan, which goes back to the planner; `held`: not
 * done when another task of its wave did so (it runs again from the revised plan). Both keep their
 * worktree and branch, unmerged; the queue merges the wave's done tasks past them.
 */
type TaskStatus = "running" | "done" | "merged" | "outside" | "exhausted" | "rerun" | "defect" | "held";

export interface TaskRun {
  task: string;
  name: string;
  scope: TaskScope;
  /** Attempts started (1 = the first run); the retry budget counts them per task. */
  attempt: number;
  worktree: TaskWorktree;
  status: TaskStatus;
  /** The last thing that went wrong, for the executor's next brief or the question. */
  error?: string;
  /** Files written outside the task's scope (status `outside`). */
  outside?: string[];
  /** Worktrees of earlier attempts that were never merged: kept until the user discards them. */
  unmerged?: TaskWorktree[];
  /** The failing lines of the validation after its merge (its next brief shows them; the report, the summary). */
  validationOutput?: string;
  /** The attempt a person's "re-run" started a fresh retry budget at (absent: 1). */
  budgetFrom?: number;
  /** Why an `exhausted` task stopped when its retry budget did not stop it (see stopTask). */
  stopCause?: "planDefect";
}

export interface WaveRun {
  wave: number;
  /** In task (plan) order: the order of merges. */
  tasks: TaskRun[];
  /**
   * Merged tasks' worktrees whose removal is owed (WaveOptions.removeLater): their work is on the
   * session's branch; removed while the next wave runs, and by the next probe after a crash.
   */
  removals?: TaskWorktree[];
}

/** What happened, in order, for the Step's report and the decision log. */
export type WaveEvent =
  | { kind: "merged"; task: string; sha: string; validation: string }
  | { kind: "retry"; task: string; attempt: number; why: "failed" | "conflict" | "validation"; error: string }
  | { kind: "outside"; task: string; files: string[] }
  | { kind: "exhausted"; task: string; error: string };

export interface WaveOptions {
  slug: string;
  maxAttempts: number;
  /** The project's validation commands, run in the session's checkout after each merge. */
  validate: (root: string) => Promise<{
    passed: boolean;
    summary: string;
    /** The failing lines, for the executor's brief only. */ output?: string;
  }>;
  /** Unique per session and phase, so a commit's effect id is found again on replay. */
  effectPrefix: string;
  /** The message of a done task's commit (src/effects/commit-message.ts); without it, the task's label. */
  message?: (t: TaskRun) => Promise<TaskCommitMessage>;
  /** Called after a merge (before its validation) and after that validation: the crash suite's kill points. */
  onStep?: (point: "merged" | "validated") => void;
  /** Before each task number in its worktree's and branch's names (a session's phases and plans reuse task numbers). */
  worktreeKey?: string;
  /**
   * A merged task's worktree is not removed by the queue but listed in the ledger's `removals`
   * (removeMerged), so its removal leaves the time between a wave's last report and the next wave.
   */
  removeLater?: boolean;
}

/** The task's name in its worktree and branch. */
function worktreeTask(task: string, key = ""): string {
  return `${key}${task}`;
}

function budgetSpent(t: TaskRun, opts: WaveOptions): boolean {
  return t.attempt - (t.budgetFrom ?? 1) + 1 >= opts.maxAttempts;
}

/** Open every task's worktree from the session's head. Running it again opens nothing twice. */
export async function startWave(
  root: string,
  slug: string,
  wave: number,
  tasks: readonly { number: string; name: string; scope: TaskScope }[],
  worktreeKey = "",
): Promise<WaveRun> {
  const base = (await gitRunner(root)(["rev-parse", "HEAD"])).trim();
  const runs: TaskRun[] = [];
  for (const t of tasks)
    runs.push({
      task: t.number,
      name: t.name,
      scope: t.scope,
      attempt: 1,
      worktree: await openTaskWorktree(root, slug, worktreeTask(t.number, worktreeKey), 1, base),
      status: "running",
    });
  return { wave, tasks: runs };
}

export function waveDone(run: WaveRun): boolean {
  return run.tasks.every((t) => t.status === "merged");
}

/**
 * An executor's report for one task. Reports for other tasks are not needed for this one to be
 * recorded (and, in task order, merged).
 */
export async function taskReported(
  root: string,
  run: WaveRun,
  task: string,
  outcome: { done: true } | { done: false; error: string },
  opts: WaveOptions,
): Promise<{ run: WaveRun; events: WaveEvent[] }> {
  const tasks = run.tasks.map((t) => ({ ...t }));
  const t = tasks.find((x) => x.task === task);
  if (!t || t.status !== "running") return { run, events: [] };
  const events: WaveEvent[] = [];
  if (!outcome.done) {
    if (budgetSpent(t, opts)) {
      t.status = "exhausted";
      t.error = outcome.error;
      events.push({ kind: "exhausted", task, error: outcome.error });
    } else {
      t.attempt += 1;
      t.error = outcome.error;
      t.validationOutput = undefined;
      events.push({ kind: "retry", task, attempt: t.attempt, why: "failed", error: outcome.error });
    }
    return { run: { ...run, tasks }, events };
  }
  await commitTaskWork(
    root,
    opts.slug,
    t.worktree,
    `Task ${t.task}: ${t.name}`,
    effectIdOf(t, opts),
    await opts.message?.(t),
  );
  t.status = "done";
  const drained = await drain(root, { ...run, tasks }, opts);
  return { run: drained.run, events: [...events, ...drained.events] };
}

/**
 * A task's executor reported it done: its work is committed in its worktree (once per effect id;
 * nothing again when the commit is already on the session's branch), and it waits for its turn to
 * merge. Running it again after a crash changes nothing.
 */
async function taskDone(root: string, run: WaveRun, task: string, opts: WaveOptions): Promise<WaveRun> {
  const tasks = run.tasks.map((t) => ({ ...t }));
  const t = tasks.find((x) => x.task === task);
  if (!t || t.status !== "running") return run;
  // With its worktree there, the commit finds itself again (in the worktree's history, rebased or
  // not); without it, the task was merged and its worktree removed before a crash.
  if (worktreeThere(root, t) || !(await findEffectCommit(root, effectIdOf(t, opts), t.worktree.base)))
    await commitTaskWork(
      root,
      opts.slug,
      t.worktree,
      `Task ${t.task}: ${t.name}`,
      effectIdOf(t, opts),
      await opts.message?.(t),
    );
  t.status = "done";
  return { ...run, tasks };
}

/**
 * Several tasks reported done at once: taskDone for each, their commits made at the same time (each
 * in its own worktree, under that worktree's lock). Running it again after a crash changes nothing.
 */
export async function tasksDone(
  root: string,
  run: WaveRun,
  tasks: readonly string[],
  opts: WaveOptions,
): Promise<WaveRun> {
  // Every commit ends before this returns (a refused one is thrown after the others finished).
  const settled = await Promise.allSettled(tasks.map((task) => taskDone(root, run, task, opts)));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  const after = settled.map((r) => (r as PromiseFulfilledResult<WaveRun>).value);
  return {
    ...run,
    tasks: run.tasks.map((t) => after[tasks.indexOf(t.task)]?.tasks.find((x) => x.task === t.task) ?? t),
  };
}

/**
 * A task that stops with its wave (a plan defect sends the plan back): `defect` for the task that
 * reported it, `held` for one that was not done; its worktree and branch are kept, unmerged.
 */
export function holdTask(run: WaveRun, task: string, status: "defect" | "held", error: string): WaveRun {
  return {
    ...run,
    tasks: run.tasks.map((t) => (t.task === task && t.status === "running" ? { ...t, status, error } : t)),
  };
}

/** How the error of a task stopped for its plan defect past the phase's plan send-backs begins. */
export const PLAN_DEFECT_STOP = "the executor reports a defect in the plan, and this phase's plan send-backs are spent";

/**
 * A task whose report stops it for a person at once (a plan defect once the phase's send-backs are
 * spent): `exhausted`, nothing of it merged, its worktree kept.
 */
export function stopTask(run: WaveRun, task: string, error: string): { run: WaveRun; events: WaveEvent[] } {
  const t = run.tasks.find((x) => x.task === task);
  if (!t || t.status !== "running") return { run, events: [] };
  return {
    run: {
      ...run,
      tasks: run.tasks.map((x) =>
        x === t ? { ...x, status: "exhausted" as const, stopCause: "planDefect", error } : x,
      ),
    },
    events: [{ kind: "exhausted", task, error }],
  };
}

/**
 * Merge the done tasks in task order until one is not done (it is still running, or went wrong).
 * Also what a resume calls to finish a merge a crash cut short.
 */
export async function drain(
  root: string,
  run: WaveRun,
  opts: WaveOptions,
): Promise<{ run: WaveRun; events: WaveEvent[] }> {
  const tasks = run.tasks.map((t) => ({ ...t }));
  const events: WaveEvent[] = [];
  const removals = [...(run.removals ?? [])];
  for (const t of tasks) {
    // A wave whose plan goes back to the planner: its done tasks merge past the ones that stop.
    if (t.status === "merged" || t.status === "defect" || t.status === "held") continue;
    if (t.status !== "done") break;
    // Merged before a crash, its worktree and branch gone since: only its validation is owed. (With
    // its worktree there, the check passes and mergeTask finds the merge already made.)
    const already = worktreeThere(root, t) ? null : await findEffectCommit(root, effectIdOf(t, opts), t.worktree.base);
    if (!already) await undoInterruptedRebase(root, t.worktree);
    const check = already ? null : await checkTask(root, t.worktree, t.scope);
    if (check && !check.ok) {
      t.status = check.why === "outside" ? "outside" : "exhausted";
      if (check.why === "outside") {
        t.outside = check.outside;
        events.push({ kind: "outside", task: t.task, files: check.outside });
      } else {
        t.error = check.message;
        events.push({ kind: "exhausted", task: t.task, error: check.message });
      }
      break;
    }
    const merged = already
      ? { kind: "merged" as const, sha: (await gitRunner(root)(["rev-parse", "HEAD"])).trim() }
      : await mergeTask(root, t.worktree);
    if (merged.kind !== "merged") {
      const error = merged.kind === "conflict" ? `merging it conflicts in ${merged.files.join(", ")}` : merged.message;
      await again(root, t, "conflict", error, opts, events);
      break;
    }
    opts.onStep?.("merged");
    const validation = await opts.validate(root);
    opts.onStep?.("validated");
    if (!validation.passed) {
      await again(
        root,
        t,
        "validation",
        `the validation failed after its merge: ${validation.summary}`,
        opts,
        events,
        validation.output,
      );
      break;
    }
    t.status = "merged";
    events.push({ kind: "merged", task: t.task, sha: merged.sha, validation: validation.summary });
    if (opts.removeLater) removals.push(t.worktree);
    else await removeTaskWorktree(root, t.worktree);
  }
  return { run: { ...run, tasks, ...(removals.length ? { removals } : {}) }, events };
}

/**
 * Remove merged tasks' worktrees and branches (removeTaskWorktree: nothing unmerged is removed).
 * Returns those still owed: git could not be asked (the repository busy); a worktree git refuses
 * to remove (it holds uncommitted changes) is left, as the queue always left it.
 */
export async function removeMerged(
  root: string,
  worktrees: readonly TaskWorktree[],
  onRemoved?: () => void,
): Promise<TaskWorktree[]> {
  const owed: TaskWorktree[] = [];
  for (const tw of worktrees) {
    try {
      await removeTaskWorktree(root, tw);
      onRemoved?.();
    } catch {
      owed.push(tw);
    }
  }
  return owed;
}

/**
 * After a crash: what git says wins over the saved ledger. A task whose branch is already on the
 * session's branch (merged before the ledger was saved) is done, so the queue validates it and
 * records it; a running task whose worktree is gone gets it back from its branch, work kept. Then
 * the queue drains as it would have.
 * @public the wave's SIGKILL suite (tests/reliability/wave-crash.test.ts) loads it from dist/.
 */
export async function resumeWave(
  root: string,
  run: WaveRun,
  opts: WaveOptions,
): Promise<{ run: WaveRun; events: WaveEvent[] }> {
  const tasks = run.tasks.map((t) => ({ ...t }));
  for (const t of tasks) {
    if (t.status !== "running" && t.status !== "done") continue;
    // The task's commit (found by its effect id, rebased or not) is on the session's branch.
    if (await findEffectCommit(root, effectIdOf(t, opts), t.worktree.base)) t.status = "done";
    else
      t.worktree = await openTaskWorktree(
        root,
        opts.slug,
        worktreeTask(t.task, opts.worktreeKey),
        t.attempt,
        t.worktree.base,
      );
  }
  return drain(root, { ...run, tasks }, opts);
}

function worktreeThere(root: string, t: TaskRun): boolean {
  return existsSync(path.join(root, t.worktree.path, ".git"));
}

function effectIdOf(t: TaskRun, opts: WaveOptions): string {
  return `${opts.effectPrefix}-task-${t.task}-a${t.attempt}`;
}

/** The task runs again from the session's head in a new worktree, within its retry budget; its earlier worktree is kept. */
async function again(
  root: string,
  t: TaskRun,
  why: "conflict" | "validation",
  error: string,
  opts: WaveOptions,
  events: WaveEvent[],
  output?: string,
): Promise<void> {
  t.error = error;
  t.validationOutput = output?.trim() ? output : undefined;
  if (budgetSpent(t, opts)) {
    t.status = "exhausted";
    events.push({ kind: "exhausted", task: t.task, error });
    return;
  }
  const head = (await gitRunner(root)(["rev-parse", "HEAD"])).trim();
  // A validation failure leaves the task's work merged: that worktree's branch is on the session's
  // branch and may go; a conflicting attempt's work was never merged and stays for the user.
  if (why === "validation") await removeTaskWorktree(root, t.worktree);
  else t.unmerged = [...(t.unmerged ?? []), t.worktree];
  t.attempt += 1;
  t.worktree = await openTaskWorktree(root, opts.slug, worktreeTask(t.task, opts.worktreeKey), t.attempt, head);
  t.status = "running";
  events.push({ kind: "retry", task: t.task, attempt: t.attempt, why, error });
}

/**
 * A task a person asked for again: a new worktree from the session's head (the merged result),
 * with a fresh retry budget; its stopped attempt's worktree is kept, unmerged, for the user.
 */
export async function rerunTask(root: string, t: TaskRun, opts: WaveOptions): Promise<TaskRun> {
  const head = (await gitRunner(root)(["rev-parse", "HEAD"])).trim();
  const attempt = t.attempt + 1;
  const worktree = await openTaskWorktree(root, opts.slug, worktreeTask(t.task, opts.worktreeKey), attempt, head);
  // The new attempt's brief says why the last one stopped (an exhausted task keeps its last error).
  const error = t.outside?.length
    ? `Attempt ${t.attempt} changed files outside what the task may change (${t.outside.join(", ")}), so nothing of it was merged; a person asked for the task again. Change only the files the task may change.`
    : t.error;
  return {
    ...t,
    attempt,
    budgetFrom: attempt,
    worktree,
    status: "running",
    unmerged: [...(t.unmerged ?? []), t.worktree],
    outside: undefined,
    ...(error ? { error } : {}),
  };
}
