// Tool results: the Step as structuredContent plus its text rendering; errors as isError results
// with a code, a message and what to do next. Clients show the model only one of the two views
// (Claude Code and Codex: structuredContent; Gemini CLI: the text), so each carries everything.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AutopilotError, type ErrorCode } from "../protocol/errors.js";
import type { DispatchNext, Next, Step } from "../protocol/step.js";
import { renderStepText, todoFor, type HostView } from "../protocol/host-view.js";

const DEFAULT_VIEW: HostView = { host: "other" };

/**
 * A Step as a host's model reads it: the whole Step, or Claude Code's lean one (leanStep), which
 * leaves out `phase`, `rigor`, `reviewPlans`, a dispatch's `description` and `expects`, and most of
 * done's `summary`. A whole Step is one too.
 */
export type LeanStep = Omit<Step, "phase" | "rigor" | "reviewPlans" | "next"> & {
  next: Exclude<Next, DispatchNext> | Pick<DispatchNext, "kind" | "persona" | "prompt">;
};

/** The Step with this host's `todo`, and lines to show first (e.g. an answer given in a form) in its report. */
export function hostStep(step: Step, view: HostView = DEFAULT_VIEW, preface: string[] = []): LeanStep {
  const report = [...preface, ...(step.report ? [step.report] : [])].join("\n\n");
  const full = { ...step, ...(report ? { report } : {}), todo: todoFor(step, view) };
  return view.host === "claude-code" ? leanStep(full) : full;
}

/**
 * The Step as Claude Code's model reads it (structuredContent JSON, on every later request of the
 * conversation): only what the next action needs. `phase`, `rigor` and `reviewPlans` are in the
 * report and the prompt already. A dispatch keeps `persona` and `prompt`: its `description` is the
 * prompt's first sentence, and `expects` is in the brief the prompt names (the host passes on
 * whatever result the persona replies). done's `summary` keeps `commits` and `decisions`: the
 * report states the other totals.
 */
export function leanStep(step: Step): LeanStep {
  const { phase: _phase, rigor: _rigor, reviewPlans: _reviewPlans, ...rest } = step;
  const n = step.next;
  if (n.kind === "dispatch") return { ...rest, next: { kind: n.kind, persona: n.persona, prompt: n.prompt } };
  if (n.kind === "done" && step.report) {
    const { commits, decisions } = n.summary;
    return { ...rest, next: { kind: "done", summary: { commits, decisions } } };
  }
  return rest;
}

export function stepResult(step: Step, view: HostView = DEFAULT_VIEW, preface: string[] = []): CallToolResult {
  const s = hostStep(step, view, preface);
  // The text keeps the whole Step (clients that show it read no JSON); only the JSON is lean.
  const full: Step = { ...step, ...(s.report ? { report: s.report } : {}), todo: s.todo };
  return {
    content: [{ type: "text", text: renderStepText(full, view) }],
    structuredContent: s as unknown as Record<string, unknown>,
  };
}

export function jsonResult(value: object, summary?: string): CallToolResult {
  const json = JSON.stringify(value, null, 2);
  return {
    content: [{ type: "text", text: summary ? `${summary}\n\n${json}` : json }],
    structuredContent: value as Record<string, unknown>,
  };
}

export interface ErrorPayload {
  code: string;
  message: string;
  /** What to do next: clients that show only structuredContent show no error marker either. */
  todo: string;
  step?: LeanStep;
}

/** What to do after each error, in one line. With a current Step the call changed nothing. */
const ERROR_TODO: Record<ErrorCode, string> = {
  unknown_session: "Call autopilot_status for the sessions, then call again with one of them.",
  stale_step: "Nothing changed: carry on from the current Step (error.step) and its todo.",
  bad_result: "Nothing changed: report a result that fits (see the message), or carry on from the current Step (error.step).",
  bad_answer: "Nothing changed: call autopilot_decide again with one of the current Step's options (error.step).",
  spec_not_found: "Check the spec path (relative to the project root) with the user, then call autopilot_start again.",
  no_phases: "Tell the user the spec needs an Implementation Order section with Phase headings (see the message).",
  flag_conflict: "Call autopilot_start again with either --fast or --thorough.",
  outside_project: "Use a path inside the project, relative to its root.",
  corrupt_state: "Tell the user the message: the state file needs repair; nothing was changed.",
  busy: "Wait, then call autopilot_next; tell the user if it persists.",
  not_a_git_repo: "Tell the user: autopilot needs a git repository with a first commit.",
  no_commits: "Tell the user: the repository needs a first commit.",
  detached_head: "Tell the user to check out a branch, then call autopilot_start again.",
  bad_input: "Fix the input as the message says and call again.",
  plan_not_found: "Make sure the plan file the message names exists, then report again.",
  worktree_missing: "Tell the user the message: the session's worktree is gone; the command in it brings it back, then call autopilot_next.",
  worktree_diverged: "Tell the user the message: the session's branch changed under it; nothing was done.",
  merge_conflict: "Tell the user the message: the merge was aborted and nothing changed.",
  commit_rejected: "Tell the user the message: git refused the commit and it is still owed; after they fix what it says, call autopilot_next (the commit is made once).",
  internal: "Call autopilot_next to see the saved Step; tell the user if it repeats.",
  human_required: "Nothing changed: ask the user to answer in the client's form, or to run `autopilot approve <session>` in their own terminal; then call autopilot_next.",
  no_tty: "Run it in your own interactive terminal.",
};

export function errorPayload(e: unknown, view: HostView = DEFAULT_VIEW): ErrorPayload {
  if (e instanceof AutopilotError) {
    const step = e.details?.step;
    return {
      code: e.code,
      message: e.message,
      todo: ERROR_TODO[e.code] ?? ERROR_TODO.internal,
      ...(step ? { step: hostStep(step, view) } : {}),
    };
  }
  const message = e instanceof Error ? e.message : String(e);
  return {
    code: "internal",
    message: `Unexpected error: ${message}. Call autopilot_next to see the saved Step; report this if it repeats.`,
    todo: ERROR_TODO.internal,
  };
}

export function errorResult(e: unknown, view: HostView = DEFAULT_VIEW): CallToolResult {
  const error = errorPayload(e, view);
  const lines = [`Error [${error.code}]: ${error.message}`, `Next: ${error.todo}`];
  // The text shows the whole Step (the structured error.step may be Claude Code's lean one).
  const raw = e instanceof AutopilotError ? e.details?.step : undefined;
  const shown = error.step && raw ? { ...raw, ...(error.step.report ? { report: error.step.report } : {}), todo: error.step.todo } : undefined;
  if (shown) lines.push("", "The current Step:", "", renderStepText(shown, view));
  return {
    isError: true,
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: { error } as unknown as Record<string, unknown>,
  };
}
