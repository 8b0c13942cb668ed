// The SDK seam (src/mcp/sdk-seam.ts) reaches two private members of the MCP SDK's McpServer. This
// pins them: on the installed SDK both hooks must install and act, with the SDK's real client over
// its in-memory transport. An SDK version that moves or reshapes either fails here, by name.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { rewordToolErrors, wrapToolList } from "../../src/mcp/sdk-seam.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function serverWithTool() {
  const server = new McpServer({ name: "seam", version: "0.0.0" });
  server.registerTool("echo", { description: "Echo", inputSchema: { word: z.string() } }, ({ word }) => ({
    content: [{ type: "text", text: word }],
  }));
  return server;
}

async function connect(server: McpServer): Promise<Client> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "seam-test", version: "0.0.0" });
  await Promise.all([server.connect(a), client.connect(b)]);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

describe("the MCP SDK seam", () => {
  it("tools/list: the SDK's own list reaches the wrap, and the wrap's answer reaches the client", async () => {
    const server = serverWithTool();
    let seen: string[] = [];
    expect(
      wrapToolList(
        server,
        (r) => (
          (seen = r.tools.map((t) => t.name)),
          { ...r, tools: r.tools.map((t) => ({ ...t, description: "wrapped" })) }
        ),
      ),
    ).toBe(true);
    const client = await connect(server);
    const { tools } = await client.listTools();
    expect(seen).toEqual(["echo"]);
    expect(tools.map((t) => [t.name, t.description])).toEqual([["echo", "wrapped"]]);
    // The SDK's JSON schema for the input, as it made it.
    expect(tools[0].inputSchema).toMatchObject({ type: "object", properties: { word: { type: "string" } } });
  });

  it("an argument that does not fit the input schema: the SDK's message reaches reword, and its result reaches the client", async () => {
    const server = serverWithTool();
    const messages: string[] = [];
    expect(
      rewordToolErrors(server, (message) => {
        messages.push(message);
        return { isError: true, content: [{ type: "text", text: "reworded" }] };
      }),
    ).toBe(true);
    const client = await connect(server);
    const r = await client.callTool({ name: "echo", arguments: { word: 7 } });
    expect(r.isError).toBe(true);
    expect(r.content).toEqual([{ type: "text", text: "reworded" }]);
    // The message src/mcp/server.ts reads (codeArgumentErrors) has this shape.
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/^(?:MCP error -?\d+: )?Input validation error: Invalid arguments for tool echo: /);
    // A call that fits is not touched.
    expect((await client.callTool({ name: "echo", arguments: { word: "hi" } })).content).toEqual([
      { type: "text", text: "hi" },
    ]);
  });
});
