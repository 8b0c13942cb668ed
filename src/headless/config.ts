// `.harness/config.json`, the parts a headless run reads: which runner, the agent command, the
// model, and a script for the simulated personas. The file is read and checked by
// src/session/config.ts (every key, one failure policy); this turns its `scripted` key into the
// runner's Script.
import type { z } from "zod";
import { AutopilotError } from "../protocol/errors.js";
import type { Script } from "../runners/script.js";
import { CONFIG_FILE_REL } from "../session/paths.js";
import { readProjectConfig, ScriptSchema, type RunnerName } from "../session/config.js";

export { RUNNER_NAMES, type RunnerName } from "../session/config.js";

/** The one name of `.harness/config.json` (src/session/paths.ts). */
export const CONFIG_FILE = CONFIG_FILE_REL;

export interface HeadlessConfig {
  runner?: RunnerName;
  command?: string;
  timeoutSec?: number;
  model?: string;
  maxTurns?: number;
  scripted?: Script;
}

/** The runner settings of `.harness/config.json`; a missing file is an empty config. */
export async function readHeadlessConfig(root: string): Promise<HeadlessConfig> {
  const { config: c } = await readProjectConfig(root);
  const out: HeadlessConfig = {};
  if (c.runner !== undefined) out.runner = c.runner;
  if (c.command !== undefined) out.command = c.command;
  if (c.timeoutSec !== undefined) out.timeoutSec = c.timeoutSec;
  if (c.model !== undefined) out.model = c.model;
  if (c.maxTurns !== undefined) out.maxTurns = c.maxTurns;
  if (c.scripted !== undefined) out.scripted = toScript(c.scripted);
  return out;
}

function toScript(s: z.infer<typeof ScriptSchema>): Script {
  const phases: NonNullable<Script["phases"]> = {};
  for (const [k, p] of Object.entries(s.phases ?? {})) {
    const checkpoints: NonNullable<NonNullable<Script["phases"]>[number]["checkpoints"]> = {};
    for (const [t, cp] of Object.entries(p.checkpoints ?? {})) checkpoints[Number(t)] = cp;
    phases[Number(k)] = { ...p, ...(p.checkpoints ? { checkpoints } : {}) };
  }
  return {
    ...(s.phases ? { phases } : {}),
    ...(s.finalBlocking !== undefined ? { finalBlocking: s.finalBlocking } : {}),
    ...(s.usage ? { usage: s.usage } : {}),
  };
}

/** A script given inline (the demo's bundled script file): checked like the config's. */
export function parseScript(raw: unknown, where: string): Script {
  const parsed = ScriptSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AutopilotError(
      "bad_input",
      `${where}: "${issue.path.join(".") || "(root)"}" is invalid: ${issue.message}.`,
    );
  }
  return toScript(parsed.data);
}
