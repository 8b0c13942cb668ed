// What the machine's actions do to the finding ledger (src/session/findings.ts): a check's round
// raises findings, a fix round takes some, its report fixes or disputes them, a decision overrides
// or defers them. Pure, as the machine.
import type { AutopilotState, Finding } from "../src/session/schema.js";
import type { DecisionBy } from "../src/vocabulary.js";
import {
  chooseForFix,
  decideFindings,
  findingsIn,
  markForFix,
  raiseFindings,
  roundIds,
  settleFixRound,
  type FindingScope,
  type FixChoice,
  type TrackedFinding,
} from "../src/session/findings.js";

type Ledger = Pick<AutopilotState, "findingLedger">;

function ledgerOf(context: AutopilotState): TrackedFinding[] {
  return context.findingLedger ?? [];
}

/** The current phase's verification or review; the final review. */
export function scopeOf(context: AutopilotState, source: FindingScope["source"]): FindingScope {
  return { source, phase: source === "final" ? null : context.currentPhase };
}

/** Round `round` of a check reported `findings`. */
export function raise(
  context: AutopilotState,
  scope: FindingScope,
  round: number,
  findings: readonly Finding[],
): Ledger {
  return { findingLedger: raiseFindings(ledgerOf(context), scope, round, findings) };
}

/**
 * What a fix round of `scope` takes when the person said "fix": a phase's verification failures all;
 * a review's blocking findings.
 */
function defaultFixChoice(scope: FindingScope): FixChoice {
  return scope.source === "verification" ? "all" : "blocking";
}

/**
 * What the person sent to a fix round: the round's `sent` (indices into its findings) as ids;
 * absent, the default for the check.
 */
export function sentChoice(
  context: AutopilotState,
  scope: FindingScope,
  round: number,
  findings: readonly Finding[],
  sent: readonly number[] | undefined,
): FixChoice {
  if (!sent) return defaultFixChoice(scope);
  const ids = roundIds(ledgerOf(context), scope, round, findings);
  return sent.map((k) => ids[k]).filter((id): id is string => id !== undefined);
}

/** Fix round `fixRound` takes the open findings `choice` names; returns the ledger and their ids. */
export function sendToFix(
  context: AutopilotState,
  scope: FindingScope,
  choice: FixChoice,
  fixRound: number,
): Ledger & { ids: string[] } {
  const ids = chooseForFix(ledgerOf(context), scope, choice);
  return { findingLedger: markForFix(ledgerOf(context), ids, fixRound), ids };
}

/** Fix round `fixRound` reported: fixed by the commit `commitEffect` owes, except what it disputed. */
export function settleFix(
  context: AutopilotState,
  scope: FindingScope,
  fixRound: number | undefined,
  disputed: readonly { finding: string; evidence: string }[],
  commitEffect: string,
): Ledger {
  if (fixRound === undefined) return {};
  return { findingLedger: settleFixRound(ledgerOf(context), scope, fixRound, disputed, commitEffect) };
}

/**
 * A decision let the scope's open findings that `which` selects stand (overridden), left them for
 * later (deferred), or said a person fixed them by hand (fixed).
 */
export function decide(
  context: AutopilotState,
  scope: FindingScope,
  which: (e: TrackedFinding) => boolean,
  fate: "overridden" | "deferred" | "fixed",
  decision: string,
  by: DecisionBy | undefined,
): Ledger {
  const ids = findingsIn(ledgerOf(context), scope)
    .filter((e) => e.fate === "open" && which(e))
    .map((e) => e.id);
  return ids.length ? { findingLedger: decideFindings(ledgerOf(context), ids, fate, decision, by) } : {};
}

export const isBlocking = (e: TrackedFinding): boolean => e.severity === "blocking";
