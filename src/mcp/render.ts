// Tool results: the Step as structuredContent plus its text rendering; errors as isError results
// with a code, a message and what to do next. Clients show the model only one of the two views
// (Claude Code and Codex: structuredContent; Gemini CLI: the text), so each carries everything.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AutopilotError, type ErrorCode } from "../protocol/errors.js";
import type { AskNext, DispatchNext, Next, Step, WaveDispatch } from "../protocol/step.js";

type DoneNext = Extract<Next, { kind: "done" }>;
import { renderStepText, todoFor, type HostView } from "../protocol/host-view.js";

const DEFAULT_VIEW: HostView = { host: "other" };

/**
 * A Step as a host's model reads it: the whole Step, or Claude Code's lean one (leanStep), which
 * leaves out `phase`, `rigor`, `reviewPlans`, `state`, a dispatch's `description` and `expects`,
 * done's `summary`, and, as the connection allows, `session` and `todo`. A whole Step is one too.
 */
export type LeanStep = Omit<Step, "phase" | "rigor" | "reviewPlans" | "state" | "session" | "todo" | "next"> &
  Partial<Pick<Step, "state" | "session" | "todo">> & {
    next:
      | Exclude<Next, DispatchNext | DoneNext | AskNext>
      | Omit<AskNext, "name">
      | (Pick<DispatchNext, "kind" | "persona" | "prompt" | "model"> & {
          tasks?: Pick<WaveDispatch, "task" | "prompt" | "startedAt" | "model">[];
        })
      | DoneNext
      | Pick<DoneNext, "kind">;
  };

/**
 * What this connection's model has already been told: Claude Code keeps every earlier result of
 * the conversation in every request, so a todo it has read once need not come again. Reset by
 * autopilot_start and autopilot_next (the first call of a conversation, and what the SessionStart
 * hook asks for after a /clear or a compaction).
 */
export interface Told {
  todos: Set<string>;
}

/**
 * The Step with this host's `todo`, and lines to show first (e.g. an answer given in a form) in its
 * report. `answered` is the kind of the Step the call answered (autopilot_report: a dispatch,
 * autopilot_decide: an ask): Claude Code's lean Step then leaves out the session the call named.
 * `told`: Claude Code's lean Step leaves out a dispatch or ask todo this connection has shown.
 */
export function hostStep(
  step: Step,
  view: HostView = DEFAULT_VIEW,
  preface: string[] = [],
  answered?: Step["next"]["kind"],
  told?: Told,
): LeanStep {
  const report = [...preface, ...(step.report ? [step.report] : [])].join("\n\n");
  const full = { ...step, ...(report ? { report } : {}), todo: todoFor(step, view) };
  if (view.host !== "claude-code") return full;
  const untold = !!told && repeatable(step) && told.todos.has(full.todo);
  if (told && repeatable(step)) told.todos.add(full.todo);
  return leanStep(full, { untold, answered: !!answered });
}

/**
 * The todos a lean Step may leave out once shown: a dispatch's and a plain ask's (the same text
 * every time; with an agent prefix too). A human gate, a wait and done always carry
 * theirs.
 */
function repeatable(step: Step): boolean {
  const n = step.next;
  return n.kind === "dispatch" || (n.kind === "ask" && !n.humanOnly?.length);
}

/**
 * The Step as Claude Code's model reads it (structuredContent JSON, on every later request of the
 * conversation): only what the next action needs. `phase`, `rigor`, `reviewPlans` and `state` are
 * in the report, the prompt and the brief already. A dispatch keeps `persona`, `prompt` and `model` (when it names one): its
 * `description` is the prompt's first sentence, and `expects` is in the brief the prompt names (the
 * persona writes its result file; the host reports only the step); a wave's `tasks` keep `task`,
 * `prompt` (which names the worktree and the brief) and `startedAt`. done has no `summary`: its
 * report states the totals, findings and what to commit. An ask's report leaves out the lines its
 * question or context says word for word. `answered` (the Step comes from autopilot_report or
 * autopilot_decide): no `session`, which the model has just named in that call (or left to the
 * connection). `untold`: no todo (this connection has shown the same one).
 */
function leanStep(step: Step, o: { untold?: boolean; answered?: boolean } = {}): LeanStep {
  const { phase: _phase, rigor: _rigor, reviewPlans: _reviewPlans, state: _state, ...all } = step;
  const { todo: _todo, ...withoutTodo } = all;
  const told: Omit<typeof all, "todo"> & { todo?: string } = o.untold ? withoutTodo : all;
  const { session: _session, ...withoutSession } = told;
  const rest: Omit<typeof told, "session"> & { session?: string } = o.answered ? withoutSession : told;
  const n = step.next;
  if (n.kind === "dispatch")
    return {
      ...rest,
      next: {
        kind: n.kind,
        persona: n.persona,
        ...(n.model ? { model: n.model } : {}),
        prompt: n.prompt,
        ...(n.tasks
          ? {
              tasks: n.tasks.map(({ task, prompt, startedAt, model }) => ({
                task,
                ...(model ? { model } : {}),
                prompt,
                ...(startedAt !== undefined ? { startedAt } : {}),
              })),
            }
          : {}),
      },
    };
  // done: the report states what was built and what to do; the counts are in autopilot_status.
  if (n.kind === "done" && step.report) return { ...rest, next: { kind: "done" } };
  if (n.kind === "ask") return leanAsk(rest, n);
  return rest;
}

/** An ask without its `name` (for programs: which question, whatever its wording), and a report without what the question says. */
function leanAsk(step: LeanStep, n: AskNext): LeanStep {
  const { name: _name, ...ask } = n;
  const rest: LeanStep = { ...step, next: ask };
  if (!rest.report) return rest;
  const said = [n.question, n.context ?? ""].join("\n");
  const report = rest.report
    .split("\n")
    .filter((l) => l.trim().length < 20 || !said.includes(l.trim()))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  const { report: _report, ...noReport } = rest;
  return report ? { ...rest, report } : noReport;
}

export function stepResult(
  step: Step,
  view: HostView = DEFAULT_VIEW,
  preface: string[] = [],
  answered?: Step["next"]["kind"],
  told?: Told,
): CallToolResult {
  const s = hostStep(step, view, preface, answered, told);
  // The text keeps the whole Step (clients that show it read no JSON); only the JSON is lean.
  const full: Step = { ...step, ...(s.report ? { report: s.report } : {}), todo: todoFor(step, view) };
  return {
    content: [{ type: "text", text: renderStepText(full, view) }],
    structuredContent: s,
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
  bad_result:
    "Nothing changed: report a result that fits (see the message), or carry on from the current Step (error.step).",
  bad_answer:
    "Nothing changed: ask the user again and call autopilot_decide with one of the current Step's options (error.step).",
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
  worktree_missing:
    "Tell the user the message: the session's worktree is gone; the command in it brings it back, then call autopilot_next.",
  worktree_diverged: "Tell the user the message: the session's branch changed under it; nothing was done.",
  merge_conflict: "Tell the user the message: the merge was aborted and nothing changed.",
  commit_rejected:
    "Tell the user the message: git refused the commit and it is still owed; after they fix what it says, call autopilot_next (the commit is made once).",
  pr_not_opened: "Tell the user the message: the work stays committed; it names what to run.",
  internal: "Call autopilot_next to see the saved Step; tell the user if it repeats.",
  human_required:
    "Nothing changed: ask the user to answer in the client's form, or to run `autopilot approve <session>` in their own terminal; then call autopilot_next.",
  no_tty: "Run it in your own interactive terminal.",
};

/** An error after the call was recorded: the same call again would be stale (src/engine/session-errors.ts). */
const RECORDED_TODO =
  "Your call was recorded and the session moved on; what followed failed (see the message). Tell the user what failed; once it is fixed, call autopilot_next, not the same call again.";

export function errorPayload(e: unknown, view: HostView = DEFAULT_VIEW): ErrorPayload {
  if (e instanceof AutopilotError) {
    const step = e.details?.step;
    // A Step that asks nothing has no options to name: follow it; the user's words go in userWords alone.
    const todo =
      e.code === "bad_answer" && step && step.next.kind !== "ask"
        ? "Nothing changed: this Step asks nothing; follow it (error.step). To pass on what the user said, call autopilot_decide with userWords only."
        : e.details?.recorded
          ? e.code === "commit_rejected"
            ? `${ERROR_TODO.commit_rejected} Not the same call again: it was recorded.`
            : RECORDED_TODO
          : e.code === "stale_step" && e.details?.finished
            ? "An earlier call's owed work was finished (see the message), nothing else: carry on from the current Step (error.step) and its todo."
            : (ERROR_TODO[e.code] ?? ERROR_TODO.internal);
    return {
      code: e.code,
      message: e.message,
      todo,
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
  const shown =
    error.step && raw
      ? { ...raw, ...(error.step.report ? { report: error.step.report } : {}), todo: error.step.todo }
      : undefined;
  if (shown) lines.push("", "The current Step:", "", renderStepText(shown, view));
  return {
    isError: true,
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: { error },
  };
}
