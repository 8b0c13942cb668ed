// How a client should start the server. Decided once per install and written into its config.
// A project config (.mcp.json, .vscode/mcp.json, ...) is usually committed, so the entry must work
// on a teammate's machine: a command found on PATH, or npx with the exact version, rather than a
// path that exists only here.
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, join, resolve, sep } from "node:path";
import { UsageError } from "../cli/usage.js";
import { splitWords } from "../protocol/words.js";
import { packageRoot, versionAt } from "./paths.js";

export const PACKAGE_NAME = "autopilot-mcp";
const BIN_NAME = "autopilot";

export interface ServerCommand {
  command: string;
  args: string[];
  /** Why this command was chosen, printed by `autopilot install`. */
  source: string;
  /** The command names a path that only exists on this machine (a checkout, a local build). */
  machineLocal: boolean;
}

/** `npx -y autopilot-mcp@<version> serve`: works on any machine with Node once the version is published. */
function npxCommand(version: string, source: string): ServerCommand {
  return { command: "npx", args: ["-y", `${PACKAGE_NAME}@${version}`, "serve"], source, machineLocal: false };
}

/** The version in `root`/package.json, or "latest" (what npx then runs) when it has none. */
export function packageVersion(root: string): string {
  return versionAt(root) ?? "latest";
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * The `autopilot` command on PATH when it runs this very package (a global install, `npm link`):
 * on POSIX a symlink to our main.js; on Windows an npm .cmd shim naming it.
 */
function binOnPath(
  main: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | null {
  const dirs = (env.PATH ?? env.Path ?? "").split(delimiter).filter((d) => d.length > 0);
  for (const dir of dirs) {
    if (platform === "win32") {
      const shim = join(dir, `${BIN_NAME}.cmd`);
      if (!existsSync(shim)) continue;
      const m = /"%~?dp0%?\\?([^"]*main\.js)"/i.exec(readFileSync(shim, "utf8"));
      if (m && sameFile(resolve(dir, m[1]), main)) return shim;
      continue;
    }
    const bin = join(dir, BIN_NAME);
    try {
      if (statSync(bin).isFile() && sameFile(bin, main)) return bin;
    } catch {
      // not there
    }
  }
  return null;
}

/**
 * In order:
 * 1. `--command` as given;
 * 2. install runs from npx's cache (`.../_npx/...`): `npx -y autopilot-mcp@<this version> serve`,
 *    since that cache can be emptied at any time;
 * 3. the `autopilot` command on PATH runs this package: `autopilot serve`;
 * 4. the package is a project dependency (`.../node_modules/autopilot-mcp`): `npx -y autopilot-mcp@<version> serve`,
 *    which runs the project's own copy when it is installed;
 * 5. otherwise (a checkout run without `npm link`): `node <absolute path>/dist/src/cli/main.js serve`,
 *    marked machine-local so install warns before it goes into a project file.
 */
export function resolveServerCommand(
  root: string,
  override?: string,
  env: NodeJS.ProcessEnv = process.env,
): ServerCommand {
  if (override !== undefined) {
    const words = commandWords(override);
    if (words.length === 0) throw new UsageError(`--command must not be empty, e.g. --command "${BIN_NAME} serve"`);
    return { command: words[0], args: words.slice(1), source: "--command", machineLocal: false };
  }
  const version = packageVersion(root);
  const main = join(root, "dist", "src", "cli", "main.js");
  if (root.includes(`${sep}_npx${sep}`))
    return npxCommand(version, "run through npx: pinned to the version that ran this install");
  if (existsSync(main) && binOnPath(main, env)) {
    return { command: BIN_NAME, args: ["serve"], source: `the ${BIN_NAME} command on your PATH`, machineLocal: false };
  }
  if (dirname(root).split(sep).includes("node_modules") || !existsSync(main)) {
    return npxCommand(version, "installed as a package: npx runs this exact version");
  }
  return {
    command: "node",
    args: [main, "serve"],
    source: "this checkout, a path on this machine only",
    machineLocal: true,
  };
}

/** A command line's words as a POSIX shell reads them: '...' and "..." group, \\ escapes. */
export function commandWords(line: string): string[] {
  const { words, unclosed } = splitWords(line, "shell");
  if (unclosed) throw new UsageError(`--command has an unclosed ${unclosed} quote`);
  return words.map((w) => w.text);
}

/**
 * How a person runs this package's CLI where the server runs (the words before a command such as
 * `log`): `npx -y autopilot-mcp@<version>` when the server itself runs through npx (its cache, or a
 * project's dependency without the bin on PATH), else `autopilot`.
 */
export function cliWords(root: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const c = resolveServerCommand(root, undefined, env);
  return c.command === "npx" ? [c.command, ...c.args.slice(0, -1)] : [BIN_NAME];
}

/** cliWords for the package this code runs from; `autopilot` when no package root is found above it (a copied build). */
export function cliWordsHere(env: NodeJS.ProcessEnv = process.env): string[] {
  try {
    return cliWords(packageRoot(), env);
  } catch {
    return [BIN_NAME];
  }
}
