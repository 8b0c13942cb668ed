// Which model each persona runs on: three tiers (fast, standard, strong), the tier each persona takes
// at each rigor by default, the name each client gives a tier, and `.harness/config.json` `models`
// (a tier or a model name per persona, per rigor if wanted, and a client's own name for a tier).
// Pure data and pure functions: the dispatch (src/personas/models.ts) resolves a Step's model from
// these, install writes the agent files' `model:` from them, the ledger prices what they name.
//
// The names are what each client accepts, as of the versions docs/clients.md records:
//  - Claude Code 2.1.332: the Agent tool's `model` takes "haiku", "sonnet", "opus" (and "fable");
//    an agent file's `model:` takes those or a full model id.
//  - Codex CLI 0.169.0: spawn_agent's `model` takes a slug of its model catalog (gpt-6-luna,
//    gpt-6.1-sol, gpt-6-astra), and refuses others ("Unknown model ... for spawn_agent").
//  - Gemini CLI 0.61.0: an agent file's `model:` takes a model id or the aliases "flash-lite",
//    "flash", "pro", resolved to the models the account may use; invoke_agent takes no model.
//  - The Anthropic API (`autopilot run --runner anthropic`): model ids.
import { z } from "zod";
import type { PersonaName, RigorLevel } from "../vocabulary.js";

const TIERS = ["fast", "standard", "strong"] as const;
export type Tier = (typeof TIERS)[number];

/** The personas as `.harness/config.json` names them. */
const ROLES = {
  planner: "harness-planner",
  executor: "harness-task-executor",
  verifier: "harness-verifier",
  reviewer: "harness-code-reviewer",
} as const satisfies Record<string, PersonaName>;
export type Role = keyof typeof ROLES;
export const ROLE_NAMES = Object.keys(ROLES) as Role[];

export function roleOf(persona: PersonaName): Role {
  return ROLE_NAMES.find((r) => ROLES[r] === persona)!;
}

/**
 * Who runs the personas, for the names of the models: a chat client (by its subagent tool) or a
 * headless runner. `other` (a client without subagents of its own) gets no model named.
 */
export const MODEL_CLIENTS = ["claude-code", "codex", "gemini", "anthropic", "command"] as const;
export type ModelClient = (typeof MODEL_CLIENTS)[number];

/**
 * The tier each persona runs on by default. The planner and the reviewer decide what every later
 * run builds on or lets through: a wrong plan or a missed blocking finding costs whole fix rounds,
 * so they take the strong tier. The executor works from a plan that spells out each task and its
 * check, and the verifier runs commands against written criteria: the standard tier does both, and
 * a failing task's last attempt escalates. `--fast` runs everyone on the standard tier; `--thorough`
 * verifies on the strong tier too.
 */
const DEFAULT_TIERS: Record<RigorLevel, Record<Role, Tier>> = {
  fast: { planner: "standard", executor: "standard", verifier: "standard", reviewer: "standard" },
  standard: { planner: "strong", executor: "standard", verifier: "standard", reviewer: "strong" },
  thorough: { planner: "strong", executor: "standard", verifier: "strong", reviewer: "strong" },
};

/** Each client's name for each tier (override per project: `models.clients`). */
export const CLIENT_MODELS: Record<ModelClient, Record<Tier, string>> = {
  "claude-code": { fast: "haiku", standard: "sonnet", strong: "opus" },
  codex: { fast: "gpt-6-luna", standard: "gpt-6.1-sol", strong: "gpt-6-astra" },
  gemini: { fast: "flash-lite", standard: "flash", strong: "pro" },
  anthropic: { fast: "claude-haiku-5-5", standard: "claude-sonnet-5-5", strong: "claude-opus-5-5" },
  // A command template runs an agent CLI of the user's choice; `claude --model` takes these.
  command: { fast: "haiku", standard: "sonnet", strong: "opus" },
};

/** The names each client takes, as patterns (a name of one client is passed to that client as it is). */
const ACCEPTS: Record<ModelClient, RegExp> = {
  "claude-code": /^(haiku|sonnet|opus|fable|claude-[a-z0-9][a-z0-9.-]*)$/,
  codex: /^(gpt-[a-z0-9][a-z0-9.-]*|o\d[a-z0-9.-]*|codex-[a-z0-9][a-z0-9.-]*)$/,
  gemini: /^(flash-lite|flash|pro|auto|gemini-[a-z0-9][a-z0-9.-]*|gemma-[a-z0-9][a-z0-9.-]*)$/,
  anthropic: /^claude-[a-z0-9][a-z0-9.-]*$/,
  command: /^\S+$/,
};

/** The Claude Code Agent tool's `model` values: a full id in an Agent call becomes its family's. */
const CLAUDE_CODE_AGENT_MODELS = ["haiku", "sonnet", "opus", "fable"] as const;

function isTier(v: string): v is Tier {
  return (TIERS as readonly string[]).includes(v);
}

function accepts(client: ModelClient, name: string): boolean {
  return ACCEPTS[client].test(name);
}

/** A model name one of the chat clients or the API takes (a persona's value that is not a tier). */
function isKnownModelName(name: string): boolean {
  return (["claude-code", "codex", "gemini", "anthropic"] as const).some((c) => accepts(c, name));
}

/** The tier a model name belongs to, from its family's word; null when the name does not say. */
function tierOfName(name: string): Tier | null {
  const n = name.toLowerCase();
  if (/haiku|luna|flash-lite|-lite\b|-nano\b|-mini\b/.test(n)) return "fast";
  if (/opus|fable|mythos|astra|(^|-)pro\b/.test(n)) return "strong";
  if (/sonnet|(^|-)sol\b|terra|flash/.test(n)) return "standard";
  return null;
}

/** The tier above (strong stays strong). */
function tierUp(t: Tier): Tier {
  return TIERS[Math.min(TIERS.indexOf(t) + 1, TIERS.length - 1)];
}

// ---- `.harness/config.json` `models` --------------------------------------------------------------

const ALLOWED_VALUE = `a tier (${TIERS.join(", ")}) or a model name a client takes (Claude Code: haiku, sonnet, opus or a claude-… id; Codex: gpt-…; Gemini CLI: flash-lite, flash, pro or gemini-…)`;

const TierOrName = z.string().refine((v) => isTier(v) || isKnownModelName(v), { message: `must be ${ALLOWED_VALUE}` });
const RoleMap = z.strictObject({
  planner: TierOrName.optional(),
  executor: TierOrName.optional(),
  verifier: TierOrName.optional(),
  reviewer: TierOrName.optional(),
});
const ClientName = z.string().regex(/^\S+$/, { message: "must be a model name (no spaces)" });
const TierNames = z.strictObject({
  fast: ClientName.optional(),
  standard: ClientName.optional(),
  strong: ClientName.optional(),
});

/** `models` in `.harness/config.json` (docs/cli.md): checked by src/session/config.ts. */
export const ModelsConfig = RoleMap.extend({
  fast: RoleMap.optional(),
  standard: RoleMap.optional(),
  thorough: RoleMap.optional(),
  clients: z
    .strictObject({
      // "inherit": the host names no model in a dispatch (a provider without these names).
      "claude-code": z.union([TierNames, z.literal("inherit")]).optional(),
      codex: z.union([TierNames, z.literal("inherit")]).optional(),
      gemini: TierNames.optional(),
      anthropic: TierNames.optional(),
      command: TierNames.optional(),
    } satisfies Record<ModelClient, z.ZodType>)
    .optional(),
  /** false: a failing task's last attempt and the final review's last fix round stay on their tier. */
  escalate: z.boolean().optional(),
});
export type ModelsConfig = z.infer<typeof ModelsConfig>;

/** What `models` must be, in the words of the config error (a bad value's own message gives the allowed values). */
export const MODELS_MUST = `an object with a tier or a model name per persona ("${ROLE_NAMES.join('", "')}"), the same per rigor if wanted ("fast", "standard", "thorough"), a client's model name per tier ("clients": {"${MODEL_CLIENTS.join('", "')}"}; "inherit" for "claude-code" or "codex" to name none) and "escalate" (true or false)`;

// ---- resolving ----------------------------------------------------------------------------------

/** A persona's model for one client: its name in that client's terms, its tier, and where it came from. */
export interface ModelPick {
  /** null: the config says to name no model to this client (`"inherit"`). */
  name: string | null;
  /** null: a model name whose tier its name does not say. */
  tier: Tier | null;
  /** What chose it: the default for the rigor, or the config. */
  source: "default" | "config";
}

/**
 * The client's name for a tier: the config's (`models.clients`), else the built-in one; null where
 * the config says `"inherit"`: a Codex set up with another provider (spawn_agent
 * sends the catalog's name to it as it is) or a Claude Code whose agent files the team edited names
 * no model in a dispatch, and its subagents run as they would without autopilot's tiers.
 */
function clientName(client: ModelClient, tier: Tier, config?: ModelsConfig): string | null {
  const own = config?.clients?.[client];
  if (own === "inherit") return null;
  return own?.[tier] ?? CLIENT_MODELS[client][tier];
}

/** What a persona runs on for `client` at `rigor` before any escalation. */
export function pickModel(role: Role, rigor: RigorLevel, client: ModelClient, config?: ModelsConfig): ModelPick {
  const set = config?.[rigor]?.[role] ?? config?.[role];
  if (set === undefined) {
    const tier = DEFAULT_TIERS[rigor][role];
    return { name: clientName(client, tier, config), tier, source: "default" };
  }
  if (isTier(set)) return { name: clientName(client, set, config), tier: set, source: "config" };
  // A model name: as it is for the client that takes it (a command template's CLI is the user's own:
  // it gets every name as it is); another client gets the same tier.
  const tier = tierOfName(set);
  if (accepts(client, set))
    return { name: config?.clients?.[client] === "inherit" ? null : set, tier, source: "config" };
  const t = tier ?? DEFAULT_TIERS[rigor][role];
  return { name: clientName(client, t, config), tier: t, source: "config" };
}

/** The pick one tier up (escalation); a name whose tier is unknown goes to the strong tier. */
export function pickUp(pick: ModelPick, client: ModelClient, config?: ModelsConfig): ModelPick {
  const tier = pick.tier === null ? "strong" : tierUp(pick.tier);
  if (tier === pick.tier) return pick;
  return { name: clientName(client, tier, config), tier, source: pick.source };
}

/**
 * The model an agent file carries for a persona (`autopilot install`, the plugins): its default at
 * standard rigor. A Step names a model for Claude Code only where the dispatch's differs from it.
 */
export function agentFileModel(client: "claude-code" | "gemini", role: Role): string {
  return CLIENT_MODELS[client][DEFAULT_TIERS.standard[role]];
}

/** The model a Claude Code Agent call can name for `name` (its family for a full id), or null. */
export function claudeAgentModel(name: string): string | null {
  if ((CLAUDE_CODE_AGENT_MODELS as readonly string[]).includes(name)) return name;
  const family = /^claude-(haiku|sonnet|opus|fable)-/.exec(name)?.[1];
  return family ?? null;
}
