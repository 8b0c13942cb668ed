// What keeps a tool call's cost from growing with the work a session has done. A session's
// decisions and history only grow, and the engine never changes a record once made (every update
// is a new object), so each record is checked against the schema once per process, not at every
// write; and the state a call saved is kept, so that the next call, finding the file as it was
// left (same inode, size and times), takes it instead of parsing and migrating the whole file
// again. Between calls the file stays the truth: any other version is read afresh.
import { AutopilotState } from "./schema.js";

/** The lists of records that grow with a session's work. */
const GROWING = ["decisions", "history"] as const;

const recordChecked = new WeakSet<object>();

/**
 * Under the test runner, everything kept here is frozen: an engine change that mutated a saved
 * record would make a long-lived server's memory disagree with its file, and fails loudly instead.
 */
const FREEZE = !!process.env.VITEST;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const isRecord = (v: unknown): v is object => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Users diff these files: stable 2-space indent and a trailing newline. (V8's own JSON.stringify
 * turns 2 MB of state into text in a few milliseconds: faster than joining kept texts of records.)
 */
export function serializeState(state: unknown): string {
  return JSON.stringify(state, null, 2) + "\n";
}

export type StateCheck = { success: true } | { success: false; path: PropertyKey[]; message: string };

/** `AutopilotState.safeParse(state)`, each decision and history record checked once per process. */
export function checkState(state: unknown): StateCheck {
  if (!isRecord(state)) return fail(AutopilotState.safeParse(state));
  const s = state as Record<string, unknown>;
  const rest: Record<string, unknown> = { ...s };
  for (const key of GROWING) if (Array.isArray(s[key])) rest[key] = [];
  const top = AutopilotState.safeParse(rest);
  if (!top.success) return fail(top);
  for (const key of GROWING) {
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
