// Between the saved file and the pure machine: rebuild a machine snapshot from a state file, apply
// one event with XState's pure `transition()`, and say which facts the engine must gather next.
import { transition } from "xstate";
import {
  autopilotMachine,
  RESTING_STAGES,
  type AutopilotEvent,
  type StateValue,
} from "../../machines/autopilot.machine.js";
import type { AutopilotState } from "../session/schema.js";
import { AutopilotError } from "../protocol/errors.js";
import { RIGOR } from "../../machines/policy.js";

/** The stage a state rests in when the file names none (upstream files never do). */
export function defaultStage(state: AutopilotState): string | null {
  switch (state.currentState) {
    case "PLAN":
      return state.awaitingInteractivePlan ? "awaitingInteractivePlan" : "planning";
    case "APPROVE_PLAN":
      return "gather";
    case "EXECUTE":
      return "running";
    case "VERIFY":
      return RIGOR[state.rigorLevel].verifyBy === "validation" ? "validating" : "running";
    case "REVIEW":
      return "running";
    case "FINAL_REVIEW":
      return "running";
    default:
      return null;
  }
}

export function stateValueOf(state: AutopilotState): StateValue {
  const stages = RESTING_STAGES[state.currentState] ?? [];
  if (stages.length === 0) return state.currentState;
  const stage = state.stage && stages.includes(state.stage) ? state.stage : defaultStage(state);
  return { [state.currentState]: stage ?? stages[0] };
}

export function restore(state: AutopilotState) {
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
  const bumped: AutopilotState = { ...state, stepId: state.stepId + 1, report: state.report };
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
  const stage = typeof value === "string" ? null : (Object.values(value)[0] as string);
  return {
    ...next.context,
    currentState: top as AutopilotState["currentState"],
    stage,
    updatedAt: event.now,
  };
}

export function describeState(state: AutopilotState): string {
  const stage = stateValueOf(state);
  return typeof stage === "string" ? stage : `${state.currentState}.${Object.values(stage)[0]}`;
}

/**
 * Facts the engine must gather before the session can rest: the machine waits for them as events
 * (ASSESSED, PLAN_FACTS, VALIDATED) because reading files and running commands is not its job.
 */
export type Probe = "assess" | "planFacts" | "validate";

export function probeFor(state: AutopilotState): Probe | null {
  if (state.stopped) return null;
  const value = stateValueOf(state);
  if (value === "ASSESS") return "assess";
  if (typeof value === "string") return null;
  const stage = value[state.currentState];
  if (state.currentState === "APPROVE_PLAN" && stage === "gather") return "planFacts";
  if ((state.currentState === "VERIFY" || state.currentState === "FINAL_REVIEW") && stage === "validating")
    return "validate";
  return null;
}
