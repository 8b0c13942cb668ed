// The baseline for latency and cold start: the smallest MCP server the SDK makes, with one `echo`
// tool, started exactly like ours (node, stdio). Nothing here is part of the product.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "echo", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Returns its input.", inputSchema: { message: z.string() } },
  ({ message }) => ({ content: [{ type: "text", text: message }] }),
);
await server.connect(new StdioServerTransport());
