// Input and output schemas of the MCP tools. They are sent to every client in tools/list and sit
// in the host model's context for the whole conversation, so they stay small: inputs the engine
// checks itself with better errors (the persona result) are kept loose here.
import { z } from "zod";
import { CONTEXT_PARTS } from "../effects/context.js";

// Names that explain themselves carry no description: each one would be repeated in every tool.
const session = z.string();
const stepId = z.number(); // .int() would add 70 bytes of min/max; a fraction is simply stale

export const StartInput = {
  spec: z.string().describe("Spec path relative to the project root"),
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
    .describe("The persona's JSON result; kind = the Step's expects.result"),
};
export const DecideInput = {
  session,
  stepId,
  answer: z.string().describe("One of the Step's options"),
  rationale: z.string().optional().describe("The user's reason"),
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

const STEP_FIELDS = ["session", "stepId", "state", "phase", "rigor", "reviewPlans", "next"] as const;

/**
 * A Step, or `{ error }` on a failed call. Deliberately shallow (the full Step is
 * src/protocol/step.ts and docs/mcp.md): four tools carry it and every byte of tools/list sits in
 * the model's context. The SDK client validates structuredContent against the output schema even
 * when isError is set, so the error shape must pass too; the `anyOf` keeps the Step's fields
 * required whenever there is no error.
 */
// Loose at the top: a Step field added later must not make every client reject every Step.
export const StepOutput = z
  .looseObject({
    session: z.string().optional(),
    stepId: z.number().optional(),
    state: z.string().optional(),
    phase: z.looseObject({}).nullable().optional(),
    rigor: z.string().optional(),
    reviewPlans: z.boolean().optional(),
    report: z.string().optional(),
    next: z.looseObject({ kind: z.enum(["dispatch", "ask", "wait", "done"]) }).optional(),
    error: z
      .object({
        code: z.string(),
        message: z.string(),
        step: z.looseObject({}).optional(),
      })
      .optional(),
  })
  .meta({ anyOf: [{ required: [...STEP_FIELDS] }, { required: ["error"] }] });
