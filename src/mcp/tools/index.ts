// The tools (names.ts), one module each. Thin: check input, call the engine, render. Every Step tool
// answers with the Step (structuredContent) and its text; every failure is an isError result with
// a stable code. What they share (engine, client view, error and progress handling) is kit.ts.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { toolKit, type ToolContext, type ToolKit } from "./kit.js";
import { TOOL_NAMES, type ToolName } from "./names.js";
import { registerStart } from "./start.js";
import { registerNext } from "./next.js";
import { registerReport } from "./report.js";
import { registerResult } from "./result.js";
import { registerDecide } from "./decide.js";
import { registerStatus } from "./status.js";
import { registerDecisions } from "./decisions.js";
import { registerGatherContext } from "./gather-context.js";
import { registerWriteScratchpad } from "./write-scratchpad.js";

export { loadEngine, type ToolContext } from "./kit.js";

/** Each tool's module, by the tool's name (names.ts). */
const REGISTER: Record<ToolName, (kit: ToolKit, name: ToolName) => void> = {
  autopilot_start: registerStart,
  autopilot_next: registerNext,
  autopilot_report: registerReport,
  autopilot_decide: registerDecide,
  autopilot_status: registerStatus,
  autopilot_decisions: registerDecisions,
  gather_context: registerGatherContext,
  write_scratchpad: registerWriteScratchpad,
  autopilot_result: registerResult,
};

export function registerTools(server: McpServer, ctx: ToolContext): void {
  const kit = toolKit(server, ctx);
  for (const name of TOOL_NAMES) REGISTER[name](kit, name);
}
