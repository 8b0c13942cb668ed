// A blocking review finding overridden by the human over MCP: the phase completes, and the override
// is in the decision log with its rationale.
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { agreeable, call, openSession, playHost, specWith, stepCall, type Session } from "../helpers/mcp-client.js";

const SLUG = "specs--scanner";
let s: Session | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

describe("blocking review overridden", () => {
  it("override completes the phase and records the decision", async () => {
    s = await openSession({
      spec: specWith([
        { name: "Core Scanner", complexity: "low" },
        { name: "Rule Engine", complexity: "low" },
      ]),
      specPath: "docs/specs/scanner.md",
    });
    const runner = new ScriptedRunner({ phases: { 0: { blockingReviewOnce: true } } });
    const ask = await playHost(s.srv.client, s.root, await s.start(), runner, agreeable, {
      until: (x) => x.next.kind === "ask",
    });
    // A blocking finding and a note: "fix these" lets the person pick (no warning: no "fix blocking and warnings").
    expect(ask).toMatchObject({
      state: "REVIEW",
      next: { kind: "ask", options: ["fix", "fix these", "override", "stop"] },
    });
    expect((ask.next as { context?: string }).context).toMatch(/Unchecked input reaches the parser/);

    const next = await stepCall(s.srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: ask.stepId,
      answer: "Override", // case and spacing are forgiven
      rationale: "The input is validated upstream by the CLI.",
    });
    expect(next.state).toBe("PHASE_COMPLETE");
    expect(next.report).toMatch(/COMPLETE/);

    const log = (await call(s.srv.client, "autopilot_decisions", { session: SLUG })).result.structuredContent as any;
    const d = log.decisions.find((x: any) => x.answer === "override");
    expect(d).toMatchObject({
      decision: "overrode_review",
      phase: { index: 0 },
      who: "host",
      rationale: "The input is validated upstream by the CLI.",
      state: "REVIEW",
    });
    expect(log.phases[0].reviewFindings.blocking).toBe(1);

    const end = await playHost(s.srv.client, s.root, next, runner, agreeable);
    expect(end.state).toBe("DONE");
  });
});
