// `autopilot install <client> [--global] [--allow] [--dry-run] [--project DIR] [--command CMD]`
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import {
  CLIENT_NAMES,
  applyPlan,
  changeOf,
  displayPath,
  homeDir,
  packageRoot,
  planInstall,
  isClient,
  resolveServerCommand,
  summaryLine,
  unifiedDiff,
} from "../../install/index.js";
import { UsageError, parseCliArgs } from "../usage.js";

const USAGE = `usage: autopilot install ${CLIENT_NAMES.join("|")} [--global] [--allow] [--dry-run] [--project DIR] [--command "CMD ARGS..."]

  --global      write the user-level config (home folder) instead of the project's
  --allow       also let autopilot's tools run without a permission prompt (Claude Code: permissions.allow
                in .claude/settings.local.json, or ~/.claude/settings.json with --global; Codex:
                default_tools_approval_mode; Gemini CLI: trust)
  --dry-run     show what would change, write nothing
  --project     the project folder (default: the current folder)
  --command     how the client starts the server (default: "autopilot serve" when the autopilot command
                on PATH is this package; "npx -y autopilot-mcp@<version> serve" when run through npx or
                installed as a dependency; else node <this checkout>/dist/src/cli/main.js serve, with a warning)`;

/** What a spec needs, said once after every install: the first thing a newcomer's own spec can lack. */
export const SPEC_HINT =
  "The spec: a Markdown file with an `## Implementation Order` section and one `### Phase 1: Name` heading per phase; `autopilot spec FILE` shows the phases autopilot reads.";

export function run(argv: string[]): Promise<number> {
  return Promise.resolve(install(argv));
}

function install(argv: string[]): number {
  const parsed = parseCliArgs(
    {
      args: argv,
      allowPositionals: true,
      options: {
        global: { type: "boolean", default: false },
        allow: { type: "boolean", default: false },
        "dry-run": { type: "boolean", default: false },
        project: { type: "string" },
        command: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    },
    USAGE,
  );
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  const client = positionals.length === 1 ? positionals[0] : undefined;
  if (client === undefined || !isClient(client)) {
    throw new UsageError(
      `${positionals.length === 0 ? "which client?" : `unknown client "${positionals.join(" ")}"`}\n${USAGE}`,
    );
  }
  if (values.global && values.project !== undefined)
    throw new UsageError("--project and --global cannot be used together");
  const project = resolve(values.project ?? process.cwd());
  if (!values.global && (!existsSync(project) || !statSync(project).isDirectory())) {
    throw new UsageError(`--project ${project} is not a folder`);
  }

  const root = packageRoot();
  const server = resolveServerCommand(root, values.command);
  const plan = planInstall({
    client,
    global: values.global ?? false,
    project,
    home: homeDir(),
    root,
    server,
    allow: values.allow ?? false,
  });
  const dryRun = values["dry-run"] ?? false;
  const out = process.stdout;

  const changed = plan.files.filter((f) => changeOf(f) !== "unchanged");
  out.write(`autopilot install ${client} (${plan.scope}${plan.scope === "project" ? `: ${project}` : ""})\n`);
  out.write(`server command: ${[server.command, ...server.args].join(" ")}  [${server.source}]\n`);
  for (const f of plan.files) out.write(summaryLine(f, plan) + "\n");

  if (changed.length === 0) {
    out.write(`Nothing to change: autopilot is already installed for ${client}.\n`);
  } else if (dryRun) {
    out.write("\n");
    for (const f of changed) out.write(unifiedDiff(displayPath(f.path, plan), f.before, f.after) + "\n\n");
    out.write(`Dry run: ${changed.length} file(s) would change; nothing was written.\n`);
  } else {
    const { written, backups } = applyPlan(plan);
    out.write(`Wrote ${written.length} file(s).\n`);
    for (const b of backups) out.write(`  kept your previous copy: ${displayPath(b, plan)}\n`);
  }
  if (!dryRun) {
    for (const n of plan.notes) out.write(`${n}\n`);
    out.write(`${SPEC_HINT}\n`);
  }
  for (const w of plan.warnings) process.stderr.write(`warning: ${w}\n`);
  return 0;
}
