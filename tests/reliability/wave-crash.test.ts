// Part 1: a wave through the merge queue, SIGKILLed at random moments (mid-wave with some tasks reported
// and some not, mid-merge, between a merge and its validation, mid-removal) and resumed until it
// ends: it must end as an uninterrupted run does — the same commits in the same order, the same
// tree, no task merged twice, no unmerged work removed, no rebase left half-done. The wave runs in a
// child process on the built code (tests/reliability/build.ts); executors are simulated as the files
// they leave in their worktrees; this part drives src/effects/wave-run.ts directly, saving its
// ledger after each report as the engine saves the state.
// Part 2: a whole parallel session (`autopilot run --parallel --jobs 3`, the scripted runner, a
// phase of 6 tasks in 3 chains), SIGKILLed at each of the wave's kill points (AUTOPILOT_FAULT:
// a task's report saved with others still out, the worktrees opened, after a merge before its
// validation, after a validation before the next merge, the queue done before its event is saved,
// an earlier wave's merged worktree removed while the next wave runs)
// and resumed with the same command: the same commits, tree and end state as an uninterrupted run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, mkdir, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { builtDist } from "./build.js";
import { SEED, pool, rng } from "./harness.js";
import { WAVE_FAULT_POINTS } from "../../src/engine/faults.js";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { SPEC_REL, specRepo } from "../headless/_cli.js";

const KILLS = Number(process.env.RELIABILITY_KILLS ?? 5);
/** Waves killed and resumed, each until it ends (`npm run soak` sets more). */
const CHAINS = Number(process.env.RELIABILITY_CHAINS ?? 2);
/** Repositories worked on at once: each run waits on git and its own children much of the time. */
const PARALLEL = Number(process.env.RELIABILITY_PARALLEL_WAVES ?? 3);
/** Per-test limits that grow with the sizes (the soak's are about ten times CI's). */
const WAVE_LIMIT_MS = Math.max(600_000, CHAINS * KILLS * 12_000);
const SESSION_LIMIT_MS = Math.max(600_000, (12 + Math.max(0, CHAINS - 2) * 2) * 40_000);
const SLUG = "changes--wave--proposal";
let dist: string;
let scripts: string;
const repos: TempRepo[] = [];

// The child: start the wave (or resume it from the saved ledger), then act as the executors and
// the host: each running task's files written in its worktree, its report, the ledger saved.
// Tasks 1 and 3 write the same file, so task 3 conflicts and runs again on the merged result.
const CHILD = `
import { readFileSync, writeFileSync, renameSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";
const [dist, root, ledgerFile] = process.argv.slice(2);
const { startWave, resumeWave, taskReported, waveDone } = await import(path.join(dist, "src/effects/wave-run.js"));
const slug = ${JSON.stringify(SLUG)};
const opts = { slug, maxAttempts: 3, effectPrefix: "p0", validate: async () => ({ passed: true, summary: "ok" }) };
const save = (run) => { writeFileSync(ledgerFile + ".tmp", JSON.stringify(run)); renameSync(ledgerFile + ".tmp", ledgerFile); };
const tasks = [
  { number: "1", name: "one", scope: { files: ["src/shared.ts", "src/one.ts"], owns: [] } },
  { number: "2", name: "two", scope: { files: ["src/two.ts"], owns: [] } },
  { number: "3", name: "three", scope: { files: ["src/shared.ts"], owns: [] } },
];
let run;
if (existsSync(ledgerFile)) run = (await resumeWave(root, JSON.parse(readFileSync(ledgerFile, "utf8")), opts)).run;
else run = await startWave(root, slug, 1, tasks);
save(run);
console.log("writing");
const content = (t, attempt) => t === "1" ? { "src/shared.ts": "one\\n", "src/one.ts": "1\\n" }
  : t === "2" ? { "src/two.ts": "2\\n" }
  : { "src/shared.ts": attempt === 1 ? "three\\n" : "one\\nthree\\n" };
// Reports arrive in the order 3, 2, 1: the queue must still merge 1, 2, 3.
while (!waveDone(run)) {
  const t = [...run.tasks].reverse().find((x) => x.status === "running");
  if (!t) throw new Error("stuck: " + JSON.stringify(run.tasks.map((x) => x.status)));
  for (const [rel, text] of Object.entries(content(t.task, t.attempt))) {
    const abs = path.join(root, t.worktree.path, rel);
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  }
  run = (await taskReported(root, run, t.task, { done: true }, opts)).run;
  save(run);
}
console.log("done");
`;

beforeAll(async () => {
  dist = await builtDist();
  scripts = await realpath(await mkdtemp(path.join(tmpdir(), "autopilot-wave-crash-")));
  await writeFile(path.join(scripts, "child.mjs"), CHILD);
}, 300_000);
/** Children still running (a test that failed or ran out of time leaves some): killed before the clean-up. */
const running = new Set<ChildProcess>();
function track(child: ChildProcess): ChildProcess {
  running.add(child);
  child.on("close", () => running.delete(child));
  return child;
}
afterAll(async () => {
  await Promise.all([...running].map((c) => new Promise((done) => (c.once("close", done), c.kill("SIGKILL")))));
  await Promise.all(repos.map((r) => rm(r.dir, { recursive: true, force: true, maxRetries: 5 })));
  await rm(scripts, { recursive: true, force: true });
});

async function repo(): Promise<TempRepo> {
  const r = await makeRepo({
    files: { "README.md": "# wave\n", "src/shared.ts": "base\n", ".gitignore": ".harness/sessions/\n" },
  });
  await mkdir(path.join(r.dir, ".harness/sessions", SLUG), { recursive: true });
  repos.push(r);
  return r;
}

/** Run the child once; kill it after `killAfterMs` (null: let it finish). Resolves with its exit. */
function runChild(
  dir: string,
  killAfterMs: number | null,
): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = track(
      spawn(
        process.execPath,
        [path.join(scripts, "child.mjs"), dist, dir, path.join(dir, ".harness/sessions", SLUG, "wave.json")],
        {
          cwd: dir,
          env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      ),
    );
    let out = "";
    let err = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (killAfterMs !== null && d.includes("writing")) setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    });
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("close", (code, signal) => resolve({ code, signal, out, err }));
  });
}

async function endState(dir: string) {
  return {
    subjects: (await git(dir, "log", "--format=%s")).trim().split("\n"),
    tree: (await git(dir, "rev-parse", "HEAD^{tree}")).trim(),
    merges: (await git(dir, "rev-list", "--merges", "HEAD")).trim(),
  };
}

describe("a wave SIGKILLed at random moments", () => {
  it(
    "resumes to the end state of an uninterrupted run",
    async () => {
      const clean = await repo();
      const first = await runChild(clean.dir, null);
      expect(first.err).toBe("");
      expect(first.code).toBe(0);
      const want = await endState(clean.dir);
      expect(want.subjects).toEqual(["Task 3: three", "Task 2: two", "Task 1: one", "initial commit"]);

      let kills = 0;
      let busy = 0;
      await pool(
        Array.from({ length: CHAINS }, (_, i) => i),
        PARALLEL,
        async () => {
          const killed = await repo();
          let landed = 0;
          for (let i = 0; i < 40; i++) {
            // Each kill lands somewhere in what is left: the earlier ones mid-wave, later ones mid-merge.
            const r = await runChild(killed.dir, landed < KILLS ? 50 + Math.floor(Math.random() * 600) : null);
            if (r.signal === "SIGKILL") {
              landed++;
              continue;
            }
            // A git an earlier, killed run started may still hold the repository's index for a moment.
            if (r.code !== 0 && /index\.lock|busy/.test(r.err)) {
              busy++;
              await new Promise((res) => setTimeout(res, 200));
              continue;
            }
            expect(r.err).toBe("");
            expect(r.code).toBe(0);
            break;
          }
          kills += landed;
          expect(await endState(killed.dir)).toEqual(want);
          // No rebase left half-done in any task worktree, and the conflicting first attempt of task 3
          // (never merged) is still there for the user.
          const wtGit = path.join(killed.dir, ".git/worktrees");
          if (existsSync(wtGit))
            for (const d of await readdir(wtGit)) expect(existsSync(path.join(wtGit, d, "rebase-merge"))).toBe(false);
          expect((await git(killed.dir, "branch", "--list", `autopilot-task/${SLUG}/3`)).trim()).not.toBe("");
        },
      );
      expect(kills).toBeGreaterThan(0);
      console.log(`wave crash: ${CHAINS} waves, ${kills} kills, ${busy} busy retries`);
    },
    WAVE_LIMIT_MS,
  );
});

describe("a parallel session SIGKILLed at each of the wave's kill points", () => {
  const SCRIPT = { phases: { "0": { tasks: 6, chains: 3 }, "1": { tasks: 3 }, "2": { tasks: 1 } } };
  const ARGS = ["run", SPEC_REL, "--runner", "scripted", "--yes", "--parallel", "--jobs", "3"];

  function runCli(
    dir: string,
    fault: string | null,
  ): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
    return new Promise((resolve) => {
      const env: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1" };
      if (fault) env.AUTOPILOT_FAULT = fault;
      else delete env.AUTOPILOT_FAULT;
      const child = track(
        spawn(process.execPath, [path.join(dist, "src/cli/main.js"), ...ARGS], {
          cwd: dir,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        }),
      );
      let out = "";
      let err = "";
      child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
      child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
      child.on("close", (code, signal) => resolve({ code, signal, out, err }));
    });
  }

  async function sessionEnd(dir: string) {
    const state = JSON.parse(
      await (
        await import("node:fs/promises")
      ).readFile(path.join(dir, ".harness/sessions/changes--word-count--proposal/autopilot-state.json"), "utf8"),
    );
    const wt = path.join(dir, ".harness/worktrees");
    return {
      subjects: (await git(dir, "log", "--format=%s")).trim().split("\n"),
      files: (await git(dir, "ls-tree", "-r", "--name-only", "HEAD")).trim(),
      merges: (await git(dir, "rev-list", "--merges", "HEAD")).trim(),
      state: state.currentState,
      phases: state.phases.map((p: { status: string }) => p.status),
      worktrees: existsSync(wt) ? (await readdir(wt)).filter((f) => f !== ".gitignore") : [],
      branches: (await git(dir, "branch", "--list", "autopilot-task/*")).trim(),
    };
  }

  it(
    "resumes to the end state of an uninterrupted run, nothing merged twice and nothing lost",
    async () => {
      const clean = await specRepo({ config: { scripted: SCRIPT } });
      repos.push(clean);
      const first = await runCli(clean.dir, null);
      expect(first.err).toBe("");
      expect(first.code).toBe(0);
      const want = await sessionEnd(clean.dir);
      expect(want.state).toBe("DONE");
      expect(want.subjects.filter((s) => /^Add .* step \d+$/.test(s))).toHaveLength(9);

      // Phase 1 has 2 waves of 3 tasks, phase 2 one wave of 3: each point is reached several times.
      const kills = [
        "wave-reported:1",
        "wave-reported:2",
        "wave-reported:5",
        "wave-opened:1",
        "wave-opened:2",
        "wave-merge:1",
        "wave-merge:3",
        "wave-validated:2",
        "wave-merged:1",
        "wave-merged:2",
        // Wave 1's merged worktrees removed while wave 2 runs: after the first, and the last.
        "wave-removed:1",
        "wave-removed:3",
      ];
      // `npm run soak` (RELIABILITY_CHAINS above 2) adds seeded kills: a random point at a random
      // occurrence, or two at once (the run dies at whichever comes first). An occurrence past the
      // run's last is no kill: that run must simply finish like the uninterrupted one.
      const r0 = rng(SEED + 27);
      const points = WAVE_FAULT_POINTS;
      const pick = () => `${points[Math.floor(r0() * points.length)]}:${1 + Math.floor(r0() * 6)}`;
      const extra = Array.from({ length: Math.max(0, CHAINS - 2) * 2 }, (_, i) =>
        i % 3 === 2 ? `${pick()},${pick()}` : pick(),
      );
      let landed = 0;
      await pool([...kills, ...extra], PARALLEL, async (fault) => {
        const r = await specRepo({ config: { scripted: SCRIPT } });
        repos.push(r);
        const killed = await runCli(r.dir, fault);
        if (kills.includes(fault)) expect(killed.signal, fault).toBe("SIGKILL");
        if (killed.signal !== "SIGKILL") {
          // Not reached: the run ended by itself (running it again would start the spec over).
          expect(killed.err, fault).toBe("");
          expect(killed.code, fault).toBe(0);
          expect(await sessionEnd(r.dir), fault).toEqual(want);
          return;
        }
        landed++;
        let res = await runCli(r.dir, null);
        // A git an earlier, killed run started may still hold the repository's index for a moment.
        for (let i = 0; i < 5 && res.code !== 0 && /index\.lock|busy/.test(res.err + res.out); i++) {
          await new Promise((done) => setTimeout(done, 300));
          res = await runCli(r.dir, null);
        }
        expect(res.err, fault).toBe("");
        expect(res.code, fault).toBe(0);
        expect(await sessionEnd(r.dir), fault).toEqual(want);
      });
      console.log(
        `parallel session crash: ${landed} kills (${kills.length} fixed, ${extra.length} seeded tries) at ${new Set(kills.map((k) => k.split(":")[0])).size} wave kill points, each resumed to the same end state`,
      );
    },
    SESSION_LIMIT_MS,
  );
});
