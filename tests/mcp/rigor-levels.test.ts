// Rigor levels over MCP: --fast skips the verifier and runs the project's validation commands
// instead (and auto-approves every plan); --thorough pauses every plan for review.
import { describe, expect, it } from "vitest";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Step } from "../../src/protocol/step.js";
import { agreeable, openSession, planText, playHost, specWith, writeProjectFile } from "../helpers/mcp-client.js";
import { SIDE_BY_SIDE } from "../helpers/timeouts.js";

const SPEC = specWith([
  { name: "Core Scanner", complexity: "low" },
  { name: "Rule Engine", complexity: "high" },
  { name: "CLI Integration", complexity: "low" },
]);
const ALL_LOW = specWith([
  { name: "Parser", complexity: "low" },
  { name: "Printer", complexity: "low" },
  { name: "Wiring", complexity: "low" },
]);
const SPEC_PATH = "docs/specs/feature.md";
const SLUG = "specs--feature";

const personas = (steps: Step[]) => steps.flatMap((x) => (x.next.kind === "dispatch" ? [x.next.persona] : []));
const asks = (steps: Step[]) => steps.filter((x) => x.next.kind === "ask");

describe.concurrent("rigor levels", { timeout: SIDE_BY_SIDE }, () => {
  it("fast: no verifier dispatch, validation commands run, even a high-complexity plan auto-approves", async ({
    onTestFinished,
  }) => {
    const s = await openSession({ spec: SPEC, specPath: SPEC_PATH });
    onTestFinished(() => s.dispose());
    const trace = { steps: [] as Step[] };
    const first = await s.start("--fast");
    expect(first.rigor).toBe("fast");
    const end = await playHost(s.srv.client, s.root, first, new ScriptedRunner({}), agreeable, { trace });
    // Phase 2 is high: fast mode still plans it interactively (that is ASSESS, not APPROVE_PLAN),
    // but the plan the human writes is then auto-approved.
    expect(end).toMatchObject({ state: "PLAN", next: { kind: "wait" } });
    await writeProjectFile(s.root, "docs/plans/2026-01-01-rule-engine-plan.md", planText("Rule Engine", 3));
    const resumed = await s.start();
    await playHost(s.srv.client, s.root, resumed, new ScriptedRunner({}), agreeable, { trace });
    const all = personas(trace.steps);
    expect(all).not.toContain("harness-verifier");
    expect(all).toContain("harness-code-reviewer");
    // The only questions are the between-phase ones: no plan ever waits for approval.
    expect(asks(trace.steps).every((x) => x.state === "PHASE_COMPLETE")).toBe(true);
    const state = await s.state(SLUG);
    expect(state.currentState).toBe("DONE");
    expect(state.history.every((h: any) => h.verificationPassed === true)).toBe(true);
    expect(state.decisions.filter((d: any) => d.signals).every((d: any) => d.by === "auto")).toBe(true);
  });

  it("fast: a failing validation command fails VERIFY with its output", async ({ onTestFinished }) => {
    const s = await openSession({
      spec: ALL_LOW,
      specPath: SPEC_PATH,
      validation: ["node -e \"console.error('lint: 2 problems'); process.exit(3)\""],
    });
    onTestFinished(() => s.dispose());
    const first = await s.start("--fast");
    const ask = await playHost(s.srv.client, s.root, first, new ScriptedRunner({}), agreeable, {
      until: (x) => x.state === "VERIFY" && x.next.kind === "ask",
    });
    expect(ask.next).toMatchObject({ kind: "ask", options: ["fix", "skip verification", "stop"] });
    expect(JSON.stringify(ask)).toMatch(/lint: 2 problems|exit(ed)? (code )?3/);
  });

  it("thorough: every plan pauses for a person (human gates are on) and the verifier runs", async ({
    onTestFinished,
  }) => {
    // --thorough turns --human-gates on: the plans are approved by the user in the client's form.
    const asked: string[] = [];
    const s = await openSession({
      spec: ALL_LOW,
      specPath: SPEC_PATH,
      server: {
        onElicit: (p) => {
          // The question is the answer field's description; the message holds its context.
          asked.push(
            (p.requestedSchema as { properties: { answer: { description: string } } }).properties.answer.description,
          );
          return { action: "accept", content: { answer: "yes" } };
        },
      },
    });
    onTestFinished(() => s.dispose());
    const trace = { steps: [] as Step[] };
    const first = await s.start("--thorough");
    expect(first.rigor).toBe("thorough");
    const end = await playHost(s.srv.client, s.root, first, new ScriptedRunner({}), agreeable, { trace });
    expect(end.state).toBe("DONE");
    expect(asked.filter((m) => /Approve this plan/.test(m))).toHaveLength(3);
    expect(personas(trace.steps).filter((p) => p === "harness-verifier")).toHaveLength(3);
    const state = await s.state(SLUG);
    expect(state.humanOnlyGates).toBe(true);
    const planDecisions = state.decisions.filter((d: any) => d.signals);
    expect(planDecisions.map((d: any) => [d.phase, d.by])).toEqual([
      [0, "elicited"],
      [1, "elicited"],
      [2, "elicited"],
    ]);
    expect(planDecisions.every((d: any) => d.fired.includes("reviewPlans"))).toBe(true);
  });

  it("standard: low phases auto-approve and the verifier runs", async ({ onTestFinished }) => {
    const s = await openSession({ spec: ALL_LOW, specPath: SPEC_PATH });
    onTestFinished(() => s.dispose());
    const trace = { steps: [] as Step[] };
    const end = await playHost(s.srv.client, s.root, await s.start(), new ScriptedRunner({}), agreeable, { trace });
    expect(end.state).toBe("DONE");
    expect(asks(trace.steps).some((x) => x.state === "APPROVE_PLAN")).toBe(false);
    expect(personas(trace.steps).filter((p) => p === "harness-verifier")).toHaveLength(3);
  });
});
