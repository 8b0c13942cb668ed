// Every kind of ask over MCP: "stop" leaves a wait Step and autopilot_start resumes at the very
// same question; "revise" re-presents the edited plan; "skip phase" moves on without executing.
import { describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Script } from "../../src/runners/script.js";
import type { PersonaRunner } from "../../src/runners/types.js";
import type { Step } from "../../src/protocol/step.js";
import { agreeable, openSession, playHost, specWith, stepCall, type Answerer } from "../helpers/mcp-client.js";
import { SIDE_BY_SIDE } from "../helpers/timeouts.js";

const SPEC_PATH = "docs/specs/feature.md";
const SLUG = "specs--feature";
const TWO_PHASES = specWith([
  { name: "Parser", complexity: "low" },
  { name: "Printer", complexity: "low" },
]);

/** The planner cannot do its job the first time: the Step asks whether to retry. */
class PlannerFailsOnce implements PersonaRunner {
  readonly name = "planner-fails-once";
  readonly simulated = true;
  private failed = false;
  constructor(private readonly inner: PersonaRunner) {}
  async run(task: Parameters<PersonaRunner["run"]>[0]) {
    if (!this.failed && task.expects.result === "planned") {
      this.failed = true;
      return { result: { kind: "planned" as const, error: "The spec section for this phase is empty." } };
    }
    return this.inner.run(task);
  }
}

interface AskCase {
  kind: string;
  flags?: string;
  script?: Script;
  plannerFails?: boolean;
  answer?: Answerer;
  is: (step: Step) => boolean;
}

const opts = (x: Step) => (x.next.kind === "ask" ? x.next.options : []);
const CASES: AskCase[] = [
  {
    kind: "approve plan",
    flags: "--review-plans",
    is: (x) => x.state === "APPROVE_PLAN" && opts(x).includes("revise"),
  },
  {
    kind: "plan revised",
    flags: "--review-plans",
    answer: (x) => (opts(x).includes("revise") ? "revise" : agreeable(x)),
    is: (x) => x.state === "APPROVE_PLAN" && opts(x).join() === "done,stop",
  },
  { kind: "persona failed", plannerFails: true, is: (x) => opts(x).includes("retry") },
  {
    kind: "human-verify checkpoint",
    script: { phases: { 0: { checkpoints: { 2: "human-verify" } } } },
    is: (x) => opts(x).includes("confirm"),
  },
  {
    kind: "human-action checkpoint",
    script: { phases: { 0: { checkpoints: { 2: "human-action" } } } },
    is: (x) => x.state === "EXECUTE" && opts(x).join() === "done,stop",
  },
  {
    kind: "decision checkpoint",
    script: { phases: { 0: { checkpoints: { 1: "decision" } } } },
    is: (x) => opts(x).includes("use the alternative"),
  },
  {
    kind: "retry budget exhausted",
    script: { phases: { 0: { fail: { task: 2, times: 9 } } } },
    is: (x) => opts(x).includes("revise plan"),
  },
  {
    kind: "verification failed",
    script: { phases: { 0: { verifyFailsOnce: true } } },
    is: (x) => opts(x).includes("skip verification"),
  },
  {
    kind: "blocking review",
    script: { phases: { 0: { blockingReviewOnce: true } } },
    is: (x) => x.state === "REVIEW" && opts(x).includes("override"),
  },
  { kind: "continue to next phase", is: (x) => x.state === "PHASE_COMPLETE" },
  {
    kind: "final review blocked",
    script: { finalBlocking: 1 },
    is: (x) => x.state === "FINAL_REVIEW" && opts(x).includes("override"),
  },
  {
    kind: "final review exhausted",
    script: { finalBlocking: 99 },
    is: (x) => x.state === "FINAL_REVIEW" && opts(x).join() === "fix manually and continue,stop",
  },
];

describe.concurrent("answers at each ask", { timeout: SIDE_BY_SIDE }, () => {
  for (const c of CASES) {
    // Each case has its own repository and server, so they run side by side.
    it.concurrent(`stop at "${c.kind}" waits, and autopilot_start resumes at the same question`, async () => {
      const s = await openSession({ spec: TWO_PHASES, specPath: SPEC_PATH });
      try {
        const scripted = new ScriptedRunner(c.script ?? {});
        const runner = c.plannerFails ? new PlannerFailsOnce(scripted) : scripted;
        const ask = await playHost(s.srv.client, s.root, await s.start(c.flags), runner, c.answer ?? agreeable, {
          until: c.is,
        });
        expect(c.is(ask), `reached ${ask.state}/${ask.next.kind}`).toBe(true);
        expect(ask.next.kind).toBe("ask");
        expect(opts(ask)).toContain("stop");

        const stopped = await stepCall(s.srv.client, "autopilot_decide", {
          session: SLUG,
          stepId: ask.stepId,
          answer: "stop",
        });
        expect(stopped.state).toBe(ask.state);
        expect(stopped.next).toMatchObject({ kind: "wait", resumeWith: `autopilot_start {"spec":"${SPEC_PATH}"}` });
        expect((stopped.next as { reason: string }).reason).toMatch(/Stopped/);
        const stop = (await s.state(SLUG)).decisions.at(-1);
        expect(stop).toMatchObject({ answer: "stop", by: "host" });

        // A new conversation: the flags differ, the session keeps its own.
        const resumed = await s.start("--fast");
        expect(resumed.state).toBe(ask.state);
        expect(resumed.phase).toEqual(ask.phase);
        expect(resumed.rigor).toBe(ask.rigor);
        expect(resumed.next).toEqual(ask.next);
        expect(resumed.report).toMatch(/Flags --fast ignored/);

        // And the question still works.
        const answered = await stepCall(s.srv.client, "autopilot_decide", {
          session: SLUG,
          stepId: resumed.stepId,
          answer: agreeable(resumed as Step & { next: { kind: "ask" } }),
        });
        expect(answered.stepId).toBeGreaterThan(resumed.stepId);
      } finally {
        await s.dispose();
      }
    });
  }

  it("revise without notes: the user edits the plan, which is presented again, then approved", async ({
    onTestFinished,
  }) => {
    const s = await openSession({ spec: TWO_PHASES, specPath: SPEC_PATH });
    onTestFinished(() => s.dispose());
    const first = await playHost(
      s.srv.client,
      s.root,
      await s.start("--review-plans"),
      new ScriptedRunner({}),
      agreeable,
      {
        until: (x) => x.state === "APPROVE_PLAN",
      },
    );
    // The question says how to pass notes; without them the user edits the file.
    expect((first.next as { context?: string }).context).toMatch(
      /"revise" with your notes as the reason: the planner revises/,
    );
    const revising = await stepCall(s.srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: first.stepId,
      answer: "revise",
    });
    expect(revising).toMatchObject({ state: "APPROVE_PLAN", next: { kind: "ask", options: ["done", "stop"] } });
    expect((revising.next as { question: string }).question).toContain(s && (await s.state(SLUG)).phases[0].planPath);
    const again = await stepCall(s.srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: revising.stepId,
      answer: "done",
    });
    expect(again).toMatchObject({
      state: "APPROVE_PLAN",
      next: { kind: "ask", options: ["yes", "revise", "skip phase", "stop"] },
    });
    const go = await stepCall(s.srv.client, "autopilot_decide", { session: SLUG, stepId: again.stepId, answer: "yes" });
    expect(go.state).toBe("EXECUTE");
    const answers = (await s.state(SLUG)).decisions
      .filter((d: any) => d.phase === 0 && d.by === "host")
      .map((d: any) => d.answer);
    expect(answers).toEqual(["revise", "done", "yes"]);
  });

  it("revise with notes: the planner gets the plan back with the notes in its brief", async ({ onTestFinished }) => {
    const s = await openSession({ spec: TWO_PHASES, specPath: SPEC_PATH });
    onTestFinished(() => s.dispose());
    const first = await playHost(
      s.srv.client,
      s.root,
      await s.start("--review-plans"),
      new ScriptedRunner({}),
      agreeable,
      {
        until: (x) => x.state === "APPROVE_PLAN",
      },
    );
    const back = await stepCall(s.srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: first.stepId,
      answer: "revise",
      rationale: "split task 2 into the parser and its error messages",
    });
    expect(back).toMatchObject({ state: "PLAN", next: { kind: "dispatch", persona: "harness-planner" } });
    const n = back.next as { prompt: string; expects: { artifacts: { brief: string } } };
    expect(n.prompt).toMatch(/^Revise the plan for phase 1\/2 "Parser"/);
    const brief = await readFile(path.join(s.root, n.expects.artifacts.brief), "utf8");
    expect(brief).toContain("## Why the plan goes back to you");
    expect(brief).toContain("split task 2 into the parser and its error messages");
    const d = (await s.state(SLUG)).decisions.find((x: any) => x.decision === "revised_plan");
    expect(d).toMatchObject({ answer: "revise", rationale: "split task 2 into the parser and its error messages" });
  });

  it("skip phase: the phase is marked skipped and the next one starts", async ({ onTestFinished }) => {
    const s = await openSession({ spec: TWO_PHASES, specPath: SPEC_PATH });
    onTestFinished(() => s.dispose());
    const runner = new ScriptedRunner({});
    const trace = { steps: [] as Step[] };
    const ask = await playHost(s.srv.client, s.root, await s.start("--review-plans"), runner, agreeable, {
      until: (x) => x.state === "APPROVE_PLAN",
    });
    const next = await stepCall(s.srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: ask.stepId,
      answer: "skip phase",
    });
    const end = await playHost(s.srv.client, s.root, next, runner, agreeable, { trace });
    expect(end.state).toBe("DONE");
    const state = await s.state(SLUG);
    expect(state.phases.map((p: any) => p.status)).toEqual(["skipped", "complete"]);
    // Nothing of phase 1 was executed.
    expect(trace.steps.some((x) => x.phase?.number === 1 && x.state === "EXECUTE")).toBe(false);
  });
});
