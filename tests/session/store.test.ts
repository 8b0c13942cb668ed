// The session store as users meet it: files that survive crashes, corrupt files left alone with a
// pointer to the last good copy, and one process at a time per session.
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AutopilotError } from "../../src/protocol/errors.js";
import { migrateState } from "../../src/session/migrate.js";
import { AutopilotState } from "../../src/session/schema.js";
import { SessionStore, serializeState } from "../../src/session/store.js";
import { distStore, ensureBuilt, projectRoot } from "../helpers/build.js";
import { nodeChild } from "../helpers/node-child.js";

const SLUG = "changes--store--proposal";
const fixture = (n: string) => readFileSync(path.join(projectRoot, "tests/fixtures/state", n), "utf8");

function sampleState(stepId = 0, phases = 2): AutopilotState {
  const { state } = migrateState(JSON.parse(fixture("v4-no-rigor.json")), { sessionDir: `.harness/sessions/${SLUG}` });
  const one = state.phases[0];
  return { ...state, stepId, phases: Array.from({ length: phases }, (_, i) => ({ ...one, name: `Phase ${i}` })) };
}

async function rejection(p: Promise<unknown>): Promise<AutopilotError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AutopilotError);
    return e as AutopilotError;
  }
  throw new Error("expected a rejection");
}

let root: string;
let store: SessionStore;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "autopilot-store-"));
  store = new SessionStore(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("reading and writing state files", () => {
  it("writes pretty JSON (2 spaces, trailing newline) in a new session folder and reads it back", async () => {
    const state = sampleState(7);
    await store.write(SLUG, state);
    const text = readFileSync(store.paths(SLUG).state, "utf8");
    expect(text).toBe(JSON.stringify(state, null, 2) + "\n");
    expect(text.split("\n")[1]).toBe('  "schemaVersion": 5,');
    const back = await store.read(SLUG);
    expect(back.state).toEqual(state);
    expect(back.notes).toEqual([]);
    expect(await store.exists(SLUG)).toBe(true);
  });

  it("an unknown session is unknown_session, not corrupt", async () => {
    expect((await rejection(store.read("changes--nope"))).code).toBe("unknown_session");
    expect(await store.exists("changes--nope")).toBe(false);
  });

  it("refuses to save an invalid state and leaves the file alone", async () => {
    await store.write(SLUG, sampleState(1));
    const before = readFileSync(store.paths(SLUG).state);
    const bad = { ...sampleState(2), currentState: "BRAINSTORM" } as unknown as AutopilotState;
    expect((await rejection(store.write(SLUG, bad))).code).toBe("internal");
    expect(readFileSync(store.paths(SLUG).state).equals(before)).toBe(true);
  });

  it("reads an upstream v2 file migrated in memory, without touching it; readRaw gives it as stored", async () => {
    const p = store.paths(SLUG);
    mkdirSync(p.sessionDir, { recursive: true });
    writeFileSync(p.state, fixture("v2-no-commit.json"));
    const { state, fromVersion, notes } = await store.read(SLUG, { head: "abc1234def" });
    expect(fromVersion).toBe(2);
    expect(state.startingCommit).toBe("abc1234def");
    // The file lives in this session's folder, whatever it claims.
    expect(state.sessionDir).toBe(`.harness/sessions/${SLUG}`);
    expect(notes.length).toBeGreaterThan(0);
    expect(readFileSync(p.state, "utf8")).toBe(fixture("v2-no-commit.json"));
    expect(await store.readRaw(SLUG)).toEqual(JSON.parse(fixture("v2-no-commit.json")));
  });

  it("lists sessions that have a state file, sorted", async () => {
    await store.write("b-session", sampleState());
    await store.write("a-session", sampleState());
    mkdirSync(path.join(root, ".harness/sessions/no-state-yet"), { recursive: true });
    writeFileSync(path.join(root, ".harness/sessions/index.md"), "# sessions\n");
    expect(await store.list()).toEqual(["a-session", "b-session"]);
    expect(await new SessionStore(path.join(root, "empty")).list()).toEqual([]);
  });
});

describe("the last good copy", () => {
  it("before each write the previous file is kept as autopilot-state.last-good.json", async () => {
    await store.write(SLUG, sampleState(1));
    expect(existsSync(store.paths(SLUG).lastGood)).toBe(false);
    await store.write(SLUG, sampleState(2));
    expect(readFileSync(store.paths(SLUG).lastGood, "utf8")).toBe(serializeState(sampleState(1)));
    await store.write(SLUG, sampleState(3));
    expect(readFileSync(store.paths(SLUG).lastGood, "utf8")).toBe(serializeState(sampleState(2)));
    expect((await store.read(SLUG)).state.stepId).toBe(3);
  });

  it("a state file edited in place after a write leaves the last good copy as it was", async () => {
    await store.write(SLUG, sampleState(1));
    await store.write(SLUG, sampleState(2));
    await store.write(SLUG, sampleState(3));
    // An editor that writes into the file (same inode), breaking it: the copy must not follow.
    writeFileSync(store.paths(SLUG).state, "{ broken");
    expect(readFileSync(store.paths(SLUG).lastGood, "utf8")).toBe(serializeState(sampleState(2)));
    expect((await rejection(store.read(SLUG))).code).toBe("corrupt_state");
  });

  it("the first write over an upstream file keeps the original bytes as the last good copy", async () => {
    const p = store.paths(SLUG);
    mkdirSync(p.sessionDir, { recursive: true });
    writeFileSync(p.state, fixture("complete-and-severities.json"));
    const { state } = await store.read(SLUG);
    await store.write(SLUG, state);
    expect(readFileSync(p.lastGood, "utf8")).toBe(fixture("complete-and-severities.json"));
  });
});

describe("a state file changed between calls", () => {
  it("is read again, even when only a digit changed and the size is the same", async () => {
    await store.write(SLUG, sampleState(4));
    expect((await store.read(SLUG)).state.stepId).toBe(4);
    // As a person would, between two calls: the same file, one value changed in place.
    const p = store.paths(SLUG).state;
    writeFileSync(p, readFileSync(p, "utf8").replace('"stepId": 4', '"stepId": 7'));
    expect((await store.read(SLUG)).state.stepId).toBe(7);
    // A store of another call (a new server process) sees the same.
    expect((await new SessionStore(root).read(SLUG)).state.stepId).toBe(7);
  });
});

describe("a corrupt state file", () => {
  const garbage = '{ "schemaVersion": 5, "currentState": "EXEC';

  it("gives corrupt_state naming the file, and the file stays byte-identical", async () => {
    const p = store.paths(SLUG);
    mkdirSync(p.sessionDir, { recursive: true });
    writeFileSync(p.state, garbage);
    const e = await rejection(store.read(SLUG));
    expect(e.code).toBe("corrupt_state");
    expect(e.message).toContain(`.harness/sessions/${SLUG}/autopilot-state.json`);
    expect(e.message).toMatch(/invalid JSON/);
    expect(e.message).toMatch(/no last good copy/);
    // A write that comes anyway must not destroy what the user may be repairing.
    expect((await rejection(store.write(SLUG, sampleState(9)))).code).toBe("corrupt_state");
    expect(readFileSync(p.state, "utf8")).toBe(garbage);
    expect(existsSync(p.lastGood)).toBe(false);
  });

  it("names the last good copy when there is one", async () => {
    await store.write(SLUG, sampleState(1));
    await store.write(SLUG, sampleState(2));
    writeFileSync(store.paths(SLUG).state, garbage);
    const e = await rejection(store.read(SLUG));
    expect(e.message).toContain(`.harness/sessions/${SLUG}/autopilot-state.last-good.json`);
    expect(e.details?.lastGood).toBe(store.paths(SLUG).lastGood);
    expect(readFileSync(store.paths(SLUG).state, "utf8")).toBe(garbage);
    expect(readFileSync(store.paths(SLUG).lastGood, "utf8")).toBe(serializeState(sampleState(1)));
  });

  it("an empty file, or one that cannot be migrated, is corrupt_state too", async () => {
    const p = store.paths(SLUG);
    mkdirSync(p.sessionDir, { recursive: true });
    writeFileSync(p.state, "");
    expect((await rejection(store.read(SLUG))).message).toMatch(/empty/);
    writeFileSync(p.state, fixture("unknown-state.json"));
    const e = await rejection(store.read(SLUG));
    expect(e.code).toBe("corrupt_state");
    expect(e.message).toMatch(/BRAINSTORM/);
    expect(readFileSync(p.state, "utf8")).toBe(fixture("unknown-state.json"));
  });
});

// ---- real processes -------------------------------------------------------------------------

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

const CHILD = `
const [storeUrl, mode, root, slug, a, b, c] = process.argv.slice(1);
const { SessionStore } = await import(storeUrl);
const store = new SessionStore(root);
if (mode === "hold") {
  try {
    await store.withLock(slug, async () => {
      console.log("locked");
      await new Promise((r) => setTimeout(r, Number(a)));
    }, { staleMs: Number(b), waitMs: Number(c) });
    console.log("released");
  } catch (e) {
    console.log("error " + e.code + " " + e.message);
  }
} else if (mode === "write-forever") {
  const fs = await import("node:fs");
  const states = [JSON.parse(fs.readFileSync(a, "utf8")), JSON.parse(fs.readFileSync(b, "utf8"))];
  console.log("writing");
  for (let i = 0; ; i++) await store.write(slug, states[i % 2]);
}
`;

/** A separate node process running the built store; resolves lines as they are printed. */
function child(...args: string[]) {
  return nodeChild(CHILD, [pathToFileURL(distStore).href, ...args], children);
}

describe("one process at a time per session", () => {
  beforeAll(async () => {
    await ensureBuilt();
  });

  it("while another process holds the session, a second process and this one get busy", async () => {
    const holder = child("hold", root, SLUG, "8000", "10000", "100");
    await holder.waitFor(/locked/);
    const second = child("hold", root, SLUG, "0", "10000", "400");
    expect(await second.waitFor(/error \w+/)).toBe("error busy");
    const e = await rejection(store.withLock(SLUG, () => "never", { waitMs: 300 }));
    expect(e.code).toBe("busy");
    expect(e.message).toMatch(/Another autopilot process holds session/);
    expect(e.message).toMatch(/Wait for it to finish/);
    holder.proc.kill("SIGTERM");
    await holder.exited;
  });

  it("waits for a holder that finishes within the wait", async () => {
    const holder = child("hold", root, SLUG, "400", "10000", "100");
    await holder.waitFor(/locked/);
    const t0 = Date.now();
    expect(await store.withLock(SLUG, () => "mine", { waitMs: 5000 })).toBe("mine");
    expect(Date.now() - t0).toBeGreaterThan(100);
    await holder.waitFor(/released/);
  });

  it("calls in one process take turns instead of failing busy (a wave's reports at once), and a nested call still fails busy", async () => {
    const spans: Array<[number, number]> = [];
    const hold = (ms: number) => async () => {
      const start = Date.now();
      await new Promise((r) => setTimeout(r, ms));
      spans.push([start, Date.now()]);
      return spans.length;
    };
    // Each holds the session four times longer than the others may wait for the cross-process lock.
    const results = await Promise.all([1, 2, 3, 4].map(() => store.withLock(SLUG, hold(400), { waitMs: 100 })));
    expect(results.sort()).toEqual([1, 2, 3, 4]);
    spans.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i][0]).toBeGreaterThanOrEqual(spans[i - 1][1]);
    const nested = await rejection(store.withLock(SLUG, () => store.withLock(SLUG, () => "inner", { waitMs: 100 })));
    expect(nested.code).toBe("busy");
    expect(existsSync(store.paths(SLUG).lock)).toBe(false);
  });

  it("a live holder keeps its lock fresh and is not taken over after the stale time", async () => {
    const holder = child("hold", root, SLUG, "6000", "2000", "100");
    await holder.waitFor(/locked/);
    const e = await rejection(store.withLock(SLUG, () => "stolen", { staleMs: 2000, waitMs: 3500 }));
    expect(e.code).toBe("busy");
    holder.proc.kill("SIGTERM");
    await holder.exited;
  });

  it("a lock left by a SIGKILLed process on this machine is recovered at once", async () => {
    const holder = child("hold", root, SLUG, "60000", "10000", "100");
    await holder.waitFor(/locked/);
    holder.proc.kill("SIGKILL");
    await holder.exited;
    expect(existsSync(store.paths(SLUG).lock)).toBe(true);
    // A wait of 100 ms, far below the 10 s stale time: only an at-once recovery succeeds.
    expect(await store.withLock(SLUG, () => "recovered", { waitMs: 100 })).toBe("recovered");
    expect(existsSync(store.paths(SLUG).lock)).toBe(false);
  });

  it("a lock with no owner record (another host) is recovered once it goes stale", async () => {
    const holder = child("hold", root, SLUG, "60000", "2000", "100");
    await holder.waitFor(/locked/);
    holder.proc.kill("SIGKILL");
    await holder.exited;
    rmSync(`${store.paths(SLUG).lock}.owner`, { force: true });
    // Just killed and nothing says who held it: the lock still looks alive.
    expect((await rejection(store.withLock(SLUG, () => 0, { staleMs: 2000, waitMs: 100 }))).code).toBe("busy");
    // Real time passes; nobody refreshes it; we take it over.
    // Within the 6 s wait, or this would fail busy.
    expect(await store.withLock(SLUG, () => "recovered", { staleMs: 2000, waitMs: 6000 })).toBe("recovered");
    expect(existsSync(store.paths(SLUG).lock)).toBe(false);
  });

  it("with default settings, a dead process's lock older than 10 s is taken over at once", async () => {
    const holder = child("hold", root, SLUG, "60000", "10000", "100");
    await holder.waitFor(/locked/);
    holder.proc.kill("SIGKILL");
    await holder.exited;
    // Age the lock as if the crash happened 11 s ago, rather than waiting.
    const old = new Date(Date.now() - 11_000);
    utimesSync(store.paths(SLUG).lock, old, old);
    expect(await store.withLock(SLUG, () => "ok")).toBe("ok");
  });
});

describe("a crash mid-write leaves either the old or the new file", () => {
  beforeAll(async () => {
    await ensureBuilt();
  });

  it("a torn temp file left by a crash does not affect the state file", async () => {
    await store.write(SLUG, sampleState(1));
    const p = store.paths(SLUG);
    const full = serializeState(sampleState(2));
    // write-file-atomic writes `<file>.<hash>` and renames it; a crash before the rename leaves this.
    writeFileSync(`${p.state}.1234567890`, full.slice(0, full.length / 2));
    expect((await store.read(SLUG)).state.stepId).toBe(1);
    expect(await store.list()).toEqual([SLUG]);
    await store.write(SLUG, sampleState(3));
    expect((await store.read(SLUG)).state.stepId).toBe(3);
  });

  it("a writer SIGKILLed at random moments never leaves a torn state file", async () => {
    // Large states widen the window in which a non-atomic write would be caught half-done.
    const a = sampleState(101, 400);
    const b = sampleState(202, 300);
    const fa = path.join(root, "a.json");
    const fb = path.join(root, "b.json");
    writeFileSync(fa, JSON.stringify(a));
    writeFileSync(fb, JSON.stringify(b));
    const expected = [serializeState(a), serializeState(b)];
    for (let round = 0; round < 5; round++) {
      const writer = child("write-forever", root, SLUG, fa, fb);
      await writer.waitFor(/writing/);
      await new Promise((r) => setTimeout(r, 150 + Math.random() * 250));
      writer.proc.kill("SIGKILL");
      await writer.exited;
      const p = store.paths(SLUG);
      if (!existsSync(p.state)) continue;
      expect(expected).toContain(readFileSync(p.state, "utf8"));
      expect([a.stepId, b.stepId]).toContain((await store.read(SLUG)).state.stepId);
      if (existsSync(p.lastGood)) expect(expected).toContain(readFileSync(p.lastGood, "utf8"));
    }
    expect(statSync(store.paths(SLUG).state).size).toBeGreaterThan(0);
  });
});
