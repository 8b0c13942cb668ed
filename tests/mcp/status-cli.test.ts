// `autopilot status [SLUG] [--json]` on the built CLI: the sessions of the current project and
// where each waits, read-only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { agreeable, MAIN_JS, openSession, playHost, SCANNER_SLUG, type Session } from "../helpers/mcp-client.js";

const run = promisify(execFile);
async function status(cwd: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [MAIN_JS, "status", ...args], { cwd });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

let s: Session;
beforeAll(async () => {
  s = await openSession();
  await playHost(s.srv.client, s.root, await s.start(), new ScriptedRunner({}), agreeable, {
    until: (x) => x.next.kind === "ask",
  });
});
afterAll(async () => {
  await s.dispose();
});

describe("autopilot status", () => {
  it("lists sessions with where each waits, and changes nothing", async () => {
    const file = path.join(s.root, ".harness/sessions", SCANNER_SLUG, "autopilot-state.json");
    const before = await readFile(file);
    const r = await status(s.root);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${SCANNER_SLUG}: PHASE_COMPLETE · phase 1/3 Core Scanner`);
    expect(r.stdout).toMatch(/waiting on human: Phase 1 complete/);
    expect((await readFile(file)).equals(before)).toBe(true);
  });

  it("--json and one session in detail", async () => {
    const all = JSON.parse((await status(s.root, "--json")).stdout);
    expect(all.sessions).toEqual([expect.objectContaining({ session: SCANNER_SLUG, waitingOn: "human" })]);
    const one = await status(s.root, SCANNER_SLUG);
    expect(one.stdout).toMatch(/1\. Core Scanner \(low\) complete/);
    expect(one.stdout).toMatch(/2\. Rule Engine \(high\) pending/);
    const oneJson = JSON.parse((await status(s.root, SCANNER_SLUG, "--json")).stdout);
    expect(oneJson).toMatchObject({ session: SCANNER_SLUG, step: { state: "PHASE_COMPLETE", next: { kind: "ask" } } });
  });

  it("an unknown session is a one-line failure, a bad option a usage error", async () => {
    const r = await status(s.root, "nope");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\[unknown_session\]/);
    expect((await status(s.root, "--bogus")).code).toBe(2);
  });

  it("an empty project says so", async () => {
    const r = await status(path.join(s.root, "docs"));
    // The whole result (exit code, stderr) when it fails: once, under load, stdout was empty.
    expect(r.stdout, JSON.stringify(r)).toMatch(/No autopilot sessions/);
  });
});
