// What a two-phase session keeps and tells, in a real repository with the scripted personas: each
// phase's execution state and start task, each phase's own review range, every verification and
// review round (a re-check never overwrites the first), re-check briefs that say what to re-check,
// learnings carried to later briefs, the final review brief with whole findings and their fate, a
// DONE report that shows the final findings and what to do with .harness/, a resume report that
// says what was done and decided.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { PersonaRunner, PersonaTask, RunnerOutcome } from "../../src/runners/types.js";
import { PolicyGate, drive, type Gate } from "../../src/headless/drive.js";
import type { AskNext, Step } from "../../src/protocol/step.js";
import { SessionStore } from "../../src/session/store.js";
import { buildDecisionLog, renderMarkdown } from "../../src/log/index.js";

const SPEC_PATH = "docs/changes/wc/proposal.md";
const SLUG = "changes--wc--proposal";
const SPEC = `# Word count

## Implementation Order

### Phase 1: Counting Core
<!-- complexity: low -->
Count words.

### Phase 2: Command Line
<!-- complexity: low -->
Print the count.
`;
const LEARNING = "node:test only picks up files named *.test.js";

interface Seen {
  persona: string;
  result: string;
  phase: string | null;
  brief: string;
  /** The execution state file as the persona found it. */
  execState: string | null;
}

/**
 * The scripted personas, plus what a diligent executor also does: it keeps the execution state
 * file (progress by task) and says what later phases should know. Records every brief it read.
 */
class Recording implements PersonaRunner {
  readonly name = "recording";
  readonly simulated = true;
  readonly seen: Seen[] = [];
  private told = false;
  constructor(private readonly inner: PersonaRunner) {}
  async run(task: PersonaTask): Promise<RunnerOutcome> {
    const briefRel = task.expects.artifacts?.brief ?? /\bBrief: (\S+)/.exec(task.prompt)![1];
    const stateFile = path.join(task.projectRoot, ".harness/sessions", task.session, "state.json");
    this.seen.push({
      persona: task.persona,
      result: task.expects.result,
      phase: task.phaseName,
      brief: await readFile(path.join(task.projectRoot, briefRel), "utf8"),
      execState: await readFile(stateFile, "utf8").catch(() => null),
    });
    const out = await this.inner.run(task);
    const r = out.result;
    if (r.kind === "executed" && (r.outcome === "complete" || r.outcome === "checkpoint")) {
      const done = typeof r.task?.number === "number" ? r.task.number : 3;
      const progress = Object.fromEntries(Array.from({ length: done }, (_, i) => [`Task ${i + 1}`, "complete"]));
      const prev = JSON.parse((await readFile(stateFile, "utf8").catch(() => "{}")) || "{}");
      await writeFile(
        stateFile,
        JSON.stringify(
          { ...prev, schemaVersion: 1, position: { phase: "execute", task: `Task ${done}` }, progress },
          null,
          2,
        ) + "\n",
      );
      if (!this.told) {
        this.told = true;
        return { ...out, result: { ...r, learnings: [LEARNING] } };
      }
    }
    return out;
  }
}

/** --yes, but stops at the phase question when asked to (for the resume test). */
class StopBetweenPhases implements Gate {
  private policy = new PolicyGate();
  async answer(step: Step, ask: AskNext) {
    if (step.state === "PHASE_COMPLETE") return { answer: "stop", by: "terminal" as const, rationale: "lunch" };
    return this.policy.answer(step, ask);
  }
}

const SCRIPT = {
  phases: {
    0: { tasks: 3, checkpoints: { 2: "passed" as const }, verifyFailsOnce: true, blockingReviewOnce: true },
    1: { tasks: 2 },
  },
};

let repo: TempRepo;
let runner: Recording;
let done: Step;
let phase1End = "";
let startCommit = "";
let clock = 0;
const now = () => new Date(Date.UTC(2026, 2, 19, 10, 0, clock++));

async function setUp(): Promise<TempRepo> {
  const r = await makeRepo();
  await mkdir(path.join(r.dir, "docs/changes/wc"), { recursive: true });
  await writeFile(path.join(r.dir, SPEC_PATH), SPEC);
  await git(r.dir, "add", "-A");
  await git(r.dir, "commit", "-qm", "spec");
  return r;
}

beforeAll(async () => {
  repo = await setUp();
  startCommit = (await git(repo.dir, "rev-parse", "HEAD")).trim();
  const engine = new Engine(repo.dir, { now });
  runner = new Recording(new ScriptedRunner(SCRIPT));
  const first = await engine.start(SPEC_PATH);
  // Phase 1 to its end, so its last commit is known; then the rest.
  await drive(engine, first.step, runner, new StopBetweenPhases());
  phase1End = (await git(repo.dir, "rev-parse", "HEAD")).trim();
  const step = (await engine.start(SPEC_PATH)).step;
  resumedReport = step.report ?? "";
  done = (await drive(engine, step, runner, new PolicyGate())).final;
}, 120_000);
afterAll(async () => repo?.cleanup());
let resumedReport = "";

const briefs = (persona: string, phase: string | null, result?: string) =>
  runner.seen.filter((s) => s.persona === persona && s.phase === phase && (!result || s.result === result));

describe("a two-phase session's records", () => {
  it("reaches DONE", () => {
    expect(done.state).toBe("DONE");
  });

  it("points each execution at its own start task, and resets the execution state when a phase starts (nothing lost)", () => {
    const p1 = briefs("harness-task-executor", "Counting Core", "executed");
    expect(p1.map((s) => /^- Start at: (.*)$/m.exec(s.brief)?.[1])).toEqual([
      "Task 1",
      "Task 3 (tasks 1–2 are done and committed: do not redo them)",
    ]);
    const p2 = briefs("harness-task-executor", "Command Line", "executed");
    expect(p2[0].brief).toMatch(/^- Start at: Task 1$/m);
    // Phase 1's "Task 1: complete" does not pass for phase 2's task 1.
    const state = JSON.parse(p2[0].execState!);
    expect(state.progress).toEqual({});
    expect(state.autopilotPhase).toBe("Command Line");
    // Phase 1's progress is kept under phase 1's name: the server made the file with it, and each
    // brief names the value, so an executor keeping the fields it does not know writes it there.
    expect(p1[0].brief).toContain(`(keep it updated; its "autopilotPhase" is "Counting Core")`);
    expect(p2[0].brief).toContain(`(keep it updated; its "autopilotPhase" is "Command Line")`);
    expect(Object.keys(state.earlierPhases)).toEqual(["Counting Core"]);
    expect(state.earlierPhases["Counting Core"].progress).toMatchObject({
      "Task 1": "complete",
      "Task 2": "complete",
      "Task 3": "complete",
    });
  });

  it("closes the execution state at DONE: no task of the last phase is under way, its progress kept", async () => {
    const closed = JSON.parse(await readFile(path.join(repo.dir, ".harness/sessions", SLUG, "state.json"), "utf8"));
    expect(closed.position).toEqual({ phase: "complete" });
    expect(closed.autopilotPhase).toBe("Command Line");
    expect(closed.progress).toMatchObject({ "Task 1": "complete", "Task 2": "complete" });
    expect(Object.keys(closed.earlierPhases)).toEqual(["Counting Core"]);
  });

  it("reviews a phase from its own start commit; the final review sees the whole change", () => {
    const p2 = briefs("harness-code-reviewer", "Command Line")[0].brief;
    expect(p2).toContain(`- Phase start commit: ${phase1End} (this phase's changes: git diff ${phase1End}..HEAD)`);
    expect(p2).toContain(`git diff ${phase1End}..HEAD (earlier phases are not in scope)`);
    expect(p2).toContain("src/command-line/task-1.ts");
    expect(p2).not.toContain("src/counting-core/");
    const final = briefs("harness-code-reviewer", null)[0].brief;
    expect(final).toContain(`- Session start commit: ${startCommit} (the whole change: git diff ${startCommit}..HEAD)`);
    expect(final).toContain("src/counting-core/task-1.ts");
  });

  it("tells each re-check and re-review which round it is, what the round before found and what was fixed since", async () => {
    const state = JSON.parse(
      await readFile(path.join(repo.dir, ".harness/sessions", SLUG, "autopilot-state.json"), "utf8"),
    );
    const sha = (label: string) =>
      state.commits.find((c: { label: string }) => c.label === label).sha.slice(0, 7) as string;
    const [first, again, third] = briefs("harness-verifier", "Counting Core");
    expect(first.brief).not.toContain("This is a re-check");
    expect(again.brief).toContain("## This is a re-check (verification 2 of this phase)");
    expect(again.brief).toContain("So far: verification 1 failed.");
    expect(again.brief).toContain(
      `- [p1-v1-1] blocking — tests/scanner.test.ts: expected 3 rules, got 0 (simulated) — fixed in fix round 1 (commit ${sha("Phase 1: Counting Core — verification fixes (round 1)")})`,
    );
    // After the review's fix round: verification 3, the one before passed, and what was fixed is the
    // review's finding (not verification 1's, fixed long before).
    expect(third.brief).toContain("## This is a re-check (verification 3 of this phase)");
    expect(third.brief).toContain("So far: verification 1 failed, verification 2 passed.");
    expect(third.brief).toContain("Since the last verification, fix round 2 worked on 1 review finding");
    expect(third.brief).toContain(
      `- [p1-r1-1] blocking src/counting-core/task-1.ts:1 — Unchecked input reaches the parser (simulated): The parser trusts its input; validate it first. Scenario: an empty input makes the parser throw — fixed in fix round 2 (commit ${sha("Phase 1: Counting Core — review fixes (round 2)")})`,
    );
    expect(third.brief).not.toContain("p1-v1-1");
    expect(third.brief).not.toContain("failed with the findings below");
    // The verifier runs the checks itself: no earlier run stands in for them.
    expect(again.brief).toContain("an earlier run, the executor's word or a previous verification is not evidence");
    const [review1, review2] = briefs("harness-code-reviewer", "Counting Core");
    expect(review1.brief).not.toContain("re-review");
    expect(review2.brief).toContain("## This is a re-review (round 2), after fix round 2");
    expect(review2.brief).toContain("- [p1-r1-2] note — Consider a doc comment (simulated) — open");
    expect(review2.brief).toMatch(/- \[p1-r1-1\] blocking .* — fixed in fix round 2 \(commit [0-9a-f]{7}\)/);
  });

  it('runs fix rounds as fix dispatches that reply "fixed"', () => {
    const fixes = runner.seen.filter((s) => s.phase === "Counting Core" && s.result === "fixed");
    expect(fixes).toHaveLength(2);
    expect(fixes[0].brief).toContain("## Verification failures to fix (fix round 1)");
    expect(fixes[0].brief).toContain(
      "- [p1-v1-1] blocking — tests/scanner.test.ts: expected 3 rules, got 0 (simulated)",
    );
    expect(fixes[1].brief).toContain("## Blocking review findings to fix (fix round 2)");
    // The fixer disputes a finding by the id its brief shows.
    expect(fixes[1].brief).toContain("- [p1-r1-1] blocking src/counting-core/task-1.ts:1 — Unchecked input");
    expect(fixes[1].brief).toContain('dispute it by its id ("finding": "<id>")');
  });

  it("keeps a failed verification and a fixed finding in the history, the review file and the summary", async () => {
    const state = JSON.parse(
      await readFile(path.join(repo.dir, ".harness/sessions", SLUG, "autopilot-state.json"), "utf8"),
    );
    expect(state.history[0]).toMatchObject({
      verificationPassed: true,
      verificationFailures: 1,
      fixRounds: 2,
      reviewFindings: { blocking: 1, warning: 0, note: 1 },
      reviewRounds: [
        { blocking: 1, warning: 0, note: 1 },
        { blocking: 0, warning: 0, note: 1 },
      ],
    });
    const review = JSON.parse(
      await readFile(path.join(repo.dir, ".harness/sessions", SLUG, "phase-1-review.json"), "utf8"),
    );
    expect(review).toMatchObject({ phase: 0, phaseNumber: 1, name: "Counting Core" });
    expect(
      review.rounds.map((r: { resolution: string | null; findings: unknown[] }) => [r.resolution, r.findings.length]),
    ).toEqual([
      ["fix", 2],
      [null, 1],
    ]);
    // Its fate names the fix round and the commit that fixed it.
    const fix = state.commits.find(
      (c: { label: string }) => c.label === "Phase 1: Counting Core — review fixes (round 2)",
    );
    const fix1 = state.commits.find(
      (c: { label: string }) => c.label === "Phase 1: Counting Core — verification fixes (round 1)",
    );
    expect(review.findings[0]).toMatchObject({
      id: "p1-r1-1",
      severity: "blocking",
      title: "Unchecked input reaches the parser (simulated)",
      status: `fixed in fix round 2 (commit ${fix.sha.slice(0, 7)})`,
      fate: "fixed",
    });
    expect(state.findingLedger.find((e: { id: string }) => e.id === "p1-r1-1")).toMatchObject({
      fate: "fixed",
      fixRound: 2,
      commit: fix.sha,
    });
    expect(review.findings[1]).toMatchObject({ id: "p1-r1-2", severity: "note", status: "open", seen: [1, 2] });
    const summary = await readFile(path.join(repo.dir, ".harness/sessions", SLUG, "summary.md"), "utf8");
    // Each finding once, with its fate: the blocking ones fixed by their fix rounds' commits, the note open.
    expect(summary).toContain(
      `Phase 1: verification findings: 1 blocking fixed (commit ${fix1.sha.slice(0, 7)}); review findings: 1 blocking fixed (commit ${fix.sha.slice(0, 7)}), 1 note open.`,
    );
    expect(summary).toContain("Phase 2: review findings: 1 note open.");
  });

  it("gives the final review every per-phase finding whole, with what became of it", () => {
    const final = briefs("harness-code-reviewer", null)[0].brief;
    expect(final).not.toMatch(/found and addressed/);
    expect(final).toContain("Phase 1 (Counting Core), phase-1-review.json: 1 blocking, 0 warning, 1 note");
    expect(final).toMatch(
      /- \[p1-r1-1\] \[blocking\] src\/counting-core\/task-1\.ts:1 — Unchecked input reaches the parser \(simulated\) \[fixed in fix round 2 \(commit [0-9a-f]{7}\)\]: The parser trusts its input; validate it first\. Scenario: an empty input makes the parser throw/,
    );
    expect(final).toContain("- [p1-r1-2] [note] — Consider a doc comment (simulated) [open]");
  });

  it("keeps every round in the decision log: the failed verification later fixed, with its finding's fate", async () => {
    const { state } = await new SessionStore(repo.dir).read(SLUG);
    const log = buildDecisionLog(state, SLUG);
    expect(
      log.checks
        .filter((r) => r.phase?.number === 1)
        .map((r) => [r.check, r.round, r.verdict ?? r.resolution, r.findings]),
    ).toEqual([
      ["verification", 1, "fail", ["p1-v1-1"]],
      ["verification", 2, "pass", []],
      ["verification", 3, "pass", []],
      ["review", 1, "fix", ["p1-r1-1", "p1-r1-2"]],
      ["review", 2, null, ["p1-r1-2"]],
    ]);
    const fix1 = state.commits.find((c) => c.label === "Phase 1: Counting Core — verification fixes (round 1)")!;
    expect(log.findings.find((f) => f.id === "p1-v1-1")).toMatchObject({
      check: "verification",
      fate: "fixed",
      commit: fix1.sha,
      fateText: `fixed in fix round 1 (commit ${fix1.sha.slice(0, 7)})`,
    });
    expect(renderMarkdown(log)).toContain(
      "| 1. Counting Core | Verification | 1 | fail | p1-v1-1 blocking: tests/scanner.test.ts",
    );
  });

  it("carries what an executor learned to later briefs, and reports it truthfully at DONE", () => {
    const later = briefs("harness-task-executor", "Command Line", "executed")[0].brief;
    expect(later).toContain("## Learnings");
    expect(later).toContain(LEARNING);
    expect(done.report).toContain(
      "Learnings: added this run's entry to .harness/learnings.md; moved 1 learning of this session there.",
    );
  });

  it("shows at DONE what the final review found and what to do about it, and what to commit or ignore", async () => {
    expect(done.report).toContain("Final review: passed (0 blocking, 1 warning, 0 note)");
    expect(done.report).toContain("  - warning — Naming differs between phases (simulated)");
    expect(done.report).toContain("Not fixed: pr.md lists them as known issues.");
    expect(done.report).toContain("  - commit .harness/learnings.md if your team keeps what later runs learn");
    expect(done.report).toContain("sessions/ is working state: add the line `.harness/sessions/` to .gitignore.");
    expect(done.todo).toMatch(
      /the final review's findings and what to do about each, which \.harness\/ files to commit or ignore/,
    );
    const summary = await readFile(path.join(repo.dir, ".harness/sessions", SLUG, "summary.md"), "utf8");
    expect(summary).toContain("not fixed: warning Naming differs between phases (simulated)");
    expect(summary).toContain("Keep .harness/sessions/ out of git (add the line `.harness/sessions/` to .gitignore).");
  });

  it("resumes with where the session stands and what was decided", () => {
    expect(resumedReport).toContain("Resuming autopilot from state PHASE_COMPLETE, phase 1: Counting Core.");
    expect(resumedReport).toContain(
      "  Done: Phase 1: Counting Core — 3 tasks, verification pass, 1 failed verification(s) fixed, 2 fix round(s), review 1 blocking / 0 warning / 1 note.",
    );
    expect(resumedReport).toMatch(/ {2}Commits so far: \d+ \(last: Fix unchecked input reaches the parser\)\./);
    expect(resumedReport).toContain('phase 1 fix_verification "fix" (policy)');
    expect(resumedReport).toContain('phase 1 stopped "stop" (terminal): lunch');
  });
});
