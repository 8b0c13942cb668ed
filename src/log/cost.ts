// The decision log's cost: what the session spent in total, per persona and per model, the budget,
// and every persona run with the model it ran on and why (the state's ledger, src/session/usage.ts).
// Pure: built from the state file, as the rest of the log (model.ts).
import type { AutopilotState } from "../session/schema.js";
import {
  budgetSpent,
  costUnknownWhy,
  formatBudget,
  formatCost,
  formatCount,
  formatUsd,
  type UsageTotals,
} from "../session/usage.js";

/** A cost figure: the words every rendering shows ("unknown" when no report said) and the numbers. */
export interface CostCell {
  display: string;
  usage: UsageTotals | null;
  /** Why it is "unknown" (no run reported yet; runs reported without usage); null when known. */
  why: string | null;
}

export function costCell(t: UsageTotals | undefined): CostCell {
  return { display: formatCost(t), usage: t ?? null, why: costUnknownWhy(t) };
}

/** One persona run: which model ran it, why, and what it cost. */
interface RunLog {
  stepId: number;
  persona: string;
  /** A parallel wave's task. */
  task: string | null;
  /** "1", "2", ... or "final". */
  phase: string;
  /** In the terms of the client that ran it; null where autopilot names no model for that client. */
  model: string | null;
  tier: string | null;
  /** One tier up: the last attempt of work that failed before. */
  escalated: boolean;
  why: string;
  /** "12k tokens · $0.06", "unknown"; "(priced)" when the cost is the price table's. */
  cost: string;
}

export interface SessionCost extends CostCell {
  byPersona: Record<string, CostCell>;
  /** Keyed by model name; empty for files written before models were recorded. */
  byModel: Record<string, CostCell>;
  runs: RunLog[];
  budget: { display: string; tokens: number | null; usd: number | null; spent: string | null } | null;
}

export function sessionCost(state: AutopilotState): SessionCost {
  const cells = (rec: Record<string, UsageTotals> | undefined) =>
    Object.fromEntries(Object.entries(rec ?? {}).map(([k, t]) => [k, costCell(t)]));
  return {
    ...costCell(state.usage?.total),
    byPersona: cells(state.usage?.byPersona),
    byModel: cells(state.usage?.byModel),
    runs: (state.usage?.runs ?? []).map((r) => ({
      stepId: r.stepId,
      persona: r.persona,
      task: r.task ?? null,
      phase: r.phase,
      model: r.model,
      tier: r.tier,
      escalated: r.escalated,
      why: r.why,
      cost:
        r.tokens === null && r.costUsd === null
          ? "unknown"
          : [
              r.tokens !== null ? `${formatCount(r.tokens)} tokens` : null,
              r.costUsd !== null ? `${formatUsd(r.costUsd)}${r.priced ? " (priced)" : ""}` : null,
            ]
              .filter(Boolean)
              .join(" · "),
    })),
    budget: state.budget
      ? {
          display: formatBudget(state.budget),
          tokens: state.budget.tokens,
          usd: state.budget.usd,
          spent: budgetSpent(state.budget, state.usage),
        }
      : null,
  };
}
