// Verification failing over MCP: the human chooses "fix", the executor gets the findings, the
// verifier runs again and passes, and the phase completes with verification recorded as passed.
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Step } from "../../src/protocol/step.js";
import { agreeable, openSession, playHost, specWith, type Session } from "../helpers/mcp-client.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

describe("verify failing then fixed", () => {
  it("fix sends the findings to the executor and verifies again", async () => {
    s = await openSession({
      spec: specWith([{ name: "Core Scanner", complexity: "low" }]),
      specPath: "docs/specs/scanner.md",
    });
    const trace = { steps: [] as Step[] };
    const runner = new ScriptedRunner({ phases: { 0: { verifyFailsOnce: true } } });
    const end = await playHost(s.srv.client, s.root, await s.start(), runner, agreeable, { trace });
    expect(end.state).toBe("DONE");

    const i = trace.steps.findIndex((x) => x.state === "VERIFY" && x.next.kind === "ask");
    expect(i).toBeGreaterThan(0);
    const ask = trace.steps[i];
    expect(ask.next).toMatchObject({ options: ["fix", "skip verification", "stop"] });
    expect((ask.next as { context?: string }).context).toMatch(/expected 3 rules, got 0/);
    const fix = trace.steps[i + 1];
    expect(fix).toMatchObject({ state: "EXECUTE", next: { kind: "dispatch", persona: "harness-task-executor" } });
    expect((fix.next as { prompt: string }).prompt + (fix.next as { description: string }).description).toMatch(
      /[Ff]ix/,
    );
    const verifiers = trace.steps.filter((x) => x.next.kind === "dispatch" && x.next.persona === "harness-verifier");
    expect(verifiers).toHaveLength(2);

    const state = await s.state("specs--scanner");
    expect(state.history[0]).toMatchObject({ verificationPassed: true });
    expect(state.decisions.find((d: any) => d.answer === "fix")).toMatchObject({ by: "host", phase: 0 });
  });
});
