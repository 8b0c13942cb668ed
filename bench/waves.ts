// The wave benchmark's merge-queue part: a phase of 6 tasks in 3 independent chains
// (waves 1-2-3, then 4-5-6), each task's work in its own worktree, then the merge queue's git steps
// per task in task order: autopilot's commit in the task's worktree, the base and scope check, the
// rebase + fast-forward onto the session's branch, and the worktree's removal. Printed per step
// and per task (p50). Then the whole thing through the engine: EXECUTE's wall time with
// --parallel against serial, scripted executors taking the same fixed time per task.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { makeProject, specWith } from "./repo.js";
import { ms, percentile, table } from "./stats.js";
import {
  checkTask,
  commitTaskWork,
  mergeTask,
  openTaskWorktree,
  removeTaskWorktree,
  type TaskWorktree,
} from "../src/effects/merge-queue.js";
import { gitRunner } from "../src/effects/git.js";
import type { PersonaRunner } from "../src/runners/types.js";

const WAVES = [
  ["1", "2", "3"],
  ["4", "5", "6"],
];

export async function mergeQueueBench(rounds: number): Promise<void> {
  const steps = {
    open: [] as number[],
    commit: [] as number[],
    check: [] as number[],
    merge: [] as number[],
    remove: [] as number[],
    total: [] as number[],
  };
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
          if (merged.kind !== "merged")
            throw new Error(`bench: task ${tw.task} did not merge: ${JSON.stringify(merged)}`);
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
  console.log(
    `\nMerge queue, a phase of 6 tasks in 3 independent chains (${rounds} run${rounds === 1 ? "" : "s"}, ${steps.total.length} tasks)`,
  );
  console.log(
    table(
      ["step per task", "p50", "p90"],
      Object.entries(steps).map(([k, xs]) => [
        k === "total" ? "merge-queue overhead per task (commit+check+merge+remove)" : k,
        ms(percentile(xs, 50)),
        ms(percentile(xs, 90)),
      ]),
    ),
  );
}

/** Where a parallel EXECUTE's time goes, one entry per stretch (ms), summed over the run's waves. */
type Breakdown = Record<string, number>;

const STRETCHES = [
  "EXECUTE's first Step to the first executors' start",
  "executors (first start to last end, per wave)",
  "the wave's reports (each saved, a Step rendered) until the queue starts",
  "commits in the tasks' worktrees (at once)",
  "check, rebase + fast-forward, validation, removal (task order)",
  "opening the next wave's worktrees, saving, the Step",
  "the headless driver to the next executors' start (or VERIFY)",
] as const;

/**
 * The parallel run's timeline cut into stretches, from what a user of the engine sees: the runner's
 * start and end per task, each report call's end, and the engine's progress messages (the merge
 * queue's commits, merges and the next wave's worktrees are announced as they start).
 */
function breakdown(marks: { t: number; what: string }[], entered: number, left: number): Breakdown {
  const out: Breakdown = Object.fromEntries(STRETCHES.map((k) => [k, 0]));
  const at = (what: string, from: number) => marks.find((m) => m.t >= from && m.what.startsWith(what))?.t;
  const starts = marks.filter((m) => m.what === "run start").map((m) => m.t);
  const ends = marks.filter((m) => m.what === "run end").map((m) => m.t);
  // Waves: executors started together (within 1 s of the first of them).
  const waves: { start: number; end: number }[] = [];
  for (const t of starts) {
    const w = waves.at(-1);
    if (w && t - w.start < 1000) continue;
    waves.push({ start: t, end: 0 });
  }
  waves.forEach(
    (w, i) =>
      (w.end = Math.max(...ends.filter((t) => t >= w.start && (i + 1 >= waves.length || t < waves[i + 1].start)))),
  );
  out[STRETCHES[0]] += (waves[0]?.start ?? left) - entered;
  waves.forEach((w, i) => {
    out[STRETCHES[1]] += w.end - w.start;
    const next = waves[i + 1]?.start ?? left;
    const committing = at("committing", w.end) ?? next;
    const merging = at("merging", committing) ?? next;
    const opening = Math.min(at("opening", merging) ?? next, next);
    const reported = marks.filter((m) => m.what === "report end" && m.t <= next).at(-1)?.t ?? next;
    out[STRETCHES[2]] += committing - w.end;
    out[STRETCHES[3]] += merging - committing;
    out[STRETCHES[4]] += Math.min(opening, reported) - merging;
    out[STRETCHES[5]] += Math.max(0, reported - opening);
    out[STRETCHES[6]] += next - reported;
  });
  return out;
}

/**
 * EXECUTE's wall time for the same phase (6 tasks in 3 independent chains), run headless in process
 * with the scripted runner whose executor takes `taskMs` per task, serial and with --parallel
 * (--jobs 3) in the same run: from the first Step in EXECUTE to the first one after it. The merge
 * queue's cost per task is what a parallel run adds: (parallel - 2 waves x taskMs) / 6.
 */
export async function waveWallTimeBench(rounds: number, taskMs: number): Promise<{ ratio: number }> {
  const { Engine } = await import("../src/engine/engine.js");
  const { ScriptedRunner } = await import("../src/runners/scripted.js");
  const { drive, PolicyGate } = await import("../src/headless/drive.js");
  const times: Record<"serial" | "parallel", number[]> = { serial: [], parallel: [] };
  const parts: Breakdown[] = [];
  const script = { phases: { 0: { tasks: 6, chains: 3, taskMs } } };
  for (let r = 0; r < rounds; r++) {
    for (const mode of ["serial", "parallel"] as const) {
      const proj = await makeProject(specWith(1));
      try {
        const marks: { t: number; what: string }[] = [];
        const mark = (what: string) => marks.push({ t: performance.now(), what });
        const engine = new Engine(proj.dir, { onProgress: mark });
        const { step } = await engine.start(proj.specPath, mode === "parallel" ? "--parallel" : "");
        let entered = 0;
        let left = 0;
        const scripted = new ScriptedRunner(script);
        // The same runner, its executors' start and end marked on the timeline.
        const runner: PersonaRunner = {
          name: scripted.name,
          simulated: scripted.simulated,
          run: async (task) => {
            const executor = task.expects.result === "executed";
            if (executor) mark("run start");
            try {
              return await scripted.run(task);
            } finally {
              if (executor) mark("run end");
            }
          },
        };
        const report = engine.report.bind(engine);
        engine.report = async (...a: Parameters<typeof engine.report>) => {
          try {
            return await report(...a);
          } finally {
            mark("report end");
          }
        };
        await drive(
          engine,
          step,
          runner,
          new PolicyGate(),
          {
            onStep: (s) => {
              if (s.state === "EXECUTE" && !entered) entered = performance.now();
              else if (s.state !== "EXECUTE" && entered && !left) left = performance.now();
            },
          },
          { jobs: 3 },
        );
        if (!entered || !left) throw new Error(`bench: the ${mode} run did not pass through EXECUTE`);
        times[mode].push(left - entered);
        if (mode === "parallel") parts.push(breakdown(marks, entered, left));
      } finally {
        await proj.cleanup();
      }
    }
  }
  const s = percentile(times.serial, 50);
  const p = percentile(times.parallel, 50);
  const ratio = p / s;
  console.log(
    `\nEXECUTE wall time, a phase of 6 tasks in 3 independent chains, scripted executors of ${ms(taskMs)} per task (${rounds} run${rounds === 1 ? "" : "s"} each, p50)`,
  );
  console.log(
    table(
      ["run", "EXECUTE wall time", "÷ serial"],
      [
        ["serial (one executor, 6 tasks)", ms(s), "1.00x"],
        ["--parallel --jobs 3 (2 waves of 3)", ms(p), `${ratio.toFixed(2)}x`],
        [
          "  of it beyond 2 x the task time, per task (worktrees, commits, merges, validations)",
          ms((p - 2 * taskMs) / 6),
          "",
        ],
      ],
    ),
  );
  console.log(
    `\nWhere the --parallel run's EXECUTE time goes (summed over its 2 waves, p50 of ${parts.length} run${parts.length === 1 ? "" : "s"})`,
  );
  console.log(
    table(
      ["stretch", "time"],
      STRETCHES.map((k) => [
        k,
        ms(
          percentile(
            parts.map((b) => b[k]),
            50,
          ),
        ),
      ]),
    ),
  );
  const perTask = (p - 2 * taskMs) / 6;
  console.log(
    `target: <= 0.45x serial; ${ratio <= 0.45 ? "met" : "NOT met"} at ${ratio.toFixed(2)}x with ${ms(taskMs)} per task`,
  );
  // With c per task beyond the executors' time, 2T + 6c <= 0.45 x 6T holds from T >= 6c / 0.7.
  console.log(
    `with this machine's ${ms(perTask)} per task beyond the executors' time, 0.45x is reached from ${ms((6 * perTask) / 0.7)} per task`,
  );
  return { ratio };
}
