// The errors the session engine words itself: a commit the repository refused that no state can
// route, and a session name the project does not know.
import { AutopilotError } from "../protocol/errors.js";
import type { CommitRejected } from "../effects/git.js";
import type { AutopilotState } from "../session/schema.js";

/** A refused commit the session cannot route to the executor or a question: what happened, and what to do. */
export function commitRejectedError(e: CommitRejected, effect: AutopilotState["outbox"][number]): AutopilotError {
  const what =
    effect.type === "commit"
      ? `autopilot's commit "${effect.args.label}"`
      : "the commit of your changes made before autopilot";
  const output = e.output ? `:\n${e.output}\n` : ". ";
  const then =
    "then continue the session (autopilot_next, or the same `autopilot run` command): the commit is still owed, and is made once.";
  if (e.kind === "signing")
    return new AutopilotError(
      "commit_rejected",
      `Git could not sign ${what} (the repository asks for signed commits)${output}Nothing was committed. Make signing work (start gpg-agent or unlock the key, e.g. \`echo test | gpg --clearsign\`; for SSH signing, \`ssh-add\` the key), or turn signing off for this repository (\`git config commit.gpgsign false\`); ${then}`,
    );
  return new AutopilotError(
    "commit_rejected",
    `The ${e.hook ?? "commit"} hook rejected ${what}${output}Nothing was committed. Fix what it reports${effect.type === "commit" ? "" : " in your files (or commit them yourself)"}; ${then}`,
  );
}

export function unknownSessionMessage(slug: string, known: string[]): string {
  return `No autopilot session "${slug}" in this project.${known.length ? ` Known sessions: ${known.join(", ")}.` : ""} Start one with autopilot_start {"spec": "<path to spec>"}.`;
}

/** What an outbox owes, in words: its commits by label, else its bookkeeping; null when nothing. */
function owed(state: AutopilotState | null): { words: string; commits: number } | null {
  const commits = (state?.outbox ?? []).flatMap((e) => (e.type === "commit" ? [`"${e.args.label}"`] : []));
  if (commits.length)
    return { words: `the commit${commits.length === 1 ? "" : "s"} ${commits.join(", ")}`, commits: commits.length };
  return state?.outbox.length ? { words: "its bookkeeping (files in the session folder)", commits: 0 } : null;
}

/**
 * An error raised after a call's event was saved (its answer or result recorded, the session moved
 * on) while the effects or probes that follow ran: the message says what was recorded, what
 * failed and which call goes on, so a host never retries a call that already counted (which would
 * be stale) nor takes the error for "nothing happened". `saved`: the state as saved (null if it
 * cannot be read back).
 */
export function failedAfterRecording(
  e: unknown,
  what: string,
  stepId: number,
  saved: AutopilotState | null,
  call: string,
): AutopilotError {
  const code = e instanceof AutopilotError ? e.code : "internal";
  const why = e instanceof AutopilotError ? e.message : `Unexpected error: ${(e as Error)?.message ?? String(e)}`;
  const moved = saved ? ` and the session moved on to step ${saved.stepId}` : "";
  const o = owed(saved);
  const still = o
    ? ` Still owed: ${o.words}${o.commits ? ` (nothing of ${o.commits === 1 ? "it" : "them"} is committed yet)` : ""}.`
    : "";
  const { step: _step, ...details } = e instanceof AutopilotError ? (e.details ?? {}) : {};
  return new AutopilotError(
    code,
    `${what} was recorded${moved}; then this failed: ${why}${still} Fix that, then call autopilot_next (not ${call} again: step ${stepId} is past); it finishes what is owed, once, and shows the next Step.`,
    { ...details, recorded: true },
  );
}

/**
 * `stale_step`'s message, true to what this call did: `finished` is the state it found when it
 * had to finish work an earlier call left owed first (null when there was none).
 */
export function staleStepMessage(stepId: number, state: AutopilotState, finished: AutopilotState | null): string {
  const head = `Step ${stepId} is stale: the session is at step ${state.stepId}.`;
  if (!finished) return `${head} Nothing was changed; follow the current Step.`;
  const o = owed(finished);
  return `${head} This call applied nothing for step ${stepId}; it only finished what an earlier call had left ${o ? `owed (${o.words}, now done)` : "undone (its automatic steps)"}. Follow the current Step.`;
}
