// How a client should start the server. Decided once per install and written into its config.
import { existsSync } from "node:fs";
import { join, sep } from "node:path";
import { UsageError } from "../cli/usage.js";

export interface ServerCommand {
  command: string;
  args: string[];
  /** Why this command was chosen, printed by `autopilot install`. */
  source: string;
}

export const NPX_COMMAND: ServerCommand = {
  command: "npx",
  args: ["-y", "autopilot-mcp", "serve"],
  source: "npx (the package is not installed at a stable path)",
};

/**
 * The default is `node <absolute path to dist/src/cli/main.js> serve` when this package sits at a
 * stable path (a global or project install, a checkout): it starts fast, needs no network and
 * runs exactly the version that wrote it. When we run from npx's cache (`.../_npx/...`), that
 * path can vanish at any time, so the entry uses `npx -y autopilot-mcp serve` instead.
 * `--command` overrides both (e.g. for a repository shared by a team: `npx -y autopilot-mcp serve`).
 */
export function resolveServerCommand(root: string, override?: string): ServerCommand {
  if (override !== undefined) {
    const words = splitCommandLine(override);
    if (words.length === 0) throw new UsageError("--command must not be empty, e.g. --command \"npx -y autopilot-mcp serve\"");
    return { command: words[0]!, args: words.slice(1), source: "--command" };
  }
  const main = join(root, "dist", "src", "cli", "main.js");
  if (root.includes(`${sep}_npx${sep}`) || !existsSync(main)) return NPX_COMMAND;
  return { command: "node", args: [main, "serve"], source: "this installed package" };
}

/** Splits a command line into words: whitespace separates, '...' and "..." group, \ escapes. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new UsageError(`--command has an unclosed ${quote} quote`);
  if (inWord) words.push(word);
  return words;
}
