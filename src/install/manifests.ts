// The plugin, extension and registry manifests the repository ships, generated from package.json and
// the same templates `autopilot install` writes from (./templates.ts), so the persona and command
// texts have one source. `npm run manifests` writes them; `npm test` fails when a checked-in file is
// not what this module makes (tests/install/manifests.test.ts). Formats, as each client documents
// and validates them (docs/clients.md, "Plugins, extensions and the MCP Registry"):
// - Claude Code: a marketplace (.claude-plugin/marketplace.json at the repository root) listing one
//   plugin in plugins/claude/ (.claude-plugin/plugin.json with the server inline, agents/*.md,
//   commands/*.md, hooks/hooks.json). A plugin's agents are named <plugin>:<agent> and its server's
//   tools mcp__plugin_<plugin>_<server>__<tool>.
// - Codex: a repository marketplace (.agents/plugins/marketplace.json) listing plugins/codex/
//   (.codex-plugin/plugin.json, .mcp.json, skills/<name>/SKILL.md, hooks/hooks.json).
// - Gemini CLI: an extension folder, plugins/gemini/ (gemini-extension.json with the server,
//   commands/*.toml, agents/*.md, hooks/hooks.json).
// Each carries the SessionStart hook `autopilot install` writes (the same script, in the package's
// hooks/ folder), run from the plugin's own folder: no project install needed.
// - MCP Registry: server.json at the root (schema 2025-12-11), named by package.json `mcpName`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_NAME } from "./server-command.js";
import {
  ARGUMENT_HINT,
  COMMAND_DESCRIPTION,
  claudeAgent,
  claudeCommandBody,
  codexSkill,
  commandBody,
  geminiAgent,
  geminiCommand,
  markdownCommand,
  geminiSessionStartGroup,
  readPersonas,
  SESSION_START_SCRIPT,
  sessionStartGroup,
  sessionStartScript,
} from "./templates.js";

/** The plugin (and extension) name: Claude Code namespaces its parts with it (`autopilot:<agent>`). */
const PLUGIN_NAME = "autopilot";
/** The Claude Code marketplace's name: `/plugin install autopilot@autopilot`. */
const MARKETPLACE_NAME = "autopilot";
/** The MCP server's name inside each plugin, as in `autopilot install`. */
const SERVER = "autopilot";
export const REGISTRY_SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/** Where each client's package sits in the repository. */
export const PLUGIN_DIRS = { claude: "plugins/claude", codex: "plugins/codex", gemini: "plugins/gemini" } as const;

export interface ManifestFile {
  /** Relative to the repository root, with `/`. */
  path: string;
  content: string;
}

interface PackageJson {
  name: string;
  version: string;
  description: string;
  license: string;
  author: string;
  keywords: string[];
  mcpName: string;
}

function readPackageJson(root: string): PackageJson {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Partial<PackageJson>;
  for (const k of ["name", "version", "description", "license", "author", "mcpName"] as const) {
    if (typeof pkg[k] !== "string" || pkg[k].length === 0)
      throw new Error(`package.json has no "${k}": the manifests are made from it`);
  }
  return { keywords: [], ...pkg } as PackageJson;
}

/** `npx -y autopilot-mcp@<version> serve [...]`: the exact published version, as install writes it. */
function pluginServerCommand(version: string, extra: string[] = []): { command: string; args: string[] } {
  return { command: "npx", args: ["-y", `${PACKAGE_NAME}@${version}`, "serve", ...extra] };
}

/** The registry allows 100 characters: the package description up to its colon. */
function shortDescription(description: string): string {
  const head = description.split(":")[0].trim();
  if (head.length > 100)
    throw new Error(
      `package.json description before its first ":" is ${head.length} characters; the MCP Registry allows 100`,
    );
  return head;
}

const json = (v: unknown) => JSON.stringify(v, null, 2) + "\n";

/**
 * The SessionStart hook inside a plugin: the script in the plugin's hooks/ folder and hooks/hooks.json
 * (the file each of the three clients reads from a plugin or extension by default), whose command
 * finds the script through the variable the client gives a plugin's hooks (Claude Code
 * `${CLAUDE_PLUGIN_ROOT}`, Codex `${PLUGIN_ROOT}`, Gemini CLI `${extensionPath}`).
 */
function pluginHook(root: string, dir: string, group: Record<string, unknown>): ManifestFile[] {
  return [
    { path: `${dir}/hooks/hooks.json`, content: json({ hooks: { SessionStart: [group] } }) },
    { path: `${dir}/hooks/${SESSION_START_SCRIPT}`, content: sessionStartScript(root) },
  ];
}

function claudePlugin(root: string, pkg: PackageJson): ManifestFile[] {
  const dir = PLUGIN_DIRS.claude;
  const author = { name: pkg.author };
  const files: ManifestFile[] = [
    {
      path: ".claude-plugin/marketplace.json",
      content: json({
        name: MARKETPLACE_NAME,
        owner: author,
        description: `${pkg.description} The Claude Code plugin.`,
        plugins: [
          {
            name: PLUGIN_NAME,
            source: `./${dir}`,
            description: pkg.description,
            version: pkg.version,
            author,
            license: pkg.license,
            keywords: pkg.keywords,
          },
        ],
      }),
    },
    {
      path: `${dir}/.claude-plugin/plugin.json`,
      content: json({
        name: PLUGIN_NAME,
        version: pkg.version,
        description: pkg.description,
        author,
        license: pkg.license,
        keywords: pkg.keywords,
        // The plugin's agents are `autopilot:<persona>`: the server names them so in each todo.
        mcpServers: {
          [SERVER]: { type: "stdio", ...pluginServerCommand(pkg.version, ["--agent-prefix", `${PLUGIN_NAME}:`]) },
        },
      }),
    },
  ];
  for (const p of readPersonas(root))
    files.push({
      path: `${dir}/agents/${p.name}.md`,
      content: claudeAgent(p, `mcp__plugin_${PLUGIN_NAME}_${SERVER}__`),
    });
  files.push({
    path: `${dir}/commands/autopilot.md`,
    content: markdownCommand(
      { description: COMMAND_DESCRIPTION, "argument-hint": ARGUMENT_HINT },
      claudeCommandBody(`mcp__plugin_${PLUGIN_NAME}_${SERVER}__`),
    ),
  });
  files.push(
    ...pluginHook(root, dir, sessionStartGroup(`node "\${CLAUDE_PLUGIN_ROOT}/hooks/${SESSION_START_SCRIPT}"`)),
  );
  return files;
}

function codexPlugin(root: string, pkg: PackageJson): ManifestFile[] {
  const dir = PLUGIN_DIRS.codex;
  // As `autopilot install codex` says it, without a path on this machine: the server's own todo
  // names the persona file inside the package npx started.
  const dispatchText =
    "This skill asks you to use Codex sub-agents: for each Step whose `next.kind` is dispatch, call spawn_agent with the message the Step's `todo` gives (\"You are <next.persona>: follow <its persona file>.\") followed by `next.prompt`, then wait_agent for its final answer and close_agent; report the JSON in that answer. Without the multi-agent tools, read that persona file and do the persona's work yourself.";
  return [
    {
      path: ".agents/plugins/marketplace.json",
      content: json({
        name: MARKETPLACE_NAME,
        interface: { displayName: "autopilot" },
        plugins: [
          {
            name: PLUGIN_NAME,
            source: { source: "local", path: `./${dir}` },
            policy: { installation: "AVAILABLE", authentication: "ON_INSTALL" },
            category: "Coding",
          },
        ],
      }),
    },
    {
      path: `${dir}/.codex-plugin/plugin.json`,
      content: json({
        name: PLUGIN_NAME,
        version: pkg.version,
        description: pkg.description,
        author: { name: pkg.author },
        license: pkg.license,
        keywords: pkg.keywords,
        skills: "./skills/",
        mcpServers: "./.mcp.json",
        interface: {
          displayName: "autopilot",
          shortDescription: shortDescription(pkg.description),
          developerName: pkg.author,
          category: "Coding",
          defaultPrompt: ["$autopilot:autopilot docs/changes/<topic>/proposal.md --fast"],
        },
      }),
    },
    {
      path: `${dir}/.mcp.json`,
      // `codex exec` sends its first turn without waiting for servers that are not required: the
      // skill would reach the model before autopilot's tools. A minute for npx's first download; ten
      // for a tool call (one runs the project's validation commands).
      content: json({
        mcpServers: {
          [SERVER]: {
            ...pluginServerCommand(pkg.version),
            required: true,
            startup_timeout_sec: 60,
            tool_timeout_sec: 600,
          },
        },
      }),
    },
    {
      path: `${dir}/skills/autopilot/SKILL.md`,
      content: codexSkill(
        // Codex names a plugin's skill <plugin>:<skill>: the user types `$autopilot:autopilot`.
        commandBody(root, {
          argumentsText: "the words after `$autopilot:autopilot` in the user's message: the spec path, then the flags.",
          dispatchText,
        }),
      ),
    },
    // Codex runs a plugin's hook only once the user has trusted it in /hooks, as for any hook.
    ...pluginHook(root, dir, sessionStartGroup(`node "\${PLUGIN_ROOT}/hooks/${SESSION_START_SCRIPT}"`)),
  ];
}

function geminiExtension(root: string, pkg: PackageJson): ManifestFile[] {
  const dir = PLUGIN_DIRS.gemini;
  const files: ManifestFile[] = [
    {
      path: `${dir}/gemini-extension.json`,
      content: json({
        name: PLUGIN_NAME,
        version: pkg.version,
        description: pkg.description,
        mcpServers: { [SERVER]: pluginServerCommand(pkg.version) },
      }),
    },
    {
      path: `${dir}/commands/autopilot.toml`,
      content: geminiCommand(
        commandBody(root, {
          argumentsText: "{{args}}",
          dispatchText:
            "Personas are this extension's subagents: call `invoke_agent` with `agent_name` = `next.persona` and `prompt` = `next.prompt`. If that agent is not available, read its file and do the persona's work yourself.",
        }),
      ),
    },
  ];
  for (const p of readPersonas(root)) files.push({ path: `${dir}/agents/${p.name}.md`, content: geminiAgent(p) });
  files.push(
    ...pluginHook(
      root,
      dir,
      geminiSessionStartGroup(`node "\${extensionPath}\${/}hooks\${/}${SESSION_START_SCRIPT}" --json`),
    ),
  );
  return files;
}

/** The MCP Registry entry: the npm package, started over stdio with `serve`. */
function registryEntry(pkg: PackageJson): ManifestFile {
  return {
    path: "server.json",
    content: json({
      $schema: REGISTRY_SCHEMA_URL,
      name: pkg.mcpName,
      title: "autopilot",
      description: shortDescription(pkg.description),
      version: pkg.version,
      packages: [
        {
          registryType: "npm",
          identifier: pkg.name,
          version: pkg.version,
          runtimeHint: "npx",
          transport: { type: "stdio" },
          packageArguments: [{ type: "positional", value: "serve" }],
        },
      ],
    }),
  };
}

/** Every generated file, in a fixed order. */
export function buildManifests(root: string): ManifestFile[] {
  const pkg = readPackageJson(root);
  return [...claudePlugin(root, pkg), ...codexPlugin(root, pkg), ...geminiExtension(root, pkg), registryEntry(pkg)];
}
