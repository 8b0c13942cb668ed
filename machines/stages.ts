// What each resting stage means, read from the machine: every place the session can rest in
// carries its meaning as `meta` on its state node (machines/autopilot.machine.ts, type StageMeta).
// The stage list, the default stage of a file that names none, and the ask / dispatch / probe of a
// saved state are derived here, so the machine's state tree is their one source.
import type { AnyStateNode } from "xstate";
import type { AutopilotState } from "../src/session/schema.js";
import { autopilotMachine, type StageMeta } from "./autopilot.machine.js";

export type { StageMeta };

/**
 * A node the session passes through within one step: an eventless choice with a branch that is
 * always taken, so it never rests there. (PHASE_COMPLETE's eventless branch is guarded: it rests.)
 */
export function isTransient(node: AnyStateNode): boolean {
  const always = node.config.always;
  const branches = always === undefined ? [] : Array.isArray(always) ? always : [always];
  return branches.some((b) => typeof b === "string" || !(b as { guard?: unknown }).guard);
}

function childrenOf(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states) as AnyStateNode[];
}

/**
 * The stages each top-level state can rest in (its non-transient children, in the machine's
 * order); an empty list for a state that rests as itself (ASSESS, PHASE_COMPLETE, DONE).
 */
export const RESTING_STAGES: Readonly<Record<string, readonly string[]>> = Object.freeze(
  Object.fromEntries(
    childrenOf(autopilotMachine.root).map((top) => [
      top.key,
      Object.freeze(
        childrenOf(top)
          .filter((c) => !isTransient(c))
          .map((c) => c.key),
      ),
    ]),
  ),
);

/**
 * Every resting stage's name, once: what the engine may compare a saved stage with (restsAt), so a
 * misspelt stage does not compile. tests/machine/stages.test.ts holds it to the machine's tree.
 */
export const STAGE_NAMES = [
  "fresh",
  "userChanges",
  "planning",
  "awaitingInteractivePlan",
  "personaFailed",
  "budgetPlanning",
  "gather",
  "review",
  "revising",
  "running",
  "waveOpen",
  "wave",
  "waveMerge",
  "waveCheckpoint",
  "waveTask",
  "fixing",
  "checkpoint",
  "exhausted",
  "commitFix",
  "commitBlocked",
  "budgetRunning",
  "budgetFixing",
  "budgetCommitFix",
  "budgetWave",
  "budgetWaveRetry",
  "validating",
  "failed",
  "blocked",
  "warnings",
] as const;
export type StageName = (typeof STAGE_NAMES)[number];

/** Whether the session rests at one of these stages (of whichever top-level state). */
export function restsAt(state: Pick<AutopilotState, "stage">, ...stages: StageName[]): boolean {
  return (stages as readonly (string | null)[]).includes(state.stage);
}

/** Every node the session can rest in: top-level states without stages, and resting stages. */
export function restingNodes(): AnyStateNode[] {
  return childrenOf(autopilotMachine.root).flatMap((top) => {
    const kids = childrenOf(top);
    return kids.length ? kids.filter((c) => !isTransient(c)) : [top];
  });
}

/** The meaning of the node at `top`/`stage` as written (null stage: the top-level state itself), or null. */
export function stageMetaAt(top: string, stage: string | null): StageMeta | null {
  const node = (autopilotMachine.root.states as Record<string, AnyStateNode | undefined>)[top];
  if (!node) return null;
  const kids = childrenOf(node);
  if (!kids.length) return stage === null ? ((node.meta as StageMeta | undefined) ?? null) : null;
  if (stage === null) return null;
  const child = (node.states as Record<string, AnyStateNode | undefined>)[stage];
  return child && !isTransient(child) ? ((child.meta as StageMeta | undefined) ?? null) : null;
}

/**
 * The stage a state rests in when the file names none (upstream files never do): the stage whose
 * `defaultWhen` holds, else the state's `initial` stage; null for a state without stages.
 */
export function defaultStage(state: AutopilotState): string | null {
  const node = (autopilotMachine.root.states as Record<string, AnyStateNode | undefined>)[state.currentState];
  if (!node || !childrenOf(node).length) return null;
  const chosen = childrenOf(node).find((c) => (c.meta as StageMeta | undefined)?.defaultWhen?.(state));
  return chosen?.key ?? (node.config.initial as string | undefined) ?? null;
}
