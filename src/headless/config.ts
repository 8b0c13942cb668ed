// `.harness/config.json`, the parts a headless run reads: which runner, the agent command, the
// model, and a script for the simulated personas. Other keys (validation, ...) belong to others and
// are left alone; a file that is not a JSON object is treated as "no runner settings".
import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { AutopilotError } from "../protocol/errors.js";
import type { Script } from "../runners/scripted.js";
import { parseBudget } from "../session/usage.js";
import { RETRY_BUDGET, RETRY_BUDGET_RANGE } from "../../machines/policy.js";
import { CONFIG_FILE_REL } from "../session/paths.js";

/** The one name of `.harness/config.json` (src/session/paths.ts). */
export const CONFIG_FILE = CONFIG_FILE_REL;
export const RUNNER_NAMES = ["scripted", "anthropic", "command"] as const;
export type RunnerName = (typeof RUNNER_NAMES)[number];

const Checkpoint = z.enum(["passed", "human-verify", "decision", "human-action"]);
const ScriptedPhase = z.object({
  tasks: z.number().int().min(1).max(100).optional(),
  checkpoints: z.record(z.string().regex(/^\d+$/), Checkpoint).optional(),
  concerns: z.array(z.string()).optional(),
  fail: z.object({ task: z.number().int().min(1), times: z.number().int().min(0), error: z.string().optional() }).optional(),
  verifyFailsOnce: z.boolean().optional(),
  blockingReviewOnce: z.boolean().optional(),
  files: z.record(z.string().min(1), z.string()).optional(),
  planMissingVerifyOnce: z.boolean().optional(),
  planDefectAt: z.number().int().min(1).optional(),
});
export const ScriptSchema = z.object({
  phases: z.record(z.string().regex(/^\d+$/), ScriptedPhase).optional(),
  finalBlocking: z.number().int().min(0).optional(),
  usage: z
    .object({
      inputTokens: z.number().nonnegative(),
      outputTokens: z.number().nonnegative(),
      cacheReadTokens: z.number().nonnegative(),
      cacheWriteTokens: z.number().nonnegative(),
      totalTokens: z.number().nonnegative(),
      toolUses: z.number().nonnegative(),
      durationMs: z.number().nonnegative(),
      costUsd: z.number().nonnegative(),
    })
    .partial()
    .optional(),
});

const RunnerConfig = z.object({
  runner: z.enum(RUNNER_NAMES).optional(),
  /** The command runner's template, e.g. "claude -p --agent {persona}". */
  command: z.string().min(1).optional(),
  /** The command runner's time limit per dispatch, seconds. */
  timeoutSec: z.number().positive().optional(),
  /** The anthropic runner's model. */
  model: z.string().min(1).optional(),
  /** The anthropic runner's model turns per dispatch. */
  maxTurns: z.number().int().positive().optional(),
  scripted: ScriptSchema.optional(),
});

export interface HeadlessConfig {
  runner?: RunnerName;
  command?: string;
  timeoutSec?: number;
  model?: string;
  maxTurns?: number;
  scripted?: Script;
}

/** Reads the runner settings of `.harness/config.json`; a missing file is an empty config. */
export async function readHeadlessConfig(root: string): Promise<HeadlessConfig> {
  let text: string;
  try {
    text = await readFile(path.join(root, CONFIG_FILE), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new AutopilotError("bad_input", `Cannot read ${CONFIG_FILE}: ${(e as Error).message}.`);
  }
  if (!text.trim()) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    throw new AutopilotError("bad_input", `${CONFIG_FILE} is not valid JSON (${(e as Error).message}). Fix it, or choose the runner with --runner.`);
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return {};
  const r = raw as Record<string, unknown>;
  const picked = Object.fromEntries(
    ["runner", "command", "timeoutSec", "model", "maxTurns", "scripted"].filter((k) => r[k] !== undefined).map((k) => [k, r[k]]),
  );
  const parsed = RunnerConfig.safeParse(picked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.join(".") || "(root)";
    const hint = where === "runner" ? ` Use one of: ${RUNNER_NAMES.join(", ")}.` : "";
    throw new AutopilotError("bad_input", `${CONFIG_FILE}: "${where}" is invalid: ${issue.message}.${hint}`);
  }
  const c = parsed.data;
  return {
    ...c,
    ...(c.scripted ? { scripted: toScript(c.scripted) } : {}),
  };
}

function toScript(s: z.infer<typeof ScriptSchema>): Script {
  const phases: NonNullable<Script["phases"]> = {};
  for (const [k, p] of Object.entries(s.phases ?? {})) {
    const checkpoints: Record<number, z.infer<typeof Checkpoint>> = {};
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
    throw new AutopilotError("bad_input", `${where}: "${issue.path.join(".") || "(root)"}" is invalid: ${issue.message}.`);
  }
  return toScript(parsed.data);
}

/**
 * One key of `.harness/config.json`, or undefined when the file, or the key, is absent. A file that is
 * not JSON reads as absent here: `readHeadlessConfig` is the reader that reports it.
 */
async function configValue(root: string, key: string): Promise<unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse((await readFile(path.join(root, CONFIG_FILE), "utf8")).replace(/^\uFEFF/, ""));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || e instanceof SyntaxError) return undefined;
    throw e;
  }
  return raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>)[key] : undefined;
}

/**
 * The `budget` key of `.harness/config.json` ("200k", "$5", or a number of tokens): the budget a
 * session starts with when autopilot_start / `autopilot run` gives no --budget. Null when unset.
 */
export async function readConfigBudget(root: string): Promise<{ tokens: number | null; usd: number | null } | null> {
  const v = await configValue(root, "budget");
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" && typeof v !== "number")
    throw new AutopilotError("bad_input", `${CONFIG_FILE}: "budget" must be tokens ("200k", 50000) or US dollars ("$5").`);
  try {
    return parseBudget(String(v));
  } catch (e) {
    throw new AutopilotError("bad_input", `${CONFIG_FILE}: "budget": ${(e as Error).message}`);
  }
}

/** The gate settings of `.harness/config.json`: `elicit` (default true) and `humanGates`. */
export interface GateSettings {
  /** false: never put questions to the user through the client's form. */
  elicit?: boolean;
  /** true: new sessions start with --human-gates; false: not even with --thorough. */
  humanGates?: boolean;
}

/**
 * Reads `elicit` and `humanGates` from `.harness/config.json`. Tolerant: a missing or unreadable
 * file, or a key that is not a boolean, gives no setting and a `problem` to report, never a throw
 * (the MCP server must start whatever the file holds).
 */
export async function readGateSettings(root: string): Promise<{ settings: GateSettings; problem?: string }> {
  let text: string;
  try {
    text = await readFile(path.join(root, CONFIG_FILE), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { settings: {} };
    return { settings: {}, problem: `Cannot read ${CONFIG_FILE}: ${(e as Error).message}.` };
  }
  if (!text.trim()) return { settings: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    return { settings: {}, problem: `${CONFIG_FILE} is not valid JSON (${(e as Error).message}); its gate settings are ignored.` };
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return { settings: {} };
  const r = raw as Record<string, unknown>;
  const settings: GateSettings = {};
  const problems: string[] = [];
  for (const key of ["elicit", "humanGates"] as const) {
    if (r[key] === undefined) continue;
    if (typeof r[key] === "boolean") settings[key] = r[key];
    else problems.push(`${CONFIG_FILE}: "${key}" must be true or false, not ${JSON.stringify(r[key])}; ignored.`);
  }
  return { settings, ...(problems.length ? { problem: problems.join(" ") } : {}) };
}

/**
 * The `retryBudget` key of `.harness/config.json`: attempts per task before a person is asked, for
 * sessions started from now on (a session keeps the budget it started with, saved in its state
 * file). Null when unset; the policy's RETRY_BUDGET applies then.
 */
export async function readConfigRetryBudget(root: string): Promise<number | null> {
  const v = await configValue(root, "retryBudget");
  if (v === undefined || v === null) return null;
  const { min, max } = RETRY_BUDGET_RANGE;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max)
    throw new AutopilotError(
      "bad_input",
      `${CONFIG_FILE}: "retryBudget" must be a whole number of attempts from ${min} to ${max} (default ${RETRY_BUDGET}); it is ${JSON.stringify(v)}.`,
    );
  return v;
}

/** The placeholders a `commitMessage` template may use (src/effects/commit-message.ts fills them). */
export const COMMIT_MESSAGE_PLACEHOLDERS = ["label", "summary"] as const;

/**
 * The `commitMessage` key of `.harness/config.json`: the subject template of every commit autopilot
 * makes, e.g. `"chore(autopilot): {summary}"`. `{label}` is the commit's label as autopilot words it
 * ("Phase 1: Counting Core — execution complete"), `{summary}` the same as a Conventional Commits
 * subject ("phase 1 Counting Core, execution complete"). Null when unset: the repository's
 * convention decides (src/effects/commit-message.ts).
 */
export async function readConfigCommitMessage(root: string): Promise<string | null> {
  const v = await configValue(root, "commitMessage");
  if (v === undefined || v === null) return null;
  const shape = `a one-line subject template with {label} or {summary}, e.g. "chore(autopilot): {summary}"`;
  if (typeof v !== "string" || !v.trim() || /[\r\n]/.test(v) || v.length > 200)
    throw new AutopilotError("bad_input", `${CONFIG_FILE}: "commitMessage" must be ${shape}; it is ${JSON.stringify(v)}.`);
  const used = [...v.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]);
  const unknown = used.filter((p) => !(COMMIT_MESSAGE_PLACEHOLDERS as readonly string[]).includes(p));
  if (unknown.length || !used.length)
    throw new AutopilotError(
      "bad_input",
      `${CONFIG_FILE}: "commitMessage" ${unknown.length ? `has an unknown placeholder {${unknown[0]}}` : "names no placeholder"}: it must be ${shape}.`,
    );
  return v;
}
