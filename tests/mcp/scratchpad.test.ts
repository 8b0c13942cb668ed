// Research written to the scratchpad (by phase name or by index) lives in the phase's folder and
// is cleared when the phase completes; a --fast session writes none.
import { afterEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { agreeable, call, openSession, playHost, SCANNER_SLUG, type Session } from "../helpers/mcp-client.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

describe("write_scratchpad", () => {
  it("keeps research under the phase's folder until PHASE_COMPLETE clears it", async () => {
    s = await openSession();
    const first = await s.start();
    const byIndex = await call(s.srv.client, "write_scratchpad", {
      session: SCANNER_SLUG,
      phase: 0,
      filename: "deps.md",
      content: "# deps\n",
    });
    const byName = await call(s.srv.client, "write_scratchpad", {
      session: SCANNER_SLUG,
      phase: "Core Scanner",
      filename: "notes.md",
      content: "# notes\n",
    });
    const dir = `.harness/sessions/${SCANNER_SLUG}/scratchpad/core-scanner`;
    expect((byIndex.result.structuredContent as { path: string }).path).toBe(`${dir}/deps.md`);
    expect((byName.result.structuredContent as { path: string }).path).toBe(`${dir}/notes.md`);
    const atComplete = await playHost(s.srv.client, s.root, first, new ScriptedRunner(), agreeable, {
      until: (st) => st.state === "PHASE_COMPLETE",
    });
    expect(atComplete.state).toBe("PHASE_COMPLETE");
    expect(existsSync(path.join(s.root, dir))).toBe(false);
  });

  it("refuses to write in a --fast session", async () => {
    s = await openSession();
    await s.start("--fast");
    const r = await call(s.srv.client, "write_scratchpad", {
      session: SCANNER_SLUG,
      phase: 0,
      filename: "x.md",
      content: "x",
    });
    expect(r.result.isError).toBe(true);
    expect(r.text).toMatch(/--fast/);
    expect(existsSync(path.join(s.root, `.harness/sessions/${SCANNER_SLUG}/scratchpad`))).toBe(false);
  });
});
