// `autopilot run --json`: one JSON event per line on stdout, for CI logs and dashboards. The zod
// schema below is the contract (docs/headless.md shows it; `autopilotRunEventJsonSchema()` gives it
// as JSON Schema); tests validate every line a run prints against it.
import { z } from "zod";
import { PERSONAS, Step } from "../protocol/step.js";
import { DecisionBy, STATE_NAMES } from "../session/schema.js";

const RUN_EVENTS_VERSION = 1;

/** How a run ended, and the exit code it ends with. */
export const EXIT_CODES = {
  /** The session is DONE. */
  done: 0,
  /** An error: one line on stderr with its [code] (and, with --json, an outcome event). */
  failed: 1,
  /** A usage mistake (a bad option): no session was touched. */
  usage: 2,
  /** A human is needed: a question nobody could answer (no terminal, input ended), or a wait for interactive planning. */
  waiting: 3,
  /** A stop answer (a person's, or the --yes policy's after failed fixes or retries): resumable. */
  stopped: 4,
  /** The session's budget is spent and the answer was stop (the --yes policy always stops): resumable with a larger --budget. */
  budget: 5,
  /** Ctrl-C or SIGTERM: the current step finished or was abandoned; resumable. */
  interrupted: 130,
} as const;
export type RunOutcome = keyof typeof EXIT_CODES;
const RUN_OUTCOMES = Object.keys(EXIT_CODES) as RunOutcome[];

const base = {
  v: z.literal(RUN_EVENTS_VERSION),
  /** ISO time the event was written. */
  time: z.string(),
  /** The session slug, or null when the run failed before it knew one. */
  session: z.string().nullable(),
};
const stepId = z.number().int().nonnegative();
const state = z.enum(STATE_NAMES);
const phase = z
  .object({ number: z.number().int().positive(), total: z.number().int().positive(), name: z.string() })
  .strict()
  .nullable();
const persona = z.enum(PERSONAS);
const count = z.number().nonnegative();

/** What one persona run spent, as the runner told it (every field optional). */
const UsageFigures = z
  .object({
    inputTokens: count,
    outputTokens: count,
    cacheReadTokens: count,
    cacheWriteTokens: count,
    totalTokens: count,
    toolUses: count,
    durationMs: count,
    costUsd: count,
  })
  .partial()
  .strict();

/** The session's spending so far: words, and the figures (null: unknown). */
const Cost = z
  .object({
    display: z.string(),
    dispatches: z.number().int().nonnegative(),
    tokens: count.nullable(),
    costUsd: count.nullable(),
  })
  .strict();

export const RunEvent = z.discriminatedUnion("event", [
  z
    .object({
      event: z.literal("start"),
      ...base,
      spec: z.string(),
      runner: z.string(),
      simulated: z.boolean(),
      resumed: z.boolean(),
      /** The session's budget in words, or null. */
      budget: z.string().nullable(),
    })
    .strict(),
  z
    .object({
      event: z.literal("transition"),
      ...base,
      stepId,
      state,
      phase,
      /** What the Step asks for next. */
      next: z.enum(["dispatch", "ask", "wait", "done"]),
      report: z.string().optional(),
    })
    .strict(),
  z.object({ event: z.literal("dispatch"), ...base, stepId, state, phase, persona, description: z.string() }).strict(),
  z
    .object({
      event: z.literal("usage"),
      ...base,
      stepId,
      persona,
      /** null: the runner said nothing about this run (its cost stays unknown). */
      usage: UsageFigures.nullable(),
    })
    .strict(),
  z
    .object({
      event: z.literal("decision"),
      ...base,
      stepId,
      state,
      /** Which question (the Step's `next.name`: "approvePlan", "budget", ...), whatever its wording. */
      name: z.string(),
      question: z.string(),
      answer: z.string(),
      by: DecisionBy,
      rationale: z.string().optional(),
    })
    .strict(),
  z
    .object({
      event: z.literal("outcome"),
      ...base,
      outcome: z.enum(RUN_OUTCOMES as [RunOutcome, ...RunOutcome[]]),
      exitCode: z.number().int(),
      /** One line: why the run ended here. */
      reason: z.string(),
      state: state.nullable(),
      stepId: stepId.nullable(),
      cost: Cost.nullable(),
      /** The command that continues the session, or null when it is done (or never started). */
      resume: z.string().nullable(),
      /** The final Step (the protocol's), or null when the run failed before it had one. */
      step: Step.nullable(),
      error: z.object({ code: z.string(), message: z.string() }).strict().optional(),
    })
    .strict(),
]);
export type RunEvent = z.infer<typeof RunEvent>;

/** Distributive Omit: each event without the fields every event carries. */
export type RunEventBody = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, "v" | "time" | "session">
    : never
  : never;

/** The schema as JSON Schema (draft 2020-12), for tools outside TypeScript. */
export function runEventJsonSchema(): unknown {
  return z.toJSONSchema(RunEvent);
}

/** Writes events as JSON lines. */
export class EventWriter {
  constructor(
    private readonly write: (line: string) => void,
    private session: string | null = null,
  ) {}

  setSession(slug: string): void {
    this.session = slug;
  }

  emit(body: RunEventBody): void {
    const e = { v: RUN_EVENTS_VERSION, time: new Date().toISOString(), session: this.session, ...body };
    this.write(JSON.stringify(e) + "\n");
  }
}
