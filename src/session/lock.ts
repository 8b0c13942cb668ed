// The one cross-process lock: a proper-lockfile lock directory, refreshed while its holder lives,
// plus an owner record naming the holder, so that a holder that died is found out at once instead
// of after the stale time. Used by the session store (one tool call at a time), the headless driver
// lock (one `autopilot run` per session) and the repository lock (commits and shared files).
//
// A lock is taken over:
//  - at once, when its owner record names a process on this machine that no longer exists and the
//    record belongs to this very lock directory (its inode; a record without one is trusted);
//  - otherwise when nobody refreshed it for `staleMs` (a holder on another host, or no record).
import { renameSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rm, stat, utimes } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import lockfile from "proper-lockfile";

export interface LockFiles {
  /** The path proper-lockfile keys the lock by in this process (it need not exist). */
  target: string;
  /** The lock directory. */
  dir: string;
  /** The owner record, written once the lock is taken (default: `<dir>.owner`). */
  owner?: string;
}

/** Who holds a lock; callers may add details (the driver lock adds what runs and since when). */
export interface LockOwner {
  pid: number;
  hostname: string;
  /** The lock directory's inode when the record was written: ties the record to that directory. */
  ino?: number;
  [detail: string]: unknown;
}

export interface AcquireOptions {
  /** A lock not refreshed for this long belongs to a dead process and is taken over. */
  staleMs: number;
  /** How often a live holder refreshes its lock (default: staleMs / 2). */
  updateMs?: number;
  /** How long to wait for a live holder before giving up with LockBusyError (0: one try). */
  waitMs: number;
  /** Pause between tries: this many ms plus up to twice as many at random. */
  pollMs?: number;
  /** Written into the owner record next to pid, hostname and inode. */
  details?: Record<string, unknown>;
}

export interface HeldLock {
  owner: LockOwner;
  /** Set when the lock was lost while held (its directory removed or taken over). */
  compromised: () => Error | null;
  /** Removes the owner record if it is still ours, then the lock. Never throws. */
  release: () => Promise<void>;
}

/** A live holder kept the lock past the wait. */
export class LockBusyError extends Error {
  readonly code = "ELOCKED";
  constructor(
    readonly lockDir: string,
    /** The holder's record, when it has written one. */
    readonly holder: LockOwner | null,
  ) {
    super(`lock ${lockDir} is held${holder ? ` by pid ${holder.pid} on ${holder.hostname}` : ""}`);
  }
}

function ownerFile(files: LockFiles): string {
  return files.owner ?? `${files.dir}.owner`;
}

function errCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException)?.code;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The owner record, or null when there is none or it does not read as one. */
export async function readLockOwner(files: LockFiles): Promise<LockOwner | null> {
  try {
    const v = JSON.parse(await readFile(ownerFile(files), "utf8")) as Record<string, unknown>;
    // Records written before the lock module named the host `host`.
    const host = typeof v.hostname === "string" ? v.hostname : v.host;
    if (typeof v.pid !== "number" || typeof host !== "string") return null;
    return { ...v, pid: v.pid, hostname: host, ...(typeof v.ino === "number" ? { ino: v.ino } : {}) };
  } catch {
    return null;
  }
}

/** True only when the record names a process on this machine that is gone, for this lock directory. */
async function lockOwnerIsDead(files: LockFiles): Promise<boolean> {
  const owner = await readLockOwner(files);
  if (!owner || owner.hostname !== hostname() || owner.pid === process.pid) return false;
  try {
    // A new holder's lock is a new directory: a record left by a dead process never condemns it.
    if (owner.ino !== undefined && owner.ino !== (await stat(files.dir)).ino) return false;
  } catch {
    return false;
  }
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (e) {
    if (errCode(e) !== "ESRCH") return false;
  }
  // The holder may have released and exited between the read and the check, and a new holder's
  // directory may reuse the inode. A holder removes its record before it releases, so the same
  // record still there (and the same directory) means it died holding the lock.
  const again = await readLockOwner(files);
  if (!again || again.pid !== owner.pid || again.ino !== owner.ino) return false;
  try {
    return owner.ino === undefined || owner.ino === (await stat(files.dir)).ino;
  } catch {
    return false;
  }
}

/** Who holds the lock now: null when nobody does (no lock, a stale one, or its holder is dead). */
export async function lockHolder(files: LockFiles, staleMs: number): Promise<{ owner: LockOwner | null } | null> {
  let locked: boolean;
  try {
    locked = await lockfile.check(files.target, { lockfilePath: files.dir, realpath: false, stale: staleMs });
  } catch {
    return null;
  }
  if (!locked || (await lockOwnerIsDead(files))) return null;
  return { owner: await readLockOwner(files) };
}

/**
 * Take the lock, waiting up to `waitMs` for a live holder. Throws LockBusyError when it stays
 * held; any other error (the folder cannot be made, ...) as it came.
 */
export async function acquireLock(files: LockFiles, opts: AcquireOptions): Promise<HeldLock> {
  await mkdir(path.dirname(files.dir), { recursive: true });
  const deadline = Date.now() + opts.waitMs;
  const poll = opts.pollMs ?? 50;
  let compromised: Error | null = null;
  let release: () => Promise<void>;
  for (;;) {
    try {
      release = await lockfile.lock(files.target, {
        lockfilePath: files.dir,
        realpath: false,
        stale: opts.staleMs,
        update: opts.updateMs,
        retries: 0,
        // The default throws from a timer, which would crash the process; callers check it.
        onCompromised: (e) => {
          compromised = e;
        },
      });
      break;
    } catch (e) {
      if (errCode(e) !== "ELOCKED") throw e;
      // A holder on this machine that no longer exists (killed mid-call) cannot refresh its lock:
      // mark it stale at once instead of making every caller wait out the stale time.
      if (await lockOwnerIsDead(files)) {
        await rm(ownerFile(files), { force: true });
        await utimes(files.dir, 0, 0).catch(() => {});
        continue;
      }
      if (Date.now() >= deadline) throw new LockBusyError(files.dir, await readLockOwner(files));
      await sleep(poll + Math.floor(Math.random() * 2 * poll));
    }
  }
  const owner: LockOwner = { pid: process.pid, hostname: hostname(), ...opts.details };
  try {
    owner.ino = (await stat(files.dir)).ino;
    // Renamed in whole, never flushed: the record only matters while this process lives, and one
    // lost to a machine's crash leaves the lock to go stale by time, as a record that does not read.
    const tmp = `${ownerFile(files)}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(owner, null, 2) + "\n");
    renameSync(tmp, ownerFile(files));
  } catch {
    // Without an owner record the lock still works; it just goes stale by time alone.
  }
  return {
    owner,
    compromised: () => compromised,
    release: async () => {
      const current = await readLockOwner(files);
      if (current?.pid === owner.pid && current.hostname === owner.hostname && current.ino === owner.ino)
        await rm(ownerFile(files), { force: true }).catch(() => {});
      await release().catch(() => {
        // Already released or taken over; nothing of ours left to clean up.
      });
    },
  };
}
