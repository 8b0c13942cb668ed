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
