// The Step: a pure function of the saved state. `autopilot_next` after any crash or context reset
// therefore gives the same answer as the call that saved the state.
import { restsAt } from "../../machines/stages.js";
import type { AutopilotState } from "../session/schema.js";
import type { AskNext, Next, Step } from "../protocol/step.js";
import { effectiveComplexity } from "../../machines/autopilot.machine.js";
import { gateFindings, gateIds, gateLine, gateSource } from "../../machines/fix-choice.js";
import { humanOnlyOf, optionsOf, type QuestionName } from "../../machines/questions.js";
import { doneTotals } from "../../machines/reports.js";
import { SIGNAL_DEFS, firedSignals, signalsFor } from "../rules/signals.js";
import { renderNotices } from "../session/notices.js";
import { dispatchFor } from "../personas/dispatch.js";
import { plannedPlanPath } from "../personas/jobs.js";
import { LEGACY_PLANS_DIR, kebab, plansDirFor } from "../markdown/plans-folder.js";
import { restingMeta } from "./machine-state.js";
import { budgetSpent, formatCost, formatBudget } from "../session/usage.js";
import { todoFor } from "../protocol/host-view.js";
import { waveBudgetCrossed, waveRunsToStart } from "../../machines/actions/wave.js";
import { COMMIT_TEMPLATE_HOW } from "../session/config.js";
import { FIXABLE_HOOK } from "../../machines/events.js";

/**
 * `--human-gates`: the answers only a person may give at the current question — approving (or
 * skipping) a plan that paused, overriding a blocking review, skipping a failed verification,
 * overriding the final review, committing without hooks (each question's `humanOnly` in
 * machines/questions.ts). Empty when the session runs without human gates.
 */
export function humanOnlyAnswers(state: AutopilotState): string[] {
  if (!state.humanOnlyGates || state.stopped) return [];
  const name = restingMeta(state)?.ask;
  return name ? [...humanOnlyOf(name)] : [];
}

/** The question the session waits on, or null; with human gates, the answers only a person may give. */
export function askFor(state: AutopilotState): AskNext | null {
  const ask = questionFor(state);
  const humanOnly = ask ? humanOnlyAnswers(state).filter((o) => ask.options.includes(o)) : [];
  return ask && humanOnly.length ? { ...ask, humanOnly } : ask;
}

/** A question's text and context; its name and options come from the table (machines/questions.ts). */
type Words = { question: string; context?: string };

function words(question: string, context?: string): Words {
  return { question, ...(context ? { context } : {}) };
}

/** What each fix answer a gate offers sends to the fix round, in words. */
function fixMeans(gate: QuestionName, option: string): string | null {
  switch (option) {
    case "fix":
      return gate === "verifyFailed" ? '"fix": every failure' : '"fix": the blocking ones';
    case "fix blocking and warnings":
      return '"fix blocking and warnings": those and every warning';
    case "fix warnings":
      return '"fix warnings": every warning';
    case "fix these":
      return '"fix these": only those your reason names by number ("1, 3")';
    default:
      return null;
  }
}

/**
 * A gate's findings as the person decides on them, numbered as "fix these" names them: severity,
 * place and title of each (a blocking one with why and how it triggers), then what each fix answer
 * sends to the fix round and what the others do.
 */
function findingsContext(state: AutopilotState, gate: QuestionName, rest: string): string {
  const means = optionsOf(gate, state).flatMap((o) => fixMeans(gate, o) ?? []);
  const ids = gateIds(state, gateSource(gate));
  const after = gate.startsWith("final")
    ? "the project's validation and the final review run again"
    : "the phase is verified and reviewed again";
  return [
    ...gateFindings(state, gate).map((f, i) => `${i + 1}. ${gateLine(f, ids[i])}`),
    `${means.join("; ")}. A fix round fixes exactly what you choose, and what you ask for in your reply; then ${after}. ${rest}`,
  ].join("\n");
}

function counted(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/**
 * What the plan gate's user decides on, in its first two lines (a client's form may show no more
 * until expanded): the plan with its size, and the signals that paused it.
 */
function planGateContext(state: AutopilotState): string {
  const run = state.phaseRun;
  const size =
    run.taskCount === null
      ? ""
      : ` (${run.taskCount} task${run.taskCount === 1 ? "" : "s"}${run.checkpointCount ? `, ${run.checkpointCount} checkpoint${run.checkpointCount === 1 ? "" : "s"}` : ""})`;
  const signals = signalsFor(state);
  const fired = firedSignals(signals);
  const ctx = {
    snapshot: signals as Record<string, unknown>,
    has: (n: string) => (fired as string[]).includes(n),
    rigor: state.rigorLevel,
  };
  const why = SIGNAL_DEFS.filter((d) => ctx.has(d.name)).flatMap(
    (d) => d.gateLine(signals, true, ctx)?.replace(/ \(triggered\)$/, "") ?? [],
  );
  return [
    `Plan: ${state.phases[state.currentPhase].planPath ?? "?"}${size}`,
    ...(why.length ? [`Paused by: ${why.join("; ")}`] : []),
  ].join("\n");
}

/**
 * The wording of each question (machines/questions.ts names them; a stage names its question as
 * `meta.ask`). Null: the question does not apply to this state after all.
 */
export const WORDING: Record<QuestionName, (state: AutopilotState) => Words | null> = {
  personaFailed: (state) =>
    words("The persona could not finish this step. Retry the step or stop?", state.phaseRun.personaError ?? undefined),
  userChanges: (state) => {
    const uc = state.userChanges ?? { count: 0, paths: [] };
    const more = uc.count > uc.paths.length ? [`… and ${uc.count - uc.paths.length} more`] : [];
    return words(
      "The working tree has changes autopilot did not make. Commit them first, continue with them left out of autopilot's commits, or stop?",
      [...uc.paths.map((p) => `- ${p}`), ...more].join("\n") || undefined,
    );
  },
  approvePlan: (state) =>
    words(
      "Approve this plan and begin execution?",
      `${planGateContext(state)}\n"revise" with your notes as the reason: the planner revises the plan with them. "revise" without notes: you edit the plan file yourself, then answer "done".`,
    ),
  revised: (state) =>
    words(
      `Edit the plan file ${state.phases[state.currentPhase].planPath ?? ""} directly, then answer "done" to re-present it (or "stop").`,
    ),
  checkpoint: (state) => {
    const cp = state.phaseRun.checkpoint;
    if (!cp) return null;
    const q =
      cp.type === "human-verify"
        ? `Checkpoint "${cp.label}": please verify the result. Confirm, reject (say why), or stop?`
        : cp.type === "human-action"
          ? `Checkpoint "${cp.label}" needs you to act. Answer "done" when it is done, or "stop".`
          : `Checkpoint "${cp.label}": a decision is needed.`;
    return words(q, cp.details);
  },
  exhausted: (state) => {
    const spec =
      state.consecutiveExhausted >= 2
        ? " Two phases in a row have exhausted their retry budget: review the spec for systemic issues before continuing."
        : "";
    return words(
      "How should we proceed?",
      `The retry budget (${state.retryBudget.maxAttempts} attempts) is exhausted.${spec}`,
    );
  },
  waveTask: (state) => {
    const stopped = (state.phaseRun.waveRun?.tasks ?? []).filter(
      (t) => t.status === "outside" || t.status === "exhausted",
    );
    const lines = stopped.map((t) =>
      t.status === "outside"
        ? `Task ${t.task} (${t.name}) changed files outside its Files/Owns (${[...t.scope.files, ...t.scope.owns].join(", ") || "none"}): ${(t.outside ?? []).join(", ")}. Its work is on branch ${t.worktree.branch} (worktree ${t.worktree.path}), not merged.`
        : `Task ${t.task} (${t.name}) ${t.stopCause === "planDefect" ? "is stopped" : "spent its retry budget"}: ${t.error ?? "unknown error"}. Its last attempt is on branch ${t.worktree.branch} (worktree ${t.worktree.path}), not merged.`,
    );
    return words(
      `What should happen to task${stopped.length === 1 ? "" : "s"} ${stopped.map((t) => t.task).join(", ")}?`,
      [
        ...lines,
        `"re-run": the task runs again, alone, from the merged result in a new worktree, with a fresh retry budget (the earlier attempt's branch is kept). "done by hand": you have put its work on the session's branch yourself; the queue goes on. "stop": the session stops here; every worktree and branch is kept.`,
      ].join("\n"),
    );
  },
  verifyFailed: (state) =>
    words(
      "Fix these issues before review?",
      findingsContext(state, "verifyFailed", '"skip verification": go on to the review as it is.'),
    ),
  reviewBlocked: (state) =>
    words(
      "Address the review's findings before completing this phase?",
      findingsContext(state, "reviewBlocked", '"override": complete the phase with the blocking findings as they are.'),
    ),
  reviewWarnings: (state) =>
    words(
      `The review found no blocking finding and ${counted(state.phaseRun.reviewFindings.filter((f) => f.severity === "warning").length, "warning")}. Fix them before moving on?`,
      findingsContext(state, "reviewWarnings", '"move on": complete the phase; the warnings stay recorded.'),
    ),
  continuePhase: (state) => {
    const n = state.currentPhase + 1;
    const next = state.phases[state.currentPhase + 1];
    if (!next) return null;
    return words(
      `Phase ${n} complete. Next: Phase ${n + 1}: ${next.name} (complexity: ${effectiveComplexity(next)}). Continue?`,
    );
  },
  finalBlocked: (state) =>
    words(
      "Address the final review's findings before completing?",
      findingsContext(state, "finalBlocked", '"override": finish with the blocking findings as they are.'),
    ),
  commitRejected: (state) => {
    const held = state.phaseRun.rejectedCommit;
    if (!held) return null;
    const times = held.attempts.length;
    const why =
      held.hook === "pre-commit"
        ? `${times === 1 ? "once" : `${times} times`}; the retry budget (${state.retryBudget.maxAttempts} attempts) is spent`
        : "(it checks the commit message, which the executor cannot change)";
    return words(
      `The ${held.hook} hook rejected autopilot's commit "${held.label}" ${why}. Fix it yourself and continue, commit without hooks this once, or stop? (fix it yourself and continue / commit without hooks this once / stop)`,
      [
        `What the hook printed:`,
        held.output,
        "",
        `"fix it yourself and continue": fix what it reports${held.hook === FIXABLE_HOOK ? "" : ` (for the message: ${COMMIT_TEMPLATE_HOW})`}; autopilot then makes the same commit again, with the hooks. "commit without hooks this once": this one commit is made with --no-verify. Files in the commit: ${held.paths.join(", ") || "(none)"}.`,
      ].join("\n"),
    );
  },
  budget: (state) => {
    const spent = budgetSpent(state.budget, state.usage);
    const wave = !spent && restsAt(state, "budgetWave", "budgetWaveRetry") ? waveBudgetCrossed(state) : null;
    if (wave && state.budget) {
      const runs = waveRunsToStart(state);
      return words(
        `The wave's ${runs} task run${runs === 1 ? "" : "s"}, counted before they start, would cross the session's budget (${wave}). Raise the budget, continue once, or stop?`,
        `Spent so far: ${formatCost(state.usage?.total)}; budget ${formatBudget(state.budget)}. "raise budget" takes the amount in your reason ("to $10", "500k"), else doubles it; "continue once" lets this wave's runs through, then asks again.`,
      );
    }
    if (!spent || !state.budget) return null;
    return words(
      `The session's budget is spent (${spent}). Raise the budget, continue once, or stop?`,
      `Spent so far: ${formatCost(state.usage?.total)}; budget ${formatBudget(state.budget)}. "raise budget" takes the amount in your reason ("to $10", "500k"), else doubles it; "continue once" lets one more persona run through, then asks again.`,
    );
  },
  finalExhausted: (state) =>
    words("How should we proceed?", `Findings remain after ${state.finalReview.retryCount - 1} fix rounds.`),
};

function questionFor(state: AutopilotState): AskNext | null {
  if (state.stopped) return null;
  const name = restingMeta(state)?.ask;
  const w = name ? WORDING[name](state) : null;
  return name && w
    ? {
        kind: "ask",
        name,
        question: w.question,
        options: optionsOf(name, state),
        ...(w.context ? { context: w.context } : {}),
      }
    : null;
}

function nextFor(state: AutopilotState): Next {
  if (state.currentState === "DONE") {
    const t = doneTotals(state);
    return {
      kind: "done",
      summary: {
        ...t,
        specPath: state.specPath,
        commits: state.commits.length,
        decisions: state.decisions.length,
      },
    };
  }
  if (state.stopped)
    return {
      kind: "wait",
      reason: `Stopped by the user at ${state.currentState}. The session is saved and resumes in the same place.`,
      resumeWith: `autopilot_start ${JSON.stringify({ spec: state.specPath })}`,
    };
  if (restingMeta(state)?.wait === "interactivePlan") {
    const phase = state.phases[state.currentPhase];
    return {
      kind: "wait",
      reason: `Phase ${state.currentPhase + 1}: ${phase.name} is marked high-complexity. Run planning interactively for this phase (the harness-planning skill with the user), save the plan as ${plannedPlanPath(state)} (${planSearchText(state)}), then resume.`,
      resumeWith: `autopilot_start ${JSON.stringify({ spec: state.specPath })}`,
    };
  }
  const ask = askFor(state);
  if (ask) return ask;
  const dispatch = dispatchFor(state);
  if (dispatch) return dispatch;
  // A state that needs facts the engine gathers (ASSESS, reading a plan, validation) is never
  // saved as the last word of a call; if a crash left one, the next call finishes it.
  return {
    kind: "wait",
    reason: `The session is between steps (${state.currentState}); the next autopilot call finishes it.`,
    resumeWith: `autopilot_start ${JSON.stringify({ spec: state.specPath })}`,
  };
}

/** Where the server looks for a phase's plan, in words: the folders and the name it must contain. */
export function planSearchText(state: AutopilotState): string {
  const phase = state.phases[state.currentPhase];
  const dirs = [...new Set([plansDirFor(state.specPath), LEGACY_PLANS_DIR])];
  return `autopilot looks in ${dirs.map((d) => `${d}/`).join(" and ")} for a .md file whose name contains "${kebab(phase?.name ?? "")}", with \`### Task N:\` headings`;
}

/**
 * The report of a Step whose transition recorded nothing to tell (an approval, a resumed dispatch):
 * one line saying where the session is and what comes next, so every Step has a report to show.
 */
function whereNow(state: AutopilotState, next: Next): string {
  const phase = state.phases[state.currentPhase];
  const where =
    phase && !["INIT", "FINAL_REVIEW", "DONE"].includes(state.currentState)
      ? `Phase ${state.currentPhase + 1}/${state.phases.length}: ${phase.name}`
      : state.currentState === "FINAL_REVIEW"
        ? "Final review"
        : state.currentState;
  switch (next.kind) {
    case "dispatch": {
      const from =
        next.persona === "harness-task-executor" &&
        state.phaseRun.nextTask &&
        !state.phaseRun.fix &&
        restsAt(state, "running")
          ? ` from task ${state.phaseRun.nextTask}`
          : "";
      return `${where} — next: ${next.persona} (${next.description}${from}).`;
    }
    case "ask":
      return `${where} — a question for you.`;
    case "wait":
      return `${where} — waiting.`;
    default:
      return "The session is DONE.";
  }
}

export function renderStep(state: AutopilotState, slug: string): Step {
  const phase = state.phases[state.currentPhase];
  const inPhase = !["INIT", "FINAL_REVIEW", "DONE"].includes(state.currentState) && !!phase;
  const next = nextFor(state);
  return {
    session: slug,
    stepId: state.stepId,
    state: state.currentState,
    phase: inPhase
      ? {
          index: state.currentPhase,
          number: state.currentPhase + 1,
          name: phase.name,
          complexity: phase.complexity,
          complexityOverride: phase.complexityOverride,
          total: state.phases.length,
        }
      : null,
    rigor: state.rigorLevel,
    reviewPlans: state.reviewPlans,
    // The notices the transition recorded, worded now (src/session/notices.ts holds the wording);
    // with none, where the session stands.
    ...withReport(renderNotices(state.notices ?? []) ?? whereNow(state, next)),
    next,
    todo: todoFor({ session: slug, stepId: state.stepId, next }),
  };
}

/** Match what a user typed onto one of the offered options (case, spacing, unique prefix). */
export function matchAnswer(answer: string, options: readonly string[]): string | null {
  const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, " ");
  const a = norm(answer);
  if (!a) return null;
  const exact = options.find((o) => norm(o) === a);
  if (exact) return exact;
  const prefixed = options.filter((o) => norm(o).startsWith(a));
  return prefixed.length === 1 ? prefixed[0] : null;
}

function withReport(report: string | null): { report?: string } {
  return report ? { report } : {};
}
