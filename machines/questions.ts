// Every question a session can ask, one entry each: its name (what a stage's `meta.ask` and the
// Step's `next.name` say), the options the machine accepts, the answers only a person may give
// (with --human-gates), and what `autopilot run --yes` answers when nobody is there. The machine's
// guards name their answers through `answer()` (so a guard cannot test an answer the question does
// not offer), the Step takes its options from here, the engine its human-only answers, the headless
// policy gate its rule. The wording of each question (its text and context) is the one other place
// a question lives: `WORDING` in src/engine/step.ts, keyed by these names (the compiler asks for it).
import type { AutopilotState, PendingCheckpoint } from "../src/session/schema.js";
import { gateFindings } from "./fix-choice.js";

/** What `autopilot run --yes` does at a question (src/headless/drive.ts PolicyGate reads it). */
export type YesPolicy =
  /** Answer `take`; `why` goes into the decision's rationale after "--yes policy: ". */
  | { take: string; why: string }
  /**
   * Answer `take` at most `atMost` times in the same state and phase ("fixRounds": the run's
   * bound on fix rounds), then "stop" with `thenWhy`.
   */
  | { take: string; why: string; atMost: number | "fixRounds"; thenWhy: string }
  /** The first of these the question offers; else its first option that is not "stop". */
  | { prefer: readonly { take: string; why: string }[] }
  /** Nobody may answer it on a policy's say-so: the run ends waiting for a person. */
  | { open: string };

interface Question<O extends readonly string[] = readonly string[]> {
  /** The answers the machine takes, in the order offered. A function: the options depend on the state. */
  options: O | ((state: AutopilotState) => string[]);
  /** Whether an option of the list is offered in this state (absent: every one is). */
  offered?: (state: AutopilotState, option: string) => boolean;
  /** With --human-gates: the answers here only a person may give. */
  humanOnly?: readonly O[number][];
  yes: YesPolicy;
}

type Options = readonly string[] | ((state: AutopilotState) => string[]);

/** One question's entry; its options keep their literal type, so `answer()` can check a guard's answer. */
function question<const O extends Options>(q: {
  options: O;
  offered?: (state: AutopilotState, option: string) => boolean;
  humanOnly?: readonly (O extends readonly string[] ? O[number] : string)[];
  yes: YesPolicy;
}) {
  return q;
}

/** A checkpoint's options by its kind; a decision checkpoint offers the plan's own options (and "stop"). */
const CHECKPOINT_ANSWERS = {
  "human-verify": ["confirm", "reject", "stop"],
  "human-action": ["done", "stop"],
} as const;

function checkpointOptions(cp: PendingCheckpoint): string[] {
  if (cp.type === "human-verify") return [...CHECKPOINT_ANSWERS["human-verify"]];
  if (cp.type === "human-action") return [...CHECKPOINT_ANSWERS["human-action"]];
  const offered = (cp.options ?? []).filter((o) => o.trim().length > 0);
  const base = offered.length ? offered : ["continue"];
  return base.includes("stop") ? base : [...base, "stop"];
}

const FIX = {
  take: "fix",
  why: "fix the blocking findings (round {n} of {max}; warnings stay as they are, as without a person); never override a blocking finding",
  atMost: "fixRounds",
  thenWhy: "fixes did not resolve the findings; a human should decide",
} as const;

/**
 * The options of a gate that sends findings to a fix round (machines/fix-choice.ts): "fix blocking
 * and warnings" only when the gate has a warning, "fix these" (a chosen list) only when it has more
 * than one finding to choose from.
 */
function fixOffered(gate: string) {
  return (state: AutopilotState, option: string): boolean => {
    const findings = gateFindings(state, gate);
    if (option === "fix these") return findings.length > 1;
    if (option === "fix blocking and warnings")
      return findings.some((f) => typeof f !== "string" && f.severity === "warning");
    return true;
  };
}

/** --yes at a gate with warnings and no blocking finding: as before there was a question, they stay. */
const WARNINGS_STAY = {
  take: "move on",
  why: "a fix round runs for blocking findings only, as without a person; the warnings stay recorded",
} as const;

export const QUESTIONS = {
  userChanges: question({
    options: ["commit them first", "leave them out", "stop"],
    // Never commit the user's own work on a policy's say-so.
    yes: { take: "leave them out", why: "keep changes autopilot did not make out of its commits" },
  }),
  approvePlan: question({
    options: ["yes", "revise", "skip phase", "stop"],
    humanOnly: ["yes", "skip phase"],
    yes: { take: "yes", why: "approve plans" },
  }),
  revised: question({ options: ["done", "stop"], yes: { take: "done", why: "re-present the plan" } }),
  personaFailed: question({
    options: ["retry", "stop"],
    yes: {
      take: "retry",
      why: "retry a failed persona step once",
      atMost: 1,
      thenWhy: "the persona failed twice; a human should look",
    },
  }),
  checkpoint: question({
    options: (state: AutopilotState) => (state.phaseRun.checkpoint ? checkpointOptions(state.phaseRun.checkpoint) : []),
    yes: {
      prefer: [
        { take: "confirm", why: "confirm human-verify checkpoints" },
        { take: "done", why: "human-action checkpoints are assumed done" },
      ],
    },
  }),
  exhausted: question({
    options: ["fix manually and continue", "revise plan", "stop"],
    yes: { take: "stop", why: "an exhausted budget needs a human" },
  }),
  verifyFailed: question({
    options: ["fix", "fix these", "skip verification", "stop"],
    offered: fixOffered("verifyFailed"),
    humanOnly: ["skip verification"],
    yes: FIX,
  }),
  reviewBlocked: question({
    options: ["fix", "fix blocking and warnings", "fix these", "override", "stop"],
    offered: fixOffered("reviewBlocked"),
    humanOnly: ["override"],
    yes: FIX,
  }),
  // Standard and thorough: a review with warnings and no blocking finding asks before the phase ends.
  reviewWarnings: question({
    options: ["fix warnings", "fix these", "move on", "stop"],
    offered: fixOffered("reviewWarnings"),
    yes: WARNINGS_STAY,
  }),
  continuePhase: question({ options: ["yes", "stop"], yes: { take: "yes", why: "continue to the next phase" } }),
  finalBlocked: question({
    options: ["fix", "fix blocking and warnings", "fix these", "override", "stop"],
    offered: fixOffered("finalBlocked"),
    humanOnly: ["override"],
    yes: FIX,
  }),
  finalExhausted: question({
    options: ["fix manually and continue", "stop"],
    yes: { take: "stop", why: "an exhausted budget needs a human" },
  }),
  commitRejected: question({
    options: ["fix it yourself and continue", "commit without hooks this once", "stop"],
    humanOnly: ["commit without hooks this once"],
    // Only a person can fix what the hooks report or waive them: the run ends waiting for one.
    yes: { open: "a commit the repository's hooks refused needs a person" },
  }),
  // A parallel session's merge queue stopped a task: it changed files outside its Files/Owns, or
  // its retry budget is spent. Its work is never merged on a policy's say-so.
  waveTask: question({
    options: ["re-run", "done by hand", "stop"],
    humanOnly: ["done by hand"],
    yes: { open: "a task that changed files outside its Files/Owns, or spent its retry budget, needs a person" },
  }),
  // The session's spending budget is spent before its next dispatch (a stage in every state that
  // dispatches: the budgetSpent guard in machines/guards.ts).
  budget: question({
    options: ["raise budget", "continue once", "stop"],
    // --yes never spends more than it was given.
    yes: { take: "stop", why: "the budget is spent; a human decides whether to spend more" },
  }),
};

export type QuestionName = keyof typeof QUESTIONS;
/** The questions whose options do not depend on the state. */
type Fixed = {
  [K in QuestionName]: (typeof QUESTIONS)[K]["options"] extends readonly string[] ? K : never;
}[QuestionName];
export type AnswerOf<Q extends Fixed> = Extract<(typeof QUESTIONS)[Q]["options"], readonly string[]>[number];

export function isQuestionName(name: unknown): name is QuestionName {
  return typeof name === "string" && Object.hasOwn(QUESTIONS, name);
}

/** The options a question offers in this state. */
export function optionsOf(name: QuestionName, state: AutopilotState): string[] {
  const q = QUESTIONS[name] as Question;
  const all = typeof q.options === "function" ? q.options(state) : [...q.options];
  return q.offered ? all.filter((o) => q.offered!(state, o)) : all;
}

/** The answers only a person may give at this question (with --human-gates). */
export function humanOnlyOf(name: QuestionName): readonly string[] {
  return (QUESTIONS[name] as Question).humanOnly ?? [];
}

/**
 * A machine guard for one answer of one question: `answer("verifyFailed", "fix")`. The answer must
 * be one the question offers (the compiler checks it).
 */
export function answer<Q extends Fixed, A extends AnswerOf<Q>>(_question: Q, answer: A) {
  return { type: "answered", params: { answer } } as const;
}
