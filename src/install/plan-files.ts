// The files of an install plan, as install writes them: a file it owns outright, or a client's
// config it merges its entries into (each merge keeps every byte of the rest of the file).
import { existsSync, readFileSync } from "node:fs";
import {
  STRICT_JSON,
  mergeJsonList,
  mergeJsonListItem,
  mergeJsonServer,
  mergeTomlServer,
  type Entry,
  type JsonDialect,
} from "./merge.js";
import { isSessionStartGroup } from "./templates.js";

/** The name of our entry in every client's server list. */
export const SERVER_NAME = "autopilot";

export interface PlannedFile {
  /** Absolute path. */
  path: string;
  /** Current content, null when the file does not exist. */
  before: string | null;
  /** Content after install. */
  after: string;
  /** A config file we merge into (vs a file we own outright). */
  merged: boolean;
  /** For a merged file: what install adds to it. */
  adds?: string;
}

function read(path: string): string | null {
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

/** A file install owns outright (a persona, a command, a hook script): written whole. */
export function owned(path: string, after: string): PlannedFile {
  return { path, before: read(path), after, merged: false };
}

export const SERVER_ADDS = `the "${SERVER_NAME}" server entry; other entries kept`;

/** A client's JSON config with our server entry under `rootKey`. */
export function json(path: string, rootKey: string, entry: Entry, dialect: JsonDialect = STRICT_JSON): PlannedFile {
  const before = read(path);
  return {
    path,
    before,
    after: mergeJsonServer(path, before, rootKey, SERVER_NAME, entry, dialect).text,
    merged: true,
    adds: SERVER_ADDS,
  };
}

/** A Codex config.toml with our `[mcp_servers.autopilot]` table. */
export function toml(path: string, entry: Entry): PlannedFile {
  const before = read(path);
  return {
    path,
    before,
    after: mergeTomlServer(path, before, SERVER_NAME, entry).text,
    merged: true,
    adds: SERVER_ADDS,
  };
}

/** One change to a JSON settings file: what it adds (for the summary), and the merge that makes it. */
interface JsonEdit {
  adds: string;
  apply: (path: string, text: string | null) => string;
}

/** Edits to one JSON settings file, applied in order; each keeps the rest of the file byte for byte. */
export function jsonEdits(path: string, edits: JsonEdit[]): PlannedFile {
  const before = read(path);
  let text = before;
  for (const e of edits) text = e.apply(path, text);
  return { path, before, after: text ?? "", merged: true, adds: edits.map((e) => e.adds).join("; ") };
}

/** Adds strings to the list at a path of object keys. */
export function listEdit(at: string[], values: string[]): JsonEdit {
  return {
    adds: `${values.map((v) => JSON.stringify(v)).join(", ")} to ${at.join(".")}`,
    apply: (path, text) => mergeJsonList(path, text, at, values).text,
  };
}

/** Our hook group in `hooks.SessionStart` (replaced when an earlier install's differs). */
export function sessionStartEdit(group: Record<string, unknown>, dialect: JsonDialect = STRICT_JSON): JsonEdit {
  return {
    adds: "the autopilot SessionStart hook to hooks.SessionStart",
    apply: (path, text) =>
      mergeJsonListItem(path, text, ["hooks", "SessionStart"], group, isSessionStartGroup, dialect).text,
  };
}
