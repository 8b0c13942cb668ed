// What the tiers save: one scripted 3-phase session at standard rigor, run twice through the built
// CLI (`autopilot run --runner scripted --yes`), once with every persona on the strong tier and once
// with the defaults (planner and reviewer strong, executor and verifier standard), priced by the
// ledger from the price table (src/session/prices.ts). The scripted runner stands in for the API
// runner, so the runs carry the API's model ids. The tokens each run reports are the bench's
// assumption, printed with the figure: one profile where every run costs the same, and one where the
// executor reads and writes most (the shape of real sessions: the executor edits code and runs the
// checks). docs/models.md gives the figures.
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { git, makeProject, specWith } from "./repo.js";
import { table } from "./stats.js";

const execFileP = promisify(execFile);

type Split = { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };

/** Tokens per run, by persona. */
export const PROFILES: Record<string, Record<string, Split>> = {
  "every run alike": Object.fromEntries(
    ["harness-planner", "harness-task-executor", "harness-verifier", "harness-code-reviewer"].map((p) => [
      p,
      { inputTokens: 20_000, outputTokens: 5_000, cacheReadTokens: 100_000, cacheWriteTokens: 15_000 },
    ]),
  ),
  "the executor heaviest": {
    "harness-planner": { inputTokens: 20_000, outputTokens: 8_000, cacheReadTokens: 80_000, cacheWriteTokens: 12_000 },
    "harness-task-executor": {
      inputTokens: 30_000,
      outputTokens: 20_000,
      cacheReadTokens: 400_000,
      cacheWriteTokens: 40_000,
    },
    "harness-verifier": {
      inputTokens: 20_000,
      outputTokens: 4_000,
      cacheReadTokens: 150_000,
      cacheWriteTokens: 15_000,
    },
    "harness-code-reviewer": {
      inputTokens: 20_000,
      outputTokens: 6_000,
      cacheReadTokens: 100_000,
      cacheWriteTokens: 14_000,
    },
  },
};

const ALL_STRONG = { planner: "strong", executor: "strong", verifier: "strong", reviewer: "strong" };

interface Priced {
  usd: number;
  dispatches: number;
  byModel: Record<string, { dispatches: number; costUsd: number | null }>;
}

/** One scripted session to DONE with `models` (null: the defaults) and `usage` per run; its priced cost. */
async function session(main: string, models: object | null, usage: object): Promise<Priced> {
  const p = await makeProject(specWith(3));
  try {
    const config = path.join(p.dir, ".harness/config.json");
    const base = JSON.parse(await readFile(config, "utf8"));
    await writeFile(config, JSON.stringify({ ...base, ...(models ? { models } : {}), scripted: { usage } }) + "\n");
    await git(p.dir, "commit", "-qam", "bench config");
    await execFileP(process.execPath, [main, "run", p.specPath, "--runner", "scripted", "--yes"], {
      cwd: p.dir,
      maxBuffer: 16 * 1024 * 1024,
    });
    const state = JSON.parse(
      await readFile(path.join(p.dir, ".harness/sessions", p.slug, "autopilot-state.json"), "utf8"),
    );
    if (state.currentState !== "DONE") throw new Error(`the bench session ended at ${state.currentState}`);
    const total = state.usage.total;
    return { usd: total.costUsd, dispatches: total.dispatches, byModel: state.usage.byModel };
  } finally {
    await p.cleanup();
  }
}

const usd = (v: number) => `$${v.toFixed(4)}`;
const models = (p: Priced) =>
  Object.entries(p.byModel)
    .map(([m, t]) => `${m} ×${t.dispatches}`)
    .join(", ");

/** Prints the table; returns the ratio (all strong / defaults) of each profile. */
export async function modelCostBench(main: string): Promise<Record<string, number>> {
  const rows: string[][] = [];
  const ratios: Record<string, number> = {};
  for (const [name, usage] of Object.entries(PROFILES)) {
    const strong = await session(main, ALL_STRONG, usage);
    const defaults = await session(main, null, usage);
    ratios[name] = strong.usd / defaults.usd;
    rows.push(
      [name, "all strong", String(strong.dispatches), models(strong), usd(strong.usd), ""],
      [name, "defaults", String(defaults.dispatches), models(defaults), usd(defaults.usd), ""],
      [name, "ratio all strong / defaults", "", "", "", `${ratios[name].toFixed(2)}×`],
    );
  }
  console.log(
    "\nWhat the tiers save: one scripted 3-phase session at standard rigor, priced from the price table (bench/models.ts; tokens per run assumed, by persona)",
  );
  console.log(table(["tokens per run", "models", "dispatches", "runs by model", "cost", "ratio"], rows));
  return ratios;
}
