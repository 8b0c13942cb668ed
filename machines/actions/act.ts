// Actions kept outside the machine's table: each is an XState `assign` over the session's context,
// typed for the machine's context and events, with its params.
import { assign } from "xstate";
import type { AutopilotState } from "../../src/session/schema.js";
import type { AutopilotEvent } from "../events.js";

/** One action: the context fields it changes, from the context, the event and its params. */
export function act<P = undefined>(
  fn: (args: { context: AutopilotState; event: AutopilotEvent }, params: P) => Partial<AutopilotState>,
) {
  return assign<AutopilotState, AutopilotEvent, P, AutopilotEvent, never>(fn);
}
