// What `decide` makes of a call before anything changes: an answer to the question the Step asks
// (one of its options, given through a channel allowed to give it, naming the findings a "fix these"
// is for), or the person's words with no answer to take, recorded as a note for the next persona.
import type { AutopilotState, DecisionChannel } from "../session/schema.js";
import { isHumanChannel } from "../session/schema.js";
import { AutopilotError } from "../protocol/errors.js";
import { shellWord } from "../protocol/words.js";
import { NOTE_DECISION, broughtBy, saidWith } from "../../machines/words.js";
import { decision } from "../../machines/decisions.js";
import { chosenIndices, gateFindings, gateIds, gateSource } from "../../machines/fix-choice.js";
import { briefPath } from "../personas/dispatch.js";
import { askFor, humanOnlyAnswers, matchAnswer, renderStep } from "./step.js";

/** The person's words a call carries: their reason, and (relayed) their reply as the host quoted it. */
export interface Said {
  rationale?: string;
  userWords?: string;
}

/**
 * Whether the call is a note: words and no answer to take (none given, or a Step that asks nothing).
 * A call with neither words nor an answer the Step can take is refused, with what to do instead.
 */
export function isNote(
  s: AutopilotState,
  slug: string,
  answer: string | undefined,
  said: Said,
  by: DecisionChannel,
): boolean {
  // The host's own rationale is no person's words: from the host, only the reply it relays is a note.
  const words = saidWith(isHumanChannel(by) ? said : { userWords: said.userWords }).length > 0;
  const asks = askFor(s) !== null;
  if (answer?.trim() && asks) return false;
  if (s.currentState === "DONE")
    throw new AutopilotError(
      "bad_input",
      "The session is DONE: no persona follows to act on these words. Nothing was recorded; a follow-up spec (or a new session) can carry them.",
    );
  if (words) return true;
  const step = renderStep(s, slug);
  if (!asks)
    throw new AutopilotError(
      "bad_answer",
      `Step ${s.stepId} is not asking the user anything (it is a "${step.next.kind}" step): there is no option to answer. Follow the current Step. To pass on what the user said, call autopilot_decide with userWords (their reply, quoted) and no answer: it reaches the next persona's brief.`,
      { step },
    );
  throw new AutopilotError(
    "bad_input",
    "Pass answer (one of the ask Step's options), or userWords (the user's reply, quoted) to record what they said without answering yet.",
    { step },
  );
}

/** The note: recorded as a decision with the person's words, the Step unchanged, its report saying where they go. */
export function noted(
  s: AutopilotState,
  slug: string,
  answer: string | undefined,
  said: Said,
  by: DecisionChannel,
  now: string,
): AutopilotState {
  const step = renderStep(s, slug);
  const dispatch = step.next.kind === "dispatch" ? step.next : null;
  const reaches = dispatch
    ? dispatch.tasks?.length
      ? `the briefs of this wave's tasks not yet started (written again now), else the next persona's brief`
      : `the brief of this step's ${dispatch.persona} (${briefPath(s, s.stepId)}, written again now; if it is already at work, the next persona's brief)`
    : "the next persona's brief";
  return {
    ...s,
    updatedAt: now,
    decisions: [
      ...s.decisions,
      decision(
        s,
        { now, ...said },
        { decision: NOTE_DECISION, by, ...(said.rationale ? { rationale: said.rationale } : {}) },
      ),
    ],
    notices: [
      {
        kind: "noted",
        words: saidWith({ ...said, by }),
        by: broughtBy(by),
        reaches,
        ...(answer?.trim() && step.next.kind !== "ask" ? { answerIgnored: answer.trim() } : {}),
        ...(step.next.kind === "ask" ? { questionOpen: true } : {}),
      },
    ],
  };
}

/** The option an answer names, once it is checked: offered, allowed through this channel, complete. */
export function checkedAnswer(
  s: AutopilotState,
  slug: string,
  answer: string,
  by: DecisionChannel,
  said: Said,
  /** How the person runs autopilot's CLI here (the engine's `cli`): for `autopilot approve`. */
  cli: readonly string[] = ["autopilot"],
): string {
  const ask = askFor(s)!;
  const chosen = matchAnswer(answer, ask.options);
  if (!chosen)
    throw new AutopilotError(
      "bad_answer",
      `"${answer}" is not one of the options: ${ask.options.map((o) => `"${o}"`).join(", ")}. Ask the user again and pass one of them.`,
      { step: renderStep(s, slug) },
    );
  if (humanOnlyAnswers(s).includes(chosen) && !isHumanChannel(by)) {
    // --human-gates: nothing is written; the Step stays as it is.
    const step = renderStep(s, slug);
    throw new AutopilotError(
      "human_required",
      `"${chosen}" at this gate needs a person (the session runs with --human-gates), and this answer came from ${by === "host" ? "the host model (autopilot_decide)" : by === "relayed" ? "the host model relaying what it says are the user's words (a person's answer must reach autopilot directly)" : `the ${by} channel`}. Nothing was changed. Ask the user to answer it in the client's form, or to run \`${[...cli, "approve", slug].map(shellWord).join(" ")}\` in their own terminal; then call autopilot_next. ${
        step.next.kind === "ask"
          ? `Answers the host may pass on here: ${step.next.options
              .filter((o) => !humanOnlyAnswers(s).includes(o))
              .map((o) => `"${o}"`)
              .join(", ")}.`
          : ""
      }`,
      { step },
    );
  }
  const count = gateFindings(s, ask.name).length;
  if (chosen === "fix these" && chosenIndices(said, count, gateIds(s, gateSource(ask.name))).length === 0)
    throw new AutopilotError(
      "bad_answer",
      `"fix these" sends the findings your reason names (by their number in the question, or their id) to the fix round, and it names none of 1 to ${count}. Nothing was changed. Ask the user which findings, then pass "fix these" with them as rationale ("1, 3").`,
      { step: renderStep(s, slug) },
    );
  return chosen;
}
