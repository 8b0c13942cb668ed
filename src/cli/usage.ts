import { statSync } from "node:fs";
import path from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { editDistance } from "../protocol/words.js";

/** A mistake in how a command was called: exit code 2, the message says the right form. */
export class UsageError extends Error {}

/** The known option closest to what was typed (`--thorogh` → `--thorough`), or null. */
function suggestOption(typed: string, known: string[]): string | null {
  const name = typed.replace(/^-+/, "").split("=")[0].toLowerCase();
  if (!name) return null;
  let best: string | null = null;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(name, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  // A prefix ("--thor") or a couple of typos away, relative to the length.
  if (best && (best.startsWith(name) || bestD <= Math.max(1, Math.floor(best.length / 3)))) return `--${best}`;
  return null;
}

/** "unknown option "--x"" with a suggestion when one is close, then the usage line. */
export function unknownOption(typed: string, known: string[], usage: string): UsageError {
  const s = suggestOption(typed, known);
  return new UsageError(`unknown option "${typed.split("=")[0]}"${s ? `: did you mean ${s}?` : ""}\n${usage}`);
}

/**
 * node:util parseArgs with messages for people: an unknown option gets "did you mean --thorough"
 * instead of Node's text (which suggests `--` for positionals), a missing value names an example.
 */
export function parseCliArgs<T extends ParseArgsConfig>(config: T, usage: string): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const known = Object.keys(config.options ?? {});
    const quoted = /'([^']+)'/.exec(err.message)?.[1] ?? "";
    if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw unknownOption(quoted || "?", known, usage);
    if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
      const opt = /--([\w-]+)/.exec(err.message)?.[1];
      const type = opt ? (config.options?.[opt] as { type?: string } | undefined)?.type : undefined;
      throw new UsageError(
        type === "boolean"
          ? `--${opt} takes no value\n${usage}`
          : `${opt ? `--${opt}` : "an option"} needs a value\n${usage}`,
      );
    }
    if (err.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL")
      throw new UsageError(`unexpected argument "${quoted}"\n${usage}`);
    throw new UsageError(`${err.message.split("\n")[0]}\n${usage}`);
  }
}

/** The project directory `--project DIR` names (else the current one), resolved; a usage error when it is not a directory. */
export function projectRoot(project: string | undefined): string {
  const root = path.resolve(project ?? process.cwd());
  try {
    if (!statSync(root).isDirectory()) throw new Error("not a directory");
  } catch (e) {
    throw new UsageError(`--project ${root}: ${(e as Error).message}`);
  }
  return root;
}
