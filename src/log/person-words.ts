// The person's words in the decision log: which of a decision's texts a person said, and who brought
// them. The briefs quote the same words (machines/words.ts); the log names them apart from the
// host's or the policy's reason so a reader sees what the person asked, not what a model inferred.
import { broughtBy } from "../../machines/words.js";
import { isHumanChannel, type Decision } from "../session/schema.js";

export interface PersonWords {
  words: string;
  /** Who brought them: "relayed by the host model", "at a terminal", "in the client's form". */
  by: string;
}

/**
 * The words the host relayed (`userWords`, the host's claim), or the reason a person gave themselves
 * at a terminal or in the client's form. A reason the host or the policy gave is not a person's.
 */
export function personWordsOf(d: Decision, who: string): PersonWords | null {
  const text = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);
  const relayed = text(d.userWords);
  if (relayed) return { words: relayed, by: broughtBy(who) };
  const reason = text(d.rationale);
  return reason && isHumanChannel(who) ? { words: reason, by: broughtBy(who) } : null;
}
