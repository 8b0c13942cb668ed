// A wave through the merge queue in real git repositories, with executors simulated as what they
// leave in their worktrees: merges in task order, a conflict resolved by re-running that task alone
// on the merged result, a task writing outside its Files stopped for a question, a validation
// failure repaired on the merged result, the retry budget per task, and a resume after a crash
// between a merge and its validation, or in the middle of a task's rebase.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { commitTaskWork, mergeTask } from "../../src/effects/merge-queue.js";
import {
  drain,
  startWave,
  taskReported,
  waveDone,
  type TaskRun,
  type WaveOptions,
  type WaveRun,
} from "../../src/effects/wave-run.js";

const execFileP = promisify(execFile);
const SLUG = "changes--api--proposal";
let repo: TempRepo;
let validations: string[];
let failValidation: (root: string) => boolean;

beforeEach(async () => {
  repo = await makeRepo({
    files: { "README.md": "# api\n", "src/shared.ts": "export const a = 1;\n", ".gitignore": ".harness/sessions/\n" },
  });
  await mkdir(path.join(repo.dir, ".harness/sessions", SLUG), { recursive: true });
  validations = [];
  failValidation = () => false;
});
afterEach(async () => repo.cleanup());

const opts = (): WaveOptions => ({
  slug: SLUG,
  maxAttempts: 3,
  effectPrefix: "p0",
  validate: async (root) => {
    const head = (await git(root, "log", "-1", "--format=%s")).trim();
    validations.push(head);
    return failValidation(root)
      ? { passed: false, summary: "npm test: 1 failed" }
      : { passed: true, summary: "npm test: passed" };
  },
});

const task = (number: string, files: string[], owns: string[] = []) => ({
  number,
  name: `endpoint ${number}`,
  scope: { files, owns },
});

/** What a scripted executor leaves in the task's current worktree. */
async function execute(run: WaveRun, n: string, files: Record<string, string>): Promise<TaskRun> {
  const t = run.tasks.find((x) => x.task === n)!;
  for (const [rel, text] of Object.entries(files)) {
    const abs = path.join(repo.dir, t.worktree.path, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, text);
  }
  return t;
}

async function subjects(): Promise<string[]> {
  return (await git(repo.dir, "log", "--format=%s")).trim().split("\n");
}

describe("a wave through the merge queue", () => {
  it("a two-task conflict: task 2 finishing first waits for task 1, conflicts, and alone re-runs on the merged result", async () => {
    let run = await startWave(repo.dir, SLUG, 1, [task("1", ["src/shared.ts"]), task("2", ["src/shared.ts"])]);
    await execute(run, "1", { "src/shared.ts": "export const a = 2;\n" });
    await execute(run, "2", { "src/shared.ts": "export const a = 3;\n" });
    // Task 2 reports first: recorded, not merged (task order).
    let r = await taskReported(repo.dir, run, "2", { done: true }, opts());
    run = r.run;
    expect(r.events).toEqual([]);
    expect(run.tasks.map((t) => t.status)).toEqual(["running", "done"]);
    expect(await subjects()).toEqual(["initial commit"]);
    // Task 1 reports: merged and validated; task 2 then conflicts and goes back alone.
    r = await taskReported(repo.dir, run, "1", { done: true }, opts());
    run = r.run;
    expect(r.events).toEqual([
      { kind: "merged", task: "1", sha: expect.stringMatching(/^[0-9a-f]{40}$/), validation: "npm test: passed" },
      { kind: "retry", task: "2", attempt: 2, why: "conflict", error: "merging it conflicts in src/shared.ts" },
    ]);
    expect(run.tasks.map((t) => [t.status, t.attempt])).toEqual([
      ["merged", 1],
      ["running", 2],
    ]);
    const t2 = run.tasks[1];
    // The retry works from the merged result; the first attempt's work is kept, unmerged, for the user.
    expect(await readFile(path.join(repo.dir, t2.worktree.path, "src/shared.ts"), "utf8")).toBe(
      "export const a = 2;\n",
    );
    expect(t2.unmerged!.map((w) => w.branch)).toEqual([`autopilot-task/${SLUG}/2`]);
    expect(await readFile(path.join(repo.dir, t2.unmerged![0].path, "src/shared.ts"), "utf8")).toBe(
      "export const a = 3;\n",
    );
    await execute(run, "2", { "src/shared.ts": "export const a = 2 + 3;\n" });
    r = await taskReported(repo.dir, run, "2", { done: true }, opts());
    run = r.run;
    expect(r.events.map((e) => e.kind)).toEqual(["merged"]);
    expect(waveDone(run)).toBe(true);
    expect(await readFile(path.join(repo.dir, "src/shared.ts"), "utf8")).toBe("export const a = 2 + 3;\n");
    expect(await subjects()).toEqual(["Task 2: endpoint 2", "Task 1: endpoint 1", "initial commit"]);
    expect(validations).toEqual(["Task 1: endpoint 1", "Task 2: endpoint 2"]);
    // Merged work's worktrees are gone; the conflicting first attempt's stays.
    expect(existsSync(path.join(repo.dir, run.tasks[0].worktree.path))).toBe(false);
    expect(existsSync(path.join(repo.dir, run.tasks[1].worktree.path))).toBe(false);
    expect(existsSync(path.join(repo.dir, t2.unmerged![0].path))).toBe(true);
  });

  it("stops a task that wrote outside its Files at a question, merging nothing of it; tasks after it wait", async () => {
    let run = await startWave(repo.dir, SLUG, 1, [task("1", ["src/e1.ts"]), task("2", ["src/e2.ts"])]);
    await execute(run, "1", { "src/e1.ts": "1\n", "README.md": "# rewritten\n" });
    await execute(run, "2", { "src/e2.ts": "2\n" });
    run = (await taskReported(repo.dir, run, "2", { done: true }, opts())).run;
    const r = await taskReported(repo.dir, run, "1", { done: true }, opts());
    expect(r.events).toEqual([{ kind: "outside", task: "1", files: ["README.md"] }]);
    expect(r.run.tasks.map((t) => t.status)).toEqual(["outside", "done"]);
    expect(await subjects()).toEqual(["initial commit"]);
    expect(await readFile(path.join(repo.dir, "README.md"), "utf8")).toBe("# api\n");
    // The work is still there for the person to look at.
    expect(existsSync(path.join(repo.dir, r.run.tasks[0].worktree.path, "src/e1.ts"))).toBe(true);
  });

  it("a failing validation after a merge: the work stays merged and the task alone repairs it on the merged result", async () => {
    let run = await startWave(repo.dir, SLUG, 1, [task("1", ["src/e1.ts"]), task("2", ["src/e2.ts"])]);
    await execute(run, "1", { "src/e1.ts": "broken\n" });
    await execute(run, "2", { "src/e2.ts": "2\n" });
    failValidation = (root) => existsSync(path.join(root, "src/e1.ts")) && !existsSync(path.join(root, "src/e1.fixed"));
    run = (await taskReported(repo.dir, run, "2", { done: true }, opts())).run;
    let r = await taskReported(repo.dir, run, "1", { done: true }, opts());
    run = r.run;
    expect(r.events).toEqual([
      {
        kind: "retry",
        task: "1",
        attempt: 2,
        why: "validation",
        error: "the validation failed after its merge: npm test: 1 failed",
      },
    ]);
    expect(await subjects()).toEqual(["Task 1: endpoint 1", "initial commit"]);
    await execute(run, "1", { "src/e1.ts": "fixed\n", "src/e1.fixed": "" });
    // The repair may touch only the task's scope: its marker file is part of it here.
    run.tasks[0].scope = { files: ["src/e1.ts", "src/e1.fixed"], owns: [] };
    r = await taskReported(repo.dir, run, "1", { done: true }, opts());
    expect(r.events.map((e) => [e.kind, e.task])).toEqual([
      ["merged", "1"],
      ["merged", "2"],
    ]);
    expect(await subjects()).toEqual([
      "Task 2: endpoint 2",
      "Task 1: endpoint 1",
      "Task 1: endpoint 1",
      "initial commit",
    ]);
  });

  it("counts the retry budget per task: one task exhausted; the other, done, is recorded and waits behind it", async () => {
    let run = await startWave(repo.dir, SLUG, 1, [task("1", ["src/e1.ts"]), task("2", ["src/e2.ts"])]);
    await execute(run, "2", { "src/e2.ts": "2\n" });
    const events = [];
    for (let i = 0; i < 3; i++) {
      const r = await taskReported(repo.dir, run, "1", { done: false, error: `test ${i} failed` }, opts());
      run = r.run;
      events.push(...r.events);
    }
    expect(events).toEqual([
      { kind: "retry", task: "1", attempt: 2, why: "failed", error: "test 0 failed" },
      { kind: "retry", task: "1", attempt: 3, why: "failed", error: "test 1 failed" },
      { kind: "exhausted", task: "1", error: "test 2 failed" },
    ]);
    // Task 2 is recorded; merges go in task order, so it waits until task 1 is settled.
    run = (await taskReported(repo.dir, run, "2", { done: true }, opts())).run;
    expect(run.tasks.map((t) => t.status)).toEqual(["exhausted", "done"]);
  });

  it("a crash between a merge and its validation: the resume validates once more and merges nothing twice", async () => {
    let run = await startWave(repo.dir, SLUG, 1, [task("1", ["src/e1.ts"]), task("2", ["src/e2.ts"])]);
    await execute(run, "1", { "src/e1.ts": "1\n" });
    await execute(run, "2", { "src/e2.ts": "2\n" });
    run = (await taskReported(repo.dir, run, "2", { done: true }, opts())).run;
    // The saved ledger says task 1 is running; the process died after its commit and its merge.
    const saved = structuredClone(run);
    await commitTaskWork(repo.dir, SLUG, run.tasks[0].worktree, "Task 1: endpoint 1", "p0-task-1-a1");
    await mergeTask(repo.dir, run.tasks[0].worktree);
    // The resumed engine replays the report on the saved ledger.
    const r = await taskReported(repo.dir, saved, "1", { done: true }, opts());
    expect(r.events.map((e) => [e.kind, e.task])).toEqual([
      ["merged", "1"],
      ["merged", "2"],
    ]);
    expect(await subjects()).toEqual(["Task 2: endpoint 2", "Task 1: endpoint 1", "initial commit"]);
    // Draining again (a second resume) changes nothing.
    const again = await drain(repo.dir, r.run, opts());
    expect(again.events).toEqual([]);
    expect(await subjects()).toHaveLength(3);
  });

  it.each([
    ["running (its report is replayed)", "running"],
    ["done (the queue drains again)", "done"],
  ] as const)(
    "a crash in the middle of a task's rebase, the ledger saying the task is %s: the resume starts the rebase again and merges the task once",
    async (_, status) => {
      let run = await startWave(repo.dir, SLUG, 1, [task("1", ["src/e1.ts"]), task("2", ["src/e2.ts"])]);
      await execute(run, "1", { "src/e1.ts": "1\n" });
      await execute(run, "2", { "src/e2.ts": "2\n" });
      run = (await taskReported(repo.dir, run, "1", { done: true }, opts())).run;
      // The saved ledger says task 2 is running; the process died after its commit, inside the
      // rebase onto task 1's merge (git stopped before applying the task's commit: a detached HEAD).
      const saved = structuredClone(run);
      const wt = path.join(repo.dir, run.tasks[1].worktree.path);
      await commitTaskWork(repo.dir, SLUG, run.tasks[1].worktree, "Task 2: endpoint 2", "p0-task-2-a1");
      const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
      await execFileP("git", ["-c", "sequence.editor=sed -i -e '1i break'", "rebase", "-i", head], { cwd: wt });
      expect(existsSync(path.join(repo.dir, ".git/worktrees", path.basename(wt), "rebase-merge"))).toBe(true);
      saved.tasks[1].status = status;
      const r =
        status === "running"
          ? await taskReported(repo.dir, saved, "2", { done: true }, opts())
          : await drain(repo.dir, saved, opts());
      expect(r.events.map((e) => [e.kind, e.task])).toEqual([["merged", "2"]]);
      expect(await subjects()).toEqual(["Task 2: endpoint 2", "Task 1: endpoint 1", "initial commit"]);
      expect(await readFile(path.join(repo.dir, "src/e2.ts"), "utf8")).toBe("2\n");
    },
  );
});
