// A persona run as the session records it: its usage added to the ledger, with the model it ran on,
// why (src/personas/models.ts), and its cost, priced from the table when the run reported tokens
// but no cost (src/session/prices.ts). Taken from the state the run was dispatched from, in the
// same write as the transition its result makes.
import type { AutopilotState } from "../session/schema.js";
import type { ProjectConfig } from "../session/config.js";
import { addUsage, type UsageReport } from "../session/usage.js";
import { priceOf } from "../session/prices.js";
import { stageMetaAt } from "../../machines/stages.js";
import { dispatchModel, type Runs } from "../personas/models.js";

/** `state` with the run of its current dispatch (of `task`, in a parallel wave) in its ledger. */
export function recordRun(
  state: AutopilotState,
  usage: UsageReport | null,
  runs: Runs = "other",
  config: ProjectConfig = {},
  task?: string,
): AutopilotState {
  const persona = stageMetaAt(state.currentState, state.stage)?.dispatch?.persona;
  if (!persona) return state;
  const inPhase = !["INIT", "FINAL_REVIEW", "DONE"].includes(state.currentState);
  const phase = inPhase ? state.phases[state.currentPhase] : undefined;
  const m = dispatchModel(state, runs, config.models, task);
  const stepId = (task && state.phaseRun.waveRun?.tasks.find((t) => t.task === task)?.dispatchedAt) || state.stepId;
  return {
    ...state,
    usage: addUsage(state.usage, {
      persona,
      phaseIndex: phase ? state.currentPhase : null,
      phaseName: phase?.name ?? null,
      usage,
      ...(m
        ? {
            model: {
              stepId,
              ...(task ? { task } : {}),
              name: m.name,
              tier: m.tier,
              escalated: m.escalated,
              why: m.why,
              price: m.name ? priceOf(m.name, config.prices) : null,
            },
          }
        : {}),
    }),
  };
}
