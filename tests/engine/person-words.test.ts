// What the person says reaches whoever acts next, quoted in its brief: words given with an answer at
// a gate (the plan approval, the review, the end of a phase, "revise"), and words given between
// gates (autopilot_decide with userWords and no answer), in a real repository with the scripted
// personas. A request the persona does not carry out is said in the next report; nothing the person
// said is dropped. Errors never name options a Step does not have.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { PersonaRunner, PersonaTask, RunnerOutcome } from "../../src/runners/types.js";
import type { Step } from "../../src/protocol/step.js";
import { AutopilotError } from "../../src/protocol/errors.js";
import { errorPayload } from "../../src/mcp/render.js";

const SPEC_PATH = "docs/changes/rl/proposal.md";
const SLUG = "changes--rl--proposal";
const SPEC = `# Rate limiter

## Implementation Order

### Phase 1: Counting
<!-- complexity: low -->
Count hits in a window.

### Phase 2: Headers
<!-- complexity: low -->
Send the rate-limit headers.
`;

const APPROVAL = "resetInMs = ms until the oldest counted hit expires";
const FIX_TOO = "please fix the performance.now warning too, it is cheap";
const NEXT_PHASE = "in phase 2 keep the old header names";
const REVISE = "split the header task in two";
const NOTE = "use tabs, not spaces";

interface Seen {
  persona: string;
  result: string;
  phase: string | null;
  brief: string;
}

/**
 * The scripted personas, and what a model reading its brief does with the person's words: the
 * fixer cannot touch a file the repository does not have, and says so in notDone.
 */
class Reading implements PersonaRunner {
  readonly name = "reading";
  readonly simulated = true;
  readonly seen: Seen[] = [];
  constructor(private readonly inner: PersonaRunner) {}
  async run(task: PersonaTask): Promise<RunnerOutcome> {
    const rel = task.expects.artifacts?.brief ?? /\bBrief: (\S+)/.exec(task.prompt)![1];
    const brief = await readFile(path.join(task.projectRoot, rel), "utf8");
    this.seen.push({ persona: task.persona, result: task.expects.result, phase: task.phaseName, brief });
    const out = await this.inner.run(task);
    const said = /## What the person said\n\n[^\n]*\n\n((?:- [^\n]*\n)+)/.exec(brief)?.[1] ?? "";
    if (out.result.kind === "fixed" && said.includes("performance.now"))
      return {
        ...out,
        result: {
          ...out.result,
          notDone: [
            { asked: FIX_TOO, why: "there is no performance.now call in this repository (git grep finds none)" },
          ],
        },
      };
    return out;
  }
}

let repo: TempRepo;
let engine: Engine;
let runner: Reading;
const steps: Step[] = [];
let clock = 0;
const now = () => new Date(Date.UTC(2026, 2, 19, 10, 0, clock++));

function task(step: Step): PersonaTask {
  if (step.next.kind !== "dispatch") throw new Error("not a dispatch");
  return {
    persona: step.next.persona,
    description: step.next.description,
    prompt: step.next.prompt,
    expects: step.next.expects,
    projectRoot: repo.dir,
    session: step.session,
    phaseIndex: step.state === "FINAL_REVIEW" ? null : (step.phase?.index ?? null),
    phaseName: step.state === "FINAL_REVIEW" ? null : (step.phase?.name ?? null),
  };
}

/** Run personas until the Step is an ask (or done); return it. */
async function untilAsk(step: Step): Promise<Step> {
  while (step.next.kind === "dispatch") {
    const out = await runner.run(task(step));
    step = await engine.report(SLUG, step.stepId, out.result);
    steps.push(step);
  }
  return step;
}

/** The user's answer, passed on as the host does: the option, and their reply quoted. */
async function answer(step: Step, option: string, words?: string): Promise<Step> {
  expect(step.next.kind, JSON.stringify(step.next)).toBe("ask");
  const next = await engine.decide(SLUG, step.stepId, option, undefined, words ? "relayed" : "host", words);
  steps.push(next);
  return next;
}

const briefs = (persona: string, phase: string | null, result?: string) =>
  runner.seen.filter((s) => s.persona === persona && s.phase === phase && (!result || s.result === result));

let noteStep: Step;
let noteBriefOnDisk = "";
let ignored: Step;
let noAnswer: unknown;
let hostReason: unknown;
let openQuestion: { before: Step; after: Step };
let done: Step;
let atDone: unknown;

beforeAll(async () => {
  repo = await makeRepo();
  await mkdir(path.join(repo.dir, "docs/changes/rl"), { recursive: true });
  await writeFile(path.join(repo.dir, SPEC_PATH), SPEC);
  await git(repo.dir, "add", "-A");
  await git(repo.dir, "commit", "-qm", "spec");
  engine = new Engine(repo.dir, { now });
  runner = new Reading(new ScriptedRunner({ phases: { 0: { blockingReviewOnce: true } } }));

  let step = (await engine.start(SPEC_PATH, "--review-plans")).step;
  step = await untilAsk(step);
  // Phase 1's plan, approved with the person's reason.
  step = await untilAsk(await answer(step, "yes", APPROVAL));
  // The review's blocking finding: fixed, with a request the options do not cover.
  expect(step.state).toBe("REVIEW");
  step = await untilAsk(await answer(step, "fix", FIX_TOO));
  // The end of phase 1: words for phase 2.
  expect(step.state).toBe("PHASE_COMPLETE");
  step = await untilAsk(await answer(step, "yes", NEXT_PHASE));
  // Phase 2's plan: revised with words only (no rationale), then approved.
  expect(step.state).toBe("APPROVE_PLAN");
  openQuestion = {
    before: step,
    after: await engine.decide(SLUG, step.stepId, undefined, undefined, "relayed", "one moment"),
  };
  step = await untilAsk(await answer(openQuestion.after, "revise", REVISE));
  step = await answer(step, "yes");
  // Phase 2's execution, dispatched: the person gives a direction between questions.
  expect(step.next.kind).toBe("dispatch");
  noteStep = await engine.decide(SLUG, step.stepId, undefined, undefined, "relayed", NOTE);
  noteBriefOnDisk = await readFile(
    path.join(repo.dir, ".harness/sessions", SLUG, "briefs", `step-${step.stepId}.md`),
    "utf8",
  );
  // An answer at a Step that asks nothing: the words are kept, the answer is said not to be one.
  ignored = await engine.decide(SLUG, step.stepId, "fix", undefined, "relayed", "also log each refusal");
  // An answer and no words at that Step: refused, naming no option.
  noAnswer = await engine.decide(SLUG, step.stepId, "fix").catch((e: unknown) => e);
  // The host's own reason, no answer and no words of the person: no note.
  hostReason = await engine.decide(SLUG, step.stepId, undefined, "I think tabs read better").catch((e: unknown) => e);
  done = await untilAsk(noteStep);
  atDone = await engine.decide(SLUG, done.stepId, undefined, undefined, "relayed", "thanks").catch((e: unknown) => e);
}, 180_000);
afterAll(async () => repo?.cleanup());

describe("the person's words at a gate", () => {
  it("the plan approval's reason reaches the phase's executor, verifier and reviewer, quoted, and not the next phase's planner", () => {
    const quote = `- phase 1, at the plan approval, answering "yes" (relayed by the host model): "${APPROVAL}"`;
    const [exec] = briefs("harness-task-executor", "Counting", "executed");
    expect(exec.brief).toContain("## What the person said");
    expect(exec.brief).toContain(quote);
    expect(exec.brief).toContain('list in your result\'s "notDone"');
    for (const persona of ["harness-verifier", "harness-code-reviewer"]) {
      const b = briefs(persona, "Counting")[0].brief;
      expect(b, persona).toContain(quote);
      expect(b, persona).toContain("judge the work against them too");
    }
    expect(briefs("harness-planner", "Headers")[0].brief).not.toContain(APPROVAL);
  });

  it("a fix answer's words reach the fix round's brief beside the findings chosen, and what the fixer did not do is in the next report", () => {
    const [fix] = briefs("harness-task-executor", "Counting", "fixed");
    expect(fix.brief).toContain("## Blocking review findings to fix (fix round 1)");
    expect(fix.brief).toContain(`at the review, answering "fix"`);
    expect(fix.brief).toContain(`"${FIX_TOO}"`);
    const after = steps.find((s) => s.report?.includes("Not done of what you asked"));
    expect(after?.report).toContain(
      `Not done of what you asked (harness-task-executor says why):\n  - "${FIX_TOO}": there is no performance.now call in this repository (git grep finds none)`,
    );
  });

  it("words at the end of a phase reach the next phase's planner; revise notes given as words alone reach the planner's revision", () => {
    const [first, revised] = briefs("harness-planner", "Headers");
    expect(first.brief).toContain(`phase 1, at the end of the phase, answering "yes"`);
    expect(first.brief).toContain(`"${NEXT_PHASE}"`);
    expect(revised.brief).toContain("## Why the plan goes back to you");
    expect(revised.brief).toContain(`with these notes (answer "revise"`);
    expect(revised.brief).toContain(`"${REVISE}"`);
    // Quoted once: the revision says it, the words section does not repeat it.
    expect(revised.brief.split(REVISE)).toHaveLength(2);
  });

  it("the final reviewer reads every phase's words; the decisions keep them with who passed them on", async () => {
    const final = briefs("harness-code-reviewer", null)[0].brief;
    for (const w of [APPROVAL, FIX_TOO, NEXT_PHASE, NOTE]) expect(final).toContain(w);
    const state = (await engine.read(SLUG)) as { decisions: { decision: string; userWords?: string; by?: string }[] };
    expect(state.decisions.filter((d) => d.userWords).map((d) => [d.decision, d.by, d.userWords])).toEqual([
      ["approved_plan", "relayed", APPROVAL],
      ["fix_review", "relayed", FIX_TOO],
      ["continued", "relayed", NEXT_PHASE],
      ["noted", "relayed", "one moment"],
      ["revised_plan", "relayed", REVISE],
      ["noted", "relayed", NOTE],
      ["noted", "relayed", "also log each refusal"],
    ]);
  });
});

describe("the person's words between gates", () => {
  it("a note at a dispatch Step changes no step, is recorded, rewrites the brief the persona is about to read, and the Step says where it goes", () => {
    const executed = briefs("harness-task-executor", "Headers", "executed")[0].brief;
    expect(noteStep.next.kind).toBe("dispatch");
    expect(noteStep.report).toContain(`Recorded as the user's words (relayed by the host model):`);
    expect(noteStep.report).toContain(`"${NOTE}". They reach the brief of this step's harness-task-executor`);
    expect(noteBriefOnDisk).toContain(`phase 2, a note between steps, during the execution`);
    expect(noteBriefOnDisk).toContain(`"${NOTE}"`);
    expect(executed).toContain(`"${NOTE}"`);
    // And every later brief of the phase.
    expect(briefs("harness-code-reviewer", "Headers")[0].brief).toContain(`"${NOTE}"`);
  });

  it("an answer at a Step that asks nothing is said not to be one; the words are kept", () => {
    expect(ignored.stepId).toBe(noteStep.stepId);
    expect(ignored.report).toContain('This Step asks nothing, so "fix" was not taken as an answer to anything.');
    expect(ignored.report).toContain('"also log each refusal"');
  });

  it("an answer without words at a Step that asks nothing is refused, and the error names no option", () => {
    expect(noAnswer).toBeInstanceOf(AutopilotError);
    const e = noAnswer as AutopilotError;
    expect(e.code).toBe("bad_answer");
    expect(e.message).toContain("there is no option to answer");
    expect(e.message).toContain("call autopilot_decide with userWords");
    const payload = errorPayload(e);
    expect(payload.todo).not.toMatch(/option/);
    expect(payload.todo).toContain("userWords only");
  });

  it("the host's own reason alone is no note of the person's: refused, nothing recorded", async () => {
    expect(hostReason).toBeInstanceOf(AutopilotError);
    expect((hostReason as AutopilotError).code).toBe("bad_answer");
    const state = (await engine.read(SLUG)) as { decisions: { rationale?: string }[] };
    expect(state.decisions.some((d) => d.rationale?.includes("tabs read better"))).toBe(false);
  });

  it("words without an answer at a question keep the question open", () => {
    expect(openQuestion.after.stepId).toBe(openQuestion.before.stepId);
    expect(openQuestion.after.next).toEqual(openQuestion.before.next);
    expect(openQuestion.after.report).toContain("The question is still open");
  });

  it("at DONE nothing follows: the words are refused with a reason, nothing recorded", () => {
    expect(done.state).toBe("DONE");
    expect(atDone).toBeInstanceOf(AutopilotError);
    expect((atDone as AutopilotError).code).toBe("bad_input");
    expect((atDone as AutopilotError).message).toMatch(/no persona follows/);
  });
});
