// What keeps a tool call's cost from growing with the work a session has done. A session's
// decisions and history only grow, and the engine never changes a record once made (every update
// is a new object), so each record is checked against the schema once per process, not at every
// write; and the state a call saved is kept, so that the next call, finding the file as it was
// left (same inode, size and times), takes it instead of parsing and migrating the whole file
// again. Between calls the file stays the truth: any other version is read afresh.
import { AutopilotState } from "./schema.js";

/** The lists of records that grow with a session's work (and the phases, which change one at a time). */
const GROWING = ["decisions", "history"] as const;
const CHECKED_ONE_BY_ONE = [...GROWING, "phases"] as const;

const recordChecked = new WeakSet<object>();

/**
 * AUTOPILOT_CHECK_STATE=1 (the default test suite sets it, for the processes it starts too): everything
 * kept here is frozen, so an engine change that mutated a saved record, and would make a long-lived
 * server's memory disagree with its file, fails loudly; each text made is compared with
 * JSON.stringify's; and the store reads every file anyway and compares it with the state it kept.
 */
export const CHECK_STATE = process.env.AUTOPILOT_CHECK_STATE === "1";
const FREEZE = CHECK_STATE;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const isRecord = (v: unknown): v is object => typeof v === "object" && v !== null && !Array.isArray(v);

/** Per growing list: the last list turned into text, and the text of its records as they stand in the file. */
const listTexts = new Map<string, { items: readonly unknown[]; body: string }>();

/** The list as it stands in the file, as `[\n    …\n  ]`: records already turned into text are not again. */
function listText(key: string, list: readonly unknown[]): string {
  if (!list.length) return "[]";
  const k = listTexts.get(key);
  let body: string;
  if (k && k.items.length <= list.length && k.items.every((x, i) => x === list[i])) {
    const added = list
      .slice(k.items.length)
      .map((x) => (JSON.stringify(x, null, 2) ?? "null").replaceAll("\n", "\n    "));
    // Concatenated, not joined: the kept text is not copied (V8 keeps the two parts until written).
    body =
      k.items.length && added.length ? k.body + ",\n    " + added.join(",\n    ") : k.body || added.join(",\n    ");
  } else {
    body = JSON.stringify(list, null, 2).replaceAll("\n", "\n  ").slice("[\n    ".length, -"\n  ]".length);
  }
  listTexts.set(key, { items: list, body });
  return `[\n    ${body}\n  ]`;
}

/**
 * Users diff these files: stable 2-space indent and a trailing newline. Byte for byte
 * `JSON.stringify(state, null, 2) + "\n"`, the decisions and history records made text once: V8
 * turns the 2 MB of a long session into text in a few milliseconds, but not at every write.
 */
export function serializeState(state: unknown): string {
  if (!isRecord(state) || "toJSON" in state) return JSON.stringify(state, null, 2) + "\n";
  const s = state as Record<string, unknown>;
  const lists = GROWING.filter((key) => Array.isArray(s[key]) && (s[key] as unknown[]).length);
  if (!lists.length) return JSON.stringify(state, null, 2) + "\n";
  const rest: Record<string, unknown> = { ...s };
  for (const key of lists) rest[key] = [];
  let text = JSON.stringify(rest, null, 2);
  // A top-level key stands at two spaces after a line break: nothing nested does, no string holds a line break.
  for (const key of lists)
    text = text.replace(
      `\n  ${JSON.stringify(key)}: []`,
      () => `\n  ${JSON.stringify(key)}: ${listText(key, s[key] as unknown[])}`,
    );
  text += "\n";
  if (FREEZE && text !== JSON.stringify(state, null, 2) + "\n")
    throw new Error("serializeState differs from JSON.stringify (a defect of state-memo.ts)");
  return text;
}

export type StateCheck = { success: true } | { success: false; path: PropertyKey[]; message: string };

/** `AutopilotState.safeParse(state)`, each decision, history record and phase checked once per process. */
export function checkState(state: unknown): StateCheck {
  if (!isRecord(state)) return fail(AutopilotState.safeParse(state));
  const s = state as Record<string, unknown>;
  const rest: Record<string, unknown> = { ...s };
  for (const key of CHECKED_ONE_BY_ONE) if (Array.isArray(s[key])) rest[key] = [];
  const top = AutopilotState.safeParse(rest);
  if (!top.success) return fail(top);
  for (const key of CHECKED_ONE_BY_ONE) {
    const list = s[key];
    if (!Array.isArray(list)) continue;
    const element = AutopilotState.shape[key].element;
    for (const [i, item] of list.entries()) {
      if (isRecord(item) && recordChecked.has(item)) continue;
      const r = element.safeParse(item);
      if (!r.success) {
        const issue = r.error.issues[0];
        return { success: false, path: [key, i, ...(issue?.path ?? [])], message: issue?.message ?? "invalid" };
      }
      if (isRecord(item)) recordChecked.add(item);
    }
  }
  return { success: true };
}

function fail(r: ReturnType<typeof AutopilotState.safeParse>): StateCheck {
  if (r.success) return { success: true };
  const issue = r.error.issues[0];
  return { success: false, path: issue?.path ?? [], message: issue?.message ?? "invalid" };
}

/** Per state file: the state this process last read from it or wrote to it, its text, and the file's identity then. */
const known = new Map<string, { id: string; state: AutopilotState; text: string }>();

export function rememberState(file: string, id: string | null, state: AutopilotState, text: string): void {
  if (id === null) known.delete(file);
  else known.set(file, { id, state: FREEZE ? deepFreeze(state) : state, text });
}

/**
 * The state last read or written here, if the file is still that version: the same identity
 * (fileIdentity). A file system that keeps times to the millisecond or coarser could hide an edit
 * made within the same tick behind an unchanged identity, so there the text is compared too
 * (`read`: the file's text now).
 */
export function rememberedState(file: string, id: string | null, read: () => string): AutopilotState | undefined {
  const k = known.get(file);
  if (id === null || k?.id !== id) return undefined;
  const mtimeNs = BigInt(id.split(":")[3] ?? "1");
  if (mtimeNs % 1_000_000n === 0n && read() !== k.text) return undefined;
  return k.state;
}

export function forgetState(file: string): void {
  known.delete(file);
}
