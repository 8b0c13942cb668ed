// Token usage of a headless run, per persona and per phase, kept in
// `.harness/sessions/<slug>/usage.json`. Totals only grow: every dispatch adds to them, across
// runs and resumes (a dispatch repeated after a crash really did spend its tokens twice).
import { readFile, mkdir } from "node:fs/promises";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { sessionPaths } from "../session/paths.js";
import type { PersonaRunner, PersonaTask, RunnerOutcome, TokenUsage } from "../runners/types.js";

export const USAGE_FILE = "usage.json";

export interface UsageTotals extends TokenUsage {
  dispatches: number;
}

export interface UsageLedgerFile {
  schemaVersion: 1;
  updatedAt: string | null;
  total: UsageTotals;
  byPersona: Record<string, UsageTotals>;
  /** Keyed by 1-based phase number ("1", "2", ...) or "final" for the final review. */
  byPhase: Record<string, UsageTotals & { name: string }>;
  byRunner: Record<string, UsageTotals>;
}

const zero = (): UsageTotals => ({ dispatches: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

function add(into: UsageTotals, u: TokenUsage | undefined): void {
  into.dispatches += 1;
  if (!u) return;
  into.inputTokens += u.inputTokens || 0;
  into.outputTokens += u.outputTokens || 0;
  into.cacheReadTokens += u.cacheReadTokens || 0;
  into.cacheWriteTokens += u.cacheWriteTokens || 0;
}

export function usageFile(root: string, slug: string): string {
  return path.join(sessionPaths(root, slug).sessionDir, USAGE_FILE);
}

export async function readUsage(root: string, slug: string): Promise<UsageLedgerFile> {
  try {
    const v = JSON.parse(await readFile(usageFile(root, slug), "utf8")) as UsageLedgerFile;
    if (v && v.schemaVersion === 1 && v.total) return v;
  } catch {
    // missing or unreadable: start over rather than refuse to run
  }
  return { schemaVersion: 1, updatedAt: null, total: zero(), byPersona: {}, byPhase: {}, byRunner: {} };
}

/** Adds one dispatch. Callers hold the driver lock, so read-modify-write is safe. */
export async function recordUsage(
  root: string,
  slug: string,
  entry: { runner: string; persona: string; phaseIndex: number | null; phaseName: string | null; usage?: TokenUsage },
  now = new Date(),
): Promise<UsageLedgerFile> {
  const led = await readUsage(root, slug);
  add(led.total, entry.usage);
  add((led.byPersona[entry.persona] ??= zero()), entry.usage);
  add((led.byRunner[entry.runner] ??= zero()), entry.usage);
  const key = entry.phaseIndex === null ? "final" : String(entry.phaseIndex + 1);
  add((led.byPhase[key] ??= { name: entry.phaseIndex === null ? "final review" : (entry.phaseName ?? ""), ...zero() }), entry.usage);
  led.updatedAt = now.toISOString();
  const file = usageFile(root, slug);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, JSON.stringify(led, null, 2) + "\n");
  return led;
}

/** A runner that records every dispatch's usage in the session's ledger. */
export class MeteredRunner implements PersonaRunner {
  readonly name: string;
  readonly simulated: boolean;
  constructor(
    private readonly inner: PersonaRunner,
    private readonly root: string,
  ) {
    this.name = inner.name;
    this.simulated = inner.simulated;
  }

  async run(task: PersonaTask, signal?: AbortSignal): Promise<RunnerOutcome> {
    const outcome = await this.inner.run(task, signal);
    await recordUsage(this.root, task.session, {
      runner: this.inner.name,
      persona: task.persona,
      phaseIndex: task.phaseIndex,
      phaseName: task.phaseName,
      usage: outcome.usage,
    });
    return outcome;
  }
}

export function formatTokens(t: UsageTotals): string {
  const k = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : String(n));
  return `${k(t.inputTokens)} in · ${k(t.outputTokens)} out · ${k(t.cacheReadTokens)} cache read · ${k(t.cacheWriteTokens)} cache write`;
}
