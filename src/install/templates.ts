// The files install writes besides the server entry: each client's command and persona files,
// generated from the package's own skills/harness-autopilot/SKILL.md and personas/*.md.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import matter from "gray-matter";

export const PERSONA_NAMES = [
  "harness-planner",
  "harness-task-executor",
  "harness-verifier",
  "harness-code-reviewer",
] as const;

export interface Persona {
  name: string;
  description: string;
  /** The file exactly as shipped (Claude Code agent format). */
  source: string;
  /** The system prompt, without front matter. */
  body: string;
}

export function readPersonas(root: string): Persona[] {
  return PERSONA_NAMES.map((name) => {
    const source = readFileSync(join(root, "personas", `${name}.md`), "utf8");
    // gray-matter caches by content unless given options; {} keeps parses independent
    const parsed = matter(source, {});
    return { name, description: String(parsed.data.description ?? ""), source, body: parsed.content.replace(/^\n+/, "") };
  });
}

export function listSkills(root: string): string[] {
  return readdirSync(join(root, "skills"), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

export function readSkill(root: string, name: string): string {
  return readFileSync(join(root, "skills", name, "SKILL.md"), "utf8");
}

/** YAML double-quoted scalars accept JSON string syntax, so JSON.stringify quotes safely. */
function frontMatter(fields: Record<string, string | boolean | undefined>): string {
  const lines = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? JSON.stringify(v) : String(v)}`);
  return `---\n${lines.join("\n")}\n---\n`;
}

/** Cursor subagents (.cursor/agents/*.md): name, description, model. */
export function cursorAgent(p: Persona): string {
  return frontMatter({ name: p.name, description: p.description, model: "inherit" }) + "\n" + p.body;
}

/** Gemini CLI local subagents (.gemini/agents/*.md): tools omitted, so they inherit the session's. */
export function geminiAgent(p: Persona): string {
  return frontMatter({ name: p.name, description: p.description, kind: "local" }) + "\n" + p.body;
}

/** VS Code custom agents (.github/agents/*.agent.md). */
export function vscodeAgent(p: Persona): string {
  return frontMatter({ name: p.name, description: p.description }) + "\n" + p.body;
}

export const ARGUMENT_HINT = "<spec.md> [--fast|--thorough] [--review-plans]";
export const COMMAND_DESCRIPTION =
  "Carry out a multi-phase spec with the autopilot MCP server: plan, approve, execute, verify, review and commit each phase.";

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
    "Call `autopilot_start` with `spec` = the spec path (relative to the project root) and",
    "`flags` = every flag given (`--fast`, `--thorough`, `--review-plans`) as one string. Unsure",
    "which word is which? Pass the whole argument text as `spec`: the server reads the flags out",
    "of it. With no arguments, call `autopilot_status`: resume the session the user picks, or ask",
    "the user for the spec path. Each Step's `todo` says the one next thing to do.",
    ...(o.toolNaming ? ["", o.toolNaming] : []),
    "",
    o.dispatchText,
    "",
    loop,
    "",
  ].join("\n");
}

/** A Markdown command file with optional front matter (Claude Code, Cursor, Codex, VS Code). */
export function markdownCommand(fields: Record<string, string | boolean | undefined> | null, body: string): string {
  return (fields ? frontMatter(fields) + "\n" : "") + body;
}

/** A Gemini CLI command file (.gemini/commands/autopilot.toml). */
export function geminiCommand(body: string): string {
  const prompt =
    body.includes('"""') || body.includes("\\")
      ? JSON.stringify(body) // a TOML basic string accepts JSON escapes
      : `"""\n${body}"""`;
  return `description = ${JSON.stringify(COMMAND_DESCRIPTION)}\nprompt = ${prompt}\n`;
}
