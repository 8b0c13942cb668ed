// Each question is one entry of machines/questions.ts plus its wording: these tests fail when the
// places that read the table disagree with it — a stage asking a question the table lacks, an option
// the machine does not take (or an answer it takes that no question offers), a Step whose options or
// name differ from the table's, a --yes rule answering something the question does not offer.
import { describe, expect, it } from "vitest";
import { autopilotMachine, type StageMeta } from "../../machines/autopilot.machine.js";
import {
  QUESTIONS,
  humanOnlyOf,
  isQuestionName,
  optionsOf,
  type QuestionName,
  type YesPolicy,
} from "../../machines/questions.js";
import { restingNodes } from "../../machines/stages.js";
import { WORDING, askFor } from "../../src/engine/step.js";
import { PolicyGate } from "../../src/headless/drive.js";
import { NoAnswer } from "../../src/headless/gate.js";
import type { AutopilotState } from "../../src/session/schema.js";
import type { Step } from "../../src/protocol/step.js";
import { NOW, blocking, started } from "./helpers.js";

/** Every stage that asks, with its state and question. */
const ASKING = restingNodes()
  .filter((n) => (n.meta as StageMeta | undefined)?.ask)
  .map((n) => {
    const own = n.parent === autopilotMachine.root; // PHASE_COMPLETE rests as itself
    return { top: own ? n.key : n.parent!.key, stage: own ? null : n.key, name: (n.meta as StageMeta).ask! };
  });

/** A session resting at `top.stage` with what each question's wording reads (a spent budget, a held commit, ...). */
function restingAt(top: string, stage: string | null): AutopilotState {
  const s = started([
    { name: "Core", complexity: "low" },
    { name: "Rules", complexity: "low" },
  ]);
  return {
    ...s,
    currentState: top as AutopilotState["currentState"],
    stage,
    currentPhase: 0,
    phases: s.phases.map((p) => ({ ...p, planPath: "docs/plans/core.md" })),
    userChanges: { count: 1, paths: ["notes.txt"] },
    humanOnlyGates: true,
    budget: { tokens: 1000, usd: null, continueOnceAt: null },
    usage: {
      total: {
        dispatches: 1,
        reported: 1,
        tokens: 5000,
        inputTokens: null,
        outputTokens: null,
        cacheReadTokens: null,
        cacheWriteTokens: null,
        toolUses: null,
        durationMs: null,
        costUsd: null,
        costReported: 0,
      },
      byPhase: {},
      byPersona: {},
    },
    phaseRun: {
      ...s.phaseRun,
      personaError: "the persona gave up",
      checkpoint: { type: "human-verify", label: "Checkpoint 1: look" },
      verificationFindings: ["x"],
      reviewFindings: [blocking],
      rejectedCommit: {
        effect: {
          id: "s1-commit",
          type: "commit",
          args: { label: "Phase 1 — execution complete", recovery: false, phase: 0 },
        },
        label: "Phase 1 — execution complete",
        hook: "pre-commit",
        output: "lint failed",
        paths: ["src/a.ts"],
        attempts: [{ attempt: 1, timestamp: NOW, error: "lint failed", result: "rejected" }],
      },
    },
    finalReview: { ...s.finalReview, findings: [blocking], retryCount: 4 },
  };
}

function decide(state: AutopilotState, answer: string) {
  const snap = autopilotMachine.resolveState({
    value: state.stage ? { [state.currentState]: state.stage } : state.currentState,
    context: state,
  });
  return snap.can({ type: "DECIDE", answer, by: "host", now: NOW });
}

describe("questions as data: one table entry per question", () => {
  it("every stage that asks names an entry of the table, and every entry is asked somewhere", () => {
    expect(ASKING.length).toBeGreaterThan(10);
    for (const a of ASKING) expect(isQuestionName(a.name), `${a.top}.${a.stage}`).toBe(true);
    const asked = new Set(ASKING.map((a) => a.name));
    expect(Object.keys(QUESTIONS).filter((q) => !asked.has(q as QuestionName))).toEqual([]);
  });

  it("the machine takes every option of every question where it is asked, and refuses anything else", () => {
    for (const { top, stage, name } of ASKING) {
      const s = restingAt(top, stage);
      const options = optionsOf(name, s);
      expect(options, `${top}.${stage}`).toContain("stop");
      for (const o of options) expect(decide(s, o), `${top}.${stage} takes "${o}"`).toBe(true);
      // A checkpoint's catch-all takes the plan's own options (the engine matches the answer first).
      if (name !== "checkpoint") expect(decide(s, "something else"), `${top}.${stage} refuses it`).toBe(false);
    }
  });

  it("the Step's ask carries the question's name, the table's options and its human-only answers", () => {
    for (const { top, stage, name } of ASKING) {
      const s = restingAt(top, stage);
      const ask = askFor(s);
      expect(ask, `${top}.${stage}`).not.toBeNull();
      expect(ask!.name).toBe(name);
      expect(ask!.options).toEqual(optionsOf(name, s));
      expect(ask!.humanOnly ?? []).toEqual([...humanOnlyOf(name)]);
      expect(typeof WORDING[name]).toBe("function");
    }
  });

  it("every human-only answer and every --yes answer is an option of its question", async () => {
    for (const [name, q] of Object.entries(QUESTIONS) as [QuestionName, { options: unknown; yes: YesPolicy }][]) {
      const top = ASKING.find((a) => a.name === name)!;
      const s = restingAt(top.top, top.stage);
      const options = optionsOf(name, s);
      for (const h of humanOnlyOf(name)) expect(options, name).toContain(h);
      const ask = askFor(s)!;
      const step = {
        session: "s",
        stepId: 1,
        state: s.currentState,
        phase: null,
        rigor: "standard",
        reviewPlans: false,
        next: ask,
      } as Step;
      const got = await new PolicyGate().answer(step, ask).catch((e: unknown) => e);
      if ("open" in q.yes) expect(got, name).toBeInstanceOf(NoAnswer);
      else expect(options, name).toContain((got as { answer: string }).answer);
    }
  });
});
