#!/usr/bin/env node
// The `autopilot` command. Thin: each subcommand lives in ./commands/<name>.ts and exports
// `run(argv)`, returning the exit code (0 success, 1 user-facing failure, 2 usage).
// The build bundles this file, with each command and what it imports, into dist/src/cli/main.js
// (the package's bin) and its chunks (scripts/bundle.mjs): a process then reads a few files instead
// of some 500 modules, which roughly halves its start-up (docs/performance.md, Start-up).
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { AutopilotError } from "../protocol/errors.js";
import { CLIENT_NAMES } from "../install/client-list.js";
import { UsageError } from "./usage.js";

type CommandModule = { run: (argv: string[]) => Promise<number> };

const COMMANDS: Record<string, { summary: string }> = {
  serve: { summary: "MCP server on stdio in the current project (the default)" },
  run: {
    summary:
      "run a spec headless: autopilot run SPEC [--fast|--thorough] [--review-plans] [--human-gates] [--worktree] [--parallel] [--runner NAME] [--yes]",
  },
  merge: { summary: "merge a --worktree session's branch back: autopilot merge SLUG" },
  demo: { summary: "a complete run on a bundled example spec in a temporary git repository" },
  approve: { summary: "answer the question a session waits on, as a person at this terminal: autopilot approve SLUG" },
  note: { summary: "give a session a direction for its next persona, at any step: autopilot note SLUG WORDS..." },
  status: { summary: "sessions and where each waits: autopilot status [SLUG] [--json]" },
  log: { summary: "the decision log: autopilot log SLUG [--format md|json|html]" },
  install: { summary: `register with a client: autopilot install ${CLIENT_NAMES.join("|")}` },
  spec: { summary: "phases of a spec: autopilot spec FILE --json" },
  plan: { summary: "tasks and checkpoints of a plan: autopilot plan FILE --json" },
  state: { summary: "read and migrate a state file: autopilot state check FILE --json" },
  validate: { summary: "run the project's validation commands: autopilot validate [--json]" },
};

// Each command's module, imported only when it runs. Static paths: the bundler follows them.
const LOADERS: Record<string, () => Promise<CommandModule>> = {
  serve: () => import("./commands/serve.js"),
  run: () => import("./commands/run.js"),
  merge: () => import("./commands/merge.js"),
  demo: () => import("./commands/demo.js"),
  approve: () => import("./commands/approve.js"),
  note: () => import("./commands/note.js"),
  status: () => import("./commands/status.js"),
  log: () => import("./commands/log.js"),
  install: () => import("./commands/install.js"),
  spec: () => import("./commands/spec.js"),
  plan: () => import("./commands/plan.js"),
  state: () => import("./commands/state.js"),
  validate: () => import("./commands/validate.js"),
};

export function usage(): string {
  const lines = ["usage: autopilot <command> [options]", "", "commands:"];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(9)} ${c.summary}`);
  return lines.join("\n");
}

export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "--help" || first === "-h" || first === "help") {
    process.stdout.write(usage() + "\n");
    return 0;
  }
  if (first === "--version" || first === "-v") {
    const { createRequire } = await import("node:module");
    const pkg = createRequire(import.meta.url)("../../../package.json") as { version: string };
    process.stdout.write(pkg.version + "\n");
    return 0;
  }
  const name = first ?? "serve";
  if (!Object.hasOwn(COMMANDS, name)) {
    process.stderr.write(`autopilot: unknown command "${name}"\n${usage()}\n`);
    return 2;
  }
  let mod: CommandModule;
  try {
    mod = await LOADERS[name]();
  } catch (e) {
    process.stderr.write(`autopilot ${name}: not available in this build (${(e as Error).message})\n`);
    return 1;
  }
  try {
    return await mod.run(first ? rest : []);
  } catch (e) {
    return reportError(name, e);
  }
}

export function reportError(command: string, e: unknown): number {
  if (e instanceof AutopilotError) {
    process.stderr.write(`autopilot ${command}: ${e.message} [${e.code}]\n`);
    return 1;
  }
  if (e instanceof UsageError) {
    process.stderr.write(`autopilot ${command}: ${e.message}\n`);
    return 2;
  }
  process.stderr.write(`autopilot ${command}: unexpected error: ${(e as Error)?.stack ?? String(e)}\n`);
  return 1;
}

const invokedDirectly = (() => {
  try {
    return realpathSync(process.argv[1] ?? "") === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();

if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.exitCode = reportError("", e);
    },
  );
}
