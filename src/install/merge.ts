// Merging our server entry into a client's config file without touching anything else in it.
// These functions are pure: text in, text out. They refuse (throw) rather than guess.
import {
  appendJsonValues,
  detectFormatting,
  parseJsonFile,
  replaceJsonValue,
  setJsonValue,
  STRICT_JSON,
  type JsonDialect,
} from "./jsonc-edit.js";
export { JSONC, STRICT_JSON, type JsonDialect } from "./jsonc-edit.js";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { AutopilotError } from "../protocol/errors.js";

export type Entry = Record<string, unknown>;

export interface MergeResult {
  text: string;
  changed: boolean;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return false;
}

/** Our fields win; fields the user added to our entry (env, timeouts...) are kept. */
function mergedEntry(existing: unknown, entry: Entry): Entry {
  return isPlainObject(existing) ? { ...existing, ...entry } : { ...entry };
}

function refuse(file: string, why: string, snippet: string): never {
  throw new AutopilotError(
    "bad_input",
    `${file}: ${why}. Nothing was changed. Fix the file, or add this entry by hand:\n${snippet}`,
    { file },
  );
}

/**
 * Puts `entry` at `<rootKey>.<name>` in a JSON (or JSONC) config. Only our entry's text is inserted
 * or replaced (plus the comma before it), so comments, key order, indentation and line endings of
 * everything else stay byte-identical. The result is parsed again and must equal the old document
 * plus our entry, or nothing is written.
 */
export function mergeJsonServer(
  file: string,
  before: string | null,
  rootKey: string,
  name: string,
  entry: Entry,
  dialect: JsonDialect = STRICT_JSON,
): MergeResult {
  const snippet = JSON.stringify({ [rootKey]: { [name]: entry } }, null, 2);
  if (before === null || before.trim() === "") {
    return { text: JSON.stringify({ [rootKey]: { [name]: entry } }, null, 2) + "\n", changed: true };
  }
  const doc = parseJsonFile(before, dialect);
  if (doc.error !== null) refuse(file, `cannot parse it: ${doc.error}`, snippet);
  const root = doc.value;
  if (!isPlainObject(root)) refuse(file, "the top level is not a JSON object", snippet);
  const servers = root[rootKey];
  if (servers !== undefined && !isPlainObject(servers)) refuse(file, `"${rootKey}" is not an object`, snippet);
  const existing = servers?.[name];
  const desired = mergedEntry(existing, entry);
  if (existing !== undefined && deepEqual(existing, desired)) return { text: before, changed: false };
  const text = doc.bom + setJsonValue(doc.body, doc.tree!, [rootKey, name], desired, detectFormatting(doc.body));
  const expected = { ...root, [rootKey]: { ...(servers ?? {}), [name]: desired } };
  verify(file, text, dialect, expected, snippet);
  return { text, changed: true };
}

function verify(file: string, text: string, dialect: JsonDialect, expected: unknown, snippet: string): void {
  const again = parseJsonFile(text, dialect);
  if (again.error !== null || !deepEqual(again.value, expected))
    refuse(file, "could not merge without changing other settings", snippet);
}

/**
 * Adds `values` to the string list at `path` (e.g. `permissions.allow` in Claude Code's settings),
 * each one not already there, as insertions after the list's last item. Every step of the path
 * that exists must be an object, and the list a list.
 */
export function mergeJsonList(
  file: string,
  before: string | null,
  path: string[],
  values: string[],
  dialect: JsonDialect = STRICT_JSON,
): MergeResult {
  const snippet = JSON.stringify(
    path.reduceRight<unknown>((v, k) => ({ [k]: v }), values),
    null,
    2,
  );
  if (before === null || before.trim() === "") return { text: snippet + "\n", changed: true };
  const doc = parseJsonFile(before, dialect);
  if (doc.error !== null) refuse(file, `cannot parse it: ${doc.error}`, snippet);
  if (!isPlainObject(doc.value)) refuse(file, "the top level is not a JSON object", snippet);
  let holder: unknown = doc.value;
  for (const [i, key] of path.entries()) {
    const next: unknown = (holder as Record<string, unknown>)[key];
    if (next === undefined) {
      holder = undefined;
      break;
    }
    const last = i === path.length - 1;
    if (last ? !Array.isArray(next) : !isPlainObject(next))
      refuse(file, `"${path.slice(0, i + 1).join(".")}" is not ${last ? "a list" : "an object"}`, snippet);
    holder = next;
  }
  const current = (holder as unknown[] | undefined) ?? [];
  const missing = values.filter((v) => !current.includes(v));
  if (missing.length === 0) return { text: before, changed: false };
  const text = doc.bom + appendJsonValues(doc.body, doc.tree!, path, missing, detectFormatting(doc.body));
  const expected = structuredClone<Record<string, unknown>>(doc.value);
  let at: Record<string, unknown> = expected;
  for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
  at[path.at(-1)!] = [...current, ...missing];
  verify(file, text, dialect, expected, snippet);
  return { text, changed: true };
}

/**
 * Puts one item that is ours into the list at `path` (e.g. our group in Claude Code's
 * `hooks.SessionStart`): the item `isOurs` recognises is replaced when it differs (in place), else
 * `item` is appended after the list's last item; every other item and byte stays as it was. Every
 * step of the path that exists must be an object, and the list a list.
 */
export function mergeJsonListItem(
  file: string,
  before: string | null,
  path: string[],
  item: unknown,
  isOurs: (existing: unknown) => boolean,
  dialect: JsonDialect = STRICT_JSON,
): MergeResult {
  const snippet = JSON.stringify(
    path.reduceRight<unknown>((v, k) => ({ [k]: v }), [item]),
    null,
    2,
  );
  if (before === null || before.trim() === "") return { text: snippet + "\n", changed: true };
  const doc = parseJsonFile(before, dialect);
  if (doc.error !== null) refuse(file, `cannot parse it: ${doc.error}`, snippet);
  if (!isPlainObject(doc.value)) refuse(file, "the top level is not a JSON object", snippet);
  let holder: unknown = doc.value;
  for (const [i, key] of path.entries()) {
    const next: unknown = (holder as Record<string, unknown>)[key];
    if (next === undefined) {
      holder = undefined;
      break;
    }
    const last = i === path.length - 1;
    if (last ? !Array.isArray(next) : !isPlainObject(next))
      refuse(file, `"${path.slice(0, i + 1).join(".")}" is not ${last ? "a list" : "an object"}`, snippet);
    holder = next;
  }
  const current = (holder as unknown[] | undefined) ?? [];
  const at = current.findIndex(isOurs);
  if (at >= 0 && deepEqual(current[at], item)) return { text: before, changed: false };
  const f = detectFormatting(doc.body);
  const text =
    doc.bom +
    (at >= 0
      ? replaceJsonValue(doc.body, doc.tree!, [...path, at], item, f)
      : appendJsonValues(doc.body, doc.tree!, path, [item], f));
  const expected = structuredClone<Record<string, unknown>>(doc.value);
  let node: Record<string, unknown> = expected;
  for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[path.at(-1)!] = at >= 0 ? current.map((x, i) => (i === at ? item : x)) : [...current, item];
  verify(file, text, dialect, expected, snippet);
  return { text, changed: true };
}

const HEADER = /^[ \t]*\[\[?[ \t]*([^\]\n#]+?)[ \t]*\]\]?[ \t]*(#.*)?$/;

function tableKey(header: string): string[] {
  return header.split(".").map((p) =>
    p
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .replace(/^'(.*)'$/, "$1"),
  );
}

/**
 * Puts `[mcp_servers.<name>]` in a Codex config.toml. The file is edited as text (only our table
 * is appended or replaced), so the user's comments and layout survive; the result is parsed
 * again and must equal the old document plus our entry, or nothing is written.
 */
export function mergeTomlServer(file: string, before: string | null, name: string, entry: Entry): MergeResult {
  const block = stringifyToml({ mcp_servers: { [name]: entry } }).trimEnd() + "\n";
  if (before === null || before.trim() === "") return { text: block, changed: true };
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(before);
  } catch (e) {
    refuse(file, `cannot parse it as TOML: ${(e as Error).message.split("\n")[0]}`, block);
  }
  const servers = doc.mcp_servers;
  if (servers !== undefined && !isPlainObject(servers)) refuse(file, "mcp_servers is not a table", block);
  const existing = servers?.[name];
  const desired = mergedEntry(existing, entry);
  if (existing !== undefined && deepEqual(existing, desired)) return { text: before, changed: false };
  const desiredBlock = stringifyToml({ mcp_servers: { [name]: desired } }).trimEnd() + "\n";

  const eol = before.includes("\r\n") ? "\r\n" : "\n";
  const lines = before.split(/\r?\n/);
  let text: string;
  if (existing === undefined) {
    // appended after a blank line; the user's text, to its last byte, stays as it was
    const sep = before.endsWith(eol + eol) ? "" : before.endsWith("\n") ? eol : eol + eol;
    text = before + sep + desiredBlock.replace(/\n/g, eol);
  } else {
    const start = lines.findIndex((l) => {
      const m = HEADER.exec(l);
      return m !== null && !l.trimStart().startsWith("[[") && deepEqual(tableKey(m[1]), ["mcp_servers", name]);
    });
    if (start < 0) {
      refuse(
        file,
        `[mcp_servers.${name}] is written in a form this installer does not rewrite (inline or dotted keys)`,
        desiredBlock,
      );
    }
    let end = start + 1;
    for (; end < lines.length; end++) {
      const m = HEADER.exec(lines[end]);
      if (!m) continue;
      const key = tableKey(m[1]);
      const ours = key.length > 2 && key[0] === "mcp_servers" && key[1] === name;
      if (!ours) break;
    }
    // keep blank lines and comments that sit between our table and the next one
    let tail = end;
    while (tail > start + 1 && /^\s*(#.*)?$/.test(lines[tail - 1])) tail--;
    const replaced = [...lines.slice(0, start), ...desiredBlock.trimEnd().split("\n"), ...lines.slice(tail)];
    text = replaced.join(eol);
  }

  let after: Record<string, unknown>;
  try {
    after = parseToml(text);
  } catch {
    refuse(file, "merging would not produce valid TOML", desiredBlock);
  }
  const expected = { ...doc, mcp_servers: { ...(servers ?? {}), [name]: desired } };
  if (!deepEqual(after, expected)) refuse(file, "could not merge without changing other settings", desiredBlock);
  return { text, changed: true };
}
