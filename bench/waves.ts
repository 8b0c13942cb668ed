// The wave benchmark's merge-queue part (issue 27): a phase of 6 tasks in 3 independent chains
// (waves 1-2-3, then 4-5-6), each task's work in its own worktree, then the merge queue's git steps
// per task in task order: autopilot's commit in the task's worktree, the base and scope check, the
// rebase + fast-forward onto the session's branch, and the worktree's removal. Printed per step
// and per task (p50). The EXECUTE wall-time comparison (--parallel against serial with scripted
// executors) needs the wave dispatch, which is not built yet: the bench says so.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { makeProject, specWith } from "./repo.js";
import { ms, percentile, table } from "./stats.js";
import { checkTask, commitTaskWork, mergeTask, openTaskWorktree, removeTaskWorktree, type TaskWorktree } from "../src/effects/merge-queue.js";
import { gitRunner } from "../src/effects/git.js";

const WAVES = [
  ["1", "2", "3"],
  ["4", "5", "6"],
];

export async function mergeQueueBench(rounds: number): Promise<void> {
  const steps = { open: [] as number[], commit: [] as number[], check: [] as number[], merge: [] as number[], remove: [] as number[], total: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    const proj = await makeProject(specWith(1));
    try {
      const git = gitRunner(proj.dir);
      for (const wave of WAVES) {
        const base = (await git(["rev-parse", "HEAD"])).trim();
        const tws: TaskWorktree[] = [];
        for (const task of wave) {
          const t0 = performance.now();
          tws.push(await openTaskWorktree(proj.dir, proj.slug, task, 1, base));
          steps.open.push(performance.now() - t0);
        }
        // What the executors write, each in its own worktree (chain k owns src/chain-k/).
        for (const tw of tws) {
          const file = path.join(proj.dir, tw.path, `src/chain-${Number(tw.task) % 3}/task-${tw.task}.ts`);
          await mkdir(path.dirname(file), { recursive: true });
          await writeFile(file, `export const task${tw.task} = ${tw.task};\n`);
        }
        for (const tw of tws) {
          const t = [performance.now()];
          await commitTaskWork(proj.dir, proj.slug, tw, `Task ${tw.task}`, `bench-task-${tw.task}`);
          t.push(performance.now());
          const check = await checkTask(proj.dir, tw, { files: [], owns: [`src/chain-${Number(tw.task) % 3}/**`] });
          if (!check.ok) throw new Error(`bench: task ${tw.task} failed its check: ${JSON.stringify(check)}`);
          t.push(performance.now());
          const merged = await mergeTask(proj.dir, tw);
          if (merged.kind !== "merged") throw new Error(`bench: task ${tw.task} did not merge: ${JSON.stringify(merged)}`);
          t.push(performance.now());
          await removeTaskWorktree(proj.dir, tw);
          t.push(performance.now());
          steps.commit.push(t[1] - t[0]);
          steps.check.push(t[2] - t[1]);
          steps.merge.push(t[3] - t[2]);
          steps.remove.push(t[4] - t[3]);
          steps.total.push(t[4] - t[0]);
        }
      }
    } finally {
      await proj.cleanup();
    }
  }
  console.log(`\nMerge queue, a phase of 6 tasks in 3 independent chains (${rounds} run${rounds === 1 ? "" : "s"}, ${steps.total.length} tasks)`);
  console.log(
    table(
      ["step per task", "p50", "p90"],
      Object.entries(steps).map(([k, xs]) => [k === "total" ? "merge-queue overhead per task (commit+check+merge+remove)" : k, ms(percentile(xs, 50)), ms(percentile(xs, 90))]),
    ),
  );
  console.log("EXECUTE wall time --parallel vs serial: not measured (the wave dispatch that runs executors at once is not built yet).");
}
