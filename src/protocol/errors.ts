// Errors users meet: a stable code (the MCP contract's `structuredContent.error.code`, the CLI's
// one-line reason) and a message that says what to do next.
import type { Step } from "./step.js";

export const ERROR_CODES = [
  "unknown_session",
  "stale_step",
  "bad_result",
  "bad_answer",
  "spec_not_found",
  "no_phases",
  "flag_conflict",
  "outside_project",
  "corrupt_state",
  "busy",
  "not_a_git_repo",
  "no_commits",
  "detached_head",
  "bad_input",
  "plan_not_found",
  "human_required",
  "no_tty",
  "worktree_missing",
  "worktree_diverged",
  "merge_conflict",
  "commit_rejected",
  "pr_not_opened",
  "internal",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * What an error carries besides its message. `step`: the session's current Step, when the call was
 * refused at one (a stale or wrong answer, a person needed): the caller shows it instead of asking
 * again. `path`: the file or path the error is about. Other keys are facts for the error payload.
 */
export interface ErrorDetails {
  step?: Step;
  path?: string;
  [key: string]: unknown;
}

export class AutopilotError extends Error {
  readonly code: ErrorCode;
  readonly details?: ErrorDetails;
  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.name = "AutopilotError";
    this.code = code;
    this.details = details;
  }
}
