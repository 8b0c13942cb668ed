// The one cross-process lock (src/session/lock.ts) that the session store, the headless driver lock
// and the repository lock share: real node processes hold it, die holding it, and race for it.
import { spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { acquireLock, lockHolder, LockBusyError, readLockOwner, type LockFiles } from "../../src/session/lock.js";
import { ensureBuilt, projectRoot } from "../helpers/build.js";
import { nodeChild } from "../helpers/node-child.js";

const distLock = path.join(projectRoot, "dist/src/session/lock.js");

let dir: string;
let files: LockFiles;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "autopilot-lock-"));
  files = { target: path.join(dir, "thing"), dir: path.join(dir, "thing.lock") };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

// hold: take the lock, say so, keep it for `ms`. count: take it, read the counter, wait `ms`,
// write it plus one.
const CHILD = `
const [lockUrl, mode, target, lockDir, ms, staleMs, waitMs, counter] = process.argv.slice(1);
const { acquireLock } = await import(lockUrl);
const files = { target, dir: lockDir };
try {
  const held = await acquireLock(files, { staleMs: Number(staleMs), waitMs: Number(waitMs), details: { role: mode } });
  if (mode === "hold") console.log("locked");
  if (mode === "count") {
    const fs = await import("node:fs");
    const n = Number(fs.readFileSync(counter, "utf8"));
    await new Promise((r) => setTimeout(r, Number(ms)));
    fs.writeFileSync(counter, String(n + 1));
  } else {
    await new Promise((r) => setTimeout(r, Number(ms)));
  }
  await held.release();
  console.log("released");
} catch (e) {
  console.log("error " + (e.code ?? e.name) + " " + e.message);
}
`;

function child(mode: "hold" | "count", ms: number, staleMs: number, waitMs: number, counter = "") {
  const args = [
    pathToFileURL(distLock).href,
    mode,
    files.target,
    files.dir,
    String(ms),
    String(staleMs),
    String(waitMs),
    counter,
  ];
  return nodeChild(CHILD, args, children);
}

/** A holder SIGKILLed while it held the lock: the lock directory and its record stay behind. */
async function killedHolder() {
  const holder = child("hold", 60_000, 10_000, 100);
  await holder.waitFor(/locked/);
  holder.proc.kill("SIGKILL");
  await holder.exited;
}

/** The LockBusyError `p` rejects with (fails when it resolves or rejects with anything else). */
async function busy(p: Promise<unknown>): Promise<LockBusyError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(LockBusyError);
  return e as LockBusyError;
}

describe("one lock, held by real processes", () => {
  beforeAll(async () => {
    await ensureBuilt();
  });

  it("a live owner keeps it: others get busy naming the holder, even past the stale time", async () => {
    const holder = child("hold", 8000, 2000, 100);
    await holder.waitFor(/locked/);
    const e = await busy(acquireLock(files, { staleMs: 2000, waitMs: 3000 }));
    expect(e.holder).toMatchObject({ pid: holder.proc.pid, hostname: hostname(), role: "hold" });
    expect(await lockHolder(files, 2000)).toMatchObject({ owner: { pid: holder.proc.pid } });
    holder.proc.kill("SIGTERM");
    await holder.exited;
  });

  it("a stale owner (SIGKILLed on this machine) is taken over at once, and its record replaced", async () => {
    await killedHolder();
    expect(existsSync(files.dir)).toBe(true);
    expect(await lockHolder(files, 10_000)).toBeNull();
    // Waiting 100 ms for a lock that would go stale only after 10 s: taken because its owner is gone.
    const held = await acquireLock(files, { staleMs: 10_000, waitMs: 100 });
    expect(await readLockOwner(files)).toMatchObject({ pid: process.pid });
    await held.release();
    expect(existsSync(files.dir)).toBe(false);
    expect(existsSync(`${files.dir}.owner`)).toBe(false);
  });

  it("a dead process's record left beside a newer lock does not condemn that lock's live holder", async () => {
    const holder = child("hold", 8000, 10_000, 100);
    await holder.waitFor(/locked/);
    const live = readFileSync(`${files.dir}.owner`, "utf8");
    // The record of a process that is gone, for an older lock directory (another inode).
    const dead = spawnPid();
    const ino = JSON.parse(live).ino as number;
    writeFileSync(`${files.dir}.owner`, JSON.stringify({ pid: dead, hostname: hostname(), ino: ino + 1 }));
    await busy(acquireLock(files, { staleMs: 10_000, waitMs: 300 }));
    holder.proc.kill("SIGTERM");
    await holder.exited;
  });

  it("a lock with no record goes stale by time alone", async () => {
    await killedHolder();
    rmSync(`${files.dir}.owner`);
    await busy(acquireLock(files, { staleMs: 10_000, waitMs: 100 }));
    // Age it as if nobody had refreshed it for 11 s, rather than waiting.
    const old = new Date(Date.now() - 11_000);
    utimesSync(files.dir, old, old);
    const held = await acquireLock(files, { staleMs: 10_000, waitMs: 100 });
    await held.release();
  });

  it("concurrent acquires: every process gets it in turn and no update is lost", async () => {
    // Each racer reads the counter, waits 200 ms, writes it plus one: two holders at once would
    // both write the same number.
    const counter = path.join(dir, "counter");
    writeFileSync(counter, "0");
    const racers = Array.from({ length: 6 }, () => child("count", 200, 10_000, 20_000, counter));
    const lines = await Promise.all(racers.map((r) => r.waitFor(/^(released|error).*$/m)));
    expect(lines.every((l) => l.startsWith("released"))).toBe(true);
    expect(readFileSync(counter, "utf8")).toBe("6");
  });
});

/** The pid of a process that has exited. */
function spawnPid(): number {
  return Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString());
}
