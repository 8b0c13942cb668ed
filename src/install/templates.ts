// The files install writes besides the server entry: each client's command and persona files,
// generated from the package's own skills/harness-autopilot/SKILL.md and personas/*.md.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import matter from "gray-matter";
import { agentFileModel, roleOf } from "../session/models.js";
import { PERSONAS, type PersonaName } from "../vocabulary.js";

/** The skill whose method each persona follows (skills/<skill>/SKILL.md). */
const PERSONA_SKILLS: Record<PersonaName, string> = {
  "harness-planner": "harness-planning",
  "harness-task-executor": "harness-execution",
  "harness-verifier": "harness-verification",
  "harness-code-reviewer": "harness-code-review",
};

export interface Persona {
  name: PersonaName;
  description: string;
  /** The persona's `tools:` line (Claude Code tool names), when it has one. */
  tools: string | undefined;
  /** The system prompt, without front matter, with the persona's skill folded in. */
  body: string;
}

/** Moves Markdown headings one level down (# → ##), leaving fenced code blocks alone. */
function demoteHeadings(text: string): string {
  let fence: string | null = null;
  return text
    .split("\n")
    .map((line) => {
      const f = /^(```|~~~)/.exec(line);
      if (f) fence = fence === null ? f[1] : fence === f[1] ? null : fence;
      return fence === null && !f && /^#{1,5} /.test(line) ? `#${line}` : line;
    })
    .join("\n");
}

/**
 * The persona's skill, as a section of its prompt: a subagent does not load skills by itself
 * (and skills installed for the host are listed to the host model on every turn), so the method
 * travels inside the agent file. It goes before the final-message section, which stays last.
 */
function foldSkill(body: string, skillName: string, skillSource: string): string {
  const content = matter(skillSource, {}).content.trim();
  const title = /^# (.+)\n+/.exec(content);
  const rest = title ? content.slice(title[0].length) : content;
  const section = `## Method: ${title ? title[1] : skillName} (skill \`${skillName}\`)\n\n${demoteHeadings(rest)}\n`;
  const at = body.search(/^## Your final message/m);
  return at < 0 ? `${body.trimEnd()}\n\n${section}` : `${body.slice(0, at)}${section}\n${body.slice(at)}`;
}

export function readPersonas(root: string): Persona[] {
  return PERSONAS.map((name) => {
    const source = readFileSync(join(root, "personas", `${name}.md`), "utf8");
    // gray-matter caches by content unless given options; {} keeps parses independent
    const parsed = matter(source, {});
    const body = foldSkill(
      parsed.content.replace(/^\n+/, ""),
      PERSONA_SKILLS[name],
      readSkill(root, PERSONA_SKILLS[name]),
    );
    const tools = parsed.data.tools === undefined ? undefined : String(parsed.data.tools);
    return { name, description: String(parsed.data.description ?? ""), tools, body };
  });
}

function readSkill(root: string, name: string): string {
  return readFileSync(join(root, "skills", name, "SKILL.md"), "utf8");
}

/** YAML double-quoted scalars accept JSON string syntax, so JSON.stringify quotes safely. */
function frontMatter(fields: Record<string, string | boolean | undefined>): string {
  const lines = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? JSON.stringify(v) : String(v)}`);
  return `---\n${lines.join("\n")}\n---\n`;
}

/**
 * Claude Code subagents (.claude/agents/*.md): name, description, tools (comma-separated), and the
 * model of the persona's default tier (src/session/models.ts); a Step names another model in the
 * Agent call where a dispatch runs on another (src/personas/models.ts).
 */
export function claudeAgent(p: Persona, toolPrefix = "mcp__autopilot__"): string {
  // A persona's autopilot tool (autopilot_result) under the name this install's server gives it.
  const tools = p.tools?.split("mcp__autopilot__").join(toolPrefix);
  const model = agentFileModel("claude-code", roleOf(p.name));
  return frontMatter({ name: p.name, description: p.description, tools, model }) + "\n" + p.body;
}

/** Cursor subagents (.cursor/agents/*.md): name, description, model. */
export function cursorAgent(p: Persona): string {
  return frontMatter({ name: p.name, description: p.description, model: "inherit" }) + "\n" + p.body;
}

/**
 * Gemini CLI local subagents (.gemini/agents/*.md): tools omitted, so they inherit the session's;
 * the model of the persona's default tier (Gemini CLI's invoke_agent takes no model: this is the
 * only place a persona's model can be set for Gemini CLI).
 */
export function geminiAgent(p: Persona): string {
  const model = agentFileModel("gemini", roleOf(p.name));
  return frontMatter({ name: p.name, description: p.description, kind: "local", model }) + "\n" + p.body;
}

/** VS Code custom agents (.github/agents/*.agent.md). */
export function vscodeAgent(p: Persona): string {
  return frontMatter({ name: p.name, description: p.description }) + "\n" + p.body;
}

export const ARGUMENT_HINT = "<spec.md> [--fast|--thorough] [--review-plans]";
export const COMMAND_DESCRIPTION = "Run a spec with autopilot: plan, execute, verify, review, commit.";

export interface CommandOptions {
  /** How this client writes the user's arguments into the prompt. */
  argumentsText: string;
  /** How this client runs a persona. */
  dispatchText: string;
  /** How this client names the autopilot tools, when it prefixes them. */
  toolNaming?: string;
}

/** The body every client's command shares: the autopilot skill, preceded by the arguments. */
export function commandBody(root: string, o: CommandOptions): string {
  const skill = matter(readSkill(root, "harness-autopilot"), {}).content.trim();
  const loop = skill.replace(/^# .*\n+/, "");
  return [
    "# Autopilot",
    "",
    `Arguments: ${o.argumentsText}`,
    "",
    "The first word is the spec path (a quoted path with spaces is one word), the rest are flags. With no arguments, call `autopilot_status`",
    "and ask the user which session to resume (by its spec path) or which spec to run.",
    ...(o.toolNaming ? ["", o.toolNaming] : []),
    "",
    o.dispatchText,
    "",
    loop,
    "",
  ].join("\n");
}

/**
 * Claude Code's command body: a few lines, since Claude Code puts it in the conversation, where
 * every later request carries it. Each Step's `todo` says the rest (the Agent tool, the call after).
 * `toolPrefix`: how Claude Code names the server's tools (a plugin's: `mcp__plugin_<plugin>_<server>__`).
 */
export function claudeCommandBody(toolPrefix = "mcp__autopilot__"): string {
  return [
    "Arguments: $ARGUMENTS",
    "",
    `Call ${toolPrefix}autopilot_start with \`spec\` = the first word of the arguments (a quoted path is one word, unquoted) and \`flags\` = the other words. No arguments at all: call autopilot_status and ask the user which session or spec.`,
    "Each result is a Step: show the user its `report`, then do its `todo` (none: as the last Step of that kind said). Never plan, execute or review yourself. Later (new conversation, a context reset): autopilot_start with its spec path resumes it (autopilot_next with its session too).",
    "",
  ].join("\n");
}

/** A Markdown command file with optional front matter (Claude Code, Cursor, Codex, VS Code). */
export function markdownCommand(fields: Record<string, string | boolean | undefined> | null, body: string): string {
  return (fields ? frontMatter(fields) + "\n" : "") + body;
}

/** A Codex skill (SKILL.md with `name` and `description`): `$autopilot ...` in a prompt expands it. */
export function codexSkill(body: string): string {
  return frontMatter({ name: "autopilot", description: COMMAND_DESCRIPTION }) + "\n" + body;
}

/** A Gemini CLI command file (.gemini/commands/autopilot.toml). */
export function geminiCommand(body: string): string {
  const prompt =
    body.includes('"""') || body.includes("\\")
      ? JSON.stringify(body) // a TOML basic string accepts JSON escapes
      : `"""\n${body}"""`;
  return `description = ${JSON.stringify(COMMAND_DESCRIPTION)}\nprompt = ${prompt}\n`;
}

/**
 * The SessionStart hook (the package's hooks/autopilot-session-start.mjs, copied next to the
 * client's settings): one line for the model when the project has an autopilot session in progress,
 * so "continue" after /clear, a compaction or a new client picks it up.
 */
export const SESSION_START_SCRIPT = "autopilot-session-start.mjs";

export function sessionStartScript(root: string): string {
  return readFileSync(join(root, "hooks", SESSION_START_SCRIPT), "utf8");
}

/** The sources a SessionStart hook fires on (Claude Code and Codex match them; Gemini CLI fires on all). */
const SESSION_START_SOURCES = "startup|resume|clear|compact";

/** Claude Code's and Codex's hook group: `hooks.SessionStart[]` entry running `command` (time-out in seconds). */
export function sessionStartGroup(command: string): Record<string, unknown> {
  return { matcher: SESSION_START_SOURCES, hooks: [{ type: "command", command, timeout: 10 }] };
}

/** Gemini CLI's hook group: no matcher (it fires on startup, resume and clear), time-out in milliseconds, JSON output. */
export function geminiSessionStartGroup(command: string): Record<string, unknown> {
  return { hooks: [{ type: "command", name: "autopilot-session-start", command, timeout: 10_000 }] };
}

/** A hook group install wrote: one of its hooks runs our script. */
export function isSessionStartGroup(group: unknown): boolean {
  const hooks = (group as { hooks?: unknown } | null)?.hooks;
  return (
    Array.isArray(hooks) &&
    hooks.some(
      (h) =>
        typeof (h as { command?: unknown })?.command === "string" &&
        (h as { command: string }).command.includes(SESSION_START_SCRIPT),
    )
  );
}
