// The effects the machine owes, with their ids, and the label its commits carry.
import type { AutopilotState, Effect, EffectBody } from "../src/session/schema.js";

export function phaseLabel(state: AutopilotState): string {
  const phase = state.phases[state.currentPhase];
  return `Phase ${state.currentPhase + 1}: ${phase?.name ?? "?"}`;
}

/** An effect the machine owes (its types and args: src/session/effects.ts), with its id. */
export function effect(state: AutopilotState, body: EffectBody): Effect {
  // stepId is bumped by the engine before each event, so ids are unique within the session and
  // stable if the same transition is replayed from the saved outbox.
  const n = state.outbox.filter((e) => e.type === body.type).length;
  return { id: `s${state.stepId}-${body.type}${n ? `-${n}` : ""}`, ...body };
}
