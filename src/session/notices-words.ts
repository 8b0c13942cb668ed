// The notices about the person's own words (machines/words.ts): a note recorded between gates,
// and what a persona reports it did not do of what they asked. Part of the Notice union
// (src/session/notices.ts), worded here.
import { z } from "zod";

function notice<K extends string, S extends z.ZodRawShape>(kind: K, shape: S) {
  return z.looseObject({ kind: z.literal(kind), ...shape });
}

export const WORDS_NOTICES = [
  /** The person's words given at a Step that asked them nothing (or without choosing an option). */
  notice("noted", {
    words: z.array(z.string()),
    /** Who brought them, briefly ("relayed by the host model"). */
    by: z.string(),
    /** Who reads them: the current dispatch's persona (its brief was written again), or the next persona. */
    reaches: z.string(),
    /** An answer given with them at a Step that asks nothing: not taken as one. */
    answerIgnored: z.string().optional(),
    /** The question still open at this Step, when there is one. */
    questionOpen: z.boolean().optional(),
  }),
  /** What a persona says it did not do of the person's words, each with why. */
  notice("notDone", {
    persona: z.string(),
    items: z.array(z.looseObject({ asked: z.string(), why: z.string() })),
  }),
] as const;

type WordsNotice = z.infer<(typeof WORDS_NOTICES)[number]>;

export function renderWordsNotice(n: WordsNotice): string {
  if (n.kind === "notDone")
    return [
      `Not done of what you asked (${n.persona} says why):`,
      ...n.items.map((i) => `  - "${i.asked}": ${i.why}`),
    ].join("\n");
  const said = n.words.map((w) => `"${w}"`).join(" / ");
  return [
    ...(n.answerIgnored
      ? [`This Step asks nothing, so "${n.answerIgnored}" was not taken as an answer to anything.`]
      : []),
    `Recorded as the user's words (${n.by}): ${said}. They reach ${n.reaches}.`,
    ...(n.questionOpen ? ["The question is still open: put it to the user and pass on one of its options."] : []),
  ].join("\n");
}
