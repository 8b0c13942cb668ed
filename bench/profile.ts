// `node dist/bench/profile.js [--phases N] [--decisions N]`: where a transition's time goes.
// Runs one scripted session against the built server with (1) a `git` shim on PATH that logs every
// git invocation, so we can count git calls per tool call, and (2) `node --cpu-prof` on the
// server, summarised as the top functions by self time. Not part of `npm run bench` (the shim and
// the profiler both slow the server down); see docs/performance.md.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeProject, specWith } from "./repo.js";
import { newStats, play, spawnServer, startSession, stateFile } from "./host.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const MAIN_JS = path.resolve(here, "../src/cli/main.js");
const argv = process.argv.slice(2);
const opt = (name: string, d: number) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : d;
};
const PHASES = opt("--phases", 3);
const DECISIONS = opt("--decisions", 0);
const PLAY = opt("--play", Math.min(PHASES, 3));

const tmp = mkdtempSync(path.join(os.tmpdir(), "autopilot-prof-"));
const realGit = execFileSync("sh", ["-c", "command -v git"]).toString().trim();
const gitLog = path.join(tmp, "git.log");
writeFileSync(path.join(tmp, "git"), `#!/bin/sh\necho "$*" >> "${gitLog}"\nexec "${realGit}" "$@"\n`);
chmodSync(path.join(tmp, "git"), 0o755);
const profDir = path.join(tmp, "prof");

const proj = await makeProject(specWith(PHASES));
const srv = await spawnServer(["--cpu-prof", `--cpu-prof-dir=${profDir}`, MAIN_JS, "serve"], proj.dir, {
  PATH: `${tmp}:${process.env.PATH}`,
});
const st = newStats();
const step = await startSession(srv.client, proj.dir, proj.specPath, st);
if (DECISIONS) {
  const file = stateFile(proj.dir, st.slug);
  const s = JSON.parse(await readFile(file, "utf8"));
  for (let i = 0; i < DECISIONS; i++)
    s.decisions.push({
      phase: 0,
      decision: "Plan approved automatically",
      timestamp: new Date(i * 1000).toISOString(),
      by: "auto",
      state: "APPROVE_PLAN",
      fired: [],
      signals: {
        reviewPlans: false,
        highComplexity: "low",
        complexityOverride: null,
        plannerConcerns: [],
        taskCount: 3,
        taskThreshold: 6,
      },
    });
  await writeFile(file, JSON.stringify(s, null, 2) + "\n");
}
// Count git calls per tool call: mark the log before each call via the bench's own hooks.
const lines = () => readFileSync(gitLog, "utf8").trim().split("\n").filter(Boolean);
let seen = 0;
try {
  seen = lines().length;
} catch {
  seen = 0;
}
console.log(`autopilot_start: ${seen} git calls`);
const perKind = new Map<string, number[]>();
const origPush = st.reports.push.bind(st.reports);
st.reports.push = (...rs) => {
  const now = lines();
  // The bench host itself runs `git rev-parse HEAD` twice around each report (not on the shim's PATH).
  const calls = now.slice(seen);
  seen = now.length;
  for (const r of rs) {
    const k = `${r.kind}${r.committed ? "+commit" : ""}`;
    perKind.set(k, [...(perKind.get(k) ?? []), calls.length]);
    if (process.env.BENCH_GIT_VERBOSE) console.log(k, calls);
  }
  return origPush(...rs);
};
await play(srv.client, proj.dir, step, st, undefined, (s) => (s.phase?.number ?? 0) > PLAY);
await srv.close();
await new Promise((r) => setTimeout(r, 500));
console.log("git calls per autopilot_report (includes decides before it):");
for (const [k, v] of perKind) console.log(`  ${k.padEnd(18)} ${v.join(" ")}`);

// Self time by function from the cpuprofile.
const file = readdirSync(profDir).find((f) => f.endsWith(".cpuprofile"));
if (file) {
  const prof = JSON.parse(readFileSync(path.join(profDir, file), "utf8")) as {
    nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  prof.samples.forEach((id, i) => {
    const n = byId.get(id)!;
    const url = n.callFrame.url
      .replace(/^file:\/\//, "")
      .replace(/.*node_modules\//, "nm/")
      .replace(/.*\/dist\//, "");
    const key = `${n.callFrame.functionName || "(anon)"} ${url}:${n.callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (prof.timeDeltas[i] ?? 0) / 1000);
  });
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 25);
  console.log("\nserver CPU, top self time (ms):");
  for (const [k, v] of top) console.log(`  ${v.toFixed(1).padStart(8)}  ${k}`);
}
await proj.cleanup();
