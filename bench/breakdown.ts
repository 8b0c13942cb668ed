// Where an autopilot_report's time goes, from a CPU profile of the built server (`node --cpu-prof`
// on the bin, dist/src/cli/main.js, mapped back to source files through the bundle's hidden source
// maps). Each sample inside a report's round trip (the bench host's clock and V8's are the same
// monotonic clock) is put in the part of the call its innermost own frame belongs to: read and
// parse, the machine, effects, git, save, render... A sample with no frame of ours (the garbage
// collector, Node's I/O callbacks) and the idle samples go to the part that ran just before: idle
// inside a call is the server waiting for what that part started (a git process, an fsync), shown
// apart as "waiting". CPU figures are repeatable on a loaded machine; waiting ones are not.
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sourceResolver } from "./sourcemap.js";
import { makeProject, specWith } from "./repo.js";
import { newStats, play, spawnServer, startSession, stateFile, type ReportSample, type SessionStats } from "./host.js";
import { table } from "./stats.js";

export const PARTS = [
  "MCP and router",
  "lock",
  "read and parse",
  "result check",
  "the machine",
  "save",
  "effects",
  "git",
  "probes",
  "render",
] as const;
export type Part = (typeof PARTS)[number];

const STORE: Record<string, Part> = {
  read: "read and parse",
  readText: "read and parse",
  parse: "read and parse",
  readRaw: "read and parse",
  exists: "read and parse",
  list: "read and parse",
  write: "save",
  reads: "save",
  serializeState: "save",
  fsyncDir: "save",
  withLock: "lock",
  lockAndRun: "lock",
  busyError: "lock",
};
const SESSION: Record<string, Part> = {
  load: "read and parse",
  read: "read and parse",
  parseResult: "result check",
  dispatchAt: "result check",
  assertStep: "result check",
  resultFile: "result check",
  performOutbox: "effects",
  runProbes: "probes",
  probe: "probes",
  checkPlanUnchanged: "probes",
  lookForInteractivePlan: "probes",
  render: "render",
  inWorkspace: "render",
};

/** The part a frame belongs to; null: not telling (a helper several parts use), ask its caller. */
function partOf(file: string, fn: string): Part | null {
  const f = file.split(path.sep).join("/");
  if (f.startsWith("node_modules/")) {
    if (/^node_modules\/(xstate|@xstate)\//.test(f)) return "the machine";
    if (/^node_modules\/(proper-lockfile|graceful-fs|retry)\//.test(f)) return "lock";
    if (/^node_modules\/@modelcontextprotocol\//.test(f)) return "MCP and router";
    return null;
  }
  const m = /^dist\/src\/(.*)\.js$/.exec(f);
  if (!m) return null;
  const src = m[1];
  if (src === "session/store") return STORE[fn] ?? null;
  if (src === "engine/session") return SESSION[fn] ?? null;
  if (src === "session/lock") return "lock";
  if (/^session\/migrate/.test(src)) return "read and parse";
  if (src.startsWith("machine/") || src === "engine/machine-state") return "the machine";
  if (/^effects\/(git|ownership|merge-queue|worktree)$/.test(src)) return "git";
  if (src === "effects/validation" || src === "engine/wave") return "probes";
  if (src === "engine/results" || src === "protocol/step" || src === "session/usage") return "result check";
  if (src === "engine/perform" || (src.startsWith("effects/") && src !== "effects/fsutil")) return "effects";
  if (/^(engine\/step|engine\/facts|personas\/|mcp\/render|protocol\/host-view)/.test(src)) return "render";
  if (/^(mcp\/|engine\/engine|protocol\/input|session\/config|session\/driver-lock|session\/paths)/.test(src))
    return "MCP and router";
  return null;
}

interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface PartTimes {
  cpu: number;
  wait: number;
}
export interface Breakdown {
  label: string;
  reports: number;
  /** Mean round trip per report as the host timed it (ms). */
  wall: number;
  /** Mean ms per report per part. */
  parts: Map<Part, PartTimes>;
  /** Mean ms per report of the profile's samples inside the round trips (≤ wall). */
  sampled: number;
  /** Top self time by function over these reports (ms per report). */
  top: Array<[string, number]>;
  /** Top total time (the function and what it calls) by function of ours (ms per report). */
  inclusive: Array<[string, number]>;
}

/** Samples of `prof` inside each window, put in parts. */
export function attribute(prof: CpuProfile, windows: ReportSample[], packageRoot: string, label: string): Breakdown {
  const resolve = sourceResolver(packageRoot);
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const files = new Map<number, string>();
  const fileOf = (id: number) => {
    let f = files.get(id);
    if (f === undefined) {
      const cf = byId.get(id)!.callFrame;
      f = resolve(cf.url, cf.lineNumber, cf.columnNumber);
      files.set(id, f);
    }
    return f;
  };
  const memo = new Map<number, Part | null>();
  const partOfNode = (id: number): Part | null => {
    if (memo.has(id)) return memo.get(id)!;
    const cf = byId.get(id)!.callFrame;
    let p = partOf(fileOf(id), cf.functionName);
    if (p === null && parent.has(id)) p = partOfNode(parent.get(id)!);
    memo.set(id, p);
    return p;
  };
  const parts = new Map<Part, PartTimes>(PARTS.map((p) => [p, { cpu: 0, wait: 0 }]));
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  const ws = [...windows].sort((a, b) => a.startUs - b.startUs);
  let t = prof.startTime;
  let w = 0;
  let last: Part = "MCP and router";
  let sampled = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = prof.timeDeltas[i] ?? 0;
    t += dt;
    while (w < ws.length && t > ws[w].endUs) {
      w++;
      last = "MCP and router";
    }
    if (w >= ws.length) break;
    if (t < ws[w].startUs) continue;
    // A sample's delta is the time since the one before: that stretch is what this sample stands for.
    const ms = Math.min(dt, t - ws[w].startUs) / 1000;
    sampled += ms;
    const node = byId.get(prof.samples[i])!;
    const name = node.callFrame.functionName;
    if (name === "(idle)") {
      parts.get(last)!.wait += ms;
      continue;
    }
    const p = partOfNode(node.id);
    if (p) last = p;
    parts.get(p ?? last)!.cpu += ms;
    const key = `${name || "(anonymous)"} ${fileOf(node.id).replace(/^node_modules\//, "")}`;
    self.set(key, (self.get(key) ?? 0) + ms);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const f = fileOf(id);
      if (!f.startsWith("dist/src/")) continue;
      const k = `${byId.get(id)!.callFrame.functionName || "(anonymous)"} ${f.replace(/^dist\//, "")}`;
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + ms);
    }
  }
  const n = Math.max(1, windows.length);
  for (const v of parts.values()) {
    v.cpu /= n;
    v.wait /= n;
  }
  return {
    label,
    reports: windows.length,
    wall: windows.reduce((a, r) => a + r.ms, 0) / n,
    parts,
    sampled: sampled / n,
    top: [...self]
      .map(([k, v]) => [k, v / n] as [string, number])
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12),
    inclusive: [...incl]
      .map(([k, v]) => [k, v / n] as [string, number])
      .sort((a, b) => b[1] - a[1])
      .slice(0, 40),
  };
}

async function profiledServer(mainJs: string, dir: string, profDir: string, clientName?: string) {
  return spawnServer(
    [
      "--cpu-prof",
      "--cpu-prof-interval",
      String(process.env.BENCH_PROF_US ?? 250),
      `--cpu-prof-dir=${profDir}`,
      mainJs,
      "serve",
    ],
    dir,
    {},
    clientName,
  );
}

async function readProfile(profDir: string): Promise<CpuProfile> {
  // The server writes its profile as it exits, after the client has closed its stdin.
  for (let i = 0; i < 100; i++) {
    const f = readdirSync(profDir).find((x) => x.endsWith(".cpuprofile"));
    if (f) {
      try {
        return JSON.parse(readFileSync(path.join(profDir, f), "utf8")) as CpuProfile;
      } catch {
        // still being written
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no CPU profile in ${profDir}`);
}

/**
 * Profiled sessions on the server `mainJs`: `sessions` 3-phase sessions (reports with and without a
 * checkpoint commit), and a 200-phase one whose state file gets `decisions` decisions after its
 * first phase (the reports after that, none committing).
 */
export async function reportBreakdown(
  mainJs: string,
  packageRoot: string,
  { sessions = 3, decisions = 5_000 }: { sessions?: number; decisions?: number } = {},
): Promise<Breakdown[]> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), "autopilot-breakdown-"));
  try {
    const small: Array<{ prof: CpuProfile; st: SessionStats }> = [];
    // The decisions a real session records, copied to make a long history.
    let templates: unknown[] = [];
    for (let i = 0; i < sessions; i++) {
      const proj = await makeProject(specWith(3, (k) => (k === 1 ? "medium" : "low")));
      const profDir = path.join(tmp, `small-${i}`);
      const srv = await profiledServer(mainJs, proj.dir, profDir);
      const st = newStats();
      await play(srv.client, proj.dir, await startSession(srv.client, proj.dir, proj.specPath, st), st);
      if (!templates.length)
        templates = (JSON.parse(await readFile(stateFile(proj.dir, st.slug), "utf8")) as { decisions: unknown[] })
          .decisions;
      await srv.close();
      small.push({ prof: await readProfile(profDir), st });
      await proj.cleanup();
    }
    const merge = (label: string, pick: (r: ReportSample) => boolean) => {
      const each = small.map(({ prof, st }) => {
        const ws = st.reports.filter(pick);
        return { b: attribute(prof, ws, packageRoot, label), n: ws.length };
      });
      return combine(
        label,
        each.map((e) => e.b),
        each.map((e) => e.n),
      );
    };
    const out = [merge("3 phases, no commit", (r) => !r.committed), merge("3 phases, with commit", (r) => r.committed)];
    // BENCH_BY_KIND=1: the reports without a commit also by the result they report.
    if (process.env.BENCH_BY_KIND)
      for (const kind of ["planned", "verified", "reviewed"])
        out.push(merge(`3 phases, ${kind}`, (r) => !r.committed && r.kind === kind));

    const proj = await makeProject(specWith(200));
    const profDir = path.join(tmp, "scale");
    const srv = await profiledServer(mainJs, proj.dir, profDir, "claude-code");
    const before = newStats();
    // Claude Code's Steps carry no phase: count the phases the reports say complete.
    const completed = new Set<number>();
    const phasesDone = (n: number) => (s: { report?: string; stepId: number }) => {
      if (/^Phase \d+: .* — COMPLETE$/m.test(s.report ?? "")) completed.add(s.stepId);
      return completed.size >= n;
    };
    let step = await startSession(srv.client, proj.dir, proj.specPath, before);
    step = await play(srv.client, proj.dir, step, before, undefined, phasesDone(1), true);
    const file = stateFile(proj.dir, before.slug);
    const state = JSON.parse(await readFile(file, "utf8")) as { decisions: unknown[]; currentPhase: number };
    const base = Date.parse("2026-01-01T00:00:00Z");
    for (let i = 0; i < decisions; i++) {
      const d = structuredClone(templates[i % templates.length]) as Record<string, unknown>;
      d.phase = i % Math.max(1, state.currentPhase);
      d.timestamp = new Date(base + i * 60_000).toISOString();
      state.decisions.push(d);
    }
    await writeFile(file, JSON.stringify(state, null, 2) + "\n");
    const after = newStats();
    after.slug = before.slug;
    await play(srv.client, proj.dir, step, after, undefined, phasesDone(3), true);
    await srv.close();
    const prof = await readProfile(profDir);
    await proj.cleanup();
    out.push(
      attribute(
        prof,
        after.reports.filter((r) => !r.committed),
        packageRoot,
        `200 phases, ${state.decisions.length} decisions, no commit`,
      ),
    );
    return out;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

function combine(label: string, bs: Breakdown[], ns: number[]): Breakdown {
  const total = ns.reduce((a, b) => a + b, 0) || 1;
  const w = (i: number) => ns[i] / total;
  const parts = new Map<Part, PartTimes>(PARTS.map((p) => [p, { cpu: 0, wait: 0 }]));
  const top = new Map<string, number>();
  const inclusive = new Map<string, number>();
  bs.forEach((b, i) => {
    for (const [k, v] of b.inclusive) inclusive.set(k, (inclusive.get(k) ?? 0) + v * w(i));
    for (const [p, v] of b.parts) {
      parts.get(p)!.cpu += v.cpu * w(i);
      parts.get(p)!.wait += v.wait * w(i);
    }
    for (const [k, v] of b.top) top.set(k, (top.get(k) ?? 0) + v * w(i));
  });
  return {
    label,
    reports: total,
    wall: bs.reduce((a, b, i) => a + b.wall * w(i), 0),
    parts,
    sampled: bs.reduce((a, b, i) => a + b.sampled * w(i), 0),
    top: [...top].sort((a, b) => b[1] - a[1]).slice(0, 12),
    inclusive: [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 40),
  };
}

const f1 = (x: number) => x.toFixed(1);

/** The table `npm run bench` prints: per part, CPU and waiting ms per report, for each breakdown. */
export function breakdownTable(bs: Breakdown[]): string {
  const rows = PARTS.map((p) => [
    p,
    ...bs.map((b) => {
      const v = b.parts.get(p)!;
      return `${f1(v.cpu)} + ${f1(v.wait)}`;
    }),
  ]);
  const cpu = (b: Breakdown) => [...b.parts.values()].reduce((a, v) => a + v.cpu, 0);
  const wait = (b: Breakdown) => [...b.parts.values()].reduce((a, v) => a + v.wait, 0);
  rows.push(["sampled in the round trip: CPU + waiting", ...bs.map((b) => `${f1(cpu(b))} + ${f1(wait(b))}`)]);
  rows.push(["round trip as the host timed it (mean)", ...bs.map((b) => f1(b.wall))]);
  rows.push(["reports", ...bs.map((b) => String(b.reports))]);
  return table(["part (ms per report: CPU + waiting)", ...bs.map((b) => b.label)], rows);
}

export function topTable(b: Breakdown): string {
  return [
    table(
      [`top self time, ${b.label}`, "ms per report"],
      b.top.map(([k, v]) => [k, f1(v)]),
    ),
    table(
      [`top total time (with callees) of our functions, ${b.label}`, "ms per report"],
      b.inclusive.map(([k, v]) => [k, f1(v)]),
    ),
  ].join("\n\n");
}
