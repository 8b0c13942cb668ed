// `.harness/config.json`: every key in one zod schema, one reader, one failure policy.
//  - No file, or an empty one: no settings.
//  - A file that cannot be read, or is not JSON: the error `bad_input`, naming the file and the fix.
//  - A file that is a JSON array: the validation commands (an older form), nothing else.
//  - A key whose value does not fit: the error `bad_input` naming the key, what it must be and what it
//    is; except the keys that only switch a convenience (`elicit`, `humanGates`, `worktree`, `parallel`), which
//    are ignored with a warning the caller shows, so the MCP server starts whatever the file holds.
// Unknown keys are left alone (other tools keep settings in the same file). The keys are
// documented in docs/cli.md (".harness/config.json").
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { AutopilotError } from "../protocol/errors.js";
import {
  PARALLEL_MIN_TASKS,
  PARALLEL_MIN_TASKS_RANGE,
  RETRY_BUDGET_RANGE,
  retryBudgetDefault,
} from "../rules/policy.js";
import { CONFIG_FILE_REL, projectPaths } from "./paths.js";
import { PERSONAS } from "../vocabulary.js";
import { parseBudget } from "./usage.js";
import { MODELS_MUST, ModelsConfig } from "./models.js";
import { PRICES_MUST, PricesConfig } from "./prices.js";

export const RUNNER_NAMES = ["scripted", "anthropic", "command"] as const;
export type RunnerName = (typeof RUNNER_NAMES)[number];

/** The placeholders a `commitMessage` template may use (src/effects/commit-message.ts fills them). */
const COMMIT_MESSAGE_PLACEHOLDERS = ["label", "summary", "type"] as const;

/**
 * How to set the `commitMessage` template, whole, for the person a hook refused autopilot's subject
 * to: the placeholders (each filled by src/effects/commit-message.ts) and an example, in the
 * report and the question (no doc to look up: autopilot's own docs are not in their repository).
 */
export const COMMIT_TEMPLATE_HOW = `set "commitMessage" in .harness/config.json (create the file if there is none; keep its other keys) to a one-line template of the subject your hook accepts, with at least one placeholder: {summary} (what the commit does), {type} (feat, fix, test, docs, ...) or {label} (autopilot's name for the step), e.g. {"commitMessage": "{type}(app): {summary} [PROJ-1]"}`;

const Checkpoint = z.enum(["passed", "human-verify", "decision", "human-action"]);
const ScriptedPhase = z.object({
  tasks: z.number().int().min(1).max(100).optional(),
  checkpoints: z.record(z.string().regex(/^\d+$/), Checkpoint).optional(),
  concerns: z.array(z.string()).optional(),
  fail: z
    .object({ task: z.number().int().min(1), times: z.number().int().min(0), error: z.string().optional() })
    .optional(),
  verifyFailsOnce: z.boolean().optional(),
  blockingReviewOnce: z.boolean().optional(),
  files: z.record(z.string().min(1), z.string()).optional(),
  planMissingVerifyOnce: z.boolean().optional(),
  planDefectAt: z.number().int().min(1).optional(),
  // A parallel session's plan and wave: chains of dependent tasks, each executor's fixed
  // time, a task writing outside its Files.
  chains: z.number().int().min(1).optional(),
  taskMs: z.number().int().min(0).max(600_000).optional(),
  outsideAt: z.number().int().min(1).optional(),
});
const ScriptedUsage = z
  .strictObject({
    inputTokens: z.number().nonnegative(),
    outputTokens: z.number().nonnegative(),
    cacheReadTokens: z.number().nonnegative(),
    cacheWriteTokens: z.number().nonnegative(),
    totalTokens: z.number().nonnegative(),
    toolUses: z.number().nonnegative(),
    durationMs: z.number().nonnegative(),
    costUsd: z.number().nonnegative(),
  })
  .partial();
/** The simulated personas' script (`"runner": "scripted"`; src/runners/scripted.ts). */
export const ScriptSchema = z.object({
  phases: z.record(z.string().regex(/^\d+$/), ScriptedPhase).optional(),
  finalBlocking: z.number().int().min(0).optional(),
  // What every run reports, or each persona's run (`{"harness-task-executor": {...}, ...}`).
  usage: z.union([ScriptedUsage, z.partialRecord(z.enum(PERSONAS), ScriptedUsage)]).optional(),
});

function isBudget(v: string | number): boolean {
  try {
    parseBudget(String(v));
    return true;
  } catch {
    return false;
  }
}

function placeholdersOk(v: string): boolean {
  const used = [...v.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]);
  return used.length > 0 && used.every((p) => (COMMIT_MESSAGE_PLACEHOLDERS as readonly string[]).includes(p));
}

const Commands = z.array(z.string()).transform((l) => l.map((c) => c.trim()).filter(Boolean));

/** Each key: its schema, and what it must be, in the words the error uses. */
const KEYS = {
  validation: {
    schema: z
      .union([Commands, z.looseObject({ commands: Commands })])
      .transform((v) => (Array.isArray(v) ? v : v.commands)),
    must: `a list of command strings, e.g. {"validation": {"commands": ["npm test"]}}`,
  },
  runner: { schema: z.enum(RUNNER_NAMES), must: `one of: ${RUNNER_NAMES.join(", ")}` },
  command: { schema: z.string().min(1), must: `the agent command template, e.g. "claude -p --agent {persona}"` },
  timeoutSec: { schema: z.number().positive(), must: "a number of seconds above 0" },
  model: { schema: z.string().min(1), must: "a model name" },
  maxTurns: { schema: z.number().int().positive(), must: "a whole number of turns above 0" },
  scripted: { schema: ScriptSchema, must: "a script for the simulated personas (docs/headless.md)" },
  budget: {
    schema: z
      .union([z.string(), z.number()])
      .refine(isBudget)
      .transform((v) => parseBudget(String(v))),
    must: `tokens ("200k", 50000) or US dollars ("$5")`,
  },
  retryBudget: {
    schema: z.number().int().min(RETRY_BUDGET_RANGE.min).max(RETRY_BUDGET_RANGE.max),
    must: `a whole number of attempts from ${RETRY_BUDGET_RANGE.min} to ${RETRY_BUDGET_RANGE.max} (default ${retryBudgetDefault()})`,
  },
  commitMessage: {
    schema: z
      .string()
      .max(200)
      .regex(/^[^\r\n]*$/)
      .refine((v) => v.trim() !== "" && placeholdersOk(v)),
    must: `a one-line subject template with {summary}, {label} or {type}, e.g. "{type}(app): {summary}"`,
  },
  elicit: { schema: z.boolean(), must: "true or false", warn: true },
  humanGates: { schema: z.boolean(), must: "true or false", warn: true },
  worktree: { schema: z.boolean(), must: "true or false", warn: true },
  parallel: { schema: z.boolean(), must: "true or false", warn: true },
  models: { schema: ModelsConfig, must: MODELS_MUST },
  prices: { schema: PricesConfig, must: PRICES_MUST },
  parallelMinTasks: {
    schema: z.number().int().min(PARALLEL_MIN_TASKS_RANGE.min).max(PARALLEL_MIN_TASKS_RANGE.max),
    must: `a whole number of tasks from ${PARALLEL_MIN_TASKS_RANGE.min} to ${PARALLEL_MIN_TASKS_RANGE.max} (default ${PARALLEL_MIN_TASKS})`,
  },
} satisfies Record<string, { schema: z.ZodType; must: string; warn?: boolean }>;

type Keys = typeof KEYS;
/** `.harness/config.json`, every key checked (docs/cli.md). */
export type ProjectConfig = { [K in keyof Keys]?: z.output<Keys[K]["schema"]> };

export interface ReadConfig {
  config: ProjectConfig;
  /** Keys that were ignored, each with why: for the caller to show. */
  warnings: string[];
}

const CONFIG_FILE = CONFIG_FILE_REL;

/** Read and check `.harness/config.json` in `root` (see the top of this file for what fails how). */
export async function readProjectConfig(root: string): Promise<ReadConfig> {
  let text: string;
  try {
    text = await readFile(projectPaths(root).config, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { config: {}, warnings: [] };
    throw new AutopilotError(
      "bad_input",
      `Cannot read ${CONFIG_FILE}: ${(e as Error).message}. Fix its permissions, or remove it.`,
      { path: CONFIG_FILE },
    );
  }
  if (!text.trim()) return { config: {}, warnings: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    throw new AutopilotError(
      "bad_input",
      `${CONFIG_FILE} is not valid JSON (${(e as Error).message}). Fix it, or remove it.`,
      { path: CONFIG_FILE },
    );
  }
  if (Array.isArray(raw)) raw = { validation: raw };
  if (!raw || typeof raw !== "object") return { config: {}, warnings: [] };
  const obj = raw as Record<string, unknown>;
  const config: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [key, def] of Object.entries(KEYS) as [keyof Keys, Keys[keyof Keys]][]) {
    const v = obj[key];
    if (v === undefined || v === null) continue;
    const parsed = (def.schema as z.ZodType).safeParse(v);
    if (parsed.success) {
      config[key] = parsed.data;
      continue;
    }
    const issue = parsed.error.issues[0];
    const where = [key, ...(issue?.path ?? [])].join(".");
    // A nested value's own message, and a key the object does not know (a misspelt persona).
    const nested = where !== key || issue?.code === "unrecognized_keys" ? ` ("${where}": ${issue?.message})` : "";
    const shown = JSON.stringify(v).slice(0, 120);
    if ("warn" in def && def.warn) {
      warnings.push(`${CONFIG_FILE}: "${key}" must be ${def.must}, not ${shown}; ignored.`);
      continue;
    }
    throw new AutopilotError(
      "bad_input",
      `${CONFIG_FILE}: "${key}" must be ${def.must}; it is ${shown}${nested}. Fix it in ${CONFIG_FILE}.`,
      {
        path: CONFIG_FILE,
        key,
      },
    );
  }
  return { config: config, warnings };
}
