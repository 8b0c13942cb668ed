// The engine in a real git repository: the one flow (lock, migrate, transition, outbox, probes,
// Step), crash recovery of the outbox, stale steps, resume rules.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { apply } from "../../src/engine/machine-state.js";
import { SessionStore } from "../../src/session/store.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { PolicyGate, drive } from "../../src/headless/drive.js";
import type { Step } from "../../src/protocol/step.js";
import { RETRY_BUDGET, RIGOR } from "../../src/rules/policy.js";
import { RigorLevel } from "../../src/vocabulary.js";

const SPEC_PATH = "docs/changes/security-scanner/proposal.md";
const SLUG = "changes--security-scanner--proposal";
const SPEC = `# Security Scanner

## Implementation Order

### Phase 1: Core Scanner
<!-- complexity: low -->
Scan files for secrets.

### Phase 2: Rule Engine
<!-- complexity: high -->
Load rules.

### Phase 3: CLI Integration
<!-- complexity: low -->
Wire the CLI.
`;

let repo: TempRepo;
let clock = 0;
const now = () => new Date(Date.UTC(2026, 2, 19, 10, 0, clock++));

beforeEach(async () => {
  repo = await makeRepo();
  await mkdir(path.join(repo.dir, "docs/changes/security-scanner"), { recursive: true });
  await writeFile(path.join(repo.dir, SPEC_PATH), SPEC);
  await git(repo.dir, "add", "-A");
  await git(repo.dir, "commit", "-qm", "spec");
});
afterEach(async () => repo.cleanup());

async function subjects(): Promise<string[]> {
  return (await git(repo.dir, "log", "--format=%s")).trim().split("\n");
}

function expectKind(step: Step, kind: Step["next"]["kind"]) {
  expect(step.next.kind, JSON.stringify(step.next)).toBe(kind);
}

describe("engine", () => {
  it("starts a session in the skill's file format and dispatches the planner", async () => {
    const engine = new Engine(repo.dir, { now });
    const { step, resumed } = await engine.start(SPEC_PATH, "--fast");
    expect(resumed).toBe(false);
    expect(step.session).toBe(SLUG);
    expect(step.state).toBe("PLAN");
    expect(step.rigor).toBe("fast");
    expect(step.report).toMatch(/found 3 phases/);
    expectKind(step, "dispatch");
    if (step.next.kind !== "dispatch") return;
    expect(step.next.persona).toBe("harness-planner");
    // Clients that show the model only structuredContent still learn what to do with the Step.
    expect(step.todo).toBe(
      `Run the harness-planner subagent with next.prompt (no subagents? read personas/harness-planner.md and do its work yourself), then call autopilot_report {"session":"${SLUG}","stepId":${step.stepId},"result":<its JSON reply, kind "planned">,"usage":<its usage block, if any>}.`,
    );
    expect(step.next.expects.artifacts.plan).toBe(
      "docs/changes/security-scanner/plans/2026-03-19-core-scanner-plan.md",
    );
    // The brief the prompt names exists, so the host never has to copy it.
    const brief = await readFile(path.join(repo.dir, step.next.expects.artifacts.brief!), "utf8");
    expect(brief).toContain("Scan files for secrets.");
    const raw = JSON.parse(
      await readFile(path.join(repo.dir, ".harness/sessions", SLUG, "autopilot-state.json"), "utf8"),
    );
    expect(raw).toMatchObject({
      schemaVersion: 5,
      sessionDir: `.harness/sessions/${SLUG}`,
      specPath: SPEC_PATH,
      rigorLevel: "fast",
      currentState: "PLAN",
    });
    expect(raw.startingCommit).toMatch(/^[0-9a-f]{40}$/);
  });

  it("autopilot_next changes nothing, however often it is called", async () => {
    const engine = new Engine(repo.dir, { now });
    const { step } = await engine.start(SPEC_PATH);
    const file = path.join(repo.dir, ".harness/sessions", SLUG, "autopilot-state.json");
    const before = await readFile(file, "utf8");
    // The same Step each time; its report starts with where the session stands (for a host that lost its context).
    const first = await engine.next(SLUG);
    expect({ ...first, report: undefined }).toEqual({ ...step, report: undefined });
    expect(first.report!.endsWith(step.report!)).toBe(true);
    for (let i = 0; i < 3; i++) expect(await engine.next(SLUG)).toEqual(first);
    expect(await readFile(file, "utf8")).toBe(before);
  });

  it("a report for an old step changes nothing and returns the current Step", async () => {
    const engine = new Engine(repo.dir, { now });
    const runner = new ScriptedRunner();
    const { step } = await engine.start(SPEC_PATH);
    if (step.next.kind !== "dispatch") throw new Error("expected dispatch");
    const out = await runner.run({
      ...step.next,
      projectRoot: repo.dir,
      session: SLUG,
      phaseIndex: 0,
      phaseName: "Core Scanner",
    });
    const after = await engine.report(SLUG, step.stepId, out.result);
    const err = await engine.report(SLUG, step.stepId, out.result).catch((e) => e);
    expect(err.code).toBe("stale_step");
    expect({ ...err.details.step, report: undefined }).toEqual({ ...(await engine.next(SLUG)), report: undefined });
    expect((await engine.next(SLUG)).stepId).toBe(after.stepId);
  });

  it("refuses a result of the wrong kind, and an answer that was not offered", async () => {
    const engine = new Engine(repo.dir, { now });
    const { step } = await engine.start(SPEC_PATH);
    const wrong = await engine.report(SLUG, step.stepId, { kind: "verified", verdict: "pass" }).catch((e) => e);
    expect(wrong.code).toBe("bad_result");
    expect(wrong.message).toMatch(/expects a "planned" result/);
    // A result that does not fit the protocol gets the same answer from every caller (the MCP tool
    // no longer checks it first with words of its own): the field, the kind expected, the Step.
    const unfit = await engine.report(SLUG, step.stepId, { kind: "planned", planPath: 7 }).catch((e) => e);
    expect(unfit).toMatchObject({
      code: "bad_result",
      message: expect.stringMatching(
        /^The result does not fit the protocol \(result\.planPath: .*\)\. Send \{"kind": "planned", \.\.\.\}/,
      ),
    });
    expect({ ...unfit.details.step, report: undefined }).toEqual({ ...(await engine.next(SLUG)), report: undefined });
    const notAsked = await engine.decide(SLUG, step.stepId, "yes").catch((e) => e);
    expect(notAsked.code).toBe("bad_answer");
    expect((await engine.next(SLUG)).stepId).toBe(step.stepId);
  });

  it("a planner that reports no plan file gets bad_result naming where it looked", async () => {
    const engine = new Engine(repo.dir, { now });
    const { step } = await engine.start(SPEC_PATH);
    const err = await engine
      .report(SLUG, step.stepId, { kind: "planned", planPath: "docs/nowhere.md" })
      .catch((e) => e);
    expect(err.code).toBe("bad_result");
    expect(err.message).toContain("docs/nowhere.md");
  });

  it("reads an error of only whitespace as no error, not as a persona failure", async () => {
    const engine = new Engine(repo.dir, { now });
    const { step } = await engine.start(SPEC_PATH);
    const err = await engine
      .report(SLUG, step.stepId, { kind: "planned", planPath: "docs/nowhere.md", error: " \n " })
      .catch((e) => e);
    expect(err.code).toBe("bad_result");
    expect(err.message).toContain("docs/nowhere.md");
    const state = JSON.parse(
      await readFile(path.join(repo.dir, ".harness/sessions", SLUG, "autopilot-state.json"), "utf8"),
    );
    expect(JSON.stringify(state)).not.toMatch(/PERSONA_FAILED|persona failed/i);
    expect((await engine.next(SLUG)).stepId).toBe(step.stepId);
  });

  it("finishes an effect a crash interrupted, exactly once", async () => {
    const engine = new Engine(repo.dir, { now });
    const runner = new ScriptedRunner({ phases: { 0: { checkpoints: { 1: "passed" } } } });
    let step = (await engine.start(SPEC_PATH)).step;
    // Plan, then get to the first execution dispatch.
    while (step.state !== "EXECUTE") {
      if (step.next.kind !== "dispatch") throw new Error(JSON.stringify(step.next));
      const out = await runner.run({
        ...step.next,
        projectRoot: repo.dir,
        session: SLUG,
        phaseIndex: 0,
        phaseName: "Core Scanner",
      });
      step = await engine.report(SLUG, step.stepId, out.result);
    }
    if (step.next.kind !== "dispatch") throw new Error("expected dispatch");
    const out = await runner.run({
      ...step.next,
      projectRoot: repo.dir,
      session: SLUG,
      phaseIndex: 0,
      phaseName: "Core Scanner",
    });
    expect(out.result).toMatchObject({ outcome: "checkpoint" });
    // Simulate a crash right after the state was saved with its outbox, before the commit.
    const store = new SessionStore(repo.dir);
    const { state } = await store.read(SLUG);
    const saved = apply(state, {
      type: "EXECUTED",
      outcome: "checkpoint",
      checkpoint: { type: "passed", label: "Checkpoint 1: types" },
      now: now().toISOString(),
    });
    expect(saved.outbox.map((e) => e.type)).toEqual(["commit"]);
    await store.write(SLUG, saved);
    const before = await subjects();
    const resumed = await engine.next(SLUG);
    expect(resumed.stepId).toBe(saved.stepId);
    expect(await subjects()).toEqual(["Implement types", ...before]);
    expect((await store.read(SLUG)).state.outbox).toEqual([]);
    // A second replay of the same effect (e.g. a crash after the commit but before clearing the
    // outbox) finds the commit by its trailer and makes no other.
    await store.write(SLUG, saved);
    await engine.next(SLUG);
    expect(await subjects()).toEqual(["Implement types", ...before]);
    const commits = (await store.read(SLUG)).state.commits;
    expect(commits.filter((c) => c.label === "Checkpoint 1: types")).toHaveLength(1);
  });

  it("a commit point at the plan's last task commits it and goes to VERIFY: no executor dispatch past the plan", async () => {
    const engine = new Engine(repo.dir, { now });
    const runner = new ScriptedRunner({ phases: { 0: { tasks: 2, checkpoints: { 2: "passed" } } } });
    let step = (await engine.start(SPEC_PATH)).step;
    const executorBriefs: string[] = [];
    while (step.state !== "VERIFY" && step.state !== "DONE") {
      if (step.next.kind !== "dispatch") throw new Error(JSON.stringify(step.next));
      if (step.state === "EXECUTE")
        executorBriefs.push(await readFile(path.join(repo.dir, step.next.expects.artifacts.brief!), "utf8"));
      const out = await runner.run({
        ...step.next,
        projectRoot: repo.dir,
        session: SLUG,
        phaseIndex: 0,
        phaseName: "Core Scanner",
      });
      step = await engine.report(SLUG, step.stepId, out.result);
    }
    expect(step.state).toBe("VERIFY");
    // One executor dispatch: the one that did both tasks. None told to "Start at: Task 3".
    expect(executorBriefs).toHaveLength(1);
    expect(executorBriefs.join("\n")).not.toMatch(/Start at: Task 3/);
    expect((await subjects())[0]).toBe("Add Core Scanner up to step 2");
  });

  it("waits for an interactive plan on a high phase and finds it on resume", async () => {
    const engine = new Engine(repo.dir, { now });
    const runner = new ScriptedRunner();
    const gate = new PolicyGate();
    let step = (await engine.start(SPEC_PATH)).step;
    step = (await drive(engine, step, runner, gate)).final;
    expect(step.state).toBe("PLAN");
    expectKind(step, "wait");
    if (step.next.kind === "wait") expect(step.next.reason).toMatch(/high-complexity/);
    // Resuming without a plan keeps waiting.
    const again = await engine.start(SPEC_PATH, "--fast");
    expectKind(again.step, "wait");
    expect(again.ignoredFlags).toEqual(["--fast"]);
    expect(again.notes.join("\n")).toMatch(/ignored/);
    // The human plans interactively.
    await mkdir(path.join(repo.dir, "docs/changes/security-scanner/plans"), { recursive: true });
    await writeFile(
      path.join(repo.dir, "docs/changes/security-scanner/plans/2026-03-19-rule-engine-plan.md"),
      "# Rule Engine\n\n**Tasks:** 2\n\n### Task 1: Load\n\n### Task 2: Match\n",
    );
    const resumed = await engine.start(SPEC_PATH);
    expect(resumed.resumed).toBe(true);
    expect(resumed.step.state).toBe("APPROVE_PLAN");
    expect(resumed.step.report).toMatch(/Complexity: high \(triggered\)/);
    expect(resumed.step.rigor).toBe("standard");
  });

  it("runs the whole spec to DONE with checkpoint commits, a retry and the final files", async () => {
    const engine = new Engine(repo.dir, { now });
    await writeFile(path.join(repo.dir, SPEC_PATH), SPEC.replace("complexity: high", "complexity: medium"));
    await git(repo.dir, "commit", "-qam", "medium");
    const runner = new ScriptedRunner({
      phases: {
        0: { checkpoints: { 2: "passed" } },
        1: { concerns: ["rule syntax undecided"], fail: { task: 2, times: 2 } },
      },
      finalBlocking: 1,
    });
    const { final } = await drive(engine, (await engine.start(SPEC_PATH)).step, runner, new PolicyGate());
    expect(final.state).toBe("DONE");
    expectKind(final, "done");
    const log = await subjects();
    expect(log.slice(0, 6)).toEqual([
      "Fix duplicated helper across phases",
      "Add CLI Integration",
      "Add Rule Engine",
      "Add Core Scanner",
      "Add Core Scanner up to step 2",
      "medium",
    ]);
    const state = await engine.read(SLUG);
    expect(state.decisions.map((d) => d.decision)).toEqual([
      "auto_approved_plan",
      "continued",
      "approved_plan",
      "continued",
      "auto_approved_plan",
      "fix_final_review",
    ]);
    expect(state.decisions[2]).toMatchObject({ by: "policy", fired: ["plannerConcerns"] });
    expect(state.history.map((h) => [h.tasksCompleted, h.retriesUsed])).toEqual([
      [3, 0],
      [3, 2],
      [3, 0],
    ]);
    expect(state.finalReview.status).toBe("passed");
    const dir = path.join(repo.dir, ".harness/sessions", SLUG);
    expect((await readdir(dir)).sort()).toEqual(
      expect.arrayContaining([
        "autopilot-state.json",
        "handoff.json",
        "phase-1-review.json",
        "phase-2-review.json",
        "phase-3-review.json",
        "summary.md",
      ]),
    );
    const handoff = JSON.parse(await readFile(path.join(dir, "handoff.json"), "utf8"));
    expect(handoff).toMatchObject({ fromSkill: "harness-autopilot", phase: "DONE", finalReview: { status: "passed" } });
    expect(await readFile(path.join(repo.dir, ".harness/learnings.md"), "utf8")).toMatch(
      /Autopilot: Security Scanner[\s\S]*Executed 3 phases, 9 tasks, 2 retries/,
    );
    expect(await readFile(path.join(repo.dir, ".harness/sessions/index.md"), "utf8")).toContain(SLUG);
    // Nothing under .harness/sessions was ever committed.
    expect(await git(repo.dir, "log", "--name-only", "--format=")).not.toContain(".harness/sessions");
  });

  it("starts a session with its rigor level's retry budget, unless .harness/config.json names one", async () => {
    const flag = { fast: "--fast", standard: "", thorough: "--thorough" } as const;
    for (const level of RigorLevel.options) {
      await rm(path.join(repo.dir, ".harness/sessions", SLUG), { recursive: true, force: true });
      await new Engine(repo.dir, { now }).start(SPEC_PATH, flag[level]);
      const state = await new Engine(repo.dir, { now }).read(SLUG);
      expect(state.rigorLevel).toBe(level);
      expect(state.retryBudget.maxAttempts).toBe(RIGOR[level].retryBudget);
    }
    await mkdir(path.join(repo.dir, ".harness"), { recursive: true });
    await writeFile(path.join(repo.dir, ".harness/config.json"), JSON.stringify({ retryBudget: 7 }));
    await rm(path.join(repo.dir, ".harness/sessions", SLUG), { recursive: true, force: true });
    await new Engine(repo.dir, { now }).start(SPEC_PATH, "--thorough");
    expect((await new Engine(repo.dir, { now }).read(SLUG)).retryBudget.maxAttempts).toBe(7);
  });

  it("takes the retry budget from .harness/config.json for a new session, and refuses a bad one", async () => {
    const configured = RETRY_BUDGET + 1;
    await mkdir(path.join(repo.dir, ".harness"), { recursive: true });
    await writeFile(path.join(repo.dir, ".harness/config.json"), JSON.stringify({ retryBudget: 0 }));
    const refused = await new Engine(repo.dir, { now }).start(SPEC_PATH).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: "bad_input",
      message: expect.stringContaining('"retryBudget" must be a whole number'),
    });
    // No session was written.
    await expect(
      readFile(path.join(repo.dir, ".harness/sessions", SLUG, "autopilot-state.json")),
    ).rejects.toMatchObject({ code: "ENOENT" });

    await writeFile(path.join(repo.dir, ".harness/config.json"), JSON.stringify({ retryBudget: configured }));
    const engine = new Engine(repo.dir, { now });
    // A task that fails once more than the default budget is retried, not escalated.
    const runner = new ScriptedRunner({ phases: { 0: { fail: { task: 1, times: configured } } } });
    const dispatched: string[] = [];
    await drive(engine, (await engine.start(SPEC_PATH, "--fast")).step, runner, new PolicyGate(), {
      onStep: (x) => {
        if (x.next.kind === "dispatch") dispatched.push(x.next.description);
      },
    });
    const state = await engine.read(SLUG);
    expect(state.retryBudget.maxAttempts).toBe(configured);
    expect(dispatched).toContain(`Retry ${configured}/${configured}, phase 1: Core Scanner`);
    expect(state.history[0]).toMatchObject({ retriesUsed: configured });
    expect(state.decisions.map((d) => d.decision)).not.toContain("fixed_manually");
  });

  it("starts afresh after DONE and keeps the finished record", async () => {
    const engine = new Engine(repo.dir, { now });
    await writeFile(
      path.join(repo.dir, SPEC_PATH),
      "# S\n\n## Implementation Order\n\n### Phase 1: Only\n<!-- complexity: low -->\n",
    );
    await git(repo.dir, "commit", "-qam", "one phase");
    await drive(engine, (await engine.start(SPEC_PATH)).step, new ScriptedRunner(), new PolicyGate());
    // DONE wrote .harness/learnings.md and left it for the user to commit: autopilot's own file, so
    // the next run does not ask about it as a change autopilot did not make.
    expect(await git(repo.dir, "status", "--porcelain", "--", ".harness/learnings.md")).not.toBe("");
    const again = await engine.start(SPEC_PATH, "--thorough");
    expect(again.resumed).toBe(false);
    expect(again.step.next.kind).toBe("dispatch");
    expect(JSON.stringify(again.step)).not.toContain("learnings.md");
    expect(again.step.rigor).toBe("thorough");
    const files = await readdir(path.join(repo.dir, ".harness/sessions", SLUG));
    expect(files.some((f) => /^autopilot-state\.done-.*\.json$/.test(f))).toBe(true);
  });

  it("rejects conflicting and unknown flags before touching anything", async () => {
    const engine = new Engine(repo.dir, { now });
    const conflict = await engine.start(SPEC_PATH, "--fast --thorough").catch((e) => e);
    expect(conflict.code).toBe("flag_conflict");
    expect(conflict.message).toBe("Cannot use --fast and --thorough together. Choose one.");
    expect((await engine.start(SPEC_PATH, "--fats").catch((e) => e)).code).toBe("bad_input");
    expect(await engine.sessions()).toEqual([]);
  });

  it("accepts flags comma separated", async () => {
    const engine = new Engine(repo.dir, { now });
    const { step } = await engine.start(SPEC_PATH, "--thorough,--review-plans");
    expect(step.rigor).toBe("thorough");
    expect(step.reviewPlans).toBe(true);
  });

  it("gives clear errors for a missing spec, a spec outside the project and a spec with no phases", async () => {
    const engine = new Engine(repo.dir, { now });
    expect((await engine.start("docs/missing.md").catch((e) => e)).code).toBe("spec_not_found");
    expect((await engine.start("../outside.md").catch((e) => e)).code).toBe("outside_project");
    await writeFile(path.join(repo.dir, "docs/plain.md"), "# Plain\n\n1. do a thing\n2. do another\n");
    const noPhases = await engine.start("docs/plain.md").catch((e) => e);
    expect(noPhases.code).toBe("no_phases");
    expect(noPhases.message).toMatch(/Phase 1/);
    expect((await engine.next("nope").catch((e) => e)).code).toBe("unknown_session");
  });
});
