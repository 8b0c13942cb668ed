// What a model's tokens cost: a built-in table in US dollars per million tokens, which a project
// overrides or extends with `.harness/config.json` `prices` (docs/cli.md). The ledger prices a run
// from it when the run's token split is known and no cost came with it (src/session/usage.ts).
// Pure data.
//
// The figures are the vendors' list prices for the models the tiers name (platform.claude.com's model
// pages; OpenAI's for the Codex catalog), as docs/models.md gives them with where they come from.
// Prices move: a project that pays other rates (a discount, a cloud provider, a newer model) says so
// in `prices`.
import { z } from "zod";

/** US dollars per million tokens. A cache price left out is charged at the input price. */
export interface Price {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

const PER_MTOK = 1e6;

// Each Claude model under the names a client gives it: the Agent tool's and `claude --model`'s
// aliases name the current model of the family.
const OPUS: Price = { input: 4, output: 20, cacheWrite: 5, cacheRead: 0.2 };
const SONNET: Price = { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 };
// Prompts up to 100,000 tokens (a persona's turn is far below; above, Haiku 5.5 costs five times this).
const HAIKU: Price = { input: 0.1, output: 0.5, cacheWrite: 0.125, cacheRead: 0.01 };

const PRICES: Readonly<Record<string, Price>> = {
  "claude-opus-5-5": OPUS,
  "claude-sonnet-5-5": SONNET,
  "claude-haiku-5-5": HAIKU,
  opus: OPUS,
  sonnet: SONNET,
  haiku: HAIKU,
  "gpt-6-astra": { input: 10, output: 50 },
  "gpt-6.1-sol": { input: 2, output: 10, cacheRead: 0.2 },
  "gpt-6-luna": { input: 0.1, output: 0.5, cacheRead: 0.01 },
};

const Dollars = z.number().nonnegative();
/** `prices` in `.harness/config.json`: model name → US dollars per million tokens. */
export const PricesConfig = z.record(
  z.string().min(1),
  z.strictObject({ input: Dollars, output: Dollars, cacheRead: Dollars.optional(), cacheWrite: Dollars.optional() }),
);
export type PricesConfig = z.infer<typeof PricesConfig>;

export const PRICES_MUST = `model names, each with US dollars per million tokens: {"<model>": {"input": 2, "output": 10, "cacheRead": 0.2, "cacheWrite": 2.5}} (the cache prices optional)`;

/** The price of `model`: the project's, else the built-in table's; null when neither knows it. */
export function priceOf(model: string, config?: PricesConfig): Price | null {
  return config?.[model] ?? PRICES[model] ?? null;
}

/** The tokens of a run, split as the APIs report them. */
export interface TokenSplit {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/**
 * A run's cost at `price`, or null when the split is not known: a usage that gives only a total (as
 * Claude Code's subagent usage block does) cannot be priced, since output costs five times input
 * and a cache read a tenth of it.
 */
export function priced(split: TokenSplit, price: Price | null): number | null {
  if (!price || typeof split.inputTokens !== "number" || typeof split.outputTokens !== "number") return null;
  const perMillion =
    split.inputTokens * price.input +
    split.outputTokens * price.output +
    (split.cacheReadTokens ?? 0) * (price.cacheRead ?? price.input) +
    (split.cacheWriteTokens ?? 0) * (price.cacheWrite ?? price.input);
  return perMillion / PER_MTOK;
}
