// The brief's "What the person said": the person's own words (machines/words.ts) that concern
// this step, quoted, with what the persona must do with them. The persona that acts (the planner,
// the executor) carries them out or says in its result why not (`notDone`, told to the person in the
// next report); the verifier and the reviewer read them as context for their judgement.
import type { AutopilotState } from "../session/schema.js";
import { personWords, quoted, type Said, type WordsScope } from "../../machines/words.js";

/** Who reads the words: a persona that acts on them, or one that judges the work against them. */
export type WordsRole = "acts" | "judges";

/** The words of the session a brief shows: this phase's (or the final review's) and the session's. */
function wordsFor(state: AutopilotState, everyPhase: boolean): Said[] {
  const here: WordsScope = state.currentState === "FINAL_REVIEW" ? "final" : state.currentPhase;
  return personWords(state.decisions).filter(
    (s) => s.scope === here || s.scope === "session" || (everyPhase && typeof s.scope === "number"),
  );
}

/**
 * The section, or nothing when the person said nothing that concerns this step. `shown`: texts the
 * brief quotes already (a checkpoint's answer, the notes a revision is for), not repeated here.
 * `everyPhase`: the final review reads the words said in every phase too.
 */
export function wordsSection(
  state: AutopilotState,
  role: WordsRole,
  opts: { shown?: readonly string[]; everyPhase?: boolean } = {},
): string[] {
  const shown = opts.shown ?? [];
  const said = wordsFor(state, opts.everyPhase ?? false).filter(
    (s) => !s.words.every((w) => shown.some((t) => t.includes(w))),
  );
  if (!said.length) return [];
  return [
    "## What the person said",
    "",
    role === "acts"
      ? 'Their own words, quoted, with where they said them. They are part of this job: do what they ask that falls within this step, even beyond the list above. Anything you do not do, list in your result\'s "notDone" as {"asked":"<their words>","why":"<why not>"}: the person is told in the next report. Say in your summary what you did with each.'
      : "Their own words, quoted, with where they said them: judge the work against them too. A request of theirs the work does not honour is a finding.",
    "",
    ...said.map((s) => `- ${s.where}: ${quoted(s.words)}`),
    "",
  ];
}

/** The section for a dispatch brief: the job says who reads it and which words concern it. */
export function briefWords(state: AutopilotState, job: string | undefined): string[] {
  const judges = job === "verify" || job === "review" || job === "finalReview";
  // The plan's revision and a checkpoint's answer quote the person already.
  const shown = [state.phaseRun.revision ?? "", state.phaseRun.checkpointAnswer ?? ""];
  return wordsSection(state, judges ? "judges" : "acts", { shown, everyPhase: job === "finalReview" });
}
