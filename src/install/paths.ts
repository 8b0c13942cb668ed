// Where things are: the package's own files (personas/, skills/) and each client's user folders.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "autopilot-mcp";

/**
 * The package root, found by walking up from this file to the package.json named autopilot-mcp.
 * Compiled, this file is dist/src/install/paths.js (three levels down); under vitest it is
 * src/install/paths.ts (two). Walking up works for both and for an npm install.
 */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === PACKAGE_NAME) return dir;
      } catch {
        // an unreadable package.json on the way up is not ours: keep walking
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the ${PACKAGE_NAME} package root above ${from}`);
    dir = up;
  }
}

/** The `version` of the package.json in `root`; null when there is none to read. */
export function versionAt(root: string): string | null {
  try {
    const v = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown }).version;
    return typeof v === "string" && v.length > 0 ? v : null;
  } catch {
    return null;
  }
}

/** This package's version (the MCP server's `serverInfo.version`); 0.0.0 when it cannot be found. */
export function ownVersion(): string {
  try {
    return versionAt(packageRoot()) ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/** The user's home. os.homedir() honours HOME on POSIX, which is what tests set. */
export function homeDir(): string {
  return process.env.HOME && process.env.HOME.length > 0 ? resolve(process.env.HOME) : homedir();
}

/** VS Code's user profile folder (where the user-level mcp.json and prompts/ live). */
export function vscodeUserDir(home: string = homeDir()): string {
  if (process.platform === "darwin") return join(home, "Library", "Application Support", "Code", "User");
  if (process.platform === "win32")
    return join(process.env.APPDATA ?? join(home, "AppData", "Roaming"), "Code", "User");
  return join(process.env.XDG_CONFIG_HOME || join(home, ".config"), "Code", "User");
}

/** Codex keeps its config and prompts in $CODEX_HOME, ~/.codex by default. */
export function codexHome(home: string = homeDir()): string {
  return process.env.CODEX_HOME && process.env.CODEX_HOME.length > 0
    ? resolve(process.env.CODEX_HOME)
    : join(home, ".codex");
}
