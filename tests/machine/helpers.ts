// Drive the pure machine through the same apply() the engine uses, with no disk and no clock.
import type { AutopilotEvent, PlanFacts, SpecPhaseInput } from "../../machines/autopilot.machine.js";
import { apply } from "../../src/engine/machine-state.js";
import { initState as newState, type AutopilotState, type Finding, type RigorLevel } from "../../src/session/schema.js";

export const NOW = "2026-03-19T10:00:00.000Z";

export function initState(): AutopilotState {
  return newState({
    sessionDir: ".harness/sessions/changes--scanner--proposal",
    specPath: "docs/changes/scanner/proposal.md",
    startingCommit: "0000000000000000000000000000000000000000",
    now: NOW,
  });
}

export function started(
  phases: SpecPhaseInput[],
  opts: { rigor?: RigorLevel; reviewPlans?: boolean } = {},
): AutopilotState {
  return apply(initState(), {
    type: "START",
    phases,
    specPath: "docs/changes/scanner/proposal.md",
    sessionDir: ".harness/sessions/changes--scanner--proposal",
    startingCommit: "0000000000000000000000000000000000000000",
    rigorLevel: opts.rigor ?? "standard",
    reviewPlans: opts.reviewPlans ?? false,
    now: NOW,
  });
}

type Dist<T> = T extends unknown ? Omit<T, "now"> : never;
/** One event, as the engine applies it: the previous transition's effects were performed and cleared. */
export function send(state: AutopilotState, event: Dist<AutopilotEvent>): AutopilotState {
  return apply({ ...state, outbox: [] }, { ...event, now: NOW });
}

export function plan(taskCount: number, checkpointCount = 0, concerns: string[] = []): PlanFacts {
  return { path: "docs/changes/scanner/plans/2026-03-19-x-plan.md", taskCount, checkpointCount, concerns };
}

/** From ASSESS with no plan on disk to the APPROVE_PLAN gate's outcome, for a planner result. */
export function planned(state: AutopilotState, facts: PlanFacts): AutopilotState {
  const s = send(state, { type: "ASSESSED", planPath: null });
  return send(s, { type: "PLANNED", plan: facts });
}

export function where(s: AutopilotState): string {
  return s.stage ? `${s.currentState}.${s.stage}` : s.currentState;
}

/** A blocking finding as the review check wants it: a file, a line and the scenario that triggers it. */
export const blocking: Finding = {
  severity: "blocking",
  title: "bug",
  file: "src/scan.ts",
  line: 3,
  scenario: "scan('') throws",
};
/** A blocking finding the review check sends back: no file, no line, no scenario. */
export const vagueBlocking: Finding = { severity: "blocking", title: "something feels off" };
export const note: Finding = { severity: "note", title: "nit" };

/** Run one phase from EXECUTE.running through a clean review to PHASE_COMPLETE. */
export function finishPhase(s: AutopilotState): AutopilotState {
  // A fix round (EXECUTE.fixing) replies "fixed"; the plan's execution, "executed".
  s =
    s.stage === "fixing"
      ? send(s, { type: "FIXED", summary: "fixed" })
      : send(s, { type: "EXECUTED", outcome: "complete" });
  if (s.stage === "validating") s = send(s, { type: "VALIDATED", passed: true, summary: "ok" });
  else s = send(s, { type: "VERIFIED", verdict: "pass", findings: [] });
  return send(s, { type: "REVIEWED", findings: [note] });
}
