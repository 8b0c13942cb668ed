// Helpers for the headless tests: the BUILT CLI (`npx tsc -p .` first; `npm test` builds), temp
// git repositories with a spec, and reading what a run left behind.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CLI = path.join(ROOT, "dist/src/cli/main.js");

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npx tsc -p .)`);
}

export const SPEC_REL = "docs/changes/word-count/proposal.md";
export const SLUG = "changes--word-count--proposal";

export const SPEC = `# Word Count

## Implementation Order

### Phase 1: Counting Core
<!-- complexity: low -->
Count lines, words, characters.

### Phase 2: File Reading
<!-- complexity: medium -->
Read files and stdin.

### Phase 3: Command Line
<!-- complexity: low -->
Flags and output.
`;

/** The demo's script: a passing checkpoint, planner concerns, a task failing twice, a blocking review finding. */
export const RICH_SCRIPT = {
  phases: {
    "0": { tasks: 3, checkpoints: { "2": "passed" } },
    "1": {
      tasks: 4,
      concerns: ["streaming changes the error path"],
      fail: { task: 2, times: 2 },
      blockingReviewOnce: true,
    },
    "2": { tasks: 2 },
  },
  finalBlocking: 1,
};

export async function specRepo(opts: { spec?: string; config?: unknown } = {}): Promise<TempRepo> {
  const files: Record<string, string> = { "README.md": "# test\n", [SPEC_REL]: opts.spec ?? SPEC };
  if (opts.config !== undefined) files[".harness/config.json"] = JSON.stringify(opts.config, null, 2) + "\n";
  return makeRepo({ files });
}

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Spawned {
  child: ChildProcess;
  /** Resolves when the process exits. */
  done: Promise<Ran>;
  /**
   * Resolves when stdout contains `text` (or matches) – at most `timeoutMs` (60 s: a hang detector;
   * runs side by side in a loaded worker take many times longer than alone).
   */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  stdout(): string;
}

export function start(
  args: string[],
  opts: { cwd: string; stdin?: "pipe" | "ignore"; env?: NodeJS.ProcessEnv },
): Spawned {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    stdio: [opts.stdin ?? "ignore", "pipe", "pipe"],
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", ...opts.env },
  });
  let out = "";
  let err = "";
  const watchers: { test: (s: string) => boolean; resolve: () => void }[] = [];
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    out += d;
    for (const w of [...watchers])
      if (w.test(out)) {
        watchers.splice(watchers.indexOf(w), 1);
        w.resolve();
      }
  });
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const done = new Promise<Ran>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout: out, stderr: err })),
  );
  return {
    child,
    done,
    stdout: () => out,
    waitFor(text, timeoutMs = 60_000) {
      const test = (s: string) => (typeof text === "string" ? s.includes(text) : text.test(s));
      if (test(out)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`timed out waiting for ${text}; stdout so far:\n${out}\nstderr:\n${err}`)),
          timeoutMs,
        );
        watchers.push({ test, resolve: () => (clearTimeout(t), resolve()) });
        void done.then(() => {
          clearTimeout(t);
          if (!test(out)) reject(new Error(`process exited before ${text}; stdout:\n${out}\nstderr:\n${err}`));
        });
      });
    },
  };
}

export function cli(args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Ran> {
  return start(args, opts).done;
}

export async function readState(dir: string, slug = SLUG): Promise<Record<string, any>> {
  return JSON.parse(await readFile(path.join(dir, ".harness/sessions", slug, "autopilot-state.json"), "utf8"));
}

export async function subjects(dir: string): Promise<string[]> {
  return (await git(dir, "log", "--format=%s")).trim().split("\n");
}

/**
 * `autopilot run SPEC --runner scripted --yes [flags]` in a new spec repository (kept in `repos` for
 * clean-up); the run must end with exit 0 and nothing on stderr.
 */
export async function runScripted(
  repos: TempRepo[],
  opts: { spec?: string; script: unknown },
  ...flags: string[]
): Promise<{ r: TempRepo; res: Ran }> {
  const r = await specRepo({ spec: opts.spec, config: { scripted: opts.script } });
  repos.push(r);
  const res = await cli(["run", SPEC_REL, "--runner", "scripted", "--yes", ...flags], { cwd: r.dir });
  if (res.stderr !== "" || res.code !== 0)
    throw new Error(
      `autopilot run ${flags.join(" ")} ended with exit ${res.code}:\n${res.stderr}\n${res.stdout.slice(-2000)}`,
    );
  return { r, res };
}

/** What the session's branch holds: every tracked file but the plans (a parallel plan has header lines), with its blob. */
export async function tree(dir: string): Promise<string> {
  return (await git(dir, "ls-tree", "-r", "HEAD"))
    .split("\n")
    .filter((l) => !l.includes("/plans/"))
    .join("\n");
}

/** What is left of a parallel session's task worktrees and branches. */
export async function leftovers(dir: string): Promise<{ worktrees: string[]; branches: string }> {
  const wt = path.join(dir, ".harness/worktrees");
  return {
    worktrees: existsSync(wt) ? (await readdir(wt)).filter((f) => f !== ".gitignore") : [],
    branches: (await git(dir, "branch", "--list", "autopilot-task/*")).trim(),
  };
}

export async function writeConfig(dir: string, config: unknown): Promise<void> {
  await mkdir(path.join(dir, ".harness"), { recursive: true });
  await writeFile(path.join(dir, ".harness/config.json"), JSON.stringify(config, null, 2) + "\n");
}

/** What must be equal between an interrupted-and-resumed run and an uninterrupted one. */
export function outcomeOf(state: Record<string, any>) {
  return {
    currentState: state.currentState,
    decisions: state.decisions.map(({ timestamp: _t, ...d }: Record<string, unknown>) => d),
    history: state.history.map((h: Record<string, unknown>) => ({
      phase: h.phase,
      tasksCompleted: h.tasksCompleted,
      retriesUsed: h.retriesUsed,
      verificationPassed: h.verificationPassed,
      reviewFindings: h.reviewFindings,
    })),
    phases: state.phases.map((p: Record<string, unknown>) => ({ name: p.name, status: p.status })),
    commits: state.commits.map((c: Record<string, unknown>) => ({
      label: c.label,
      recovery: c.recovery,
      phase: c.phase,
    })),
    finalReview: { status: state.finalReview.status, retryCount: state.finalReview.retryCount },
  };
}
