// Shared by the reliability suites: a template repository with the three-phase spec, the child
// process driver, and a snapshot of everything a run leaves behind with timestamps and commit ids
// taken out (they differ between any two runs; everything else must not).
import { spawn } from "node:child_process";
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { git, makeRepo } from "../helpers/git.js";
import { AutopilotState } from "../../src/session/schema.js";
import { CRASH_DRIVER } from "./build.js";

import { SLUG, SPEC, SPEC_PATH } from "../helpers/scanner-spec.js";
import { RETRY_BUDGET } from "../../src/rules/policy.js";
export { SLUG, SPEC, SPEC_PATH };

/**
 * Three phases with: a passed checkpoint (a commit) and a human-verify checkpoint; planner concerns
 * (the plan pauses for approval, answered by policy); a task that fails twice (two retries); a
 * blocking review fixed once; a task that exhausts its budget (recovery commit, failures.md); a
 * failed verification fixed; a blocking final review fixed once; a checkpoint commit the repository's
 * pre-commit hook refuses (a debug line), fixed by the executor and made again.
 */
export const SCRIPT = {
  phases: {
    0: {
      checkpoints: { 2: "passed", 3: "human-verify" },
      files: { "src/core-scanner/debug.ts": 'export const debug = 1;\nconsole.log("debug");\n' },
    },
    1: { concerns: ["rule syntax undecided"], fail: { task: 2, times: 2 }, blockingReviewOnce: true },
    2: { verifyFailsOnce: true, fail: { task: 1, times: RETRY_BUDGET + 1 } },
  },
  finalBlocking: 1,
};

/** The fastest stale-lock takeover proper-lockfile allows (2 s); a restart waits at most that. */
export const LOCK = { staleMs: 2000, waitMs: 8000 };

/** The template's pre-commit hook: a lint as teams write them, no console.log in staged TypeScript. */
export const LINT_HOOK = `#!/bin/sh
bad=$(git diff --cached --name-only --diff-filter=AM | grep '\\.ts$' | xargs -r grep -n 'console\\.log' /dev/null)
if [ -n "$bad" ]; then echo "lint: no console.log"; echo "$bad"; exit 1; fi
`;

export async function makeTemplate(): Promise<string> {
  const repo = await makeRepo({ files: { "README.md": "# test project\n", [SPEC_PATH]: SPEC } });
  await writeFile(path.join(repo.dir, ".git/hooks/pre-commit"), LINT_HOOK, { mode: 0o755 });
  return repo.dir;
}

/** A fresh copy of the template: same starting commit, so every run's history is comparable. */
export async function copyRepo(template: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "autopilot-rel-"));
  await cp(template, dir, { recursive: true });
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface DriverRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: Record<string, any>[];
  stderr: string;
  ms: number;
}

export function runDriver(opts: Record<string, unknown>, env: Record<string, string> = {}): Promise<DriverRun> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CRASH_DRIVER, JSON.stringify(opts)], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({
        code,
        signal,
        stderr: err,
        ms: Date.now() - t0,
        lines: out
          .split("\n")
          .filter(Boolean)
          .map((l) => {
            try {
              return JSON.parse(l);
            } catch {
              return { raw: l };
            }
          }),
      }),
    );
  });
}

const TIME_KEYS = new Set([
  "timestamp",
  "startedAt",
  "completedAt",
  "updatedAt",
  "lastActive",
  "date",
  "createdAt",
  "writtenAt",
]);
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
const SHA = /\b[0-9a-f]{7,40}\b/g;

/** Deep copy with time keys dropped and timestamps and commit ids in strings replaced. */
export function normalize(v: unknown, extraDrop: string[] = []): unknown {
  if (Array.isArray(v)) return v.map((x) => normalize(x, extraDrop));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      if (!TIME_KEYS.has(k) && !extraDrop.includes(k)) out[k] = normalize(x, extraDrop);
    return out;
  }
  if (typeof v === "string") return normalizeText(v);
  return v;
}

export function normalizeText(s: string): string {
  return s.replace(ISO, "<time>").replace(SHA, "<sha>");
}

async function readOr(file: string): Promise<string | null> {
  return readFile(file, "utf8").catch(() => null);
}

export interface RunSnapshot {
  state: unknown;
  subjects: string[];
  files: Record<string, string | null>;
  /** Effect trailers of every commit after the starting one (a duplicate would show twice). */
  trailers: string[];
  status: string;
}

/**
 * What an uninterrupted run and a crashed-and-restarted run must agree on. `notices` (what the host
 * is told with the next Step) are left out: after a crash they say what the restarted call did.
 */
export async function snapshot(dir: string, opts: { ignoreStepIds?: boolean } = {}): Promise<RunSnapshot> {
  const sessionDir = path.join(dir, ".harness/sessions", SLUG);
  const raw = JSON.parse(await readFile(path.join(sessionDir, "autopilot-state.json"), "utf8"));
  const drop = ["notices", ...(opts.ignoreStepIds ? ["stepId"] : [])];
  let state = normalize(raw, drop);
  const files: Record<string, string | null> = {};
  for (const rel of [".harness/failures.md", ".harness/learnings.md", ".harness/sessions/index.md"])
    files[rel] = await readOr(path.join(dir, rel));
  for (const f of (await readdir(sessionDir)).sort())
    if (/^phase-\d+-review\.json$|^handoff\.json$|^summary\.md$/.test(f))
      files[f] = await readOr(path.join(sessionDir, f));
  for (const k of Object.keys(files)) {
    const t = files[k];
    if (t === null) continue;
    files[k] = k.endsWith(".json") ? JSON.stringify(normalize(JSON.parse(t), drop), null, 1) : normalizeText(t);
  }
  if (opts.ignoreStepIds) {
    // A resume is a transition of its own: it moves stepId, and so the ids effects are named by.
    const ids = (s: string) => s.replace(/\bs\d+-/g, "s<n>-");
    state = JSON.parse(ids(JSON.stringify(state)));
    for (const k of Object.keys(files)) if (files[k] !== null) files[k] = ids(files[k]);
  }
  const subjects = (await git(dir, "log", "--format=%s")).trim().split("\n");
  const trailerIds = (await git(dir, "log", "--format=%(trailers:key=Autopilot-Effect,valueonly)"))
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const trailers = opts.ignoreStepIds ? trailerIds.map((t) => t.replace(/\bs\d+-/g, "s<n>-")) : trailerIds;
  const status = await git(
    dir,
    "status",
    "--porcelain",
    "--untracked-files=all",
    "--",
    ".",
    ":(exclude).harness/sessions",
  );
  return { state, subjects, files, trailers, status };
}

/** The state file parses and passes the schema (what a restarted process will read). */
export async function stateFileIsValid(dir: string): Promise<string | null> {
  const file = path.join(dir, ".harness/sessions", SLUG, "autopilot-state.json");
  const text = await readOr(file);
  if (text === null) return "missing"; // allowed only before the first save
  try {
    const r = AutopilotState.safeParse(JSON.parse(text));
    return r.success ? "ok" : `schema: ${r.error.issues[0]?.message}`;
  } catch (e) {
    return `json: ${(e as Error).message}`;
  }
}

/**
 * The seed of every generated part of the suites: kill counts (crash), fast-check inputs (hostile,
 * loop safety). CI uses a fixed one; `npm run soak` draws a fresh one and prints it, so any failure
 * reruns with RELIABILITY_SEED=<seed>.
 */
export const SEED = Number(process.env.RELIABILITY_SEED ?? 20260319);

/** A small deterministic PRNG (mulberry32), so a failing case can be rerun by its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Run `fn` over `items` with at most `n` at a time. */
export async function pool<T, R>(items: T[], n: number, fn: (t: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}
