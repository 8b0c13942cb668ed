// The model a dispatch runs on, and why: the persona's tier (src/session/models.ts: the default for
// the session's rigor, or `.harness/config.json` `models`), one tier up for the work that failed
// before it (a task's last attempt within the retry budget, a commit hook's last fix within it, the
// final review's last fix round), in the terms of the client that runs it. Pure: a function of the
// saved state and the config, so the Step and the ledger's record of a run say the same.
import type { AutopilotState } from "../session/schema.js";
import type { DispatchNext, Step } from "../protocol/step.js";
import { stageMetaAt } from "../../machines/stages.js";
import { FINAL_REVIEW_FIX_BUDGET } from "../rules/policy.js";
import {
  agentFileModel,
  claudeAgentModel,
  pickModel,
  pickUp,
  roleOf,
  type ModelClient,
  type ModelsConfig,
  type Role,
  type Tier,
} from "../session/models.js";
import { waveTasksToRun } from "./jobs.js";

/** Who runs the session's personas: a client or runner with model names, or one without (`other`). */
export type Runs = ModelClient | "other";

export interface DispatchModel {
  role: Role;
  /** The model in the client's terms; null for a client autopilot names no model for. */
  name: string | null;
  tier: Tier | null;
  /** Ran one tier up (or would have, already on the strongest tier). */
  escalated: boolean;
  /** Why this model, in words: the decision log's record of the run. */
  why: string;
}

/** Why a dispatch runs one tier up, or null when it does not. */
function escalation(state: AutopilotState, task?: string): string | null {
  const job = stageMetaAt(state.currentState, state.stage)?.dispatch?.job;
  const max = state.retryBudget.maxAttempts;
  if (job === "execute" && !state.phaseRun.fix) {
    const cur = state.retryBudget.currentTask;
    const used = cur?.attemptsUsed ?? 0;
    if (cur && used > 0 && used >= max)
      return `the last attempt at task ${cur.number ?? "?"} within the retry budget (retry ${used}/${max})`;
  }
  if (job === "executeTask") {
    const t = waveTasksToRun(state).find((x) => x.task === task);
    const from = t?.budgetFrom ?? 1;
    if (t && t.attempt > from && t.attempt - from + 1 >= max)
      return `the last attempt at task ${t.task} within the retry budget (attempt ${t.attempt - from + 1}/${max})`;
  }
  if (job === "commitFix") {
    const attempt = state.phaseRun.rejectedCommit?.attempts.length ?? 1;
    if (attempt > 1 && attempt >= max)
      return `the last fix of the rejected commit within the retry budget (${attempt}/${max})`;
  }
  if (job === "finalFix") {
    const round = state.finalReview.retryCount;
    if (round > 1 && round >= FINAL_REVIEW_FIX_BUDGET)
      return `the final review's last fix round (${round}/${FINAL_REVIEW_FIX_BUDGET})`;
  }
  return null;
}

/**
 * The model of the current dispatch (of `task`, in a parallel wave) for `runs`, or null when the
 * state dispatches no persona.
 */
export function dispatchModel(
  state: AutopilotState,
  runs: Runs,
  config?: ModelsConfig,
  task?: string,
): DispatchModel | null {
  const job = stageMetaAt(state.currentState, state.stage)?.dispatch;
  if (!job) return null;
  const role = roleOf(job.persona);
  const rigor = state.rigorLevel;
  // A client without model names still has the tier recorded, in Claude Code's words for it.
  const client: ModelClient = runs === "other" ? "claude-code" : runs;
  const base = pickModel(role, rigor, client, config);
  const from =
    base.source === "default"
      ? `${role}: ${base.tier} tier, the default at ${rigor} rigor`
      : `${role}: ${config?.[rigor]?.[role] ?? config?.[role]} in .harness/config.json models`;
  const up = config?.escalate === false ? null : escalation(state, task);
  const pick = up ? pickUp(base, client, config) : base;
  const why = !up
    ? from
    : pick === base
      ? `${from}; ${up}, already on the strongest tier`
      : `${from}; ${up}: one tier up, ${pick.tier}`;
  return { role, name: runs === "other" ? null : pick.name, tier: pick.tier, escalated: !!up, why };
}

/**
 * The model a Step names for the host to pass, in its own terms, or undefined: Claude Code's Agent
 * call takes a family ("opus") and needs one only where it differs from the agent file's; Codex's
 * spawn_agent takes its catalog's name (its subagents otherwise inherit the host's model); Gemini
 * CLI's invoke_agent takes none (the agent file's `model:` decides); a headless runner takes its own.
 */
function stepModel(runs: Runs, m: DispatchModel | null): string | undefined {
  if (!m?.name) return undefined;
  switch (runs) {
    case "claude-code": {
      const agent = claudeAgentModel(m.name);
      return agent && agent !== agentFileModel("claude-code", m.role) ? agent : undefined;
    }
    case "codex":
    case "anthropic":
    case "command":
      return m.name;
    default:
      return undefined;
  }
}

/** The Step with its dispatch's model (each wave task's) in the terms of `runs`. */
export function withModel(step: Step, state: AutopilotState, runs: Runs, config?: ModelsConfig): Step {
  if (step.next.kind !== "dispatch" || runs === "other" || runs === "gemini") return step;
  const next: DispatchNext = step.next;
  if (next.tasks)
    return {
      ...step,
      next: {
        ...next,
        tasks: next.tasks.map((t) => {
          const model = stepModel(runs, dispatchModel(state, runs, config, t.task));
          return model ? { ...t, model } : t;
        }),
      },
    };
  const model = stepModel(runs, dispatchModel(state, runs, config));
  return model ? { ...step, next: { ...next, model } } : step;
}
