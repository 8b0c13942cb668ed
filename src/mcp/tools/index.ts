// The nine tools, one module each. Thin: check input, call the engine, render. Every Step tool
// answers with the Step (structuredContent) and its text; every failure is an isError result with
// a stable code. What they share (engine, client view, error and progress handling) is kit.ts.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { toolKit, type ToolContext } from "./kit.js";
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

/** In the order tools/list shows them. */
const TOOLS = [
  registerStart,
  registerNext,
  registerReport,
  registerDecide,
  registerStatus,
  registerDecisions,
  registerGatherContext,
  registerWriteScratchpad,
  registerResult,
];

export function registerTools(server: McpServer, ctx: ToolContext): void {
  const kit = toolKit(server, ctx);
  for (const register of TOOLS) register(kit);
}
