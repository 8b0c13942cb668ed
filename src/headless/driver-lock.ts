// The driver lock: one headless run drives a session from its first Step to its last. The store's
// own lock serialises single tool calls; this one is held for the whole run, so a second
// `autopilot run` (or an MCP server that checks it: see readDriver) on the same session fails fast
// with `busy`, naming the process that holds it.
//
// Files, both under `.harness/sessions/<slug>/` (never committed: autopilot's commits exclude it):
//   driver.lock/  proper-lockfile's lock directory, its mtime refreshed while the run lives;
//   driver.json   who holds it: { pid, hostname, startedAt, command }.
// A run that dies (even by SIGKILL) stops refreshing the lock: it is stale after STALE_MS, and at
// once when the holder was on this machine and its pid is gone.
import { mkdir, readFile, rm, utimes } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import lockfile from "proper-lockfile";
import writeFileAtomic from "write-file-atomic";
import { AutopilotError } from "../protocol/errors.js";
import { sessionPaths } from "../session/paths.js";

export const DRIVER_LOCK = "driver.lock";
export const DRIVER_INFO = "driver.json";
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

function files(root: string, slug: string) {
  const dir = sessionPaths(root, slug).sessionDir;
  // proper-lockfile keys the locks a process holds by the locked path: the store locks the session
  // folder itself for each tool call, so this lock names its own (never created) path.
  return { dir, key: path.join(dir, "driver"), lock: path.join(dir, DRIVER_LOCK), info: path.join(dir, DRIVER_INFO) };
}

/** Who drives the session now, or null when nobody does (no lock, or the holder is dead). */
export async function readDriver(root: string, slug: string): Promise<DriverInfo | null> {
  const f = files(root, slug);
  let locked: boolean;
  try {
    locked = await lockfile.check(f.key, { lockfilePath: f.lock, realpath: false, stale: STALE_MS });
  } catch {
    return null;
  }
  if (!locked) return null;
  const info = await readInfo(f.info);
  if (info && holderIsDead(info)) return null;
  return info ?? { pid: 0, hostname: "?", startedAt: "?", command: "?" };
}

async function readInfo(file: string): Promise<DriverInfo | null> {
  try {
    const v = JSON.parse(await readFile(file, "utf8")) as DriverInfo;
    return typeof v?.pid === "number" ? v : null;
  } catch {
    return null;
  }
}

function holderIsDead(info: DriverInfo): boolean {
  if (info.hostname !== hostname() || info.pid === process.pid) return false;
  try {
    process.kill(info.pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH";
  }
}

export async function acquireDriverLock(root: string, slug: string, command: string): Promise<DriverLock> {
  const f = files(root, slug);
  await mkdir(f.dir, { recursive: true });
  let compromised: Error | null = null;
  const attempt = () =>
    lockfile.lock(f.key, {
      lockfilePath: f.lock,
      realpath: false,
      stale: STALE_MS,
      retries: 0,
      onCompromised: (e) => {
        compromised = e;
      },
    });
  let release: () => Promise<void>;
  try {
    release = await attempt();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ELOCKED") {
      throw new AutopilotError("internal", `Could not take the driver lock ${f.lock}: ${(e as Error).message}`);
    }
    const holder = await readInfo(f.info);
    if (!holder || !holderIsDead(holder)) throw busy(slug, holder);
    // The holder on this machine is gone: age its lock so proper-lockfile takes it over as stale.
    await utimes(f.lock, new Date(0), new Date(0)).catch(() => {});
    try {
      release = await attempt();
    } catch (e2) {
      if ((e2 as NodeJS.ErrnoException).code === "ELOCKED") throw busy(slug, await readInfo(f.info));
      throw e2;
    }
  }
  const info: DriverInfo = { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString(), command };
  await writeFileAtomic(f.info, JSON.stringify(info, null, 2) + "\n");
  return {
    info,
    compromised: () => compromised,
    async release() {
      const current = await readInfo(f.info);
      if (current?.pid === process.pid && current.hostname === info.hostname) await rm(f.info, { force: true });
      await release().catch(() => {});
    },
  };
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
