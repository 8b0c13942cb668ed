// What the machine tells a commit it owes about the work in it, for its message (worded when the
// commit is made: src/effects/commit-message.ts): the persona's proposal, what kind of work it is,
// what it is about and, for a fix round, what it fixed. Pure.
import type { AutopilotEvent } from "./events.js";
import type { AutopilotState, Effect } from "../src/session/schema.js";
import type { TrackedFinding } from "../src/session/findings.js";
import type { CommitArgs } from "../src/session/effects.js";
import type { z } from "zod";

type Kind = NonNullable<z.infer<typeof CommitArgs>["kind"]>;

/** The phase in progress, by name. */
export function phaseOf(context: AutopilotState): string {
  return context.phases[context.currentPhase]?.name ?? `phase ${context.currentPhase + 1}`;
}

/** The message fields of a commit of the work a persona just reported (the phase's). */
export function workCommit(
  context: AutopilotState,
  event: AutopilotEvent,
  kind: Kind,
): { phase: number; kind: Kind; topic: string; message?: string; fixed?: string[] } {
  const proposal = event.type === "EXECUTED" || event.type === "FIXED" ? event.commitMessage?.trim() : undefined;
  const fixed = kind === "fix" ? (context.phaseRun.fix?.findings ?? []) : [];
  return {
    phase: context.currentPhase,
    kind,
    topic: phaseOf(context),
    ...(proposal ? { message: proposal } : {}),
    ...(fixed.length ? { fixed: [...fixed] } : {}),
  };
}

/**
 * A fix round's commit, naming the findings it fixed: those of the ledger the round settled that
 * this commit fixes (a disputed one is not among them). Without a ledger, the brief's lines stay.
 */
export function namingFixed(commit: Effect, ledger: readonly TrackedFinding[] | undefined): Effect {
  if (commit.type !== "commit") return commit;
  const fixed = (ledger ?? []).filter((e) => e.commitEffect === commit.id && e.fate === "fixed").map((e) => e.title);
  return fixed.length ? { ...commit, args: { ...commit.args, fixed } } : commit;
}
