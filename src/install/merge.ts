// Merging our server entry into a client's config file without touching anything else in it.
// Both functions are pure: text in, text out. They refuse (throw) rather than guess.
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { AutopilotError } from "../protocol/errors.js";

export type Entry = Record<string, unknown>;

export interface MergeResult {
  text: string;
  changed: boolean;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

export function deepEqual(a: unknown, b: unknown): boolean {
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

function detectIndent(text: string): string | number {
  const m = /^[{[][^\S\n]*\r?\n([ \t]+)\S/.exec(text.trimStart());
  return m ? m[1]! : 2;
}

/**
 * Puts `entry` at `<rootKey>.<name>` in a JSON config. Other keys keep their values and order;
 * the file keeps its indentation and line endings. A file that is not strict JSON (comments,
 * trailing commas: VS Code allows both) is refused, because rewriting it would drop them.
 */
export function mergeJsonServer(
  file: string,
  before: string | null,
  rootKey: string,
  name: string,
  entry: Entry,
): MergeResult {
  const snippet = JSON.stringify({ [rootKey]: { [name]: entry } }, null, 2);
  if (before === null || before.trim() === "") {
    return { text: JSON.stringify({ [rootKey]: { [name]: entry } }, null, 2) + "\n", changed: true };
  }
  let root: unknown;
  try {
    root = JSON.parse(before.replace(/^\uFEFF/, ""));
  } catch (e) {
    const hint = /\/\/|\/\*/.test(before) ? " (it looks like it has comments, which this installer will not drop)" : "";
    refuse(file, `cannot parse it as JSON${hint}: ${(e as Error).message}`, snippet);
  }
  if (!isPlainObject(root)) refuse(file, "the top level is not a JSON object", snippet);
  const servers = root[rootKey];
  if (servers !== undefined && !isPlainObject(servers)) refuse(file, `"${rootKey}" is not an object`, snippet);
  const existing = servers?.[name];
  const desired = mergedEntry(existing, entry);
  if (existing !== undefined && deepEqual(existing, desired)) return { text: before, changed: false };
  const nextServers = { ...(servers ?? {}), [name]: desired };
  const next = { ...root, [rootKey]: nextServers };
  const eol = before.includes("\r\n") ? "\r\n" : "\n";
  let text = JSON.stringify(next, null, detectIndent(before));
  if (eol !== "\n") text = text.replace(/\n/g, eol);
  if (/\r?\n$/.test(before)) text += eol;
  return { text, changed: true };
}

const HEADER = /^[ \t]*\[\[?[ \t]*([^\]\n#]+?)[ \t]*\]\]?[ \t]*(#.*)?$/;

function tableKey(header: string): string[] {
  return header.split(".").map((p) => p.trim().replace(/^"(.*)"$/, "$1").replace(/^'(.*)'$/, "$1"));
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
    doc = parseToml(before) as Record<string, unknown>;
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
    const base = before.replace(/(\r?\n)*$/, "");
    text = base + eol + eol + desiredBlock.replace(/\n/g, eol);
  } else {
    const start = lines.findIndex((l) => {
      const m = HEADER.exec(l);
      return m !== null && !l.trimStart().startsWith("[[") && deepEqual(tableKey(m[1]!), ["mcp_servers", name]);
    });
    if (start < 0) {
      refuse(file, `[mcp_servers.${name}] is written in a form this installer does not rewrite (inline or dotted keys)`, desiredBlock);
    }
    let end = start + 1;
    for (; end < lines.length; end++) {
      const m = HEADER.exec(lines[end]!);
      if (!m) continue;
      const key = tableKey(m[1]!);
      const ours = key.length > 2 && key[0] === "mcp_servers" && key[1] === name;
      if (!ours) break;
    }
    // keep blank lines and comments that sit between our table and the next one
    let tail = end;
    while (tail > start + 1 && /^\s*(#.*)?$/.test(lines[tail - 1]!)) tail--;
    const replaced = [...lines.slice(0, start), ...desiredBlock.trimEnd().split("\n"), ...lines.slice(tail)];
    text = replaced.join(eol);
  }

  let after: Record<string, unknown>;
  try {
    after = parseToml(text) as Record<string, unknown>;
  } catch {
    refuse(file, "merging would not produce valid TOML", desiredBlock);
  }
  const expected = { ...doc, mcp_servers: { ...(servers ?? {}), [name]: desired } };
  if (!deepEqual(after, expected)) refuse(file, "could not merge without changing other settings", desiredBlock);
  return { text, changed: true };
}
