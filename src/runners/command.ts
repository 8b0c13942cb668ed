// Runs each persona with an external agent CLI (for example `claude -p --agent {persona}`): the
// dispatch goes in on stdin, the result comes back as the last JSON block of stdout. Whatever the
// agent does in between is its own business; what reaches the machine is checked against the
// protocol's schema, and a process that hangs is killed with everything it started.
import { spawn } from "node:child_process";
import { AutopilotError } from "../protocol/errors.js";
import { checkResult, RESULT_FIELDS, taskPrompt } from "./persona-prompts.js";
import { abortReason, killGroup, TailBuffer } from "./shell.js";
import type { PersonaRunner, PersonaTask, RunnerOutcome } from "./types.js";
import { parseUsage, type UsageReport } from "../session/usage.js";

export interface CommandRunnerOptions {
  /**
   * Shell command template, run with sh in the project root; `{persona}`, `{model}` (the persona's
   * model, src/session/models.ts "command" names), `{result}` (the expected result kind) and
   * `{session}` are substituted. Default: env AUTOPILOT_RUNNER_COMMAND.
   */
  command?: string;
  /** Time limit per dispatch in seconds (default env AUTOPILOT_RUNNER_TIMEOUT, else 1800). */
  timeoutSec?: number;
  /** Characters of stdout kept, from the end, where the result is (default 1,000,000). */
  maxStdoutChars?: number;
  /** Characters of stderr kept for error messages (default 4,000). */
  maxStderrChars?: number;
  /** Environment of the agent (default process.env); AUTOPILOT_* dispatch variables are added. */
  env?: NodeJS.ProcessEnv;
}

export class CommandRunner implements PersonaRunner {
  readonly name = "command";
  readonly simulated = false;
  readonly template: string;
  private readonly timeoutSec: number;
  private readonly maxStdout: number;
  private readonly maxStderr: number;
  private readonly env: NodeJS.ProcessEnv;

  constructor(opts: CommandRunnerOptions = {}) {
    this.env = opts.env ?? process.env;
    const template = opts.command ?? this.env.AUTOPILOT_RUNNER_COMMAND;
    if (!template || !template.trim()) {
      throw new AutopilotError(
        "bad_input",
        "The command runner needs an agent command: set AUTOPILOT_RUNNER_COMMAND, for example " +
          `'claude -p --agent {persona}' ({persona} is replaced by the persona name), or choose --runner scripted|anthropic.`,
      );
    }
    this.template = template;
    const envTimeout = Number(this.env.AUTOPILOT_RUNNER_TIMEOUT);
    this.timeoutSec = opts.timeoutSec ?? (envTimeout > 0 ? envTimeout : 1800);
    this.maxStdout = opts.maxStdoutChars ?? 1_000_000;
    this.maxStderr = opts.maxStderrChars ?? 4_000;
  }

  /** The shell command for one dispatch. */
  commandFor(task: PersonaTask): string {
    return this.template
      .replaceAll("{persona}", task.persona)
      .replaceAll("{model}", shellSafe(task.model ?? ""))
      .replaceAll("{result}", task.expects.result)
      .replaceAll("{session}", shellSafe(task.session));
  }

  async run(task: PersonaTask, signal?: AbortSignal): Promise<RunnerOutcome> {
    signal?.throwIfAborted();
    const kind = task.expects.result;
    const fail = (error: string, log: string[]): RunnerOutcome => ({ result: { kind, error }, log });
    const command = this.commandFor(task);
    const log = [`$ ${command}`];
    const stdin =
      taskPrompt(task) +
      `\n\nWhen you are done, end your output with the result as a fenced \`\`\`json block of kind "${kind}": ` +
      `${RESULT_FIELDS[kind]}. If you cannot do the job, return {"kind":"${kind}","error":"<why>"}.\n`;

    const r = await this.spawn(command, task, stdin, signal);
    // Whatever the outcome, the tokens the agent says it spent were spent.
    const usage = extractUsage(r.stdout);
    const outcome = this.finish(r, command, kind, log, fail);
    return usage ? { ...outcome, usage } : outcome;
  }

  private finish(
    r: Awaited<ReturnType<CommandRunner["spawn"]>>,
    command: string,
    kind: PersonaTask["expects"]["result"],
    log: string[],
    fail: (error: string, log: string[]) => RunnerOutcome,
  ): RunnerOutcome {
    const errTail = r.stderr.trim() ? ` stderr (end): ${r.stderr.trim().slice(-1500)}` : "";
    if (r.timedOut) {
      return fail(`The agent command timed out after ${this.timeoutSec}s and was killed: ${command}.${errTail}`, log);
    }
    if (r.spawnError) return fail(`The agent command could not be started: ${r.spawnError}.`, log);
    if (r.code !== 0) {
      return fail(
        `The agent command exited with ${r.code === null ? `signal ${r.signal}` : `code ${r.code}`}: ${command}.${errTail}`,
        log,
      );
    }
    const found = extractResult(r.stdout);
    if (!found.ok) return fail(`${found.message}${errTail}`, log);
    const check = checkResult(kind, found.value);
    if (!check.ok) return fail(`The agent's result was rejected: ${check.message}`, log);
    log.push(`result: ${JSON.stringify(check.result).slice(0, 200)}`);
    return { result: check.result, log };
  }

  private spawn(command: string, task: PersonaTask, stdin: string, signal?: AbortSignal) {
    return new Promise<{
      code: number | null;
      signal: NodeJS.Signals | null;
      stdout: string;
      stderr: string;
      timedOut: boolean;
      spawnError?: string;
    }>((resolve, reject) => {
      const child = spawn("/bin/sh", ["-c", command], {
        cwd: task.projectRoot,
        // Its own process group, so the time limit kills the agent's children too.
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
        env: {
          ...this.env,
          AUTOPILOT_PERSONA: task.persona,
          AUTOPILOT_PERSONA_MODEL: task.model ?? "",
          AUTOPILOT_EXPECTS: task.expects.result,
          AUTOPILOT_SESSION: task.session,
          AUTOPILOT_PROJECT_ROOT: task.projectRoot,
        },
      });
      const out = new TailBuffer(this.maxStdout);
      const err = new TailBuffer(this.maxStderr);
      child.stdout.setEncoding("utf8").on("data", (d: string) => out.push(d));
      child.stderr.setEncoding("utf8").on("data", (d: string) => err.push(d));
      // An agent that exits without reading its prompt must not crash us with EPIPE.
      child.stdin.on("error", () => {});
      child.stdin.end(stdin);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child.pid);
      }, this.timeoutSec * 1000);
      const onAbort = () => killGroup(child.pid);
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      child.on("error", (e) => {
        done();
        resolve({ code: null, signal: null, stdout: "", stderr: "", timedOut: false, spawnError: e.message });
      });
      child.on("close", (code, sig) => {
        done();
        if (signal?.aborted) return reject(abortReason(signal));
        resolve({ code, signal: sig, stdout: out.text(), stderr: err.text(), timedOut });
      });
    });
  }
}

function shellSafe(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]/g, "_");
}

type Extracted = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * The result in an agent's output: the last fenced ```json block, else the last line that is a
 * JSON object. A `claude -p --output-format json` envelope ({"type":"result","result":"..."}) is
 * opened and its text searched the same way.
 */
export function extractResult(stdout: string, depth = 0): Extracted {
  const fences = [...stdout.matchAll(/```json[^\n]*\n([\s\S]*?)\n?```/g)];
  let candidate: string | undefined;
  let where = "";
  if (fences.length) {
    candidate = fences[fences.length - 1][1];
    where = "the last ```json block";
  } else {
    const lines = stdout.split("\n").map((l) => l.trim());
    for (let i = lines.length - 1; i >= 0; i--) {
      if (lines[i].startsWith("{") && lines[i].endsWith("}")) {
        candidate = lines[i];
        where = "the last JSON line";
        break;
      }
    }
  }
  if (candidate === undefined) {
    const tail = stdout.trim().slice(-300);
    return {
      ok: false,
      message: `The agent printed no result: expected a fenced \`\`\`json block (or a JSON object line) at the end of its output.${tail ? ` Output (end): ${tail}` : " It printed nothing."}`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(candidate);
  } catch (e) {
    return {
      ok: false,
      message: `The agent's result (${where}) is not valid JSON: ${(e as Error).message}. Text: ${candidate.slice(0, 300)}`,
    };
  }
  const env = value as { type?: unknown; result?: unknown } | null;
  if (depth === 0 && env && typeof env === "object" && env.type === "result" && typeof env.result === "string") {
    return extractResult(env.result, 1);
  }
  return { ok: true, value };
}

/**
 * The usage an agent CLI printed about its own run: the last JSON line of its output that is a
 * `claude -p --output-format json` result envelope ({"type":"result", "usage": {input_tokens,
 * output_tokens, cache_read_input_tokens, cache_creation_input_tokens}, "total_cost_usd",
 * "duration_ms", ...}; with stream-json it is the last line). Null when it printed none.
 */
function extractUsage(stdout: string): UsageReport | null {
  const lines = stdout.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i].trim();
    if (!l.startsWith("{") || !l.includes('"result"')) continue;
    try {
      const env = JSON.parse(l) as Record<string, unknown>;
      if (env.type !== "result") continue;
      return parseUsage({ usage: env.usage, total_cost_usd: env.total_cost_usd, duration_ms: env.duration_ms });
    } catch {
      continue;
    }
  }
  return null;
}
