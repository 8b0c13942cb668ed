// What the agent loop's tools share: the limits each keeps to, how a path the model gives is
// confined to the project, and how a refusal reaches the model (a result it can act on, never an
// exception, so one bad proposal costs a turn instead of the run).
import { realpathSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { checkPath } from "../session/confine.js";

export interface ToolResult {
  content: string;
  isError: boolean;
}

export interface ToolboxOptions {
  /** Characters of file content one read_file call returns (default 40,000). */
  maxReadChars?: number;
  /** Files larger than this are not read at all (default 8 MB): search or run_command instead. */
  maxFileBytes?: number;
  /** Characters of command output kept, from the end (default 16,000). */
  maxCommandOutputChars?: number;
  /** Default and ceiling of run_command's time limit in seconds (default 120 and 900). */
  commandTimeoutSec?: number;
  maxCommandTimeoutSec?: number;
  /** Entries list_files returns (default 400). */
  maxListEntries?: number;
  /** Matches search returns (default 100). */
  maxSearchMatches?: number;
  /** Characters of any one tool result, the last line of defence (default 48,000). */
  maxResultChars?: number;
  /** Environment for run_command and git (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Aborts running commands. */
  signal?: AbortSignal;
}

/** One tool: its name and description for the model, its input contract, and what it does. */
export interface Tool {
  name: string;
  description: string;
  schema: z.ZodType;
  run: (input: never) => Promise<string | ToolResult>;
}

/** Thrown inside a tool for a refusal; the toolbox turns it into an is_error result. */
export class Refusal extends Error {}

/** What every tool of one toolbox works from. */
export interface ToolContext {
  /** The project's real path. */
  root: string;
  limits: ReturnType<typeof limitsOf>;
  signal?: AbortSignal;
  /** A path under the root, project-relative with `/`. */
  rel: (abs: string) => string;
  /** The real location of a path the model gave; a Refusal when it leaves the project or is not to be written. */
  resolve: (p: string | undefined, mode: "read" | "write") => string;
}

function limitsOf(opts: ToolboxOptions) {
  return {
    maxReadChars: opts.maxReadChars ?? 40_000,
    maxFileBytes: opts.maxFileBytes ?? 8 * 1024 * 1024,
    maxCommandOutputChars: opts.maxCommandOutputChars ?? 16_000,
    commandTimeoutSec: opts.commandTimeoutSec ?? 120,
    maxCommandTimeoutSec: opts.maxCommandTimeoutSec ?? 900,
    maxListEntries: opts.maxListEntries ?? 400,
    maxSearchMatches: opts.maxSearchMatches ?? 100,
    maxResultChars: opts.maxResultChars ?? 48_000,
    env: opts.env ?? process.env,
  };
}

export function toolContext(projectRoot: string, opts: ToolboxOptions): ToolContext {
  const root = realpathSync(projectRoot);
  const rel = (abs: string) => path.relative(root, abs).split(path.sep).join("/") || ".";
  // Resolves a model-supplied path to its real location, refusing anything that is, or through a
  // symlink leads, outside the project (src/session/confine.ts). A path that does not exist yet is
  // judged by its nearest existing parent, so a new file under a symlinked directory cannot escape.
  function resolve(p: string | undefined, mode: "read" | "write"): string {
    const given = p === undefined || p === "" ? "." : p;
    const checked = checkPath(root, given, { links: true });
    if (!checked.ok) {
      const e = checked.escape;
      const shown = JSON.stringify(given);
      if (e.why === "nul") throw new Refusal(`Path ${shown} contains a NUL byte.`);
      if (e.why === "outside")
        throw new Refusal(
          `Path ${shown} is outside the project (${root}). Only files inside the project can be used; give a path relative to the project root.`,
        );
      if (e.why === "broken")
        throw new Refusal(`Path ${shown} goes through a broken symlink (${rel(e.via)}); it cannot be used.`);
      throw new Refusal(
        `Path ${shown} leads outside the project through a symlink (${rel(e.via)} -> ${e.real}). Only files inside the project can be used.`,
      );
    }
    const target = checked.real;
    if (mode === "write") {
      const r = rel(target);
      const parts = r.toLowerCase().split("/");
      if (parts.includes(".git")) {
        throw new Refusal(
          `${r} is inside git's internal directory, which cannot be written. Use run_command with git commands instead.`,
        );
      }
      if (/^\.harness\/sessions\/[^/]+\/autopilot-state[^/]*$/i.test(r)) {
        throw new Refusal(
          `${r} is the autopilot session state; only the autopilot server writes it. ` +
            `Report your outcome with report_result instead.`,
        );
      }
    }
    return target;
  }
  return { root, limits: limitsOf(opts), signal: opts.signal, rel, resolve };
}

/** A file whose first 8 KB hold a NUL byte is shown to the model by its size only. */
export const isBinary = (buf: Buffer) => buf.subarray(0, 8192).includes(0);

export function formatIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(input)"}: ${i.message}`).join("; ");
}
