// Loop safety: the retry and fix counters live in the saved state, so no resume (autopilot_start on
// a session in progress), autopilot_next or stale report can reset them, and a host that reports
// the same failure forever still meets the budget.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Step } from "../../src/protocol/step.js";
import { MAX_FINAL_REVIEW_FIXES } from "../../machines/autopilot.machine.js";
import { SEED } from "./harness.js";

// The suites' seed drives the generated sequences, so a failure found by the soak reruns with its seed.
fc.configureGlobal({ seed: SEED });

const SPEC_PATH = "docs/one.md";
const SLUG = "one";
const SPEC = "# One\n\n## Implementation Order\n\n### Phase 1: Only\n<!-- complexity: low -->\nDo it.\n";
const FAILED = {
  kind: "executed",
  outcome: "failed",
  task: { number: 1, name: "Only step 1" },
  error: "same error every time",
} as const;

let repo: TempRepo;
let engine: Engine;
beforeEach(async () => {
  repo = await makeRepo({ files: { "README.md": "# t\n", [SPEC_PATH]: SPEC } });
  engine = new Engine(repo.dir);
});
afterEach(async () => repo.cleanup());

/** Plan the phase with the scripted planner and stop at the first execution dispatch. */
async function toExecute(flags?: string): Promise<Step> {
  const runner = new ScriptedRunner();
  let step = (await engine.start(SPEC_PATH, flags)).step;
  while (step.state !== "EXECUTE") {
    if (step.next.kind !== "dispatch") throw new Error(JSON.stringify(step.next));
    const out = await runner.run({
      ...step.next,
      projectRoot: repo.dir,
      session: SLUG,
      phaseIndex: 0,
      phaseName: "Only",
    });
    step = await engine.report(SLUG, step.stepId, out.result);
  }
  return step;
}

const attempts = async () => (await engine.read(SLUG)).retryBudget.currentTask?.attemptsUsed ?? 0;

describe("loop safety", () => {
  it("a resume between every failure does not reset the retry counter; the budget ends the loop at the same count", async () => {
    let step = await toExecute();
    const max = (await engine.read(SLUG)).retryBudget.maxAttempts;
    let reports = 0;
    while (step.next.kind === "dispatch") {
      await engine.report(SLUG, step.stepId, FAILED);
      reports++;
      const used = await attempts();
      // Resume and next, as a host that lost its context would.
      const resumed = await engine.start(SPEC_PATH, "--fast");
      expect(resumed.resumed).toBe(true);
      expect(await attempts()).toBe(used);
      step = await engine.next(SLUG);
      expect(reports).toBeLessThanOrEqual(max + 1);
    }
    expect(reports).toBe(max + 1); // the first try and `max` retries
    expect(step.next.kind).toBe("ask");
    if (step.next.kind === "ask") expect(step.next.options).toContain("fix manually and continue");
    // Repeating the same failure now: refused, the counter stays.
    const again = await engine.report(SLUG, step.stepId, FAILED as any).catch((e) => e);
    expect(again.code).toBe("bad_result");
    const stale = await engine.report(SLUG, step.stepId - 1, FAILED as any).catch((e) => e);
    expect(stale.code).toBe("stale_step");
    expect((await engine.read(SLUG)).phaseRun.exhausted).toBe(true);
  });

  it("a stale report of the same failure is refused and counts nothing", async () => {
    let step = await toExecute();
    const first = step.stepId;
    step = await engine.report(SLUG, first, FAILED);
    expect(await attempts()).toBe(1);
    for (let i = 0; i < 5; i++)
      expect((await engine.report(SLUG, first, FAILED as any).catch((e) => e)).code).toBe("stale_step");
    expect(await attempts()).toBe(1);
    expect((await engine.next(SLUG)).stepId).toBe(step.stepId);
  });

  it("the final-review fix counter survives resumes, and blocking findings forever end in a question", async () => {
    // One phase to FINAL_REVIEW with the scripted runner, then report blocking findings forever.
    const runner = new ScriptedRunner();
    let step = (await engine.start(SPEC_PATH)).step;
    while (step.state !== "FINAL_REVIEW" || step.next.kind !== "dispatch" || step.next.expects.result !== "reviewed") {
      if (step.next.kind === "dispatch") {
        const out = await runner.run({
          ...step.next,
          projectRoot: repo.dir,
          session: SLUG,
          phaseIndex: step.state === "FINAL_REVIEW" ? null : 0,
          phaseName: step.state === "FINAL_REVIEW" ? null : "Only",
        });
        step = await engine.report(SLUG, step.stepId, out.result);
      } else if (step.next.kind === "ask") step = await engine.decide(SLUG, step.stepId, step.next.options[0]);
      else throw new Error(JSON.stringify(step.next));
    }
    const blocking = { kind: "reviewed", findings: [{ severity: "blocking", title: "the same problem" }] };
    let rounds = 0;
    for (let guard = 0; guard < 50; guard++) {
      if (step.next.kind === "dispatch" && step.next.expects.result === "reviewed")
        step = await engine.report(SLUG, step.stepId, blocking);
      else if (step.next.kind === "dispatch")
        step = await engine.report(SLUG, step.stepId, {
          kind: step.next.expects.result,
          summary: "tried",
          outcome: "complete",
        });
      else if (step.next.kind === "ask" && step.next.options.includes("fix")) {
        const before = (await engine.read(SLUG)).finalReview.retryCount;
        await engine.decide(SLUG, step.stepId, "fix");
        rounds++;
        await engine.start(SPEC_PATH); // resume after every round
        expect((await engine.read(SLUG)).finalReview.retryCount).toBe(before + 1);
        step = await engine.next(SLUG);
      } else break;
    }
    expect(step.next.kind).toBe("ask");
    if (step.next.kind === "ask") expect(step.next.options).toContain("fix manually and continue");
    // The skill: "fix" increments retryCount; fixes are dispatched while retryCount <= 3, and the
    // answer that takes it past 3 stops with a failures.md entry.
    expect(rounds).toBe(MAX_FINAL_REVIEW_FIXES + 1);
    expect((await engine.read(SLUG)).finalReview.retryCount).toBe(MAX_FINAL_REVIEW_FIXES + 1);
    const { readFile } = await import("node:fs/promises");
    expect(await readFile(`${repo.dir}/.harness/failures.md`, "utf8")).toMatch(/type:final-review/);
    console.log(
      `[reliability] loop safety: the same blocking final-review finding forever: ${MAX_FINAL_REVIEW_FIXES} fix rounds, then a question, with a resume after every round`,
    );
  });

  it(
    "generated: any sequence of resume, next, stale and repeated reports never lowers a counter or passes the budget",
    async () => {
      const step0 = await toExecute();
      const max = (await engine.read(SLUG)).retryBudget.maxAttempts;
      const file = `${repo.dir}/.harness/sessions/${SLUG}/autopilot-state.json`;
      const { readFile, writeFile } = await import("node:fs/promises");
      const saved = await readFile(file);
      let sequences = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom("resume", "next", "stale", "report", "report"), { minLength: 1, maxLength: 25 }),
          async (ops) => {
            await writeFile(file, saved);
            sequences++;
            let last = 0;
            for (const op of ops) {
              const step = await engine.next(SLUG);
              if (op === "resume") await engine.start(SPEC_PATH, "--thorough");
              else if (op === "stale")
                await engine
                  .report(SLUG, step0.stepId - 1, FAILED as any)
                  .catch((e) => expect(e.code).toBe("stale_step"));
              else if (op === "report")
                await engine.report(SLUG, step.stepId, FAILED as any).catch((e) => expect(e.code).toBe("bad_result"));
              const s = await engine.read(SLUG);
              const used = s.retryBudget.currentTask?.attemptsUsed ?? (s.phaseRun.exhausted ? last : 0);
              expect(used).toBeGreaterThanOrEqual(last);
              expect(used).toBeLessThanOrEqual(max + 1);
              expect(s.rigorLevel).toBe("standard"); // flags on a resume change nothing
              last = used;
            }
          },
        ),
        { numRuns: Math.ceil(Number(process.env.RELIABILITY_RUNS ?? 40) / 3), endOnFailure: true },
      );
      console.log(
        `[reliability] loop safety: ${sequences} generated sequences of resume/next/stale/repeat, no counter lowered, budget never passed`,
      );
      await git(repo.dir, "status");
    },
    Math.max(120_000, Number(process.env.RELIABILITY_RUNS ?? 40) * 1_500),
  );
});
