// Input and output schemas of the MCP tools. They are sent to every client in tools/list and sit
// in the host model's context for the whole conversation, so they stay small: inputs the engine
// checks itself with better errors (the persona result) are kept loose here.
import { z } from "zod";
import { CONTEXT_PARTS } from "../effects/context.js";

// Names that explain themselves carry no description: each one would be repeated in every tool.
const session = z.string();
const stepId = z.number(); // .int() would add 70 bytes of min/max; a fraction is simply stale

export const StartInput = {
  spec: z.string().describe("Spec path from the project root"),
  // The flags are in docs/mcp.md and the command text; the server also reads them out of `spec`.
  flags: z.string().optional(),
};
export const NextInput = { session };
// A report's or a decision's session may be left out: the connection's one session (kit.sessionOf).
export const ReportInput = {
  session: session.optional(),
  stepId,
  // Any shape here: the engine checks it against PersonaResult (bad_result with the field and the
  // kind expected), and `{}` keeps tools/list small. Optional: without it the server reads the
  // result file the persona wrote (its brief names it). The todo says what goes in each.
  result: z.unknown().optional(),
  // Any shape (object or the <usage> text): parsed by the engine.
  usage: z.unknown().optional(),
  // A parallel wave's task (next.tasks[].task); the wave's todo says so. Any shape here (`{}` keeps
  // tools/list small, as for usage): the engine takes a string or a whole number and refuses the rest.
  task: z.unknown().optional(),
};
export const ResultInput = {
  session: session.optional(),
  stepId,
  // Checked by the engine as a report's result is (bad_result with the field and the kind expected).
  result: z.record(z.string(), z.unknown()),
};
export const DecideInput = {
  session: session.optional(),
  stepId,
  // The ask's todo says it is one of next.options; bad_answer lists them otherwise. Absent: the
  // user's words alone (userWords), recorded for the next persona at any Step.
  answer: z.string().optional(),
  // The ask's todo says what goes here ("rationale: their reason"); no description keeps tools/list small.
  rationale: z.string().optional(),
  // Explained by the ask's todo ("userWords: their reply, quoted"); no description keeps tools/list small.
  userWords: z.string().optional(),
};
export const StatusInput = { session: session.optional() };
export const DecisionsInput = { session };
export const GatherInput = {
  session,
  include: z.array(z.enum(CONTEXT_PARTS)).optional().describe("Default: all but validation"),
};
export const ScratchpadInput = {
  session,
  phase: z.union([z.string(), z.number()]).describe("Phase name or index"),
  filename: z.string().describe("Plain file name, e.g. research.md"),
  content: z.string(),
};

/**
 * The output schema of the four Step tools. Deliberately minimal: the schema sits in every
 * client's context for the whole conversation (four copies), while the Step itself is fixed by
 * src/protocol/step.ts and documented in docs/mcp.md. It must also accept `{ error }`: the SDK
 * client validates structuredContent against it even when isError is set.
 */
export const StepOutput = z
  .looseObject({})
  .meta({ description: "A Step (docs/mcp.md), or {error:{code,message,step?}}" });
