// The final cross-phase review finds a blocking issue once: "fix" dispatches the fix, the review
// runs again, passes, and the session is DONE with one fix round recorded.
import { afterEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Step } from "../../src/protocol/step.js";
import { agreeable, openSession, playHost, specWith, type Session } from "../helpers/mcp-client.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

describe("final review fixing once", () => {
  it("fix, review again, DONE", async () => {
    s = await openSession({
      spec: specWith([
        { name: "Core Scanner", complexity: "low" },
        { name: "Rule Engine", complexity: "low" },
      ]),
      specPath: "docs/specs/scanner.md",
    });
    const trace = { steps: [] as Step[] };
    const end = await playHost(
      s.srv.client,
      s.root,
      await s.start(),
      new ScriptedRunner({ finalBlocking: 1 }),
      agreeable,
      { trace },
    );
    expect(end.state).toBe("DONE");

    const final = trace.steps.filter((x) => x.state === "FINAL_REVIEW");
    const kinds = final.map((x) => (x.next.kind === "dispatch" ? x.next.expects.result : x.next.kind));
    expect(kinds).toEqual(["reviewed", "ask", "fixed", "reviewed"]);
    const ask = final[1];
    // The blocking finding and a warning: the person may send the warning to the fix round too.
    expect(ask.next).toMatchObject({
      options: ["fix", "fix blocking and warnings", "fix these", "override", "stop"],
    });
    expect(final.every((x) => x.phase === null)).toBe(true);
    expect(existsSync(path.join(s.root, "src/final-fix-1.ts"))).toBe(true);

    const state = await s.state("specs--scanner");
    expect(state.finalReview).toMatchObject({ status: "passed", retryCount: 1 });
    expect(end.next).toMatchObject({ kind: "done" });
  });
});
