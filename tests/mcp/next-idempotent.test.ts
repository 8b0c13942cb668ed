// autopilot_next (and the read-only tools and resources) change nothing: at a dispatch, an ask, a
// wait and DONE, calling them repeatedly leaves the state file byte-for-byte identical and
// returns the same Step every time.
import { afterEach, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Step } from "../../src/protocol/step.js";
import {
  agreeable,
  call,
  openSession,
  planText,
  playHost,
  SCANNER_SLUG,
  stepCall,
  writeProjectFile,
  type Session,
} from "../helpers/mcp-client.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

async function assertStill(s: Session, step: Step) {
  const file = path.join(s.root, ".harness/sessions", SCANNER_SLUG, "autopilot-state.json");
  const before = await readFile(file);
  let last: Step | undefined;
  for (let i = 0; i < 4; i++) {
    const again = await stepCall(s.srv.client, "autopilot_next", { session: SCANNER_SLUG });
    // autopilot_start adds its resume notes to the report it returns; the rest is the saved Step.
    expect({ ...again, report: undefined }).toEqual({ ...step, report: undefined });
    if (i > 0) expect(again).toEqual(last);
    last = again;
    await call(s.srv.client, "autopilot_status", {});
    await call(s.srv.client, "autopilot_status", { session: SCANNER_SLUG });
    await call(s.srv.client, "autopilot_decisions", { session: SCANNER_SLUG });
    await s.srv.client.readResource({ uri: `autopilot://sessions/${SCANNER_SLUG}/state` });
    await s.srv.client.readResource({ uri: "autopilot://sessions" });
  }
  expect((await readFile(file)).equals(before)).toBe(true);
}

describe("autopilot_next changes nothing", () => {
  it("at a dispatch, an ask, a wait and DONE", async () => {
    s = await openSession();
    const runner = new ScriptedRunner({});
    const dispatch = await s.start();
    await assertStill(s, dispatch);
    const ask = await playHost(s.srv.client, s.root, dispatch, runner, agreeable, {
      until: (x) => x.next.kind === "ask",
    });
    await assertStill(s, ask);
    const wait = await playHost(s.srv.client, s.root, ask, runner, agreeable);
    expect(wait.next.kind).toBe("wait");
    await assertStill(s, wait);

    await writeProjectFile(
      s.root,
      "docs/changes/security-scanner/plans/2026-01-01-rule-engine-plan.md",
      planText("Rule Engine", 3),
    );
    const resumed = await stepCall(s.srv.client, "autopilot_start", {
      spec: "docs/changes/security-scanner/proposal.md",
    });
    await assertStill(s, resumed);
    const done = await playHost(s.srv.client, s.root, resumed, runner, agreeable);
    expect(done.state).toBe("DONE");
    await assertStill(s, done);
  });
});

describe("autopilot_next after a context reset", () => {
  it("starts with where the session stands and what was done, as a resume does, and saves none of it", async () => {
    s = await openSession();
    const runner = new ScriptedRunner({});
    const dispatch = await s.start();
    const wait = await playHost(s.srv.client, s.root, dispatch, runner, agreeable, {
      until: (x) => x.next.kind === "wait",
    });
    expect(wait.report).not.toMatch(/Done: Phase 1/);
    const file = path.join(s.root, ".harness/sessions", SCANNER_SLUG, "autopilot-state.json");
    const before = await readFile(file);
    // A host that lost its context has only the session's name (the SessionStart hook gives it).
    const again = await stepCall(s.srv.client, "autopilot_next", { session: SCANNER_SLUG });
    expect(again.report).toMatch(/Resuming autopilot from state PLAN, phase 2/);
    expect(again.report).toMatch(/Done: Phase 1: .* tasks, verification pass/);
    expect(again.report).toMatch(/Commits so far: \d+/);
    // The Step's own report follows the summary.
    expect(again.report).toContain(wait.report!.split("\n")[0]);
    expect((await readFile(file)).equals(before)).toBe(true);
  });
});
