// What `autopilot install <client>` writes, per client and scope. Formats, as each client
// documents them (see docs/clients.md for the sources):
// - Claude Code: .mcp.json / ~/.claude.json `mcpServers`; .claude/agents/*.md (each persona's skill
//   folded into its prompt: no .claude/skills/, which the host model would see listed on every turn);
//   .claude/commands/*.md ($ARGUMENTS).
// - Cursor: .cursor/mcp.json / ~/.cursor/mcp.json `mcpServers`; .cursor/commands/*.md;
//   .cursor/agents/*.md subagents.
// - VS Code: .vscode/mcp.json / <user profile>/mcp.json `servers` with `type: "stdio"`;
//   .github/prompts/*.prompt.md (or <user profile>/prompts/); .github/agents/*.agent.md.
// - Codex: .codex/config.toml (trusted projects) / ~/.codex/config.toml `[mcp_servers.<name>]`;
//   skills .agents/skills/<name>/SKILL.md / $CODEX_HOME/skills/<name>/SKILL.md (`$name` in a
//   prompt expands them, in `codex exec` too); ~/.codex/prompts/*.md ($ARGUMENTS), user level only.
// - Gemini CLI: .gemini/settings.json / ~/.gemini/settings.json `mcpServers`;
//   .gemini/commands/*.toml ({{args}}); .gemini/agents/*.md subagents.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { JSONC, mergeJsonServer, type JsonDialect } from "./merge.js";
import type { Client } from "./client-list.js";
import {
  SERVER_ADDS,
  SERVER_NAME,
  json,
  jsonEdits,
  listEdit,
  owned,
  sessionStartEdit,
  toml,
  type PlannedFile,
} from "./plan-files.js";
import { codexHome, vscodeUserDir } from "./paths.js";
import { MODEL_NOTES } from "./model-notes.js";
import { packageVersion, type ServerCommand } from "./server-command.js";
import {
  ARGUMENT_HINT,
  COMMAND_DESCRIPTION,
  codexSkill,
  claudeCommandBody,
  commandBody,
  claudeAgent,
  cursorAgent,
  geminiAgent,
  geminiCommand,
  geminiSessionStartGroup,
  markdownCommand,
  readPersonas,
  type Persona,
  SESSION_START_SCRIPT,
  sessionStartGroup,
  sessionStartScript,
  vscodeAgent,
} from "./templates.js";

/** Skill folders an earlier install put in .claude/skills/: install names them for deletion. */
const OLD_SKILLS = [
  "harness-autopilot",
  "harness-planning",
  "harness-execution",
  "harness-verification",
  "harness-code-review",
];

/** Gemini CLI strips comments from settings.json before parsing it; trailing commas still fail. */
const GEMINI_JSON: JsonDialect = { comments: true, trailingCommas: false };

export interface InstallOptions {
  client: Client;
  global: boolean;
  /** The project folder (project scope). */
  project: string;
  home: string;
  /** The package root: where personas/ and skills/ are read from. */
  root: string;
  server: ServerCommand;
  /** Also write the client's allow-list entries so autopilot's tools run without a prompt. */
  allow?: boolean;
}

export interface InstallPlan {
  client: Client;
  scope: "project" | "global";
  files: PlannedFile[];
  /** Where relative paths in messages start from. */
  base: string;
  /** Lines to print after the summary: how to start, what this client lacks. */
  notes: string[];
  /** What the user must know before committing what install wrote. */
  warnings: string[];
}

/** The Claude Code permission rule that allows every tool of our server (docs: `mcp__<server>`). */
const CLAUDE_ALLOW_RULE = `mcp__${SERVER_NAME}`;

/** What each client's plan starts from, and the lists it adds its files and notes to. */
interface PlanContext {
  command: string;
  args: string[];
  personas: Persona[];
  /** The package's personas/ folder, for clients that read the persona files from there. */
  packagePersonas: string;
  files: PlannedFile[];
  notes: string[];
}

function planClaude(o: InstallOptions, { command, args, personas, files, notes }: PlanContext): void {
  const dir = o.global ? join(o.home, ".claude") : join(o.project, ".claude");
  files.push(
    o.global
      ? json(join(o.home, ".claude.json"), "mcpServers", { type: "stdio", command, args })
      : json(join(o.project, ".mcp.json"), "mcpServers", { type: "stdio", command, args }),
  );
  for (const p of personas) files.push(owned(join(dir, "agents", `${p.name}.md`), claudeAgent(p)));
  // The SessionStart hook: after /clear, a compaction or a restart the model is told which
  // session is in progress. Project: the shared settings, the script found from the project
  // root Claude Code names; --global: the user settings, the script by its absolute path.
  const hookScript = join(dir, "hooks", SESSION_START_SCRIPT);
  files.push(owned(hookScript, sessionStartScript(o.root)));
  const hook = sessionStartEdit(
    sessionStartGroup(
      o.global
        ? `node ${JSON.stringify(hookScript)}`
        : `node "$CLAUDE_PROJECT_DIR/.claude/hooks/${SESSION_START_SCRIPT}"`,
    ),
  );
  // With --allow: project, the personal settings file (trusting a server is each user's call;
  // Claude Code writes its own "don't ask again" answers there too); --global, the user settings.
  if (o.global)
    files.push(
      jsonEdits(join(dir, "settings.json"), [
        hook,
        ...(o.allow ? [listEdit(["permissions", "allow"], [CLAUDE_ALLOW_RULE])] : []),
      ]),
    );
  else {
    files.push(jsonEdits(join(dir, "settings.json"), [hook]));
    if (o.allow)
      files.push(
        jsonEdits(join(dir, "settings.local.json"), [
          listEdit(["permissions", "allow"], [CLAUDE_ALLOW_RULE]),
          listEdit(["enabledMcpjsonServers"], [SERVER_NAME]),
        ]),
      );
  }
  const oldSkills = OLD_SKILLS.filter((s) => existsSync(join(dir, "skills", s, "SKILL.md")));
  if (oldSkills.length > 0) {
    notes.push(
      `No longer used: ${oldSkills.map((s) => `${o.global ? "~/.claude" : ".claude"}/skills/${s}/`).join(", ")} (from an earlier install; each persona now carries its method). Claude Code lists them to the model on every turn: delete them.`,
    );
  }
  const body = claudeCommandBody();
  files.push(
    owned(
      join(dir, "commands", "autopilot.md"),
      markdownCommand({ description: COMMAND_DESCRIPTION, "argument-hint": ARGUMENT_HINT }, body),
    ),
  );
  notes.push(
    "Start: /autopilot docs/changes/<topic>/proposal.md --fast  (or the MCP prompt /mcp__autopilot__start)",
    MODEL_NOTES.claude,
    'After /clear, a compaction or a restart, say "continue": the SessionStart hook in settings.json tells the model which session is in progress (Claude Code\'s folder-trust question mentions this hook).',
    o.global
      ? ""
      : o.allow
        ? "The project's `autopilot` server is approved in .claude/settings.local.json; Claude Code still asks once whether you trust this folder."
        : "Claude Code asks once to approve the project's .mcp.json servers: approve `autopilot` (or install with --allow).",
  );
}

function planCursor(o: InstallOptions, { command, args, personas, files, notes }: PlanContext): void {
  const dir = o.global ? join(o.home, ".cursor") : join(o.project, ".cursor");
  files.push(json(join(dir, "mcp.json"), "mcpServers", { command, args }));
  for (const p of personas) files.push(owned(join(dir, "agents", `${p.name}.md`), cursorAgent(p)));
  const body = commandBody(o.root, {
    argumentsText: "the text the user typed after `/autopilot`.",
    dispatchText: `Personas are Cursor subagents (\`${o.global ? "~/.cursor/agents/" : ".cursor/agents/"}\`): delegate to the subagent the Step names, with the prompt it gives. If subagents are not available, follow the persona file yourself.`,
  });
  files.push(owned(join(dir, "commands", "autopilot.md"), markdownCommand(null, body)));
  notes.push(
    "Start: in Agent chat, /autopilot docs/changes/<topic>/proposal.md --fast",
    "Enable the `autopilot` server under Cursor Settings > MCP if Cursor lists it as disabled.",
    MODEL_NOTES.inherit("Cursor"),
  );
  if (o.allow)
    notes.push(
      "--allow: Cursor keeps tool approvals in its settings UI, not in a file install can write: allow the autopilot tools when Cursor first asks (or turn on auto-run).",
    );
}

function planVscode(o: InstallOptions, { command, args, personas, packagePersonas, files, notes }: PlanContext): void {
  const userDir = vscodeUserDir(o.home);
  files.push(
    json(
      o.global ? join(userDir, "mcp.json") : join(o.project, ".vscode", "mcp.json"),
      "servers",
      { type: "stdio", command, args },
      JSONC,
    ),
  );
  let personaText: string;
  if (o.global) {
    personaText = `There are no persona agents at user level: when a Step says dispatch, read \`${packagePersonas}/<persona>.md\` and do that persona's work yourself (in a subagent if your chat offers one).`;
  } else {
    for (const p of personas)
      files.push(owned(join(o.project, ".github", "agents", `${p.name}.agent.md`), vscodeAgent(p)));
    personaText =
      "Personas are custom agents in `.github/agents/<persona>.agent.md`. Run the one the Step names as a subagent, with the prompt it gives, when your chat offers subagents; otherwise read that file and do the persona's work yourself.";
  }
  const body = commandBody(o.root, {
    argumentsText: "the text the user typed after `/autopilot`.",
    dispatchText: personaText,
  });
  files.push(
    owned(
      o.global
        ? join(userDir, "prompts", "autopilot.prompt.md")
        : join(o.project, ".github", "prompts", "autopilot.prompt.md"),
      markdownCommand({ description: COMMAND_DESCRIPTION, "argument-hint": ARGUMENT_HINT, agent: "agent" }, body),
    ),
  );
  notes.push(
    "Start: in Copilot Chat (Agent mode), /autopilot docs/changes/<topic>/proposal.md --fast",
    "Start the server from the mcp.json CodeLens or MCP: List Servers if VS Code does not start it by itself.",
    MODEL_NOTES.inherit("VS Code"),
  );
  if (o.allow)
    notes.push(
      '--allow: VS Code keeps tool approvals in its own state, not in mcp.json: choose "Always allow" for the autopilot server when Copilot first asks.',
    );
}

function planCodex(o: InstallOptions, { command, args, packagePersonas, files, notes }: PlanContext): void {
  const home = codexHome(o.home);
  files.push(
    toml(o.global ? join(home, "config.toml") : join(o.project, ".codex", "config.toml"), {
      command,
      args,
      // Codex's server-level approval default: every autopilot tool runs without asking
      ...(o.allow ? { default_tools_approval_mode: "approve" } : {}),
    }),
  );
  // Codex runs personas as its own subagents (spawn_agent / wait_agent / close_agent, Codex
  // 0.169); this skill (and the prompt) asks for them explicitly, as Codex wants before it spawns.
  const dispatchText = `This skill asks you to use Codex sub-agents: for each Step whose \`next.kind\` is dispatch, call spawn_agent with \`model\` = \`next.model\` (the persona's model, as this skill asks) and a message that starts "You are <next.persona>: follow \`${packagePersonas}/<next.persona>.md\`." followed by \`next.prompt\`, then wait_agent for its final answer and close_agent; report the JSON in that answer. The Step's \`todo\` names the exact calls. Without the multi-agent tools, read that file and do the persona's work yourself.`;
  // A skill is what `codex exec` expands: `$autopilot <spec> <flags>` puts this text in front
  // of the model with the line the user typed (custom prompts are not expanded headless).
  const skill = codexSkill(
    commandBody(o.root, {
      argumentsText: "the words after `$autopilot` in the user's message: the spec path, then the flags.",
      dispatchText,
    }),
  );
  files.push(
    owned(
      o.global
        ? join(home, "skills", "autopilot", "SKILL.md")
        : join(o.project, ".agents", "skills", "autopilot", "SKILL.md"),
      skill,
    ),
  );
  // The SessionStart hook (hooks.json next to the config layer). Codex runs hooks from the
  // session's folder, so a project's script is found from the repository root.
  const codexDir = o.global ? home : join(o.project, ".codex");
  const hookScript = join(codexDir, "hooks", SESSION_START_SCRIPT);
  files.push(owned(hookScript, sessionStartScript(o.root)));
  files.push(
    jsonEdits(join(codexDir, "hooks.json"), [
      sessionStartEdit(
        sessionStartGroup(
          o.global
            ? `node ${JSON.stringify(hookScript)}`
            : `node "$(git rev-parse --show-toplevel)/.codex/hooks/${SESSION_START_SCRIPT}"`,
        ),
      ),
    ]),
  );
  notes.push(
    "Codex runs a new hook only once you trust it: open /hooks in Codex and trust the autopilot SessionStart hook (it tells the model which session is in progress after /clear or a restart).",
    MODEL_NOTES.codex,
  );
  if (o.global) {
    const body = commandBody(o.root, { argumentsText: "$ARGUMENTS", dispatchText });
    files.push(
      owned(
        join(home, "prompts", "autopilot.md"),
        markdownCommand({ description: COMMAND_DESCRIPTION, "argument-hint": ARGUMENT_HINT }, body),
      ),
    );
    notes.push(
      "Start: $autopilot docs/changes/<topic>/proposal.md --fast  (the autopilot skill, also in `codex exec`; in the interactive TUI /prompts:autopilot works too)",
    );
  } else {
    notes.push(
      "Start: $autopilot docs/changes/<topic>/proposal.md --fast  (the autopilot skill, also in `codex exec`)",
      'Codex reads .codex/config.toml only in a trusted project: trust it when Codex asks, run `codex exec --trust ...` once, or set trust_level = "trusted" under [projects."<this folder>"] in ~/.codex/config.toml. Or install with --global.',
    );
  }
}

function planGemini(o: InstallOptions, { command, args, personas, files, notes }: PlanContext): void {
  const dir = o.global ? join(o.home, ".gemini") : join(o.project, ".gemini");
  // `trust: true` makes Gemini CLI skip the confirmation for this server's tools
  const hookScript = join(dir, "hooks", SESSION_START_SCRIPT);
  files.push(owned(hookScript, sessionStartScript(o.root)));
  files.push(
    jsonEdits(join(dir, "settings.json"), [
      {
        adds: SERVER_ADDS,
        apply: (path, text) =>
          mergeJsonServer(
            path,
            text,
            "mcpServers",
            SERVER_NAME,
            { command, args, ...(o.allow ? { trust: true } : {}) },
            GEMINI_JSON,
          ).text,
      },
      sessionStartEdit(
        geminiSessionStartGroup(
          `node ${o.global ? JSON.stringify(hookScript) : `"$GEMINI_PROJECT_DIR/.gemini/hooks/${SESSION_START_SCRIPT}"`} --json`,
        ),
        GEMINI_JSON,
      ),
    ]),
  );
  for (const p of personas) files.push(owned(join(dir, "agents", `${p.name}.md`), geminiAgent(p)));
  const body = commandBody(o.root, {
    argumentsText: "{{args}}",
    dispatchText: `Personas are Gemini CLI subagents (\`${o.global ? "~/.gemini/agents/" : ".gemini/agents/"}\`): call \`invoke_agent\` with \`agent_name\` = the persona the Step names and \`prompt\` = the prompt it gives. If that agent is not available, read its file and do the persona's work yourself.`,
  });
  files.push(owned(join(dir, "commands", "autopilot.toml"), geminiCommand(body)));
  notes.push(
    "Start: /autopilot docs/changes/<topic>/proposal.md --fast",
    "Check the server with /mcp; reload commands with /commands reload.",
    MODEL_NOTES.gemini(o.global ? "~/.gemini/agents/" : ".gemini/agents/"),
    "Gemini CLI loads MCP servers only in a trusted folder: trust it when asked (headless: GEMINI_CLI_TRUST_WORKSPACE=true).",
    o.global
      ? ""
      : "Gemini CLI registers project agents (.gemini/agents) only after you acknowledge them in an interactive session; for headless use (gemini -p) install with --global instead.",
  );
}

/** Each client's plan: a Record over the client list, so a client without one does not compile. */
const PLANS: Record<Client, (o: InstallOptions, c: PlanContext) => void> = {
  claude: planClaude,
  cursor: planCursor,
  vscode: planVscode,
  codex: planCodex,
  gemini: planGemini,
};

/** Every file one install writes, with its content before and after. Reads only; throws on a file it must not touch. */
export function planInstall(o: InstallOptions): InstallPlan {
  const { command, args } = o.server;
  const base = o.global ? o.home : o.project;
  const files: PlannedFile[] = [];
  const notes: string[] = [];
  const scope = o.global ? "global" : "project";
  PLANS[o.client](o, {
    command,
    args,
    personas: readPersonas(o.root),
    packagePersonas: join(o.root, "personas"),
    files,
    notes,
  });
  if (!o.global) {
    const ignore = sessionsIgnoreNote(o.project);
    if (ignore) notes.push(ignore);
  }
  const warnings: string[] = [];
  if (o.server.machineLocal && !o.global) {
    const config = files.find((f) => f.merged)!;
    warnings.push(
      `${relative(o.project, config.path)} now starts the server with \`${[command, ...args].join(" ")}\`, a path that only exists on this machine. ` +
        `Do not commit it as it is: put autopilot on your PATH (\`npm link\` in the checkout, or \`npm i -g\` the package) and run install again to write \`autopilot serve\`, ` +
        `or pass --command "npx -y autopilot-mcp@${packageVersion(o.root)} serve" (works once that version is published), or install with --global to keep it in your user config.`,
    );
  }
  return { client: o.client, scope, files, base, notes: notes.filter((n) => n.length > 0), warnings };
}

/** The lines install offers for the project's .gitignore (it never edits that file itself). */
const IGNORE_LINES = [".harness/sessions/"];

/**
 * When the project is a git repository that does not ignore autopilot's per-session working files
 * yet: the lines to add to .gitignore, and what under .harness/ is worth committing. Null when git
 * already ignores them, or the folder is no git repository (or git is missing).
 */
export function sessionsIgnoreNote(project: string): string | null {
  const probe = spawnSync("git", ["check-ignore", "-q", "--", ".harness/sessions/x/autopilot-state.json"], {
    cwd: project,
    encoding: "utf8",
  });
  // 0: ignored; 1: not ignored; anything else (128: not a repository; no git): nothing to offer.
  if (probe.status !== 1) return null;
  return `autopilot keeps each session's working files (state, briefs, reviews) in .harness/sessions/: keep them out of git by adding to .gitignore:\n  ${IGNORE_LINES.join("\n  ")}\n(.harness/learnings.md and .harness/failures.md are worth committing.)`;
}
