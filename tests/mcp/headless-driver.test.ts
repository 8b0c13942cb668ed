// A session that `autopilot run` is driving cannot be moved by a chat client at the same time:
// the client gets `busy` naming the run, and nothing changes; once the run lets go, it continues.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireDriverLock } from "../../src/session/driver-lock.js";
import { call, openSession, SCANNER_SLUG, type Session } from "../helpers/mcp-client.js";
import type { Step } from "../../src/protocol/step.js";

let s: Session;
let first: Step;
beforeAll(async () => {
  s = await openSession();
  first = await s.start("--review-plans");
});
afterAll(async () => {
  await s.dispose();
});

describe("a session driven by autopilot run", () => {
  it("refuses start, report and decide with busy while the run holds it, and works after", async () => {
    const before = await s.state();
    const lock = await acquireDriverLock(s.root, SCANNER_SLUG, "autopilot run (test)");
    try {
      for (const [tool, args] of [
        ["autopilot_start", { spec: "docs/changes/security-scanner/proposal.md" }],
        ["autopilot_report", { session: SCANNER_SLUG, stepId: first.stepId, result: { kind: "planned" } }],
        ["autopilot_decide", { session: SCANNER_SLUG, stepId: first.stepId, answer: "yes" }],
      ] as const) {
        const r = await call(s.srv.client, tool, args);
        expect(r.error?.code, tool).toBe("busy");
        expect(r.text).toMatch(new RegExp(`autopilot run\\\` \\(pid ${process.pid}`));
      }
      // Reading is always allowed.
      const next = await call(s.srv.client, "autopilot_next", { session: SCANNER_SLUG });
      expect(next.result.isError).toBeFalsy();
    } finally {
      await lock.release();
    }
    expect(await s.state()).toEqual(before);
    const resumed = await call(s.srv.client, "autopilot_start", { spec: "docs/changes/security-scanner/proposal.md" });
    expect(resumed.result.isError).toBeFalsy();
  });
});
