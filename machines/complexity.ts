// A phase's complexity as the plan gate reads it: the spec's rating, raised when the plan outgrew it.
import type { Complexity, Phase } from "../src/session/schema.js";

export function effectiveComplexity(phase: Phase): Complexity {
  return phase.complexityOverride ?? phase.complexity;
}

/**
 * The skill's planning override: a phase annotated low whose plan is bigger than expected is
 * reviewed as medium (>10 tasks or >3 checkpoints) or high (>20 or >6). Only ever raises.
 */
export function complexityOverrideFor(
  specComplexity: Complexity,
  taskCount: number,
  checkpointCount: number,
): Complexity | null {
  if (specComplexity !== "low") return null;
  if (taskCount > 20 || checkpointCount > 6) return "high";
  if (taskCount > 10 || checkpointCount > 3) return "medium";
  return null;
}

const RANK: Record<Complexity, number> = { low: 0, medium: 1, high: 2 };

export function higherComplexity(a: Complexity | null, b: Complexity | null): Complexity | null {
  if (a === null) return b;
  if (b === null) return a;
  return RANK[a] >= RANK[b] ? a : b;
}
