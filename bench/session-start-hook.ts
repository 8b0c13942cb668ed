// `npm run bench:hook`: how long the SessionStart hook (hooks/autopilot-session-start.mjs) takes
// to start, read the project's sessions and print its line, against Node starting an empty script
// in the same run (the floor any hook written for Node pays) and `autopilot status` (the whole CLI,
// which a hook must not load). Each figure is the wall time of a spawned process, as a client sees
// it. docs/performance.md records a run.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { median, ms, percentile, ratio, table } from "./stats.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(here, "../.."); // dist/bench → the package root
const HOOK = path.join(REPO_ROOT, "hooks", "autopilot-session-start.mjs");
const MAIN_JS = path.join(REPO_ROOT, "dist/src/cli/main.js");
const N = process.argv.includes("--quick") ? 7 : 31;
const FINISHED = 50;

/** A project with one session in progress and `finished` sessions at DONE (a project's history). */
function project(finished: number, inProgress: boolean): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "autopilot-hook-bench-"));
  execFileSync("git", ["init", "-q", dir]);
  const state = (currentState: string, stepId: number, i: number) =>
    JSON.stringify({
      schemaVersion: 5,
      currentState,
      stepId,
      updatedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      phases: Array.from({ length: 8 }, (_, p) => ({ name: `Phase ${p}`, status: "complete" })),
      decisions: [],
    });
  for (let i = 0; i < finished; i++) {
    mkdirSync(path.join(dir, ".harness/sessions", `done-${i}`), { recursive: true });
    writeFileSync(path.join(dir, ".harness/sessions", `done-${i}`, "autopilot-state.json"), state("DONE", 60, i));
  }
  if (inProgress) {
    mkdirSync(path.join(dir, ".harness/sessions/feature"), { recursive: true });
    writeFileSync(path.join(dir, ".harness/sessions/feature/autopilot-state.json"), state("EXECUTE", 17, finished + 1));
  }
  return dir;
}

/** Wall times (ms) of `n` runs of `args` in `cwd`, alternating with the others by the caller. */
function once(args: string[], cwd: string, env: NodeJS.ProcessEnv): { ms: number; out: string } {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { cwd, env, encoding: "utf8" });
  const took = performance.now() - t;
  // (`autopilot status` exits 1 on these hand-made state files, which it finds incomplete: its time still counts.)
  if (r.status !== 0 && args[0] !== MAIN_JS) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return { ms: took, out: r.stdout };
}

const empty = project(0, false);
const busy = project(FINISHED, true);
const env = { ...process.env, CLAUDE_PROJECT_DIR: "" };
const cases: Array<{ name: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv }> = [
  { name: "node -e '' (Node's own start)", args: ["-e", ""], cwd: empty, env },
  { name: "hook, no .harness", args: [HOOK], cwd: empty, env },
  { name: `hook, 1 in progress + ${FINISHED} done`, args: [HOOK], cwd: busy, env },
  { name: `hook --json, same project`, args: [HOOK, "--json"], cwd: busy, env },
  { name: "autopilot status (the whole CLI)", args: [MAIN_JS, "status"], cwd: busy, env },
];
const times = cases.map(() => [] as number[]);
let line = "";
for (let i = 0; i < N; i++) {
  // Rotate the order so a warm page cache favours none.
  for (let k = 0; k < cases.length; k++) {
    const j = (i + k) % cases.length;
    const r = once(cases[j].args, cases[j].cwd, cases[j].env);
    times[j].push(r.ms);
    if (j === 2) line = r.out.trim();
  }
}
const base = median(times[0]);
console.log(
  `SessionStart hook · ${N} runs each · ${os.cpus()[0]?.model.trim()} · ${os.cpus().length} cores · node ${process.version} · load ${os.loadavg()[0].toFixed(2)}`,
);
console.log(`printed: ${line}`);
console.log(
  table(
    ["process", "median", "p95", "vs node -e ''"],
    cases.map((c, j) => [c.name, ms(median(times[j])), ms(percentile(times[j], 95)), ratio(median(times[j]), base)]),
  ),
);
console.log(`the hook's own cost over Node's start (median): ${ms(median(times[2]) - base)}`);
rmSync(empty, { recursive: true, force: true });
rmSync(busy, { recursive: true, force: true });
