// Between the saved file and the pure machine: rebuild a machine snapshot from a state file, apply
// one event with XState's pure `transition()`, and say which facts the engine must gather next.
import { transition } from "xstate";
import {
  autopilotMachine,
  type AutopilotEvent,
  type Probe,
  type StateValue,
} from "../../machines/autopilot.machine.js";
import { RESTING_STAGES, defaultStage, stageMetaAt, type StageMeta } from "../../machines/stages.js";
import type { AutopilotState } from "../session/schema.js";
import { AutopilotError } from "../protocol/errors.js";

export type { Probe };

export function stateValueOf(state: AutopilotState): StateValue {
  const stages = RESTING_STAGES[state.currentState] ?? [];
  if (stages.length === 0) return state.currentState;
  const stage = state.stage && stages.includes(state.stage) ? state.stage : defaultStage(state);
  return { [state.currentState]: stage ?? stages[0] };
}

function restore(state: AutopilotState) {
  return autopilotMachine.resolveState({ value: stateValueOf(state), context: state });
}

/** Whether the machine, as saved, accepts this event right now. */
export function accepts(state: AutopilotState, event: AutopilotEvent): boolean {
  return restore(state).can(event);
}

/**
 * Apply one event. The step counter moves first so that every effect the transition names gets an
 * id unique to this step (the effects use it to stay idempotent when replayed after a crash).
 */
export function apply(state: AutopilotState, event: AutopilotEvent): AutopilotState {
  const bumped: AutopilotState = { ...state, stepId: state.stepId + 1 };
  const snapshot = restore(bumped);
  if (!snapshot.can(event)) {
    throw new AutopilotError(
      "bad_result",
      `The session is at ${describeState(state)} and cannot take ${event.type} now.`,
    );
  }
  const [next] = transition(autopilotMachine, snapshot, event);
  const value = next.value as StateValue;
  const top = typeof value === "string" ? value : Object.keys(value)[0];
  const stage = typeof value === "string" ? null : Object.values(value)[0];
  return {
    ...next.context,
    notices: [...next.context.notices, ...notDoneNotice(event)],
    currentState: top as AutopilotState["currentState"],
    stage,
    updatedAt: event.now,
  };
}

/**
 * What a persona says it did not do of the person's words: told in the report that follows its
 * result, whatever the transition (each result kind's events carry it the same way).
 */
function notDoneNotice(event: AutopilotEvent): AutopilotState["notices"] {
  const items = "notDone" in event ? event.notDone : undefined;
  if (!items?.length) return [];
  const persona = event.type === "PLANNED" ? "harness-planner" : "harness-task-executor";
  return [{ kind: "notDone", persona, items: items.map((i) => ({ asked: i.asked, why: i.why })) }];
}

function describeState(state: AutopilotState): string {
  const stage = stateValueOf(state);
  return typeof stage === "string" ? stage : `${state.currentState}.${Object.values(stage)[0]}`;
}

/** What the stage the saved state rests in means (its state node's `meta`), or null. */
export function restingMeta(state: AutopilotState): StageMeta | null {
  const value = stateValueOf(state);
  return typeof value === "string"
    ? stageMetaAt(value, null)
    : stageMetaAt(state.currentState, value[state.currentState]);
}

/**
 * Facts the engine must gather before the session can rest: the machine waits for them as events
 * (ASSESSED, PLAN_FACTS, VALIDATED) because reading files and running commands is not its job.
 * Which probe a stage needs is declared on its state node (`meta.probe`).
 */
export function probeFor(state: AutopilotState): Probe | null {
  if (state.stopped) return null;
  return restingMeta(state)?.probe ?? null;
}
