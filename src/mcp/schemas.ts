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
  flags: z.string().optional().describe("--fast | --thorough, --review-plans"),
};
export const NextInput = { session };
export const ReportInput = {
  session,
  stepId,
  // Checked against PersonaResult in the handler so a wrong result gets `bad_result` with a
  // message, not a bare JSON-schema failure.
  result: z
    .looseObject({ kind: z.string() })
    .describe("The persona's JSON reply"),
  // Any shape (object or the <usage> text): parsed by the handler; `{}` keeps tools/list small.
  usage: z.unknown().optional().describe("Its usage block, if any"),
};
export const DecideInput = {
  session,
  stepId,
  answer: z.string().describe("One of the Step's options"),
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
export const StepOutput = z.looseObject({}).meta({ description: "A Step (docs/mcp.md), or {error:{code,message,step?}}" });
