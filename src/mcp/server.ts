// The MCP server: the control plane of the autopilot. It cannot start subagents in the client, so
// every tool result is a Step telling the host the one next thing to do.
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { AutopilotError } from "../protocol/errors.js";
import { errorResult } from "./render.js";
import { registerTools } from "./tools/index.js";
import { claudeCodeListing, type ToolName } from "./tools/names.js";
import { registerPrompts } from "./prompts.js";
import { registerResources } from "./resources.js";
import { hostOf } from "../protocol/host-view.js";
import { ownVersion } from "../install/paths.js";
import { rewordToolErrors, wrapToolList } from "./sdk-seam.js";

/**
 * tools/list without the `$schema` line the SDK puts in every JSON schema (clients forward it to
 * the model verbatim), and, for Claude Code, as each tool's entry in tools/names.ts says: the tools
 * its host never calls left out (their definitions would sit in its context), the ones a session
 * calls at every step marked `_meta["anthropic/alwaysLoad"]` (sent from the first request instead
 * of deferred behind a ToolSearch round; docs/performance.md).
 */
function leanToolList(server: McpServer, allTools: boolean): void {
  const strip = <T>(schema: T): T => {
    if (!schema || typeof schema !== "object") return schema;
    const { $schema: _drop, ...rest } = schema as Record<string, unknown>;
    return rest as T;
  };
  wrapToolList(server, (r) => {
    const claude = hostOf(server.server.getClientVersion()?.name) === "claude-code";
    return {
      ...r,
      tools: r.tools
        .filter((t) => allTools || !claude || claudeCodeListing(t.name) !== "not listed")
        .map((t) => ({
          ...t,
          inputSchema: strip(t.inputSchema),
          ...(t.outputSchema ? { outputSchema: strip(t.outputSchema) } : {}),
          ...(claude && claudeCodeListing(t.name) === "always loaded"
            ? { _meta: { ...(t._meta as object | undefined), "anthropic/alwaysLoad": true } }
            : {}),
        })),
    };
  });
}

export interface ServerOptions {
  root: string;
  elicit?: boolean;
  /** How often a long tool call sends a progress heartbeat (ms). */
  heartbeatMs?: number;
  /** How long an in-band question waits for the human (default: no time-out). */
  elicitTimeoutMs?: number;
  now?: () => Date;
  /** List every tool to every client (default: AUTOPILOT_ALL_TOOLS=1). */
  allTools?: boolean;
  /** Put before each persona's agent name in dispatch todos (`autopilot:` for the Claude Code plugin's agents). */
  agentPrefix?: string;
}

const INSTRUCTIONS = "Runs a spec's phases: autopilot_start, then do each result's `todo`.";

function createServer(opts: ServerOptions): McpServer {
  const server = new McpServer(
    { name: "autopilot", version: ownVersion() },
    { capabilities: { logging: {} }, instructions: INSTRUCTIONS },
  );
  const log = (level: "info" | "warning" | "error", message: string) => {
    server.server.sendLoggingMessage({ level, logger: "autopilot", data: message }).catch(() => {
      // Not connected (yet, or any more): there is no one to tell.
    });
  };
  registerTools(server, {
    root: path.resolve(opts.root),
    elicit: opts.elicit ?? true,
    heartbeatMs: opts.heartbeatMs ?? 10_000,
    elicitTimeoutMs: opts.elicitTimeoutMs,
    agentPrefix: opts.agentPrefix,
    log,
    now: opts.now,
  });
  leanToolList(server, opts.allTools ?? process.env.AUTOPILOT_ALL_TOOLS === "1");
  registerPrompts(server);
  registerResources(server, path.resolve(opts.root));
  codeArgumentErrors(server);
  return server;
}

/**
 * The SDK checks a call's arguments against the tool's input schema before the tool runs and
 * answers a misfit with an isError result that carries no code. This gives it the contract's shape
 * (docs/mcp.md, Errors): `bad_result` when the persona result is what does not fit, `bad_input`
 * otherwise. Plain JSON can carry values such as {"toString": 1}; they are refused this way. The
 * hook is the SDK seam's (sdk-seam.ts); tests/mcp/error-codes.test.ts and
 * sdk-seam.test.ts fail if an SDK update moves it.
 */
function codeArgumentErrors(server: McpServer): void {
  rewordToolErrors(server, (message) => {
    const m = /^(?:MCP error -?\d+: )?Input validation error: Invalid arguments for tool (\S+): ([\s\S]*)$/.exec(
      message,
    );
    if (!m) return null;
    const [, tool, issues] = m;
    const code =
      tool === ("autopilot_report" satisfies ToolName) &&
      /\bat result\b/.test(issues) &&
      !/\bat (session|stepId)\b/.test(issues)
        ? "bad_result"
        : "bad_input";
    return errorResult(
      new AutopilotError(
        code,
        `The arguments of ${tool} do not fit its input schema: ${issues.split("\n").join("; ")}. Nothing was changed; the tool's input schema (in the tool list) names its arguments.`,
      ),
    );
  });
}

/** Serve on stdin/stdout until the client closes stdin. stdout carries protocol only. */
export async function serveStdio(opts: ServerOptions): Promise<void> {
  const server = createServer(opts);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
    process.stdin.once("close", () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => {});
}
