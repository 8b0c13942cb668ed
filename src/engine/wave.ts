// A parallel session's wave, as the session engine runs it: two probes, the machine's
// way of having facts read and work done outside it. `waveOpen` opens the worktrees of the next
// wave (or of the tasks a person asked for again) from the session's head; `waveMerge`, once every
// running task has reported, commits each done task's work in its worktree and runs the merge
// queue (src/effects/wave-run.ts: in task order, validation after each merge, a conflict or a
// failing validation sent back alone). Both are safe to run again after a crash at any point: the
// machine rests at the probe until its event is saved, and every git step finds its own earlier
// result (worktrees and branches are found again, commits by their effect id, merges by ancestry).
import { commitMessage } from "../effects/commit-message.js";
import { readFile } from "node:fs/promises";
import type { AutopilotEvent } from "../../machines/autopilot.machine.js";
import type { AutopilotState, WaveLedger } from "../session/schema.js";
import type { ProjectConfig } from "../session/config.js";
import { AutopilotError } from "../protocol/errors.js";
import { confine } from "../session/confine.js";
import { planHeaders } from "../markdown/plan-header.js";
import { failureTail, runValidation } from "../effects/validation.js";
import { planDefectSendBackLeft } from "../rules/policy.js";
import {
  PLAN_DEFECT_STOP,
  drain,
  holdTask,
  removeMerged,
  rerunTask,
  startWave,
  stopTask,
  taskReported,
  tasksDone,
  waveDone,
  type WaveEvent,
  type WaveOptions,
  type WaveRun,
} from "../effects/wave-run.js";
import { removeTaskWorktree, type TaskWorktree } from "../effects/merge-queue.js";

export interface WaveProbeContext {
  root: string;
  slug: string;
  config: () => Promise<ProjectConfig>;
  validationTimeoutMs?: number;
  onProgress?: (message: string) => void;
  now: string;
  /** The crash suite's kill points inside the merge queue, and after a merged worktree's removal off the critical path. */
  onStep?: (point: "merged" | "validated" | "removed") => void;
}

/**
 * Removals of merged worktrees running in this process while the next wave's executors work, by
 * checkout: the next probe waits for them, then removes whatever the ledger still owes (after a
 * crash, everything it lists).
 */
const removing = new Map<string, Promise<Set<string>>>();

function removeInBackground(root: string, owed: readonly TaskWorktree[], onRemoved: () => void): void {
  if (!owed.length) return;
  const before = removing.get(root) ?? Promise.resolve(new Set<string>());
  removing.set(
    root,
    before.then(async (done) => {
      const left = new Set((await removeMerged(root, owed, onRemoved).catch(() => [...owed])).map((tw) => tw.path));
      for (const tw of owed) if (!left.has(tw.path)) done.add(tw.path);
      return done;
    }),
  );
}

/** What the ledger owes once this process's removals have ended: removed now, in the probe. */
async function finishRemovals(root: string, owed: readonly TaskWorktree[]): Promise<TaskWorktree[]> {
  const done = (await removing.get(root)) ?? new Set<string>();
  removing.delete(root);
  return removeMerged(
    root,
    owed.filter((tw) => !done.has(tw.path)),
  );
}

/** The merge queue's options for this session, phase and plan. */
function waveOptions(state: AutopilotState, ctx: WaveProbeContext): WaveOptions {
  const plan = (state.phaseRun.approvedPlanSha256 ?? state.phaseRun.planSha256 ?? "noplan").slice(0, 8);
  const phase = state.currentPhase + 1;
  // After a plan defect sent the plan back, a revised plan that came back unchanged still gets new
  // worktrees: the stopped attempts' worktrees are kept, unmerged.
  const rev =
    state.phaseRun.tasksMerged !== undefined && state.phaseRun.planDefects ? `r${state.phaseRun.planDefects}` : "";
  return {
    slug: ctx.slug,
    maxAttempts: state.retryBudget.maxAttempts,
    // Unique per session (its starting commit), phase and plan: a revised plan's task 2 is not the first plan's.
    effectPrefix: `${ctx.slug}@${(state.startingCommit ?? "none").slice(0, 12)}/p${phase}-${plan}${rev}`,
    worktreeKey: `p${phase}-${plan.slice(0, 6)}${rev}-`,
    onStep: ctx.onStep,
    removeLater: true,
    message: async (t) =>
      commitMessage(
        ctx.root,
        {
          label: `Task ${t.task}: ${t.name}`,
          kind: "task",
          topic: t.name,
          proposal: state.phaseRun.waveRun?.tasks.find((x) => x.task === t.task)?.reported?.commitMessage,
        },
        await ctx.config(),
      ),
    validate: async (root) => {
      ctx.onProgress?.("running the project's validation commands after a merge");
      const v = await runValidation(root, { timeoutMs: ctx.validationTimeoutMs, config: await ctx.config() });
      return { passed: v.passed, summary: v.summary, output: failureTail(v) };
    },
  };
}

async function taskScopes(
  root: string,
  state: AutopilotState,
): Promise<Map<string, { name: string; files: string[]; owns: string[] }>> {
  const planPath = state.phases[state.currentPhase]?.planPath;
  if (!planPath)
    throw new AutopilotError(
      "plan_not_found",
      `The plan of phase ${state.currentPhase + 1} is not recorded; the wave cannot start.`,
    );
  const text = await readFile(confine(root, planPath), "utf8").catch(() => {
    throw new AutopilotError(
      "plan_not_found",
      `The plan ${planPath} is missing. Restore the file (git checkout) and call autopilot_next again.`,
    );
  });
  return new Map(planHeaders(text).map((h) => [h.number, { name: h.name, files: h.files, owns: h.owns }]));
}

/** The waveOpen probe: the next wave's worktrees, or new ones for the tasks a person asked for again. */
export async function openWave(state: AutopilotState, ctx: WaveProbeContext): Promise<AutopilotEvent> {
  const waves = state.phaseRun.waves?.waves ?? [];
  const ledger = state.phaseRun.waveRun ?? null;
  const opts = waveOptions(state, ctx);
  const allMerged = !!ledger && ledger.tasks.every((t) => t.status === "merged");
  if (!ledger || (allMerged && ledger.wave + 1 < waves.length)) {
    const w = ledger ? ledger.wave + 1 : 0;
    const scopes = await taskScopes(ctx.root, state);
    const tasks = (waves[w] ?? []).map((n) => {
      const h = scopes.get(n);
      return { number: n, name: h?.name ?? `Task ${n}`, scope: { files: h?.files ?? [], owns: h?.owns ?? [] } };
    });
    ctx.onProgress?.(`opening the worktrees of wave ${w + 1}`);
    const run = await startWave(ctx.root, ctx.slug, w, tasks, opts.worktreeKey);
    // The last wave's merged worktrees go while this one's executors work; the ledger keeps them
    // owed until the next probe has seen them gone.
    const owed = (ledger?.removals ?? []) as TaskWorktree[];
    removeInBackground(ctx.root, owed, () => ctx.onStep?.("removed"));
    return {
      type: "WAVE_OPENED",
      run: { ...run, ...(owed.length ? { removals: owed } : {}) } as WaveLedger,
      now: ctx.now,
    };
  }
  const tasks: WaveLedger["tasks"] = [];
  for (const t of ledger.tasks)
    tasks.push(t.status === "rerun" ? ((await rerunTask(ctx.root, t, opts)) as WaveLedger["tasks"][number]) : t);
  return { type: "WAVE_OPENED", run: { ...ledger, tasks }, now: ctx.now };
}

/**
 * The waveMerge probe: every report the wave's running tasks made is taken (a failure: the task
 * goes again in its worktree, within its budget; done: its work is committed in its worktree), then
 * the queue merges in task order.
 */
export async function mergeWave(state: AutopilotState, ctx: WaveProbeContext): Promise<AutopilotEvent> {
  const ledger = state.phaseRun.waveRun;
  if (!ledger) throw new AutopilotError("internal", "The wave's ledger is missing at its merge. Please report this.");
  const opts = waveOptions(state, ctx);
  let run = ledger as WaveRun;
  // The earlier wave's merged worktrees: removed by now (in the background), or here.
  if (run.removals?.length) run = { ...run, removals: await finishRemovals(ctx.root, run.removals) };
  const events: WaveEvent[] = [];
  const done: string[] = [];
  // An executor reported a defect in the plan: within the phase's send-backs, the plan goes back to
  // the planner once this wave's done tasks are merged; the tasks not done stop with their work
  // kept (they run again from the revised plan). Past them, the task stops for a person.
  const sendBack =
    ledger.tasks.some((t) => t.status === "running" && t.reported?.defect) &&
    planDefectSendBackLeft(state.phaseRun.planDefects, state.retryBudget.maxAttempts);
  for (const t of ledger.tasks) {
    if (t.status !== "running" || !t.reported) continue;
    if (t.reported.done) done.push(t.task);
    else if (sendBack)
      run = holdTask(
        run,
        t.task,
        t.reported.defect ? "defect" : "held",
        t.reported.defect ?? t.reported.error ?? "the executor reported a failure",
      );
    else if (t.reported.defect) {
      const r = stopTask(run, t.task, `${PLAN_DEFECT_STOP}: ${t.reported.defect}`);
      run = r.run;
      events.push(...r.events);
    } else {
      const r = await taskReported(
        ctx.root,
        run,
        t.task,
        { done: false, error: t.reported.error ?? "the executor reported a failure" },
        opts,
      );
      run = r.run;
      events.push(...r.events);
    }
  }
  // The done tasks' work is committed in their worktrees at once.
  if (done.length) ctx.onProgress?.("committing the done tasks' work in their worktrees");
  run = await tasksDone(ctx.root, run, done, opts);
  ctx.onProgress?.("merging the wave's tasks in task order");
  const drained = await drain(ctx.root, run, opts);
  events.push(...drained.events);
  run = drained.run;
  // The plan goes back to the planner (now, or after a person's answer about another task): the
  // stopped tasks' worktrees that hold no work go (git refuses to remove one with changes or
  // commits not on the session's branch: that work is kept).
  const planBack = run.tasks.some((t) => t.status === "defect");
  if (planBack)
    for (const t of run.tasks)
      if (t.status === "defect" || t.status === "held")
        await removeTaskWorktree(ctx.root, t.worktree).catch(() => false);
  // The phase's last wave done, or the plan going back (its revision starts its waves afresh): the
  // merged worktrees go now, so nothing is owed when EXECUTE ends.
  const waves = state.phaseRun.waves?.waves.length ?? 0;
  if ((planBack || (waveDone(run) && run.wave + 1 >= waves)) && run.removals?.length) {
    ctx.onProgress?.("removing the merged worktrees");
    for (const tw of run.removals) await removeTaskWorktree(ctx.root, tw);
    run = { ...run, removals: [] };
  }
  return { type: "WAVE_MERGED", run: run as WaveLedger, events, now: ctx.now };
}
