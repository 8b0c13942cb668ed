// The session store: one project's `.harness/sessions/<slug>/autopilot-state.json` files.
//
// Promises it keeps, because users resume sessions after crashes and edit these files by hand:
//  - a write leaves either the old file or the new one, never a torn one (temp file + fsync + rename);
//  - a file we cannot read is never overwritten: the error names it and the last good copy;
//  - before each write the previous file, if it still reads, is kept as the last good copy;
//  - one process at a time works on a session (a lock that a crashed process cannot wedge).
// A call's cost must not grow with the session's history: see ./state-memo.ts and ./durable.ts.
import { AsyncLocalStorage } from "node:async_hooks";
import { constants as fsConstants, mkdirSync, readFileSync } from "node:fs";
import { access, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { AutopilotError } from "../protocol/errors.js";
import { inStateOrder, migrateState, type MigrateResult } from "./migrate.js";
import { acquireLock, LockBusyError, type HeldLock } from "./lock.js";
import { projectPaths, sessionPaths, sessionRefAt, STATE_FILE, type SessionPaths, type SessionRef } from "./paths.js";
import { CURRENT_SCHEMA_VERSION, type AutopilotState } from "./schema.js";
import { fileIdentity, fsyncDir, keepCopy, writeDurable } from "./durable.js";
import { CHECK_STATE, checkState, forgetState, rememberState, rememberedState, serializeState } from "./state-memo.js";

export { serializeState };

export interface LockOptions {
  /** How long to wait for another holder before giving up with `busy`. */
  waitMs?: number;
  /** A lock not refreshed for this long belongs to a dead process and is taken over. */
  staleMs?: number;
  /** How often a live holder refreshes its lock (at most staleMs / 2). */
  updateMs?: number;
}

const DEFAULT_LOCK_WAIT_MS = 3_000;
const DEFAULT_LOCK_STALE_MS = 10_000;

/**
 * Calls in this process for one session take turns here before the cross-process lock, so that
 * several at once (a wave's reports in `autopilot run --jobs N`, or a host's parallel tool calls to
 * the server) queue instead of failing `busy` after the lock wait. Keyed by the lock's path.
 */
const turns = new Map<string, Promise<void>>();
/** The lock paths this async call chain holds: a nested call skips the queue (and fails `busy`). */
const holding = new AsyncLocalStorage<ReadonlySet<string>>();
/** Per held session lock: the session folder written under it, flushed once before the lock goes. */
const unflushed = new Map<string, string>();

function errCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

async function fileExists(p: string): Promise<boolean> {
  try {
    await access(p, fsConstants.F_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A session: its handle (checked once by the engine's router, its paths built) or, from callers
 * outside the engine, its name, which the store checks.
 */
export type SessionKey = SessionRef | string;

export class SessionStore {
  readonly projectRoot: string;

  constructor(projectRoot: string) {
    this.projectRoot = path.resolve(projectRoot);
  }

  paths(key: SessionKey): SessionPaths {
    if (typeof key === "string") return sessionPaths(this.projectRoot, key);
    return key.paths.projectRoot === this.projectRoot ? key.paths : sessionRefAt(this.projectRoot, key).paths;
  }

  private rel(p: string): string {
    return path.relative(this.projectRoot, p).split(path.sep).join("/");
  }

  async exists(key: SessionKey): Promise<boolean> {
    return fileExists(this.paths(key).state);
  }

  /** Slugs of every session folder that holds a state file, sorted. */
  async list(): Promise<string[]> {
    const dir = projectPaths(this.projectRoot).sessionsDir;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if (errCode(e) === "ENOENT") return [];
      throw e;
    }
    const slugs: string[] = [];
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      if (await fileExists(path.join(dir, e.name, STATE_FILE))) slugs.push(e.name);
    }
    return slugs.sort();
  }

  private async corruptError(p: SessionPaths, reason: string): Promise<AutopilotError> {
    const hasLastGood = await fileExists(p.lastGood);
    const where = hasLastGood
      ? `The last good copy is ${this.rel(p.lastGood)}: check it and copy it over the state file to resume from there.`
      : `There is no last good copy: fix the file by hand, or move it away to start the session over.`;
    return new AutopilotError(
      "corrupt_state",
      `Cannot read the state file ${this.rel(p.state)}: ${reason}. The file was left untouched. ${where}`,
      { file: p.state, lastGood: hasLastGood ? p.lastGood : null },
    );
  }

  private async readText(p: SessionPaths): Promise<string> {
    try {
      return readFileSync(p.state, "utf8");
    } catch (e) {
      if (errCode(e) === "ENOENT") {
        throw new AutopilotError(
          "unknown_session",
          `No session "${p.slug}": ${this.rel(p.state)} does not exist. Call autopilot_status to list sessions, or autopilot_start with the spec to begin one.`,
        );
      }
      throw await this.corruptError(p, (e as Error).message);
    }
  }

  private async parse(p: SessionPaths, text: string): Promise<unknown> {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw await this.corruptError(
        p,
        text.trim() === "" ? "the file is empty" : `invalid JSON (${(e as Error).message})`,
      );
    }
  }

  /** The file's JSON exactly as stored, not migrated. */
  async readRaw(key: SessionKey): Promise<unknown> {
    const p = this.paths(key);
    return this.parse(p, await this.readText(p));
  }

  /**
   * Read and migrate to schemaVersion 5 in memory; the file itself changes only on `write`. The
   * state is shared with later reads of the same version of the file: treat it as read-only.
   */
  async read(key: SessionKey, opts: { head?: string | null } = {}): Promise<MigrateResult> {
    const p = this.paths(key);
    const id = fileIdentity(p.state);
    const kept = rememberedState(p.state, id, () => readFileSync(p.state, "utf8"));
    if (kept && !CHECK_STATE) return { state: kept, notes: [], fromVersion: CURRENT_SCHEMA_VERSION };
    const text = await this.readText(p);
    const raw = await this.parse(p, text);
    let result: MigrateResult;
    try {
      result = migrateState(raw, { head: opts.head, sessionDir: p.sessionDirRel });
    } catch (e) {
      if (e instanceof AutopilotError) throw await this.corruptError(p, e.message);
      throw e;
    }
    if (kept) {
      // AUTOPILOT_CHECK_STATE=1 (the test suite): the file is read anyway, to show the kept state is what it holds.
      if (result.notes.length || serializeState(result.state) !== serializeState(kept))
        throw new AutopilotError(
          "internal",
          `The state kept in memory for ${this.rel(p.state)} differs from the file.`,
        );
      return { state: kept, notes: [], fromVersion: CURRENT_SCHEMA_VERSION };
    }
    // A file that needed no migration: later reads of this version of it take the state as it is.
    if (!result.notes.length) rememberState(p.state, id, result.state, text);
    return result;
  }

  private reads(p: SessionPaths, text: string): boolean {
    try {
      migrateState(JSON.parse(text), { sessionDir: p.sessionDirRel });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Validate, keep the current file as the last good copy, then replace it atomically. Callers
   * hold `withLock` around read-modify-write; `write` alone does not lock. Under the lock the
   * session folder is flushed once, before the lock is released; without it, at once.
   */
  async write(key: SessionKey, state: AutopilotState): Promise<void> {
    const p = this.paths(key);
    const check = checkState(state);
    if (!check.success) {
      throw new AutopilotError(
        "internal",
        `Refusing to save an invalid state for session "${p.slug}" (${check.path.join(".") || "(root)"}: ${check.message}); the file on disk is unchanged.`,
      );
    }
    mkdirSync(p.sessionDir, { recursive: true });
    const id = fileIdentity(p.state);
    if (id !== null) {
      // Someone may have broken the file by hand since we read it: replacing it would destroy
      // the only copy of whatever they were fixing. The version this process read or wrote last
      // needs no second look.
      if (!rememberedState(p.state, id, () => readFileSync(p.state, "utf8"))) {
        let current: string;
        try {
          current = readFileSync(p.state, "utf8");
        } catch (e) {
          throw await this.corruptError(p, (e as Error).message);
        }
        if (!this.reads(p, current))
          throw await this.corruptError(p, "it no longer reads as a state file, so it was not replaced");
      }
      keepCopy(p.state, p.lastGood);
    }
    const text = serializeState(state);
    try {
      writeDurable(p.state, text);
    } catch (e) {
      forgetState(p.state);
      throw e;
    }
    // Kept as a read would give it back: the fields in the order the reader puts them.
    rememberState(p.state, fileIdentity(p.state), inStateOrder(state), text);
    if (holding.getStore()?.has(p.lock)) unflushed.set(p.lock, p.sessionDir);
    else fsyncDir(p.sessionDir);
  }

  /**
   * Run `fn` holding the session's cross-process lock. Calls in this process take turns (no `busy`
   * between them); another process waits up to `waitMs`. Not re-entrant: a nested call for the same
   * session waits and then fails with `busy`.
   */
  async withLock<T>(key: SessionKey, fn: () => Promise<T> | T, opts: LockOptions = {}): Promise<T> {
    const p = this.paths(key);
    const mine = holding.getStore();
    if (mine?.has(p.lock)) return this.lockAndRun(p, fn, opts);
    // Wait for this process's earlier callers for the session; they are alive, so no time-out here.
    const before = turns.get(p.lock) ?? Promise.resolve();
    let done!: () => void;
    const mineDone = new Promise<void>((resolve) => (done = resolve));
    const tail = before.then(() => mineDone);
    turns.set(p.lock, tail);
    await before;
    try {
      return await holding.run(new Set([...(mine ?? []), p.lock]), () => this.lockAndRun(p, fn, opts));
    } finally {
      done();
      if (turns.get(p.lock) === tail) turns.delete(p.lock);
    }
  }

  private async lockAndRun<T>(p: SessionPaths, fn: () => Promise<T> | T, opts: LockOptions): Promise<T> {
    const stale = opts.staleMs ?? DEFAULT_LOCK_STALE_MS;
    let held: HeldLock;
    try {
      held = await acquireLock(
        // proper-lockfile keys this process's locks by the session folder.
        { target: p.sessionDir, dir: p.lock },
        { staleMs: stale, updateMs: opts.updateMs, waitMs: opts.waitMs ?? DEFAULT_LOCK_WAIT_MS, pollMs: 50 },
      );
    } catch (e) {
      if (e instanceof LockBusyError) throw await this.busyError(p, stale);
      throw new AutopilotError(
        "internal",
        `Could not lock session "${p.slug}" (${this.rel(p.lock)}): ${(e as Error).message}`,
      );
    }
    try {
      const result = await fn();
      const compromised = held.compromised();
      if (compromised) {
        throw new AutopilotError(
          "busy",
          `Lost the lock on session "${p.slug}" while working (${compromised.message}); another autopilot process may have taken it over. Call autopilot_next to see the session's saved state.`,
        );
      }
      return result;
    } finally {
      // A call that failed still flushes what it wrote.
      const dir = unflushed.get(p.lock);
      if (dir !== undefined) {
        unflushed.delete(p.lock);
        fsyncDir(dir);
      }
      await held.release();
    }
  }

  private async busyError(p: SessionPaths, staleMs: number): Promise<AutopilotError> {
    let since = "";
    try {
      since = `, last refreshed ${(await stat(p.lock)).mtime.toISOString()}`;
    } catch {
      // released between our attempt and now
    }
    return new AutopilotError(
      "busy",
      `Another autopilot process holds session "${p.slug}" (lock ${this.rel(p.lock)}${since}). Wait for it to finish and try again. If no other autopilot is running, the lock is left from a crashed process and is cleared automatically ${Math.round(staleMs / 1000)} s after its last refresh.`,
      { lock: p.lock },
    );
  }
}
