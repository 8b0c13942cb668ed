// The effects the machine owes: one discriminated union on `type`, each with its own args. The
// machine builds them (`effect` in machines/autopilot.machine.ts), the state file saves them in its
// `outbox`, and src/engine/perform.ts performs them, its switch narrowed by `type`. A new effect is
// one entry here, one constructor call in the machine and one case in the performer (the compiler
// asks for the case).
//
// Entries already saved in state files (an outbox a crash left) must keep loading: every field an
// earlier engine wrote is declared here as it wrote it (`writeSummary.lastActive` came later, so it
// is optional), and the objects stay loose so unknown fields are carried through.
import { z } from "zod";
import { Finding } from "../vocabulary.js";

/** Effects that take nothing from the transition: they read what they need from the saved state. */
const NoArgs = z.looseObject({});

/**
 * A commit of the session's work (a checkpoint, a phase, a recovery, a fix round). Its message is
 * worded when it is made (src/effects/commit-message.ts): the persona's proposal, else autopilot's
 * subject from `kind`, `topic` and `fixed`; `label` goes in the step trailer. The message fields are
 * absent in outboxes saved before proposals (the subject is then worded from the label).
 */
export const CommitArgs = z.looseObject({
  label: z.string(),
  recovery: z.boolean(),
  /** The phase index, or null for the final review's fix rounds. */
  phase: z.number().int().nullable(),
  /** `git commit --no-verify`: set only when the user answered "commit without hooks this once". */
  noVerify: z.boolean().optional(),
  kind: z.enum(["work", "fix", "plan", "recovery", "task"]).optional(),
  /** The message the persona proposed for this work (its result's `commitMessage`). */
  message: z.string().optional(),
  /** What the work is about: the phase's, task's or checkpoint's name. */
  topic: z.string().optional(),
  /** The findings a fix round fixed. */
  fixed: z.array(z.string()).optional(),
});

/** One review round as the review file keeps it. */
const ReviewRoundArgs = z.looseObject({
  findings: z.array(Finding),
  resolution: z.enum(["fix", "override"]).nullable(),
});

/**
 * The phase's review, written to the session's reviews: `findings` (the latest round) and, since the
 * first review is never overwritten by a re-review, every round (absent in earlier outboxes).
 */
const WriteReviewArgs = z.looseObject({
  phase: z.number().int().nonnegative(),
  findings: z.array(Finding),
  rounds: z.array(ReviewRoundArgs).optional(),
  /** The phase's name, written into the file beside its number. */
  name: z.string().optional(),
});

/** The executor's state.json at a phase's start: another phase's progress must not pass for this one's. */
const ResetExecutionStateArgs = z.looseObject({ phase: z.string() });

/** What a persona said is worth remembering for later phases, into the session's learnings. */
const AppendSessionLearningsArgs = z.looseObject({
  date: z.string(),
  skill: z.string(),
  items: z.array(z.string()),
});

/** A line in .harness/failures.md. */
const AppendFailureArgs = z.looseObject({
  date: z.string(),
  skill: z.string(),
  type: z.string(),
  text: z.string(),
});

/** The phase's scratchpad folder, by the phase's name. */
const ClearScratchpadArgs = z.looseObject({ phase: z.string() });

/** The session summary (.harness/sessions/<slug>/summary.md). */
const WriteSummaryArgs = z.looseObject({
  /** The time of the transition, so a replay writes the same bytes (absent in early outboxes: now). */
  lastActive: z.string().optional(),
  /** "2 of 3"; absent at DONE. */
  phase: z.string().nullable().optional(),
  status: z.string(),
  plan: z.string().nullable().optional(),
  keyContext: z.string(),
  nextStep: z.string(),
  /** At DONE: add the advice to keep .harness/sessions/ out of git, unless git already ignores it. */
  ignoreAdvice: z.boolean().optional(),
});

function entry<T extends string, A extends z.ZodType>(type: T, args: A) {
  return z.looseObject({
    /** Unique within the session; effects use it to stay idempotent when replayed after a crash. */
    id: z.string(),
    type: z.literal(type),
    args,
  });
}

/** An effect the machine owes: saved with the state, performed, then cleared (the outbox). */
export const Effect = z.discriminatedUnion("type", [
  entry("commit", CommitArgs),
  entry("writeReview", WriteReviewArgs),
  entry("appendFailure", AppendFailureArgs),
  entry("clearScratchpad", ClearScratchpadArgs),
  entry("syncRoadmap", NoArgs),
  entry("writeSummary", WriteSummaryArgs),
  entry("writeFinalHandoff", NoArgs),
  entry("appendLearnings", NoArgs),
  entry("roadmapDone", NoArgs),
  entry("commitUserChanges", NoArgs),
  entry("resetExecutionState", ResetExecutionStateArgs),
  entry("appendSessionLearnings", AppendSessionLearningsArgs),
  entry("reportHarnessFiles", NoArgs),
  /** At DONE: the executor's state.json no longer points at a task of the last phase. */
  entry("closeExecutionState", NoArgs),
]);
export type Effect = z.infer<typeof Effect>;
type EffectType = Effect["type"];

/** The effect of one type. */
export type EffectOf<T extends EffectType> = Extract<Effect, { type: T }>;

/** What the machine names: an effect before it gets its id. */
export type EffectBody = Effect extends infer E
  ? E extends { type: infer T; args: infer A }
    ? { type: T; args: A }
    : never
  : never;
