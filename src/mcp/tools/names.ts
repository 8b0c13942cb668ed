// The MCP tools, by name: the one place each name is written. The registration (index.ts, a record
// over these names, so a tool without its module does not compile), tools/list as Claude Code gets
// it (server.ts) and the kit's checks of which tool a call was all read it; docs/mcp.md's tool
// table is held to it by tests/mcp/tool-names.test.ts.

/**
 * How a Claude Code host gets a tool's definition (docs/mcp.md, Tools): `always loaded`, sent from
 * the first request (the calls of every step); `deferred`, listed and loaded by name when a
 * conversation needs it; `not listed`, left out of its tools/list because its host never calls it
 * (still callable by name; AUTOPILOT_ALL_TOOLS=1 lists it).
 */
type ClaudeCodeListing = "always loaded" | "deferred" | "not listed";

/** In the order tools/list shows them. */
export const TOOLS = {
  autopilot_start: { claudeCode: "always loaded" },
  autopilot_next: { claudeCode: "deferred" },
  autopilot_report: { claudeCode: "always loaded" },
  autopilot_decide: { claudeCode: "always loaded" },
  autopilot_status: { claudeCode: "deferred" },
  autopilot_decisions: { claudeCode: "not listed" },
  gather_context: { claudeCode: "not listed" },
  write_scratchpad: { claudeCode: "not listed" },
  // Called by Claude Code's read-only persona subagents, not by its host.
  autopilot_result: { claudeCode: "deferred" },
} as const satisfies Record<string, { claudeCode: ClaudeCodeListing }>;

export type ToolName = keyof typeof TOOLS;

export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];

/** A Claude Code host's listing of a tool tools/list names; undefined for a name that is none of ours. */
export function claudeCodeListing(name: string): ClaudeCodeListing | undefined {
  return Object.hasOwn(TOOLS, name) ? TOOLS[name as ToolName].claudeCode : undefined;
}
