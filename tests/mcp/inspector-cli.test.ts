// The MCP Inspector's CLI mode (a dev dependency) against the built server: it lists the tools,
// prompts and resources and calls autopilot_status, as a client we did not write would.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { MAIN_JS, openSession, REPO_ROOT, type Session } from "../helpers/mcp-client.js";

const run = promisify(execFile);
let s: Session;
beforeAll(async () => {
  s = await openSession();
  await s.start();
});
afterAll(async () => {
  await s.dispose();
});

async function inspect(...method: string[]): Promise<any> {
  // A concurrent rebuild of dist/ elsewhere in the tree can kill a server mid-start (see
  // startServer); the inspector reports that as "Connection closed", so try again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await inspectOnce(...method);
    } catch (e) {
      if (attempt >= 3 || !/Connection closed/.test(String(e))) throw e;
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

async function inspectOnce(...method: string[]): Promise<any> {
  // npx from the package root resolves the locally installed inspector; --project points the
  // server at the temporary repository.
  const { stdout } = await run(
    "npx",
    [
      "--no-install",
      "@modelcontextprotocol/inspector",
      "--cli",
      "node",
      MAIN_JS,
      "serve",
      "--project",
      s.root,
      "--method",
      ...method,
    ],
    { cwd: REPO_ROOT, timeout: 30_000, maxBuffer: 8 * 1024 * 1024 },
  );
  return JSON.parse(stdout);
}

describe("MCP Inspector CLI", () => {
  it("tools/list", async () => {
    const { tools } = await inspect("tools/list");
    expect(tools.map((t: { name: string }) => t.name)).toEqual([
      "autopilot_start",
      "autopilot_next",
      "autopilot_report",
      "autopilot_decide",
      "autopilot_status",
      "autopilot_decisions",
      "gather_context",
      "write_scratchpad",
      "autopilot_result",
    ]);
  });

  it("prompts/list and resources/list", async () => {
    const { prompts } = await inspect("prompts/list");
    expect(prompts.map((p: { name: string }) => p.name)).toEqual(["start"]);
    const { resources } = await inspect("resources/list");
    expect(resources.map((r: { uri: string }) => r.uri)).toEqual(
      expect.arrayContaining([
        "autopilot://sessions",
        "autopilot://sessions/changes--security-scanner--proposal/state",
      ]),
    );
  });

  it("tools/call autopilot_status", async () => {
    const r = await inspect("tools/call", "--tool-name", "autopilot_status");
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.sessions).toEqual([
      expect.objectContaining({ session: "changes--security-scanner--proposal", waitingOn: "persona" }),
    ]);
  });
});
