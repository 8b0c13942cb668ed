// Read-only views of sessions for autopilot_status, autopilot_decisions, the resources and
// `autopilot status`. None of them takes the lock or finishes pending work: a reader never
// changes a session, and never waits on a writer.
import type { Engine } from "../engine/engine.js";
import type { Step } from "../protocol/step.js";
import type { AutopilotState } from "../session/schema.js";
import { renderStep } from "../engine/step.js";
import { errorPayload } from "./render.js";
import { buildDecisionLog, type DecisionLog } from "../log/model.js";
import { budgetSpent, formatBudget, formatCost } from "../session/usage.js";

type WaitingOn = "persona" | "human" | "resume" | "nothing";

export interface SessionSummary {
  session: string;
  specPath: string;
  state: string;
  stepId: number;
  phase: { number: number; total: number; name: string } | null;
  rigor: string;
  reviewPlans: boolean;
  /** Who has to act for the session to move: a persona the host dispatches, the human, a resume. */
  waitingOn: WaitingOn;
  /** One line: what exactly it waits for. */
  waitingFor: string;
  /** What the persona runs spent, in words: "41k tokens · $0.62", or "unknown" when no report said. */
  cost: string;
  /** The budget in words, or null when the session has none. */
  budget: string | null;
  updatedAt: string | null;
}

export interface BrokenSession {
  session: string;
  error: { code: string; message: string };
}

function waiting(step: Step): { waitingOn: WaitingOn; waitingFor: string } {
  const n = step.next;
  switch (n.kind) {
    case "dispatch":
      return { waitingOn: "persona", waitingFor: `${n.persona}: ${n.description}` };
    case "ask":
      return { waitingOn: "human", waitingFor: n.question };
    case "wait":
      return { waitingOn: "resume", waitingFor: n.reason };
    case "done":
      return { waitingOn: "nothing", waitingFor: "done" };
  }
}

function summarize(slug: string, state: AutopilotState): SessionSummary {
  const step = renderStep(state, slug);
  const phase = state.phases[state.currentPhase];
  return {
    session: slug,
    specPath: state.specPath,
    state: state.currentState,
    stepId: state.stepId,
    phase:
      phase && state.currentState !== "DONE" && state.currentState !== "FINAL_REVIEW"
        ? { number: state.currentPhase + 1, total: state.phases.length, name: phase.name }
        : null,
    rigor: state.rigorLevel,
    reviewPlans: state.reviewPlans,
    ...waiting(step),
    cost: formatCost(state.usage?.total),
    budget: state.budget ? formatBudget(state.budget) : null,
    updatedAt: state.updatedAt,
  };
}

export async function listSessions(engine: Engine): Promise<Array<SessionSummary | BrokenSession>> {
  const out: Array<SessionSummary | BrokenSession> = [];
  for (const slug of await engine.sessions()) {
    try {
      out.push(summarize(slug, await engine.read(slug)));
    } catch (e) {
      // One unreadable session must not hide the others.
      const { code, message } = errorPayload(e);
      out.push({ session: slug, error: { code, message } });
    }
  }
  return out;
}

export async function sessionDetail(engine: Engine, slug: string) {
  const state = await engine.read(slug);
  return {
    ...summarize(slug, state),
    startingCommit: state.startingCommit,
    phases: state.phases.map((p, i) => ({
      number: i + 1,
      name: p.name,
      complexity: p.complexity,
      complexityOverride: p.complexityOverride,
      // The state file keeps upstream's pending/complete/skipped; the phase under way reads as such.
      status:
        p.status === "pending" &&
        i === state.currentPhase &&
        !["INIT", "FINAL_REVIEW", "DONE"].includes(state.currentState)
          ? "in_progress"
          : p.status,
      planPath: p.planPath,
    })),
    decisions: state.decisions.length,
    commits: state.commits.length,
    finalReview: { status: state.finalReview.status, retryCount: state.finalReview.retryCount },
    pendingEffects: state.outbox.length,
    /** Per-session, per-phase and per-persona usage; null when no persona result was recorded yet. */
    usage: state.usage ?? null,
    budgetSpent: budgetSpent(state.budget, state.usage),
    step: renderStep(state, slug),
  };
}

/** The decision log as data: every decision with its signals, the phase history, the final review, commits. */
/** The decision log (the same model `autopilot log` renders): read-only. */
export async function decisionLog(engine: Engine, slug: string): Promise<DecisionLog> {
  return buildDecisionLog(await engine.read(slug), slug);
}

export function isBroken(s: SessionSummary | BrokenSession): s is BrokenSession {
  return "error" in s;
}

/** One line per session, for text renderings. */
export function summaryLine(s: SessionSummary | BrokenSession): string {
  if (isBroken(s)) return `${s.session}: cannot read (${s.error.code}): ${s.error.message}`;
  const where = s.phase ? `phase ${s.phase.number}/${s.phase.total} ${s.phase.name}` : "";
  return `${s.session}: ${s.state}${where ? ` · ${where}` : ""} · step ${s.stepId} · cost ${s.cost}${s.budget ? ` of ${s.budget}` : ""} · waiting on ${s.waitingOn}: ${s.waitingFor}`;
}
