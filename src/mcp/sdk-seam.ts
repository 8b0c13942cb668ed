// The one place autopilot reaches into the MCP SDK's private members, because the SDK offers no
// public way for two things the server needs (checked against @modelcontextprotocol/sdk 1.32):
//  - tools/list as McpServer builds it, then changed: McpServer sets its own tools/list handler and
//    keeps it private; `server.setRequestHandler` could only replace it with a list built again
//    from the zod schemas (typescript-sdk issue #1094 asks for a hook). The wrap keeps the SDK's list.
//  - the words of an argument that does not fit a tool's input schema: McpServer answers it from its
//    private `createToolError`, an isError result with no code.
// Each install says whether it found the member; tests/mcp/sdk-seam.test.ts fails when an SDK
// version moves or reshapes either, and the server then keeps the SDK's own behaviour.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ListToolsResult } from "@modelcontextprotocol/sdk/types.js";

type RequestHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/** Change what tools/list answers, after the SDK made it. Call after the tools are registered. */
export function wrapToolList(server: McpServer, wrap: (list: ListToolsResult) => ListToolsResult): boolean {
  const handlers = (server.server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  if (!(handlers instanceof Map)) return false;
  const list = handlers.get("tools/list") as RequestHandler | undefined;
  if (typeof list !== "function") return false;
  handlers.set("tools/list", (async (request, extra) =>
    wrap((await list(request, extra)) as ListToolsResult)) satisfies RequestHandler);
  return true;
}

/**
 * Word the result of a tool call whose arguments the SDK refused: `reword` gets the SDK's message
 * and returns the result to send, or null to keep the SDK's.
 */
export function rewordToolErrors(server: McpServer, reword: (message: string) => CallToolResult | null): boolean {
  const sdk = server as unknown as { createToolError?: unknown };
  if (typeof sdk.createToolError !== "function") return false;
  const plain = (sdk.createToolError as (message: string) => CallToolResult).bind(server);
  sdk.createToolError = (message: string): CallToolResult => reword(message) ?? plain(message);
  return true;
}
