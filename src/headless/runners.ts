// Which runner does a headless run's persona work: `--runner`, else `.harness/config.json`'s
// "runner", else the user must choose (there is no silent default: one costs money, one runs an
// arbitrary command, one only simulates).
import { CommandRunner } from "../runners/command.js";
import { ScriptedRunner } from "../runners/scripted.js";
import type { PersonaRunner } from "../runners/types.js";
import { UsageError } from "../cli/usage.js";
import { CONFIG_FILE, RUNNER_NAMES, type HeadlessConfig, type RunnerName } from "./config.js";

function isRunnerName(s: string): s is RunnerName {
  return (RUNNER_NAMES as readonly string[]).includes(s);
}

export function chooseRunnerName(flag: string | undefined, config: HeadlessConfig): RunnerName {
  if (flag !== undefined) {
    if (!isRunnerName(flag)) throw new UsageError(`unknown runner "${flag}": use --runner ${RUNNER_NAMES.join("|")}`);
    return flag;
  }
  if (config.runner) return config.runner;
  throw new UsageError(
    `choose a runner: --runner scripted (simulated personas, no model), --runner anthropic (needs ANTHROPIC_API_KEY) ` +
      `or --runner command (an agent CLI), or set {"runner": "..."} in ${CONFIG_FILE}`,
  );
}

/**
 * The runner. The Anthropic SDK is loaded only when that runner is chosen: importing it costs about
 * half a second, which every other `autopilot run` (scripted, command, a usage error) paid before.
 */
export async function createRunner(
  name: RunnerName,
  config: HeadlessConfig,
  env: NodeJS.ProcessEnv = process.env,
): Promise<PersonaRunner> {
  switch (name) {
    case "scripted":
      return new ScriptedRunner(config.scripted ?? {});
    case "anthropic": {
      const { AnthropicRunner } = await import("../runners/anthropic.js");
      return new AnthropicRunner({
        env,
        ...(config.model ? { model: config.model } : {}),
        ...(config.maxTurns ? { maxTurns: config.maxTurns } : {}),
      });
    }
    case "command":
      return new CommandRunner({
        env,
        ...(config.command ? { command: config.command } : {}),
        ...(config.timeoutSec ? { timeoutSec: config.timeoutSec } : {}),
      });
  }
}
