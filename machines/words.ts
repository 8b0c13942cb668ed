// The person's own words: what they said with an answer at a gate (their reason, the reply the host
// relayed, notes on "revise") and between gates (a note, `autopilot_decide` without an answer). They
// live in the decisions they were recorded with; this module says which words a decision carries,
// whom they are for (the phase whose personas act next, the final review, or the whole session) and
// how they read in a brief. Pure: the briefs (src/personas/words.ts) and the guards read it.
import type { Decision } from "../src/session/schema.js";
import type { DecisionName } from "./decisions.js";

/** The decision a note records: the person's words given at a Step that asked nothing of them. */
export const NOTE_DECISION = "noted" satisfies DecisionName;

/** The longest text kept of one utterance (the decision keeps as much). */
const MAX_WORDS = 2000;

/**
 * The person's words an answer or a note carries, each once: the reply the host relayed (`userWords`),
 * then the reason (`rationale`) when it says something the reply does not. A `--yes` policy's or the
 * machine's reason is not a person's.
 */
export function saidWith(x: { userWords?: string; rationale?: string; by?: unknown }): string[] {
  if (x.by === "policy" || x.by === "auto") return [];
  const out: string[] = [];
  for (const t of [x.userWords, x.rationale]) {
    const s = t?.trim().slice(0, MAX_WORDS);
    if (s && !out.some((o) => o.includes(s))) out.push(s);
  }
  return out;
}

/** Where words belong: a phase (0-based), the final review, or every step of the session. */
export type WordsScope = number | "final" | "session";

/**
 * Whom a decision's words are for. Words said at the end of a phase ("continue" with a note) are for
 * the next phase; at the start, for the whole session; in the final review (or once the last phase
 * is done), for the final review; otherwise for the phase they were said in.
 */
function scopeOf(d: Pick<Decision, "phase" | "state">): WordsScope {
  if (d.state === "INIT") return "session";
  if (d.state === "FINAL_REVIEW" || d.state === "DONE") return "final";
  if (d.phase === null) return "session";
  return d.state === "PHASE_COMPLETE" ? d.phase + 1 : d.phase;
}

/** One utterance, as a brief shows it. */
export interface Said {
  scope: WordsScope;
  /** "phase 2, at the review gate (answered "fix"; relayed by the host model …)". */
  where: string;
  words: string[];
}

/** Who brought the words to autopilot, briefly (the decision log has the whole phrase). */
const BROUGHT: Record<string, string> = {
  elicited: "in the client's form",
  terminal: "at a terminal",
  piped: "piped to autopilot run",
  relayed: "relayed by the host model",
  host: "as the host model gave their reason",
};

export function broughtBy(by: unknown): string {
  return (typeof by === "string" && BROUGHT[by]) || "who passed them on was not recorded";
}

const GATE: Record<string, string> = {
  INIT: "before the first phase",
  ASSESS: "as the phase started",
  PLAN: "while the plan was being written",
  APPROVE_PLAN: "at the plan approval",
  EXECUTE: "during the execution",
  VERIFY: "at the verification",
  REVIEW: "at the review",
  PHASE_COMPLETE: "at the end of the phase",
  FINAL_REVIEW: "at the final review",
};

/** A reply that says no more than the option it chose ("yes", "Yes.", "ok", "leave them out"). */
const ACKS = new Set(["y", "yes", "ok", "okay", "sure", "go", "go ahead", "continue", "approve", "approved", "lgtm"]);
function onlyTheAnswer(words: string, answer: string | undefined): boolean {
  if (answer === undefined) return false;
  const plain = (t: string) =>
    t
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, " ")
      .trim();
  const w = plain(words);
  return w === plain(answer) || (ACKS.has(w) && ACKS.has(plain(answer)));
}

/**
 * Every utterance of the session with words in it, oldest first. A reply that only restates the
 * option chosen is no words of the person's for a persona to act on: the answer says it.
 */
export function personWords(decisions: readonly Decision[]): Said[] {
  const out: Said[] = [];
  for (const d of decisions) {
    const words = saidWith(d).filter((w) => !onlyTheAnswer(w, d.answer));
    if (!words.length) continue;
    const at = GATE[d.state ?? ""] ?? "";
    const phase = d.phase !== null && d.state !== "INIT" ? `phase ${d.phase + 1}` : "";
    const what =
      d.decision === NOTE_DECISION || d.answer === undefined
        ? `a note between steps${at ? `, ${at}` : ""}`
        : `${at || "at a question"}, answering "${d.answer}"`;
    out.push({
      scope: scopeOf(d),
      where: `${phase ? `${phase}, ` : ""}${what} (${broughtBy(d.by)})`,
      words,
    });
  }
  return out;
}

/** The words quoted, as one line: "first" / "second". */
export function quoted(words: readonly string[]): string {
  return words.map((w) => `"${w.replace(/\s*\n\s*/g, " ")}"`).join(" / ");
}
