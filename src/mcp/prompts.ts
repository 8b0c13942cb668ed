// The `autopilot` prompt: in Claude Code `/mcp__autopilot__autopilot SPEC [FLAGS]`. It only tells
// the host how to drive the tools; the Steps carry everything else.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export function autopilotPromptText(spec: string, flags?: string): string {
  const args = JSON.stringify({ spec, ...(flags?.trim() ? { flags: flags.trim() } : {}) });
  return [
    `Run the autopilot on ${spec}${flags?.trim() ? ` with ${flags.trim()}` : ""}.`,
    "",
    `1. Call autopilot_start with ${args}.`,
    "2. Every autopilot result is a Step; do exactly what its `next` says, then call the tool it names:",
    "   - dispatch: run the named persona as a subagent (Claude Code: the Agent tool with subagent_type = persona) with the given prompt; report its JSON result with autopilot_report (same session and stepId).",
    "   - ask: put the question and its options to the user; pass their answer (and reason) to autopilot_decide.",
    "   - wait: tell the user the reason and stop; they resume with autopilot_start later.",
    "   - done: show the summary and stop.",
    "3. Show the user every Step's `report` text. Never plan, execute, verify or review yourself: the personas do.",
    "4. After a context reset, call autopilot_status, then autopilot_next for the session.",
  ].join("\n");
}

export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    "autopilot",
    {
      description: "Carry a multi-phase spec from plan to reviewed, committed code.",
      argsSchema: {
        spec: z.string().describe("Spec path, e.g. docs/changes/x/proposal.md"),
        flags: z.string().optional().describe("--fast | --thorough, --review-plans"),
      },
    },
    ({ spec, flags }) => ({
      messages: [{ role: "user", content: { type: "text", text: autopilotPromptText(spec, flags) } }],
    }),
  );
}
