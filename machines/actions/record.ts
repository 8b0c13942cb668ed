// The decision an answer records, for the questions whose answer needs nothing else written with it
// (the plan gate's and the user-changes question's add what they decided on: their own actions).
import { assertEvent } from "xstate";
import { answered, type DecisionName } from "../decisions.js";
import { act } from "./act.js";

export const recordActions = {
  recordDecision: act(({ context, event }, params: { decision: DecisionName }) => {
    assertEvent(event, "DECIDE");
    return {
      decisions: [...context.decisions, answered(context, event, params.decision)],
    };
  }),
};
