// What the host model reads of autopilot in Claude Code (2.1.330), modelled part by part from what
// Claude Code sends to the Messages API. tests/clients/claude-code.test.ts checks each modelled
// part against the bytes of a real request (captured from the real CLI); docs/performance.md
// gives the figures. Claude Code composes:
// - a system message listing deferred tools by name (MCP tools are `defer_loading`; the three
//   resource tools appear when a server declares resources), the agent types of the Agent tool
//   (`- name: description (Tools: ...)`), the MCP server instructions (`## autopilot`), and the
//   skill list (`- autopilot: <command description>`);
// - the MCP tool definitions once the model loads them with ToolSearch ("select:..."):
//   `{"name":"mcp__autopilot__X","description","input_schema","defer_loading":true}`, the input
//   schema as tools/list gives it (a `$schema` line included), output schemas dropped;
// - the /autopilot command: a <command-*> block and the command file body, once;
// - each tool result as `JSON.stringify(structuredContent)` (the text content never reaches it).
import { countTokens } from "@anthropic-ai/tokenizer";
import matter from "gray-matter";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { planInstall } from "../src/install/index.js";
import { packageRoot } from "../src/install/paths.js";

export const CLAUDE_CODE_VERSION = "2.1.330";
export const SERVER = "autopilot";
/** The tools Claude Code adds (deferred, by name) when a server declares resources. */
export const RESOURCE_TOOLS = ["ListMcpResourcesTool", "ReadMcpResourceDirTool", "ReadMcpResourceTool"];

export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: unknown;
  _meta?: Record<string, unknown>;
}

/** A tool the server marks `_meta["anthropic/alwaysLoad"]`: Claude Code sends it from the start, not deferred. */
export const alwaysLoaded = (t: ListedTool) => t._meta?.["anthropic/alwaysLoad"] === true;

export interface InstalledClaude {
  /** `.claude/agents/<name>.md`: name, description, tools from front matter. */
  agents: Array<{ name: string; description: string; tools?: string }>;
  /** `.claude/commands/autopilot.md`: its description and body. */
  command: { description: string; body: string };
}

/** The files `autopilot install claude` writes, read from the install plan (nothing written). */
export function installedClaude(project: string): InstalledClaude {
  const plan = planInstall({
    client: "claude",
    global: false,
    project,
    home: project,
    root: packageRoot(),
    server: { command: "autopilot", args: ["serve"], source: "bench", machineLocal: false },
  });
  const agents: InstalledClaude["agents"] = [];
  let command: InstalledClaude["command"] | undefined;
  for (const f of plan.files) {
    const p = f.path.split("\\").join("/");
    if (/\/\.claude\/agents\/[^/]+\.md$/.test(p)) {
      const m = matter(f.after, {});
      agents.push({
        name: String(m.data.name),
        description: String(m.data.description ?? ""),
        ...(m.data.tools ? { tools: String(m.data.tools) } : {}),
      });
    } else if (p.endsWith("/.claude/commands/autopilot.md")) {
      const m = matter(f.after, {});
      command = { description: String(m.data.description ?? ""), body: m.content.replace(/^\n/, "") };
    }
  }
  if (!command) throw new Error("install claude planned no commands/autopilot.md");
  return { agents, command };
}

/** The same, read from a folder where `autopilot install claude` was run. */
export function installedClaudeIn(project: string): InstalledClaude {
  const dir = join(project, ".claude");
  const agents = readdirSync(join(dir, "agents"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => {
      const m = matter(readFileSync(join(dir, "agents", f), "utf8"), {});
      return {
        name: String(m.data.name),
        description: String(m.data.description ?? ""),
        ...(m.data.tools ? { tools: String(m.data.tools) } : {}),
      };
    });
  const m = matter(readFileSync(join(dir, "commands", "autopilot.md"), "utf8"), {});
  return { agents, command: { description: String(m.data.description ?? ""), body: m.content.replace(/^\n/, "") } };
}

/**
 * The tool definition as Claude Code sends it once loaded (input schema kept, output schema
 * dropped); `defer_loading` unless the server marks the tool always-loaded.
 */
export function toolDefinition(t: ListedTool): string {
  return JSON.stringify({
    name: `mcp__${SERVER}__${t.name}`,
    description: t.description ?? "",
    input_schema: t.inputSchema,
    ...(alwaysLoaded(t) ? {} : { defer_loading: true }),
  });
}

/** The deferred-tool lines: the resource tools and every tool not always-loaded. */
export function deferredLines(tools: ListedTool[], resources: boolean): string {
  return [
    ...(resources ? RESOURCE_TOOLS : []),
    ...tools.filter((t) => !alwaysLoaded(t)).map((t) => `mcp__${SERVER}__${t.name}`),
  ]
    .map((l) => `${l}\n`)
    .join("");
}

export function agentLine(a: InstalledClaude["agents"][number]): string {
  return `- ${a.name}: ${a.description} (Tools: ${a.tools ?? "*"})\n`;
}

export function instructionsBlock(instructions: string): string {
  return instructions ? `## ${SERVER}\n${instructions}\n` : "";
}

export function skillLine(command: InstalledClaude["command"]): string {
  return `- autopilot: ${command.description}\n`;
}

/** The user turn `/autopilot <args>` becomes: the command block and the body with $ARGUMENTS filled. */
export function commandTurn(command: InstalledClaude["command"], args: string): { block: string; body: string } {
  return {
    block: `<command-message>autopilot</command-message>\n<command-name>/autopilot</command-name>\n<command-args>${args}</command-args>\n`,
    body: command.body.split("$ARGUMENTS").join(args),
  };
}

/** The ToolSearch round that loads the tools: the model's query and the tool references back. */
export function toolSearchRound(tools: ListedTool[]): string {
  const names = tools.map((t) => `mcp__${SERVER}__${t.name}`);
  return (
    JSON.stringify({ query: `select:${names.join(",")}`, max_results: names.length }) +
    JSON.stringify(names.map((n) => ({ type: "tool_reference", tool_name: n })))
  );
}

export interface Part {
  part: string;
  text: string;
  /** Sent in every request of the conversation once present (vs once, in one turn). */
  resident: boolean;
}

export interface ClaudeView {
  parts: Part[];
  results: string[];
  writes: string[];
}

/**
 * `used`: the tools the session called. The always-loaded ones are sent from the start; the model
 * loads the deferred ones it calls with one ToolSearch round (none when it calls only always-loaded
 * tools).
 */
export function composeClaudeView(o: {
  tools: ListedTool[];
  used: string[];
  instructions: string;
  resources: boolean;
  installed: InstalledClaude;
  args: string;
  results: unknown[];
  writes: unknown[];
}): ClaudeView {
  const turn = commandTurn(o.installed.command, o.args);
  const searched = o.tools.filter((t) => !alwaysLoaded(t) && o.used.includes(t.name));
  const sent = o.tools.filter((t) => alwaysLoaded(t) || searched.includes(t));
  return {
    parts: [
      {
        part: `${sent.length} autopilot tool definitions (${sent.length - searched.length} always loaded, ${searched.length} via ToolSearch)`,
        text: sent.map(toolDefinition).join(""),
        resident: true,
      },
      {
        part: "deferred-tool name lines (autopilot tools + resource tools)",
        text: deferredLines(o.tools, o.resources),
        resident: true,
      },
      {
        part: `agent-type lines of the ${o.installed.agents.length} personas`,
        text: o.installed.agents.map(agentLine).join(""),
        resident: true,
      },
      { part: "skill-list line (the /autopilot command)", text: skillLine(o.installed.command), resident: true },
      { part: "server instructions", text: instructionsBlock(o.instructions), resident: true },
      {
        part: "ToolSearch round loading the deferred tools it calls",
        text: searched.length ? toolSearchRound(searched) : "",
        resident: true,
      },
      { part: "/autopilot command text (once)", text: turn.block + turn.body, resident: true },
    ],
    results: o.results.map((r) => JSON.stringify(r)),
    writes: o.writes.map((w) => JSON.stringify(w)),
  };
}

/**
 * Where the results' bytes are (each result as an object or its JSON text): the JSON text of each
 * `report`, `todo` and `next.prompt` (the rest
 * is keys, session, stepId, state, persona, question, options: the total less these).
 */
export function resultParts(results: unknown[]): Array<{ part: string; texts: string[] }> {
  const field = (get: (o: { report?: string; todo?: string; next?: { prompt?: string } }) => string | undefined) =>
    results.flatMap((r) => {
      const v = get((typeof r === "string" ? JSON.parse(r) : (r ?? {})) as never);
      return v === undefined ? [] : [JSON.stringify(v)];
    });
  return [
    { part: "report (what the user is shown)", texts: field((o) => o.report) },
    { part: "todo", texts: field((o) => o.todo) },
    { part: "dispatch prompt", texts: field((o) => o.next?.prompt) },
  ];
}

export const bytesOf = (s: string) => Buffer.byteLength(s);
/**
 * Tokens by @anthropic-ai/tokenizer: Anthropic's published tokenizer of the earlier Claude models.
 * Claude 3 and later tokenize differently, so this approximates the count (the API's count_tokens
 * is exact but needs the network); read the figures as ±20 %.
 */
export const tokensOf = (s: string) => (s ? countTokens(s) : 0);
