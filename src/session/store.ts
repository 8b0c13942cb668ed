// The session store: one project's `.harness/sessions/<slug>/autopilot-state.json` files.
//
// Promises it keeps, because users resume sessions after crashes and edit these files by hand:
//  - a write leaves either the old file or the new one, never a torn one (temp file + fsync + rename);
//  - a file we cannot read is never overwritten: the error names it and the last good copy;
//  - before each write the previous file, if it still reads, is kept as the last good copy;
//  - one process at a time works on a session (a lock that a crashed process cannot wedge).
import { AsyncLocalStorage } from "node:async_hooks";
import { constants as fsConstants } from "node:fs";
import { access, mkdir, open, readFile, readdir, stat } from "node:fs/promises";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { AutopilotError } from "../protocol/errors.js";
import { migrateState, type MigrateResult } from "./migrate.js";
import { acquireLock, LockBusyError, type HeldLock } from "./lock.js";
import { projectPaths, sessionPaths, sessionRefAt, STATE_FILE, type SessionPaths, type SessionRef } from "./paths.js";
import { AutopilotState } from "./schema.js";

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

/** Users diff these files: stable 2-space indent and a trailing newline. */
export function serializeState(state: unknown): string {
  return JSON.stringify(state, null, 2) + "\n";
}

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

// A rename is durable only once the directory entry is on disk too; not every platform lets us
// open a directory for that, and the data itself is already fsynced, so failures are ignored.
async function fsyncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, "r");
    await fh.sync();
  } catch {
    // best effort
  } finally {
    await fh?.close().catch(() => {});
  }
}

/**
 * A session: its handle (checked once by the engine's router, its paths built) or, from callers
 * outside the engine, its name, which the store checks.
 */
export type SessionKey = SessionRef | string;

export class SessionStore {
  readonly projectRoot: string;
  /**
   * Per slug, the file text this store last read successfully or wrote. `write` re-checks that the
   * file on disk still reads before replacing it; a file still holding exactly this text needs no
   * second parse and migration (at 5,000 decisions those cost ~30 ms per write, docs/performance.md).
   */
  private readonly known = new Map<string, string>();

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
      return await readFile(p.state, "utf8");
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

  /** Read and migrate to schemaVersion 5 in memory; the file itself changes only on `write`. */
  async read(key: SessionKey, opts: { head?: string | null } = {}): Promise<MigrateResult> {
    const p = this.paths(key);
    const text = await this.readText(p);
    const raw = await this.parse(p, text);
    try {
      const result = migrateState(raw, { head: opts.head, sessionDir: p.sessionDirRel });
      this.known.set(p.slug, text);
      return result;
    } catch (e) {
      if (e instanceof AutopilotError) throw await this.corruptError(p, e.message);
      throw e;
    }
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
   * hold `withLock` around read-modify-write; `write` alone does not lock.
   */
  async write(key: SessionKey, state: AutopilotState): Promise<void> {
    const p = this.paths(key);
    const check = AutopilotState.safeParse(state);
    if (!check.success) {
      const issue = check.error.issues[0];
      throw new AutopilotError(
        "internal",
        `Refusing to save an invalid state for session "${p.slug}" (${issue.path.join(".") || "(root)"}: ${issue.message}); the file on disk is unchanged.`,
      );
    }
    await mkdir(p.sessionDir, { recursive: true });
    let current: string | null = null;
    try {
      current = await readFile(p.state, "utf8");
    } catch (e) {
      if (errCode(e) !== "ENOENT") throw await this.corruptError(p, (e as Error).message);
    }
    if (current !== null) {
      // Someone may have broken the file by hand since we read it: replacing it would destroy
      // the only copy of whatever they were fixing.
      if (current !== this.known.get(p.slug) && !this.reads(p, current)) {
        throw await this.corruptError(p, "it no longer reads as a state file, so it was not replaced");
      }
      await writeFileAtomic(p.lastGood, current, { fsync: true });
    }
    const text = serializeState(state);
    await writeFileAtomic(p.state, text, { fsync: true });
    this.known.set(p.slug, text);
    await fsyncDir(p.sessionDir);
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
