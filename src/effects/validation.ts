// The project's validation commands: what fast-mode VERIFY, final-review fixes, gather_context and
// `autopilot validate` run.
//
// Where the commands come from, first match wins:
//  1. `.harness/config.json`, our harness config:
//       { "validation": { "commands": ["npm run typecheck", "npm test"] } }
//     Also accepted: `{ "validation": ["..."] }` and a file that is itself a JSON array of commands.
//     An explicit empty list means "this project has no validation commands"; a config without a
//     `validation` key falls through to package.json.
//  2. the `typecheck`, `lint` and `test` scripts of the project's package.json that exist, run as
//     `npm run <name>`, in that order (cheapest, most specific failures first).
//  3. nothing: validation passes, and the summary says nothing is configured, so no one mistakes
//     it for a green test suite.
//
// Each command runs through a shell in the project root (users write pipelines and `&&`), in its
// own process group so a time-out kills the whole tree (`npm` → `sh` → the test runner), with the
// output kept as a bounded tail (the end of a log is where failures are).
import { spawn } from "node:child_process";
import path from "node:path";
import { readTextOrNull } from "./fsutil.js";
import { readProjectConfig, type ProjectConfig } from "../session/config.js";
import { CONFIG_FILE_REL } from "../session/paths.js";

const PACKAGE_SCRIPTS = ["typecheck", "lint", "test"] as const;

type ValidationSource = "harness-config" | "package.json" | "none";

export interface ResolvedValidation {
  commands: string[];
  source: ValidationSource;
}

/** `config`: the project config the caller already read for this call (else it is read here). */
export async function resolveValidation(root: string, config?: ProjectConfig): Promise<ResolvedValidation> {
  const { validation } = config ?? (await readProjectConfig(root)).config;
  if (validation !== undefined) return { commands: validation, source: "harness-config" };
  const pkgText = await readTextOrNull(path.join(root, "package.json"));
  if (pkgText !== null) {
    try {
      const scripts = (JSON.parse(pkgText) as { scripts?: Record<string, unknown> }).scripts ?? {};
      const commands = PACKAGE_SCRIPTS.filter((s) => typeof scripts[s] === "string" && scripts[s].trim()).map(
        (s) => `npm run ${s}`,
      );
      if (commands.length) return { commands, source: "package.json" };
    } catch {
      // An unparsable package.json is the project's own problem and its own scripts would fail
      // too; it simply provides no commands here.
    }
  }
  return { commands: [], source: "none" };
}

export async function resolveValidationCommands(root: string): Promise<string[]> {
  return (await resolveValidation(root)).commands;
}

interface CommandResult {
  command: string;
  /** null when the process was killed by a signal (time-out, abort). */
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** stdout and stderr interleaved, the last `maxOutputBytes` bytes. */
  output: string;
}

export interface ValidationResult {
  passed: boolean;
  source: ValidationSource;
  results: CommandResult[];
  summary: string;
}

export interface RunValidationOptions {
  timeoutMs?: number;
  maxOutputBytes?: number;
  signal?: AbortSignal;
  /** Run these instead of the resolved ones (tests, callers that already resolved). */
  commands?: string[];
  /** The project config the caller already read for this call. */
  config?: ProjectConfig;
  /** Folders put first on PATH (a package's node_modules/.bin, as lint-staged resolves its tools). */
  binDirs?: string[];
}

class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;
  constructor(private readonly max: number) {}
  push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
    while (this.size > this.max && this.chunks.length) {
      const over = this.size - this.max;
      const first = this.chunks[0];
      if (first.length <= over) {
        this.chunks.shift();
        this.size -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.subarray(over);
        this.size -= over;
        this.dropped += over;
      }
    }
  }
  toString(): string {
    const body = Buffer.concat(this.chunks).toString("utf8");
    return this.dropped ? `[… ${this.dropped} earlier bytes omitted]\n${body}` : body;
  }
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (!pid) return;
  try {
    if (process.platform === "win32") process.kill(pid, sig);
    else process.kill(-pid, sig);
  } catch {
    // Already gone.
  }
}

function runOne(
  root: string,
  command: string,
  timeoutMs: number,
  maxBytes: number,
  signal?: AbortSignal,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CommandResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const out = new TailBuffer(maxBytes);
    let timedOut = false;
    let settled = false;
    const child = spawn(command, {
      cwd: root,
      shell: true,
      detached: process.platform !== "win32",
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => out.push(b));
    let hardKill: NodeJS.Timeout | undefined;
    let giveUp: NodeJS.Timeout | undefined;
    const stop = () => {
      killGroup(child.pid, "SIGTERM");
      hardKill = setTimeout(() => killGroup(child.pid, "SIGKILL"), 2000);
      // A grandchild that escaped the group could hold the pipes open forever; do not wait on it.
      giveUp = setTimeout(() => finish(null, "SIGKILL"), 5000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    const onAbort = () => stop();
    signal?.addEventListener("abort", onAbort, { once: true });
    const finish = (code: number | null, sig: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(hardKill);
      clearTimeout(giveUp);
      signal?.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      let output = out.toString();
      if (timedOut)
        output += `${output.endsWith("\n") || !output ? "" : "\n"}[killed after ${timeoutMs} ms time limit]`;
      else if (signal?.aborted) output += `${output.endsWith("\n") || !output ? "" : "\n"}[aborted]`;
      resolve({
        command,
        exitCode: timedOut || signal?.aborted ? null : sig ? null : code,
        timedOut,
        durationMs: Date.now() - started,
        output,
      });
    };
    child.on("error", (e) => {
      out.push(Buffer.from(`${e.message}\n`));
      finish(127, null);
    });
    child.on("close", (code, sig) => finish(code, sig));
  });
}

function summarize(results: CommandResult[], notRun: string[]): string {
  const failed = results.filter((r) => r.exitCode !== 0);
  const parts = [
    `${results.length} of ${results.length + notRun.length} validation command${results.length + notRun.length === 1 ? "" : "s"} run: ${results.length - failed.length} passed, ${failed.length} failed`,
  ];
  for (const r of failed) {
    parts.push(
      r.timedOut
        ? `${r.command} timed out after ${r.durationMs} ms`
        : r.exitCode === null
          ? `${r.command} was stopped`
          : `${r.command} exited ${r.exitCode}`,
    );
  }
  if (notRun.length) parts.push(`not run: ${notRun.join(", ")}`);
  return parts.join("; ") + ".";
}

/** Run the commands one after another (all of them, so one report shows every failure). */
export async function runValidation(root: string, opts: RunValidationOptions = {}): Promise<ValidationResult> {
  const timeoutMs = opts.timeoutMs ?? 300_000;
  const maxOutputBytes = opts.maxOutputBytes ?? 16_000;
  const resolved: ResolvedValidation = opts.commands
    ? { commands: opts.commands, source: "harness-config" }
    : await resolveValidation(root, opts.config);
  if (!resolved.commands.length) {
    return {
      passed: true,
      source: resolved.source,
      results: [],
      summary: `No validation commands are configured: add {"validation": {"commands": [...]}} to ${CONFIG_FILE_REL}, or typecheck/lint/test scripts to package.json.`,
    };
  }
  const results: CommandResult[] = [];
  const notRun: string[] = [];
  for (const command of resolved.commands) {
    if (opts.signal?.aborted) {
      notRun.push(command);
      continue;
    }
    const env = opts.binDirs?.length
      ? { ...process.env, PATH: [...opts.binDirs, process.env.PATH ?? ""].join(path.delimiter) }
      : process.env;
    results.push(await runOne(root, command, timeoutMs, maxOutputBytes, opts.signal, env));
  }
  const passed = notRun.length === 0 && results.every((r) => r.exitCode === 0);
  return { passed, source: resolved.source, results, summary: summarize(results, notRun) };
}

/**
 * The failing commands' output for a persona's brief: each failed command with the last `maxLines`
 * lines of what it printed (the end of a log is where failures are), the whole within `maxChars`.
 * Empty when nothing failed.
 */
export function failureTail(v: Pick<ValidationResult, "results">, maxLines = 40, maxChars = 4000): string {
  const per = Math.max(200, Math.floor(maxChars / Math.max(1, v.results.filter((r) => r.exitCode !== 0).length)));
  return v.results
    .filter((r) => r.exitCode !== 0)
    .map((r) => {
      const lines = r.output.replace(/\s+$/, "").split("\n");
      let tail = lines.slice(-maxLines).join("\n");
      if (tail.length > per) tail = tail.slice(-per);
      const cut = lines.length > maxLines || tail.length === per ? "[… earlier output omitted]\n" : "";
      const why = r.timedOut ? "timed out" : r.exitCode === null ? "stopped" : `exit ${r.exitCode}`;
      return `$ ${r.command} (${why})\n${cut}${tail || "(no output)"}`;
    })
    .join("\n\n");
}
