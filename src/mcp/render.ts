// Tool results: the Step as structuredContent plus its text rendering; errors as isError results
// whose text says what to do next and whose structuredContent carries the stable code.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AutopilotError } from "../protocol/errors.js";
import type { Step } from "../protocol/step.js";
import { renderStepText } from "../engine/step.js";

export function stepResult(step: Step, preface: string[] = []): CallToolResult {
  const text = [...preface, renderStepText(step)].join("\n\n");
  return {
    content: [{ type: "text", text }],
    structuredContent: step as unknown as Record<string, unknown>,
  };
}

export function jsonResult(value: object, summary?: string): CallToolResult {
  const json = JSON.stringify(value, null, 2);
  return {
    content: [{ type: "text", text: summary ? `${summary}\n\n${json}` : json }],
    structuredContent: value as Record<string, unknown>,
  };
}

export interface ErrorPayload {
  code: string;
  message: string;
  step?: Step;
}

export function errorPayload(e: unknown): ErrorPayload {
  if (e instanceof AutopilotError) {
    const step = e.details?.step as Step | undefined;
    return { code: e.code, message: e.message, ...(step ? { step } : {}) };
  }
  const message = e instanceof Error ? e.message : String(e);
  return {
    code: "internal",
    message: `Unexpected error: ${message}. Call autopilot_next to see the saved Step; report this if it repeats.`,
  };
}

export function errorResult(e: unknown): CallToolResult {
  const error = errorPayload(e);
  const lines = [`Error [${error.code}]: ${error.message}`];
  if (error.step) lines.push("", "The current Step:", "", renderStepText(error.step));
  return {
    isError: true,
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: { error } as unknown as Record<string, unknown>,
  };
}
