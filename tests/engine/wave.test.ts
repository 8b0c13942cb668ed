// A parallel session's wave through the engine, in a real git repository, with the
// executors simulated as what they leave in their worktrees: one Step dispatching one executor per
// task, each brief naming its worktree and its one task; reports taken one task at a time in any
// order; the merge queue in task order; a task writing outside its Files stopped at a question;
// a conflict re-run alone on the merged result; a failing task retried within its own budget.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { PolicyGate, drive } from "../../src/headless/drive.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { Engine } from "../../src/engine/engine.js";
import type { Step, WaveDispatch } from "../../src/protocol/step.js";
import { renderStepText, todoFor } from "../../src/protocol/host-view.js";
import { hostStep } from "../../src/mcp/render.js";
import { RETRY_BUDGET } from "../../src/rules/policy.js";
import { readDecisionLog } from "../../src/log/index.js";

const SPEC_PATH = "docs/changes/api/proposal.md";
const SLUG = "changes--api--proposal";
const SPEC = `# API\n\n## Implementation Order\n\n### Phase 1: Endpoints\n<!-- complexity: low -->\nThree endpoints.\n`;

let repo: TempRepo;
let clock = 0;
const now = () => new Date(Date.UTC(2026, 2, 19, 10, 0, clock++));

beforeEach(async () => {
  repo = await makeRepo({ files: { "src/e2.ts": "export const e2 = 0;\n" } });
  await mkdir(path.join(repo.dir, "docs/changes/api"), { recursive: true });
  await writeFile(path.join(repo.dir, SPEC_PATH), SPEC);
  await git(repo.dir, "add", "-A");
  await git(repo.dir, "commit", "-qm", "spec");
});
afterEach(async () => repo.cleanup());

/** `chains`: task t depends on task t - chains (0: every task independent). */
function planText(n: number, chains = 0): string {
  const tasks = Array.from(
    { length: n },
    (_, i) =>
      `### Task ${i + 1}: endpoint ${i + 1}\n\n**Depends on:** ${chains && i >= chains ? `Task ${i + 1 - chains}` : "none"} | **Files:** src/e${i + 1}.ts\n\n1. Write the endpoint.\n\n**Verify:** \`node src/e${i + 1}.ts\` → exits 0\n`,
  );
  return `# Plan: Endpoints\n\n**Tasks:** ${n}\n\n${tasks.join("\n")}`;
}

/** A parallel session with a plan of `n` independent tasks: at its first wave's Step. */
async function atWave(n = 3, chains = 0): Promise<{ engine: Engine; step: Step }> {
  const engine = new Engine(repo.dir, { now });
  const { step } = await engine.start(SPEC_PATH, "--parallel");
  if (step.next.kind !== "dispatch") throw new Error("expected the planner");
  const planPath = step.next.expects.artifacts.plan!;
  await mkdir(path.dirname(path.join(repo.dir, planPath)), { recursive: true });
  await writeFile(path.join(repo.dir, planPath), planText(n, chains));
  return { engine, step: await engine.report(SLUG, step.stepId, { kind: "planned", planPath, summary: "endpoints" }) };
}

function tasksOf(step: Step): WaveDispatch[] {
  if (step.next.kind !== "dispatch" || !step.next.tasks)
    throw new Error(`expected a wave, got ${JSON.stringify(step.next).slice(0, 300)}`);
  return step.next.tasks;
}

/** What an executor leaves in its task's worktree. */
async function work(t: WaveDispatch, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const abs = path.join(repo.dir, t.worktree, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, text);
  }
}

const done = (t: WaveDispatch) => ({
  kind: "executed",
  outcome: "complete",
  task: { number: Number(t.task), name: t.name },
  summary: "done",
});

async function state(): Promise<Record<string, any>> {
  return JSON.parse(await readFile(path.join(repo.dir, ".harness/sessions", SLUG, "autopilot-state.json"), "utf8"));
}

async function subjects(): Promise<string[]> {
  return (await git(repo.dir, "log", "--format=%s")).trim().split("\n");
}

describe("a parallel session's wave", () => {
  it("dispatches one executor per task in its own worktree, takes reports one task at a time in any order, and merges in task order", async () => {
    const { engine, step } = await atWave(3);
    expect(step.state).toBe("EXECUTE");
    const tasks = tasksOf(step);
    expect(tasks.map((t) => t.task)).toEqual(["1", "2", "3"]);
    // Each worktree exists, on its own branch, made from the session's head (the plan committed first).
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    expect(await subjects()).toEqual(["Plan Endpoints", "spec", "initial commit"]);
    for (const t of tasks) {
      expect((await git(path.join(repo.dir, t.worktree), "rev-parse", "HEAD")).trim()).toBe(head);
      expect(t.prompt).toContain(`in the git worktree ${t.worktree} (work only there)`);
      const brief = await readFile(path.join(repo.dir, t.brief), "utf8");
      expect(brief).toContain(`- Task: ${t.task} (endpoint ${t.task})`);
      expect(brief).toContain(`- Worktree: ${t.worktree}`);
      expect(brief).toContain(`- Files it may change: src/e${t.task}.ts`);
      expect(brief).toContain("other executors do the other tasks at the same time");
      expect(brief).toContain("Keep no execution state file (state.json)");
      expect(brief).toContain(`Work only in the git worktree ${t.worktree}`);
    }
    // The host is told to start them together (Claude Code: several Agent calls in one message,
    // the agent named as for every dispatch: a wave's todo followed later names no wrong agent).
    expect(tasks.every((t) => t.startedAt === undefined)).toBe(true);
    expect(todoFor(step, { host: "claude-code" })).toMatch(
      /^Start the entries of next\.tasks without startedAt together: one Agent tool call each, all in ONE message \(subagent_type next\.persona,/,
    );
    expect(step.todo).toContain('"task":<the entry\'s task>');
    // Codex refuses a spawn past its agent limit, which counts agents not closed: its todo says to
    // close each executor once its answer is in hand, and to spawn a refused entry again after that.
    expect(todoFor(step, { host: "codex" })).toMatch(
      /then wait_agent for each, close_agent it once its answer is in hand, and call autopilot_report .*"agent thread limit reached": spawn that entry again after your next close_agent\.$/,
    );
    // Claude Code's lean Step (the JSON its model reads) keeps each entry's task and prompt.
    const lean = hostStep(step, { host: "claude-code" }).next;
    expect(lean).toMatchObject({ kind: "dispatch", tasks: tasks.map((t) => ({ task: t.task, prompt: t.prompt })) });

    for (const t of tasks) await work(t, { [`src/e${t.task}.ts`]: `export const e${t.task} = ${t.task};\n` });
    // Task 3 reports first: recorded, nothing merged, the Step still dispatches tasks 1 and 2.
    let s = await engine.report(SLUG, step.stepId, done(tasks[2]), null, "3");
    expect(tasksOf(s).map((t) => t.task)).toEqual(["1", "2"]);
    // A host that lost its context starts again: the resume report says where the wave stands.
    const resumed = (await new Engine(repo.dir, { now }).start(SPEC_PATH, "--parallel")).step;
    expect(resumed.report).toContain("wave 1: task 3 reported, tasks 1, 2 running");
    expect(resumed.report).not.toContain("next: task");
    // Tasks 1 and 2 run already: the Step says so (startedAt, the prompt, the text view), so a host
    // reports them as they return instead of starting them again.
    expect(tasksOf(s).map((t) => t.startedAt)).toEqual([step.stepId, step.stepId]);
    expect(s.next.kind === "dispatch" && s.next.prompt).toMatch(
      new RegExp(
        `^The executors of tasks 1, 2 \\(wave 1/1 of phase 1/1 "Endpoints"\\) have run since step ${step.stepId}: report each`,
      ),
    );
    expect(hostStep(s, { host: "claude-code" }).next).toMatchObject({
      tasks: [
        { task: "1", startedAt: step.stepId },
        { task: "2", startedAt: step.stepId },
      ],
    });
    expect(renderStepText(s, { host: "gemini" })).toContain(
      "these harness-task-executor subagents run already; start one again (with its prompt) only if it is gone",
    );
    expect(await subjects()).toHaveLength(3);
    // A report for a task that already reported is refused, with nothing changed.
    await expect(engine.report(SLUG, s.stepId, done(tasks[2]), null, "3")).rejects.toMatchObject({
      code: "bad_result",
    });
    // Task 2 reports against the step that dispatched it (older than the current one): taken. The
    // task comes from the result's task number when the report does not name it.
    s = await engine.report(SLUG, step.stepId, done(tasks[1]));
    expect(tasksOf(s).map((t) => t.task)).toEqual(["1"]);
    // Task 1's executor wrote its result to the file its brief names; the host reports only the step and the task.
    const resultFile = /^- Result: (\S+)/m.exec(await readFile(path.join(repo.dir, tasks[0].brief), "utf8"))![1];
    expect(resultFile).toBe(`.harness/sessions/${SLUG}/results/step-${step.stepId}-task-1.json`);
    // The brief says every plan path is relative to the worktree: the result file is said to be in the project's checkout.
    expect(await readFile(path.join(repo.dir, tasks[0].brief), "utf8")).toContain(
      `- Result: ${resultFile} (in the project's checkout, not in the worktree:`,
    );
    await mkdir(path.dirname(path.join(repo.dir, resultFile)), { recursive: true });
    await writeFile(path.join(repo.dir, resultFile), JSON.stringify(done(tasks[0])));
    // A task that names no task is refused with a next step, nothing changed; a number (as a model may send it) is the task.
    await expect(engine.report(SLUG, s.stepId, undefined, null, { number: 1 })).rejects.toMatchObject({
      code: "bad_input",
      message: expect.stringContaining('(e.g. "3")'),
    });
    expect(tasksOf(await engine.next(SLUG)).map((t) => t.task)).toEqual(["1"]);
    // A task the wave does not have is said as such, with the task it waits for (not as a missing result file).
    await expect(engine.report(SLUG, s.stepId, undefined, null, "7")).rejects.toMatchObject({
      code: "bad_result",
      message:
        'Task "7" is not a task of this wave; the wave waits for task "1" (the "task" of each next.tasks entry). Nothing was changed.',
    });
    // "Task 1" (as a model reading the brief's title may send it) is task 1.
    s = await engine.report(SLUG, s.stepId, undefined, null, "Task 1");
    // All in: merged in task order, each validated; the phase goes on to verification.
    expect(s.state).toBe("VERIFY");
    expect(s.report).toMatch(
      /Task 1 \(endpoint 1\) merged \([0-9a-f]{7}\)[\s\S]*Task 2 \(endpoint 2\) merged[\s\S]*Task 3 \(endpoint 3\) merged/,
    );
    expect((await subjects()).slice(0, 3)).toEqual([
      "Implement endpoint 3",
      "Implement endpoint 2",
      "Implement endpoint 1",
    ]);
    const ledger = (await state()).phaseRun.waveRun;
    expect(ledger.tasks.map((t: any) => [t.task, t.status, /^[0-9a-f]{40}$/.test(t.merged)])).toEqual([
      ["1", "merged", true],
      ["2", "merged", true],
      ["3", "merged", true],
    ]);
    // Merged work's worktrees and branches are gone.
    for (const t of tasks) expect(existsSync(path.join(repo.dir, t.worktree))).toBe(false);
    expect((await git(repo.dir, "branch", "--list", "autopilot-task/*")).trim()).toBe("");
  });

  it("removes a wave's merged worktrees while the next wave runs, owed in the ledger until the next merge has seen them gone", async () => {
    const { engine, step } = await atWave(6, 3);
    const first = tasksOf(step);
    expect(first.map((t) => t.task)).toEqual(["1", "2", "3"]);
    for (const t of first) await work(t, { [`src/e${t.task}.ts`]: `export const e${t.task} = ${t.task};\n` });
    let s = step;
    for (const t of first) s = await engine.report(SLUG, step.stepId, done(t), null, t.task);
    // Wave 2 is dispatched before wave 1's worktrees are removed: the ledger lists them as owed.
    const second = tasksOf(s);
    expect(second.map((t) => t.task)).toEqual(["4", "5", "6"]);
    const owed = (await state()).phaseRun.waveRun;
    expect(owed.wave).toBe(1);
    expect(owed.removals.map((w: any) => w.path)).toEqual(first.map((t) => t.worktree));
    // Wave 2 builds on wave 1's merged work.
    for (const t of second)
      expect(existsSync(path.join(repo.dir, t.worktree, `src/e${Number(t.task) - 3}.ts`))).toBe(true);
    for (const t of second) await work(t, { [`src/e${t.task}.ts`]: `export const e${t.task} = ${t.task};\n` });
    const wave2 = s.stepId;
    for (const t of second) s = await engine.report(SLUG, wave2, done(t), null, t.task);
    expect(s.state).toBe("VERIFY");
    expect((await subjects()).slice(0, 6)).toEqual([6, 5, 4, 3, 2, 1].map((n) => `Implement endpoint ${n}`));
    // Nothing owed when EXECUTE ends: every merged worktree and branch is gone.
    expect((await state()).phaseRun.waveRun.removals ?? []).toEqual([]);
    for (const t of [...first, ...second]) expect(existsSync(path.join(repo.dir, t.worktree))).toBe(false);
    expect((await git(repo.dir, "branch", "--list", "autopilot-task/*")).trim()).toBe("");
  });

  it("stops a task that wrote outside its Files at a question, merges nothing of it, and re-runs it alone on the merged result", async () => {
    const { engine, step } = await atWave(3);
    const tasks = tasksOf(step);
    await work(tasks[0], { "src/e1.ts": "1\n" });
    await work(tasks[1], { "src/e2.ts": "2\n", "README.md": "# rewritten by task 2\n" });
    await work(tasks[2], { "src/e3.ts": "3\n" });
    let s = step;
    for (const t of tasks) s = await engine.report(SLUG, step.stepId, done(t), null, t.task);
    expect(s.next.kind).toBe("ask");
    if (s.next.kind !== "ask") return;
    expect(s.next.name).toBe("waveTask");
    expect(s.next.options).toEqual(["re-run", "done by hand", "stop"]);
    expect(s.next.context).toContain("Task 2 (endpoint 2) changed files outside its Files/Owns (src/e2.ts): README.md");
    expect(s.report).toContain(
      "Task 2 (endpoint 2) changed files outside its Files/Owns: README.md. Nothing of it was merged",
    );
    // Task 1 merged; task 2 not (nor README.md); task 3 waits for its turn behind task 2.
    expect((await subjects())[0]).toBe("Implement endpoint 1");
    expect(existsSync(path.join(repo.dir, "README.md"))).toBe(false);
    expect((await state()).phaseRun.waveRun.tasks.map((t: any) => t.status)).toEqual(["merged", "outside", "done"]);

    // A person asks for it again: task 2 alone, in a new worktree from the merged result.
    s = await engine.decide(SLUG, s.stepId, "re-run", "keep README out of it");
    const again = tasksOf(s);
    expect(again.map((t) => [t.task, t.description])).toEqual([["2", "Task 2 (attempt 2), phase 1: endpoint 2"]]);
    expect(await readFile(path.join(repo.dir, again[0].worktree, "src/e1.ts"), "utf8")).toBe("1\n");
    // Its brief says why the first attempt stopped, and that it now runs alone.
    const brief = await readFile(path.join(repo.dir, again[0].brief), "utf8");
    expect(brief).toContain("## What went wrong before");
    expect(brief).toContain("Attempt 1 changed files outside what the task may change (README.md)");
    expect(brief).not.toContain("other executors do the other tasks");
    await work(again[0], { "src/e2.ts": "2\n" });
    s = await engine.report(SLUG, s.stepId, done(again[0]), null, "2");
    expect(s.state).toBe("VERIFY");
    expect((await subjects()).slice(0, 3)).toEqual([
      "Implement endpoint 3",
      "Implement endpoint 2",
      "Implement endpoint 1",
    ]);
    expect(existsSync(path.join(repo.dir, "README.md"))).toBe(false);
    // The stopped attempt's work is kept on its branch for the user.
    const kept = (await state()).phaseRun.waveRun.tasks[1].unmerged;
    expect(kept).toHaveLength(1);
    expect(await readFile(path.join(repo.dir, kept[0].path, "README.md"), "utf8")).toContain("rewritten");
    // At DONE the report names that worktree and branch, and how to remove them.
    const { final } = await drive(engine, s, new ScriptedRunner(), new PolicyGate());
    expect(final.state).toBe("DONE");
    expect(final.report).toContain("kept for you, unmerged");
    expect(final.report).toContain(`${kept[0].path} (branch ${kept[0].branch})`);
    expect(existsSync(path.join(repo.dir, kept[0].path))).toBe(true);
  });

  it("a conflict (the session's branch moved under the wave) sends that task alone back on the merged result; the tasks merged stay merged", async () => {
    const { engine, step } = await atWave(3);
    const tasks = tasksOf(step);
    await work(tasks[0], { "src/e1.ts": "1\n" });
    await work(tasks[1], { "src/e2.ts": "export const e2 = 2;\n" });
    await work(tasks[2], { "src/e3.ts": "3\n" });
    // Someone commits to the session's branch while the wave runs, changing task 2's file.
    await writeFile(path.join(repo.dir, "src/e2.ts"), "export const e2 = -1;\n");
    await git(repo.dir, "commit", "-qam", "a fix made meanwhile");
    let s = step;
    for (const t of tasks) s = await engine.report(SLUG, step.stepId, done(t), null, t.task);
    expect(s.report).toContain(
      "Task 2 (endpoint 2) conflicts with the work merged before it: merging it conflicts in src/e2.ts. It runs again (attempt 2 of",
    );
    const again = tasksOf(s);
    expect(again.map((t) => t.task)).toEqual(["2"]);
    // The retry starts from the merged result (the fix made meanwhile, task 1's work).
    expect(await readFile(path.join(repo.dir, again[0].worktree, "src/e2.ts"), "utf8")).toBe("export const e2 = -1;\n");
    expect(existsSync(path.join(repo.dir, again[0].worktree, "src/e1.ts"))).toBe(true);
    const brief = await readFile(path.join(repo.dir, again[0].brief), "utf8");
    expect(brief).toContain("## What went wrong before");
    expect(brief).toContain("merging it conflicts in src/e2.ts");
    await work(again[0], { "src/e2.ts": "export const e2 = 2;\n" });
    s = await engine.report(SLUG, s.stepId, done(again[0]), null, "2");
    expect(s.state).toBe("VERIFY");
    // The history now has three lower-case subjects of the user's: the task commits follow it.
    expect((await subjects()).slice(0, 4)).toEqual([
      "implement endpoint 3",
      "implement endpoint 2",
      "implement endpoint 1",
      "a fix made meanwhile",
    ]);
    expect(await readFile(path.join(repo.dir, "src/e2.ts"), "utf8")).toBe("export const e2 = 2;\n");
  });

  it("a task at a human checkpoint: the serial checkpoint question once the wave's reports are in, nothing merged before; then that task alone goes on with the answer", async () => {
    const { engine, step } = await atWave(3);
    const tasks = tasksOf(step);
    for (const t of tasks) await work(t, { [`src/e${t.task}.ts`]: `export const e${t.task} = ${t.task};\n` });
    const before = await subjects();
    const checkpoint = {
      kind: "executed",
      outcome: "checkpoint",
      task: { number: 2, name: "endpoint 2" },
      checkpoint: {
        type: "human-verify",
        label: "the endpoint answers in the browser",
        details: "Open /e2 and check the JSON.",
      },
    };
    let s = await engine.report(SLUG, step.stepId, checkpoint, null, "2");
    // The other tasks still owe their reports: no question yet.
    expect(s.next.kind).toBe("dispatch");
    await engine.report(SLUG, step.stepId, done(tasks[0]), null, "1");
    s = await engine.report(SLUG, step.stepId, done(tasks[2]), null, "3");
    expect(s.next).toMatchObject({
      kind: "ask",
      name: "checkpoint",
      question:
        'Checkpoint "Task 2 (endpoint 2): the endpoint answers in the browser": please verify the result. Confirm, reject (say why), or stop?',
      options: ["confirm", "reject", "stop"],
      context: "Open /e2 and check the JSON.",
    });
    expect(await subjects()).toEqual(before);
    // The decision log, made now, shows where each task stands.
    const open = (await readDecisionLog(repo.dir, SLUG))!.waves[0].tasks;
    expect(open.map((t) => [t.task, t.statusText])).toEqual([
      ["1", "waiting to merge"],
      ["2", 'question: at its human checkpoint "the endpoint answers in the browser"'],
      ["3", "waiting to merge"],
    ]);
    s = await engine.decide(SLUG, s.stepId, "confirm", "looks right", "terminal");
    // Task 2 alone, in the same worktree, its answer in its brief; not a retry.
    const again = tasksOf(s);
    expect(again.map((t) => [t.task, t.worktree])).toEqual([["2", tasks[1].worktree]]);
    const brief = await readFile(path.join(repo.dir, again[0].brief), "utf8");
    expect(brief).toContain(
      '## Human checkpoint answer\n\nTask 2 (endpoint 2): the endpoint answers in the browser: confirm ("looks right")',
    );
    expect(brief).toContain("- Attempt: 1\n");
    s = await engine.report(SLUG, s.stepId, done(again[0]), null, "2");
    expect(s.state).toBe("VERIFY");
    expect((await subjects()).slice(0, 3)).toEqual([
      "Implement endpoint 3",
      "Implement endpoint 2",
      "Implement endpoint 1",
    ]);
    const st = await state();
    expect(st.decisions.at(-1)).toMatchObject({
      decision: "checkpoint_human_verify",
      answer: "confirm",
      by: "terminal",
      rationale: "looks right",
    });
    expect(st.phaseRun.waveRun.tasks.map((t: { attempt: number }) => t.attempt)).toEqual([1, 1, 1]);
  });

  it("the retry budget is per task: two tasks each failing one attempt short of the budget both go on to merge, no question", async () => {
    const { engine, step } = await atWave(3);
    let s = step;
    const fail = (t: WaveDispatch) => ({
      kind: "executed",
      outcome: "failed",
      task: { number: Number(t.task), name: t.name },
      error: `task ${t.task} type error`,
    });
    // Tasks 1 and 3 fail RETRY_BUDGET - 1 times each (more failures in all than one budget holds); task 2 is done at once.
    for (let round = 1; round <= RETRY_BUDGET; round++) {
      const tasks = tasksOf(s);
      for (const t of tasks) {
        if (t.task === "2" || round === RETRY_BUDGET)
          await work(t, { [`src/e${t.task}.ts`]: `export const e${t.task} = ${t.task};\n` });
        s = await engine.report(
          SLUG,
          s.stepId,
          t.task === "2" || round === RETRY_BUDGET ? done(t) : fail(t),
          null,
          t.task,
        );
      }
      if (round < RETRY_BUDGET) expect(tasksOf(s).map((t) => t.task)).toEqual(["1", "3"]);
    }
    expect(s.state).toBe("VERIFY");
    expect(s.next.kind === "ask" && s.next.name).not.toBe("waveTask");
    // Every attempt sent back counts as a retry of the phase (its report says "Retries: 4").
    expect((await state()).phaseRun.retriesUsed).toBe(2 * (RETRY_BUDGET - 1));
    const ledger = (await state()).phaseRun.waveRun;
    expect(
      ledger.tasks.map((t: { task: string; status: string; attempt: number }) => [t.task, t.status, t.attempt]),
    ).toEqual([
      ["1", "merged", RETRY_BUDGET],
      ["2", "merged", 1],
      ["3", "merged", RETRY_BUDGET],
    ]);
  });

  it("a failing task goes again in its own worktree within its own retry budget; the budget spent becomes a question", async () => {
    const { engine, step } = await atWave(3);
    const tasks = tasksOf(step);
    await work(tasks[0], { "src/e1.ts": "1\n" });
    await work(tasks[2], { "src/e3.ts": "3\n" });
    await engine.report(SLUG, step.stepId, done(tasks[0]), null, "1");
    await engine.report(SLUG, step.stepId, done(tasks[2]), null, "3");
    const fail = {
      kind: "executed",
      outcome: "failed",
      task: { number: 2, name: "endpoint 2" },
      error: "tsc: src/e2.ts(1,1) type error",
    };
    let s = await engine.report(SLUG, step.stepId, fail, null, "2");
    // Task 1 merged; task 2 goes again in the same worktree; task 3 waits behind it.
    expect(tasksOf(s).map((t) => [t.task, t.worktree])).toEqual([["2", tasks[1].worktree]]);
    expect(s.report).toContain(
      "Task 2 (endpoint 2) failed: tsc: src/e2.ts(1,1) type error. It runs again (attempt 2 of",
    );
    for (let a = 2; a <= RETRY_BUDGET; a++) s = await engine.report(SLUG, s.stepId, fail, null, "2");
    expect(s.next.kind === "ask" && s.next.name).toBe("waveTask");
    expect(s.next.kind === "ask" && s.next.context).toContain(
      "Task 2 (endpoint 2) spent its retry budget: tsc: src/e2.ts(1,1) type error",
    );
    // A person did it by hand on the session's branch: the queue goes on with task 3.
    await writeFile(path.join(repo.dir, "src/e2.ts"), "export const e2 = 2;\n");
    await git(repo.dir, "commit", "-qam", "task 2 by hand");
    s = await engine.decide(SLUG, s.stepId, "done by hand", "fixed it myself", "terminal");
    expect(s.state).toBe("VERIFY");
    expect((await subjects()).slice(0, 3)).toEqual(["Implement endpoint 3", "task 2 by hand", "Implement endpoint 1"]);
  });

  it("a validation failing after a task's merge: the task's next brief holds the failing lines; the Step's report only the summary", async () => {
    // The project's own check, committed with its config: it fails while src/e2.ts says "broken".
    await writeFile(
      path.join(repo.dir, "check.mjs"),
      'import { readFileSync } from "node:fs";\nconsole.log("checking 3 endpoints");\nif (readFileSync("src/e2.ts", "utf8").includes("broken")) { console.error("FAIL endpoint 2: expected 200, got 500 (src/e2.ts:1)"); process.exit(1); }\nconsole.log("all good");\n',
    );
    await mkdir(path.join(repo.dir, ".harness"), { recursive: true });
    await writeFile(
      path.join(repo.dir, ".harness/config.json"),
      JSON.stringify({ validation: { commands: ["node check.mjs"] } }),
    );
    await git(repo.dir, "add", "-A");
    await git(repo.dir, "commit", "-qm", "check");
    const { engine, step } = await atWave(3);
    const tasks = tasksOf(step);
    let s = step;
    for (const t of tasks) {
      await work(t, {
        [`src/e${t.task}.ts`]:
          t.task === "2" ? "export const e2 = 'broken';\n" : `export const e${t.task} = ${t.task};\n`,
      });
      s = await engine.report(SLUG, s.stepId, done(t), null, t.task);
    }
    const again = tasksOf(s);
    expect(again.map((t) => t.task)).toEqual(["2"]);
    expect(s.report).toContain(
      "the validation failed after its merge: 1 of 1 validation command run: 0 passed, 1 failed; node check.mjs exited 1.",
    );
    expect(s.report).not.toContain("FAIL endpoint 2");
    const brief = await readFile(path.join(repo.dir, again[0].brief), "utf8");
    expect(brief).toContain("### What the failing validation printed (the end of each failed command's output)");
    expect(brief).toMatch(
      /\$ node check\.mjs \(exit 1\)\nchecking 3 endpoints\nFAIL endpoint 2: expected 200, got 500 \(src\/e2\.ts:1\)/,
    );
  });

  it("an executor's plan defect: the wave's done tasks merge, the plan goes back to the planner, a stopped task's work stays in its worktree; the revised plan runs only the tasks not merged", async () => {
    const { engine, step } = await atWave(3);
    const [t1, t2, t3] = tasksOf(step);
    await work(t1, { "src/e1.ts": "export const e1 = 1;\n" });
    await work(t3, { "src/e3.ts": "export const e3 = 'half done';\n" });
    await engine.report(SLUG, step.stepId, done(t1), null, "1");
    await engine.report(
      SLUG,
      step.stepId,
      {
        kind: "executed",
        outcome: "plan_defect",
        task: { number: 2, name: t2.name },
        defect: "src/e2.ts must import src/e4.ts, which no task writes",
      },
      null,
      "2",
    );
    let s = await engine.report(
      SLUG,
      step.stepId,
      { kind: "executed", outcome: "failed", task: { number: 3, name: t3.name }, error: "e3 half done" },
      null,
      "3",
    );
    // Back to the planner, as a serial plan defect: counted, with the defect and what is merged.
    expect(s.state).toBe("PLAN");
    expect(s.next.kind === "dispatch" && s.next.persona).toBe("harness-planner");
    expect(s.report).toContain(
      "the executor reports a defect in the plan: src/e2.ts must import src/e4.ts, which no task writes",
    );
    expect(s.report).toContain(
      "(the wave's task 1 merged; nothing of tasks 2, 3 merged, their work (if any) kept on their branches)",
    );
    expect(await subjects()).toContain("Implement endpoint 1");
    expect((await state()).phaseRun).toMatchObject({ planDefects: 1, tasksMerged: ["1"] });
    const planBrief = await readFile(
      path.join(repo.dir, s.next.kind === "dispatch" ? s.next.expects.artifacts.brief! : ""),
      "utf8",
    );
    expect(planBrief).toContain(
      "Task 1 is done and merged: keep it as it is (same numbers and headings). Revise task 2",
    );
    // Task 2's worktree held nothing and is gone; task 3's holds its half-done work, kept.
    expect(existsSync(path.join(repo.dir, t2.worktree))).toBe(false);
    expect(await readFile(path.join(repo.dir, t3.worktree, "src/e3.ts"), "utf8")).toBe(
      "export const e3 = 'half done';\n",
    );
    // The revised plan: tasks 2 and 3 run, in new worktrees; task 1 is not run again.
    const planPath = (await state()).phases[0].planPath;
    await writeFile(
      path.join(repo.dir, planPath),
      planText(3).replace("1. Write the endpoint.", "1. Write the endpoint and its helper."),
    );
    s = await engine.report(SLUG, s.stepId, { kind: "planned", planPath, summary: "revised" });
    const next = tasksOf(s);
    expect(next.map((t) => t.task)).toEqual(["2", "3"]);
    expect(next.map((t) => t.worktree)).not.toContain(t3.worktree);
    const first = (await readDecisionLog(repo.dir, SLUG))!.waves[0].tasks.map((t) => [t.task, t.statusText]);
    expect(first[1][1]).toContain(
      "plan sent back to the planner: its executor reports a defect in the plan (src/e2.ts must import src/e4.ts, which no task writes)",
    );
    expect(first[2][1]).toContain(
      "stopped for the revised plan: another task sent the plan back (its own report: e3 half done)",
    );
  });

  it("a plan defect past the phase's plan send-backs stops the task at the waveTask question instead", async () => {
    // A retry budget of 1 allows no send-back: the defect goes to a person at once.
    await mkdir(path.join(repo.dir, ".harness"), { recursive: true });
    await writeFile(path.join(repo.dir, ".harness/config.json"), JSON.stringify({ retryBudget: 1 }));
    await git(repo.dir, "add", "-A");
    await git(repo.dir, "commit", "-qm", "config");
    const { engine, step } = await atWave(3);
    const [t1, t2, t3] = tasksOf(step);
    await work(t1, { "src/e1.ts": "export const e1 = 1;\n" });
    await work(t3, { "src/e3.ts": "export const e3 = 3;\n" });
    await engine.report(SLUG, step.stepId, done(t1), null, "1");
    await engine.report(
      SLUG,
      step.stepId,
      {
        kind: "executed",
        outcome: "plan_defect",
        task: { number: 2, name: t2.name },
        defect: "no task writes src/e4.ts",
      },
      null,
      "2",
    );
    const s = await engine.report(SLUG, step.stepId, done(t3), null, "3");
    expect(s.state).toBe("EXECUTE");
    expect(s.next.kind === "ask" && s.next.name).toBe("waveTask");
    expect(s.next.kind === "ask" && s.next.context).toContain(
      "Task 2 (endpoint 2) is stopped: the executor reports a defect in the plan, and this phase's plan send-backs are spent: no task writes src/e4.ts.",
    );
    expect((await state()).phaseRun.planDefects ?? 0).toBe(0);
  });
});
