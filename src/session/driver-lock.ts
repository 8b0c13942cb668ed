// The driver lock: one headless run drives a session from its first Step to its last. The store's
// own lock serialises single tool calls; this one is held for the whole run, so a second
// `autopilot run` (or an MCP server that checks it: see readDriver) on the same session fails fast
// with `busy`, naming the process that holds it.
//
// Files, both under `.harness/sessions/<slug>/` (never committed: autopilot's commits exclude it):
//   driver.lock/  proper-lockfile's lock directory, its mtime refreshed while the run lives;
//   driver.json   who holds it: { pid, hostname, startedAt, command, ino } (ino: the lock directory's).
// A run that dies (even by SIGKILL) stops refreshing the lock: it is stale after STALE_MS, and at
// once when the holder was on this machine and its pid is gone (src/session/lock.ts, the same lock
// the store takes for each call; driver.json is its owner record).
import path from "node:path";
import { AutopilotError } from "../protocol/errors.js";
import { sessionPaths } from "./paths.js";
import { acquireLock, lockHolder, LockBusyError, type LockFiles, type LockOwner } from "./lock.js";

const DRIVER_LOCK = "driver.lock";
const DRIVER_INFO = "driver.json";
const STALE_MS = 10_000;

export interface DriverInfo {
  pid: number;
  hostname: string;
  startedAt: string;
  command: string;
}

export interface DriverLock {
  info: DriverInfo;
  /** Set when the lock was lost while running (its directory removed or taken over). */
  compromised(): Error | null;
  release(): Promise<void>;
}

function files(root: string, slug: string): LockFiles {
  const dir = sessionPaths(root, slug).sessionDir;
  // proper-lockfile keys the locks a process holds by the locked path: the store locks the session
  // folder itself for each tool call, so this lock names its own (never created) path.
  return { target: path.join(dir, "driver"), dir: path.join(dir, DRIVER_LOCK), owner: path.join(dir, DRIVER_INFO) };
}

function driverInfo(owner: LockOwner): DriverInfo {
  const word = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : "?");
  return { ...owner, startedAt: word(owner.startedAt), command: word(owner.command) };
}

/** Who drives the session now, or null when nobody does (no lock, or the holder is dead). */
export async function readDriver(root: string, slug: string): Promise<DriverInfo | null> {
  const held = await lockHolder(files(root, slug), STALE_MS);
  if (!held) return null;
  return held.owner ? driverInfo(held.owner) : { pid: 0, hostname: "?", startedAt: "?", command: "?" };
}

export async function acquireDriverLock(root: string, slug: string, command: string): Promise<DriverLock> {
  const f = files(root, slug);
  try {
    const held = await acquireLock(f, {
      staleMs: STALE_MS,
      waitMs: 0,
      details: { startedAt: new Date().toISOString(), command },
    });
    return { info: driverInfo(held.owner), compromised: held.compromised, release: held.release };
  } catch (e) {
    if (e instanceof LockBusyError) throw busy(slug, e.holder && driverInfo(e.holder));
    throw new AutopilotError("internal", `Could not take the driver lock ${f.dir}: ${(e as Error).message}`);
  }
}
function busy(slug: string, holder: DriverInfo | null): AutopilotError {
  const who = holder
    ? `pid ${holder.pid} on ${holder.hostname}, since ${holder.startedAt}: ${holder.command}`
    : "a process that has not written its details yet";
  return new AutopilotError(
    "busy",
    `Session "${slug}" is being driven by another autopilot run (${who}). Wait for it to finish or stop it; ` +
      `the lock of a run that died is taken over automatically.`,
    { holder },
  );
}
