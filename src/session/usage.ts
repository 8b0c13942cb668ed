// What a session spent: the usage of every persona run, reported with its result (autopilot_report's
// `usage`, or a headless runner's own count), added up per phase, per persona and for the session,
// and kept in the state file (`usage`). A budget (`budget`) pauses the session before the next
// dispatch once it is spent.
//
// Unknown stays unknown: a figure no report gave is null, never 0, and every total says how many of
// its dispatches reported usage at all. Pure: no I/O, no clock.
import { z } from "zod";
import { AutopilotError } from "../protocol/errors.js";
import { priced, type Price } from "./prices.js";

/** One persona run's usage, as far as the host or runner knows it. Every field optional. */
export interface UsageReport {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** All tokens of the run (Claude Code's `total_tokens`); else the sum of the four above. */
  totalTokens?: number;
  toolUses?: number;
  durationMs?: number;
  costUsd?: number;
}

const n = z.number().nonnegative().nullable();
export const UsageTotals = z.looseObject({
  /** Persona results recorded. */
  dispatches: z.number().int().nonnegative(),
  /** Of them, results that came with usage. */
  reported: z.number().int().nonnegative(),
  tokens: n,
  inputTokens: n,
  outputTokens: n,
  cacheReadTokens: n,
  cacheWriteTokens: n,
  toolUses: n,
  durationMs: n,
  costUsd: n,
  /** Results that came with a cost in USD. */
  costReported: z.number().int().nonnegative(),
});
export type UsageTotals = z.infer<typeof UsageTotals>;

/** One persona run: the model it ran on, why, and what it cost (the decision log's record). */
const ModelRun = z.looseObject({
  stepId: z.number().int().nonnegative(),
  persona: z.string(),
  /** A parallel wave's task. */
  task: z.string().optional(),
  /** As `byPhase` keys it. */
  phase: z.string(),
  /** In the terms of the client that ran it; null when autopilot names none for that client. */
  model: z.string().nullable(),
  tier: z.string().nullable(),
  /** One tier up: the last attempt of failing work. */
  escalated: z.boolean(),
  why: z.string(),
  tokens: n,
  costUsd: n,
  /** The cost is the price table's (src/session/prices.ts), not one the run reported. */
  priced: z.boolean(),
});
type ModelRun = z.infer<typeof ModelRun>;

export const UsageLedger = z.looseObject({
  total: UsageTotals,
  /** Keyed by 1-based phase number ("1", "2", ...) or "final" for the final review. */
  byPhase: z.record(z.string(), UsageTotals.extend({ name: z.string() })),
  byPersona: z.record(z.string(), UsageTotals),
  /** Keyed by model name ("(strong tier)" where no name is known); absent in files written before it. */
  byModel: z.record(z.string(), UsageTotals).optional(),
  /** Every run, in order; absent in files written before it. */
  runs: z.array(ModelRun).optional(),
});
export type UsageLedger = z.infer<typeof UsageLedger>;

export const Budget = z.looseObject({
  /** The limit in tokens, or null. */
  tokens: z.number().positive().nullable(),
  /** The limit in US dollars, or null. */
  usd: z.number().positive().nullable(),
  /** "continue once": the stepId of the one dispatch let through past a spent budget. */
  continueOnceAt: z.number().int().nullable(),
});
export type Budget = z.infer<typeof Budget>;

function emptyTotals(): UsageTotals {
  return {
    dispatches: 0,
    reported: 0,
    tokens: null,
    inputTokens: null,
    outputTokens: null,
    cacheReadTokens: null,
    cacheWriteTokens: null,
    toolUses: null,
    durationMs: null,
    costUsd: null,
    costReported: 0,
  };
}

export function emptyLedger(): UsageLedger {
  return { total: emptyTotals(), byPhase: {}, byPersona: {} };
}

const FIELDS = [
  "inputTokens",
  "outputTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "toolUses",
  "durationMs",
  "costUsd",
] as const;

/** The tokens of one run: its total when given, else the sum of the parts it gave, else unknown. */
function tokensOf(u: UsageReport): number | null {
  if (typeof u.totalTokens === "number") return u.totalTokens;
  const parts = [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens].filter(
    (v): v is number => typeof v === "number",
  );
  return parts.length ? parts.reduce((a, b) => a + b, 0) : null;
}

function plus(a: number | null, b: number | undefined | null): number | null {
  if (typeof b !== "number") return a;
  return (a ?? 0) + b;
}

function addTo(t: UsageTotals, u: UsageReport | null): UsageTotals {
  const out: UsageTotals = { ...t, dispatches: t.dispatches + 1 };
  if (!u || !hasAny(u)) return out;
  out.reported += 1;
  out.tokens = plus(t.tokens, tokensOf(u));
  for (const k of FIELDS) out[k] = plus(t[k], u[k]);
  if (typeof u.costUsd === "number") out.costReported += 1;
  return out;
}

function hasAny(u: UsageReport): boolean {
  return tokensOf(u) !== null || FIELDS.some((k) => typeof u[k] === "number");
}

/** The model a run ran on and why (src/personas/models.ts), and its price, for the ledger. */
export interface RunModel {
  stepId: number;
  task?: string;
  name: string | null;
  tier: string | null;
  escalated: boolean;
  why: string;
  /** The model's price; null: not in the table, so only a reported cost counts. */
  price: Price | null;
}

/**
 * The ledger with one more persona result (with or without usage). With `model`, the run is recorded
 * with its model, and a run that reported its token split but no cost is priced from the table.
 */
export function addUsage(
  ledger: UsageLedger | undefined,
  entry: {
    persona: string;
    phaseIndex: number | null;
    phaseName: string | null;
    usage: UsageReport | null;
    model?: RunModel;
  },
): UsageLedger {
  const led = ledger ?? emptyLedger();
  const key = entry.phaseIndex === null ? "final" : String(entry.phaseIndex + 1);
  const phase = led.byPhase[key] ?? {
    ...emptyTotals(),
    name: entry.phaseIndex === null ? "final review" : (entry.phaseName ?? ""),
  };
  const m = entry.model;
  const cost = entry.usage?.costUsd ?? (m && entry.usage ? priced(entry.usage, m.price) : null);
  const usage = entry.usage && cost !== null ? { ...entry.usage, costUsd: cost } : entry.usage;
  const out: UsageLedger = {
    ...led,
    total: addTo(led.total, usage),
    byPhase: { ...led.byPhase, [key]: { ...addTo(phase, usage), name: phase.name } },
    byPersona: { ...led.byPersona, [entry.persona]: addTo(led.byPersona[entry.persona] ?? emptyTotals(), usage) },
  };
  if (!m) return out;
  const modelKey = m.name ?? `(${m.tier ?? "unknown"} tier)`;
  const run: ModelRun = {
    stepId: m.stepId,
    persona: entry.persona,
    ...(m.task ? { task: m.task } : {}),
    phase: key,
    model: m.name,
    tier: m.tier,
    escalated: m.escalated,
    why: m.why,
    tokens: entry.usage ? tokensOf(entry.usage) : null,
    costUsd: cost,
    priced: cost !== null && entry.usage?.costUsd === undefined,
  };
  return {
    ...out,
    byModel: { ...led.byModel, [modelKey]: addTo(led.byModel?.[modelKey] ?? emptyTotals(), usage) },
    runs: [...(led.runs ?? []), run],
  };
}

// ---- usage as hosts send it ---------------------------------------------------------------------

const ALIASES: Record<string, keyof UsageReport> = {
  inputtokens: "inputTokens",
  input: "inputTokens",
  outputtokens: "outputTokens",
  output: "outputTokens",
  cachereadtokens: "cacheReadTokens",
  cachereadinputtokens: "cacheReadTokens",
  cachereads: "cacheReadTokens",
  cachewritetokens: "cacheWriteTokens",
  cachecreationinputtokens: "cacheWriteTokens",
  cachewrites: "cacheWriteTokens",
  totaltokens: "totalTokens",
  tokens: "totalTokens",
  tooluses: "toolUses",
  totaltoolusecount: "toolUses",
  durationms: "durationMs",
  totaldurationms: "durationMs",
  costusd: "costUsd",
  totalcostusd: "costUsd",
  cost: "costUsd",
};

function field(key: string): keyof UsageReport | undefined {
  return ALIASES[key.toLowerCase().replace(/[^a-z]/g, "")];
}

function numeric(v: unknown): number | undefined {
  const x = typeof v === "string" && v.trim() !== "" ? Number(v.trim().replace(/[$,_\s]/g, "")) : v;
  return typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : undefined;
}

/**
 * A usage block as a host passes it on: an object in our names or in Claude Code's and the API's
 * (`total_tokens`, `tool_uses`, `duration_ms`, `input_tokens`, `cache_read_input_tokens`, ...), or
 * the text of Claude Code's `<usage>` block itself ("total_tokens: 37229\ntool_uses: 22\n...", or
 * its `<total_tokens>37229</total_tokens>` form). Unknown keys are ignored; a value that is not a
 * count is a `bad_input` error (the report is not recorded, so nothing is half-written).
 */
export function parseUsage(raw: unknown): UsageReport | null {
  if (raw === undefined || raw === null) return null;
  const out: UsageReport = {};
  const put = (key: string, value: unknown) => {
    const f = field(key);
    if (!f) return;
    const v = numeric(value);
    if (v === undefined)
      throw new AutopilotError(
        "bad_input",
        `usage.${key} must be a non-negative number, not ${JSON.stringify(value)}. Pass the subagent's usage block as it came (e.g. {"total_tokens": 37229, "tool_uses": 22, "duration_ms": 51993}), or leave usage out.`,
      );
    out[f] = v;
  };
  if (typeof raw === "string") {
    for (const m of raw.matchAll(/<([a-z_]+)>\s*([^<]*?)\s*<\/\1>/gi))
      if (m[1].toLowerCase() !== "usage") put(m[1], m[2]);
    for (const m of raw.matchAll(/(?:^|[\s>,{])"?([A-Za-z_]+)"?\s*[:=]\s*"?([$\d.,_]+)"?/g)) put(m[1], m[2]);
  } else if (typeof raw === "object" && !Array.isArray(raw)) {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      if (v === undefined || v === null) continue; // unknown stays unknown
      // The API's nested `usage` (a claude -p envelope passed whole) carries the token split.
      if (k === "usage" && v && typeof v === "object") {
        for (const [k2, v2] of Object.entries(v as Record<string, unknown>))
          if (v2 !== undefined && typeof v2 !== "object") put(k2, v2);
      } else if (typeof v !== "object" || v === null) put(k, v);
    }
  } else {
    throw new AutopilotError(
      "bad_input",
      `usage must be an object or the text of a usage block, not ${typeof raw}. Leave it out if there is none.`,
    );
  }
  return hasAny(out) ? out : null;
}

// ---- budgets ------------------------------------------------------------------------------------

/** "200k", "1.5M", "50000" (tokens) or "$5", "5usd", "2.50 USD" (dollars). */
export function parseBudget(text: string): { tokens: number | null; usd: number | null } {
  const t = String(text ?? "")
    .trim()
    .toLowerCase()
    .replace(/[,_\s]/g, "");
  let m = /^\$(\d+(?:\.\d+)?)$/.exec(t) ?? /^(\d+(?:\.\d+)?)(?:usd|\$|dollars?)$/.exec(t);
  if (m && Number(m[1]) > 0) return { tokens: null, usd: Number(m[1]) };
  m = /^(\d+(?:\.\d+)?)(k|m)?(?:tokens?)?$/.exec(t);
  if (m) {
    const v = Math.round(Number(m[1]) * (m[2] === "k" ? 1e3 : m[2] === "m" ? 1e6 : 1));
    if (v > 0) return { tokens: v, usd: null };
  }
  throw new AutopilotError(
    "bad_input",
    `"${text}" is not a budget. Give tokens (200k, 1.5M, 50000) or US dollars ($5, 5usd).`,
  );
}

export function formatBudget(b: { tokens: number | null; usd: number | null }): string {
  return [b.tokens !== null ? `${formatCount(b.tokens)} tokens` : null, b.usd !== null ? formatUsd(b.usd) : null]
    .filter(Boolean)
    .join(" or ");
}

/** Which limit is spent, in words, or null while the session is within its budget. */
export function budgetSpent(budget: Budget | undefined, ledger: UsageLedger | undefined): string | null {
  if (!budget) return null;
  const t = ledger?.total;
  if (budget.tokens !== null && t?.tokens != null && t.tokens >= budget.tokens)
    return `${formatCount(t.tokens)} tokens spent of a ${formatCount(budget.tokens)}-token budget`;
  if (budget.usd !== null && t?.costUsd != null && t.costUsd >= budget.usd)
    return `${formatUsd(t.costUsd)} spent of a ${formatUsd(budget.usd)} budget`;
  return null;
}

/**
 * What one more persona run is likely to cost: the average of the runs so far that reported it,
 * of `persona`'s runs when it has some, else of every persona's; null where nothing is known.
 */
function runEstimate(ledger: UsageLedger | undefined, persona: string): { tokens: number | null; usd: number | null } {
  const own = ledger?.byPersona[persona];
  const from = (pick: (t: UsageTotals) => [number | null, number]) => {
    for (const t of [own, ledger?.total]) {
      const [sum, n] = t ? pick(t) : [null, 0];
      if (sum !== null && n > 0) return sum / n;
    }
    return null;
  };
  return { tokens: from((t) => [t.tokens, t.reported]), usd: from((t) => [t.costUsd, t.costReported]) };
}

/**
 * Which limit `runs` more runs of `persona` (a wave's dispatches, counted before they start) would
 * take the session past, in words, or null while they fit (or nothing is known of their cost).
 * A spent budget is crossed by any run.
 */
export function budgetCrossedBy(
  budget: Budget | undefined,
  ledger: UsageLedger | undefined,
  runs: number,
  persona: string,
): string | null {
  if (!budget) return null;
  const spent = budgetSpent(budget, ledger);
  if (spent || runs <= 0) return spent;
  const t = ledger?.total;
  const each = runEstimate(ledger, persona);
  const words = (spentText: string, eachText: string, totalText: string) =>
    `${spentText}; ${runs} run${runs === 1 ? "" : "s"} of about ${eachText} each would make it ${totalText}`;
  if (
    budget.tokens !== null &&
    t?.tokens != null &&
    each.tokens !== null &&
    t.tokens + runs * each.tokens > budget.tokens
  )
    return words(
      `${formatCount(t.tokens)} tokens spent of a ${formatCount(budget.tokens)}-token budget`,
      `${formatCount(each.tokens)} tokens`,
      `${formatCount(t.tokens + runs * each.tokens)} tokens`,
    );
  if (budget.usd !== null && t?.costUsd != null && each.usd !== null && t.costUsd + runs * each.usd > budget.usd)
    return words(
      `${formatUsd(t.costUsd)} spent of a ${formatUsd(budget.usd)} budget`,
      formatUsd(each.usd),
      formatUsd(t.costUsd + runs * each.usd),
    );
  return null;
}

/**
 * "raise budget": the amount named in the user's reason ("to $10", "500k") when it is larger, else
 * the spent limit doubled.
 */
export function raisedBudget(budget: Budget, rationale: string | undefined): Budget {
  const found = (rationale ?? "").match(/\$\s*\d+(?:\.\d+)?|\d+(?:\.\d+)?\s*(?:usd|k|m)\b|\d{4,}/i)?.[0];
  let next: { tokens: number | null; usd: number | null } | null = null;
  if (found) {
    try {
      next = parseBudget(found);
    } catch {
      next = null;
    }
  }
  const doubled = {
    tokens: budget.tokens !== null ? budget.tokens * 2 : null,
    usd: budget.usd !== null ? budget.usd * 2 : null,
  };
  const chosen =
    next &&
    ((next.tokens !== null && (budget.tokens === null || next.tokens > budget.tokens)) ||
      (next.usd !== null && (budget.usd === null || next.usd > budget.usd)))
      ? {
          tokens: next.tokens ?? (next.usd !== null ? null : budget.tokens),
          usd: next.usd ?? (next.tokens !== null ? null : budget.usd),
        }
      : doubled;
  return { ...budget, ...chosen, continueOnceAt: null };
}

// ---- words --------------------------------------------------------------------------------------

export function formatCount(v: number): string {
  if (v >= 1e6) return `${(v / 1e6).toFixed(v >= 1e7 ? 0 : 1).replace(/\.0$/, "")}M`;
  if (v >= 1e4) return `${Math.round(v / 1e3)}k`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(1).replace(/\.0$/, "")}k`;
  return String(Math.round(v));
}

export function formatUsd(v: number): string {
  if (v >= 1) return `$${v.toFixed(2)}`;
  // Below a dollar, up to four decimals, at least two: $0.06, $0.546, $0.0125.
  const [whole, frac = ""] = v.toFixed(4).split(".");
  return `$${whole}.${frac.replace(/0+$/, "").padEnd(2, "0")}`;
}

/**
 * "41k tokens · $0.62" or "unknown", with "(2 of 3 dispatches reported usage)" when only some did.
 * Cost shows only when known.
 */
export function formatCost(t: UsageTotals | undefined | null): string {
  if (!t || t.reported === 0 || (t.tokens === null && t.costUsd === null)) return "unknown";
  const parts: string[] = [];
  if (t.tokens !== null) parts.push(`${formatCount(t.tokens)} tokens`);
  if (t.costUsd !== null) parts.push(`${formatUsd(t.costUsd)}${t.costReported < t.reported ? " (partial)" : ""}`);
  const partial = t.reported < t.dispatches ? ` (${t.reported} of ${t.dispatches} dispatches reported usage)` : "";
  return parts.join(" · ") + partial;
}

/**
 * Why a cost is "unknown", in words (null when it is known): no persona run reported yet, or the
 * runs that reported carried no usage (the host passes usage on only when its client gives it).
 */
export function costUnknownWhy(t: UsageTotals | undefined | null): string | null {
  if (formatCost(t) !== "unknown") return null;
  if (!t || t.dispatches === 0) return "no persona run has been reported yet";
  const runs = `${t.dispatches} persona run${t.dispatches === 1 ? "" : "s"} reported`;
  if (t.reported === 0) return `${runs}, none with its usage (the host passes usage on only when its client gives it)`;
  return `${runs}, ${t.reported} with usage, but none gave a token count or a dollar cost`;
}
