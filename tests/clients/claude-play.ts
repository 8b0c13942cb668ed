// A user's session in the real Claude Code (print mode) against the loopback scripted model: the
// user types a prompt, then answers each question the session asks in a `claude -p --continue`
// turn, until a run ends without a question. Shared by the client tests that install autopilot
// in different ways (install claude, the plugin, the npx entry).
import { existsSync, readFileSync } from "node:fs";
import { startModelServer, type ModelServer } from "./anthropic-sse.js";
import { Brain, type BrainOptions } from "./brain/brain.js";
import { claudeCode } from "./dialects/claude-code.js";
import type { Conversation } from "./brain/types.js";
import { runClaude, type ClaudeRun } from "./claude-code.js";

export interface Played {
  runs: ClaudeRun[];
  model: ModelServer;
  log: string[];
  debugFile?: string;
}

export interface PlayOptions {
  /** The environment Claude Code runs in, given the model's URL (claudeEnv + the user's PATH). */
  env: (modelUrl: string) => NodeJS.ProcessEnv;
  answer?: (question: string) => string;
  brain?: BrainOptions;
  maxTurns?: number;
  /** How the user lets tools run (default: --dangerously-skip-permissions). */
  permissions?: string[];
  /** Claude Code's debug log goes here (`--debug-file`); explain() shows its MCP lines. */
  debugFile?: string;
  /** Kill the client (SIGKILL, with its MCP servers) when the host model is sent a conversation for which this is true. */
  killWhen?: (conv: Conversation) => boolean;
}

export async function playClaude(
  bin: string,
  label: string,
  dir: string,
  prompt: string,
  o: PlayOptions,
): Promise<Played> {
  const answer = o.answer ?? (() => "yes");
  const log: string[] = [];
  const model = await startModelServer({
    label,
    dialect: claudeCode,
    decide: (c) => {
      // Killed before the model answers: the client does nothing more in this run.
      if (kill && !brain.dialect.subagent(c) && o.killWhen?.(c)) {
        kill();
        kill = null;
      }
      return brain.decide(c);
    },
    log: (l) => log.push(l),
  });
  const brain = new Brain(claudeCode, o.brain);
  const env = o.env(model.url);
  const common = [
    "--output-format",
    "stream-json",
    "--verbose",
    ...(o.permissions ?? ["--dangerously-skip-permissions"]),
    ...(o.debugFile ? ["--debug-file", o.debugFile] : []),
  ];
  const runs: ClaudeRun[] = [];
  let kill: (() => void) | null = null;
  let run = await runClaude(bin, ["-p", prompt, ...common], { cwd: dir, env, onSpawn: (k) => (kill = k) });
  kill = null;
  runs.push(run);
  for (let i = 0; i < (o.maxTurns ?? 20) && asksUser(run); i++) {
    run = await runClaude(bin, ["-p", answer(run.result.result), "--continue", ...common], { cwd: dir, env });
    runs.push(run);
  }
  await model.close();
  return { runs, model, log, debugFile: o.debugFile };
}

/** The run ended on a question to the user (the brain lists the options). */
export function asksUser(run: ClaudeRun): boolean {
  return run.code === 0 && typeof run.result?.result === "string" && /\nOptions: /.test(run.result.result);
}

export function explain(p: Played): string {
  const last = p.runs.at(-1)!;
  return [
    `claude exit ${last.code} ${last.signal ?? ""}`,
    `result: ${JSON.stringify(last.result?.result ?? null).slice(0, 1500)}`,
    `stderr: ${last.stderr.slice(-1500)}`,
    "model log:",
    ...p.log.slice(-40),
    ...(p.debugFile && existsSync(p.debugFile)
      ? [
          "Claude Code's MCP log:",
          ...readFileSync(p.debugFile, "utf8")
            .split("\n")
            .filter((l) => /MCP server|\[ERROR\]/.test(l))
            .slice(-30),
        ]
      : []),
  ].join("\n");
}

/** The agent types the host passed to Claude Code's Agent tool, in order. */
export function dispatchedAgents(p: Played): string[] {
  return p.model.requests.flatMap((r) =>
    r.kind === "host" && r.decision?.kind === "tool_calls"
      ? r.decision.calls.filter((c) => c.name === "Agent").map((c) => String(c.args.subagent_type))
      : [],
  );
}
