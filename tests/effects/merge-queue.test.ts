// The merge queue of a parallel session in real git repositories: task worktrees from the recorded
// base, the scope check, merges in task order without force, a conflict sent back alone while the
// merged work stays, and removal only of merged (or discarded) work.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import {
  checkTask,
  commitTaskWork,
  inScope,
  mergeTask,
  openTaskWorktree,
  removeTaskWorktree,
  type TaskWorktree,
} from "../../src/effects/merge-queue.js";

const SLUG = "changes--api--proposal";
let repo: TempRepo;

beforeEach(async () => {
  repo = await makeRepo({
    files: { "README.md": "# api\n", "src/shared.ts": "export const a = 1;\n", ".gitignore": ".harness/sessions/\n" },
  });
});
afterEach(async () => repo.cleanup());

async function head(): Promise<string> {
  return (await git(repo.dir, "rev-parse", "HEAD")).trim();
}

/** What an executor does: write files in the task's worktree (it never commits). */
async function work(tw: TaskWorktree, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(repo.dir, tw.path, rel)), { recursive: true });
    await writeFile(path.join(repo.dir, tw.path, rel), text);
  }
}

async function subjects(): Promise<string[]> {
  return (await git(repo.dir, "log", "--format=%s")).trim().split("\n");
}

describe("the merge queue", () => {
  it("merges three tasks of one wave in task order onto the session's branch, fast-forward after a rebase, with autopilot's commits", async () => {
    await mkdir(path.join(repo.dir, ".harness/sessions", SLUG), { recursive: true });
    const base = await head();
    const tws = [];
    for (const n of ["1", "2", "3"]) tws.push(await openTaskWorktree(repo.dir, SLUG, n, 1, base));
    expect(tws.map((t) => t.branch)).toEqual([
      `autopilot-task/${SLUG}/1`,
      `autopilot-task/${SLUG}/2`,
      `autopilot-task/${SLUG}/3`,
    ]);
    // Each worktree starts at the base and sees the session's folder.
    for (const t of tws) expect((await git(path.join(repo.dir, t.path), "rev-parse", "HEAD")).trim()).toBe(base);
    expect(existsSync(path.join(repo.dir, tws[0].path, ".harness/sessions", SLUG))).toBe(true);
    // The worktrees never show up in the project's status.
    expect((await git(repo.dir, "status", "--porcelain")).trim()).toBe("");

    for (const t of tws) await work(t, { [`src/e${t.task}.ts`]: `export const e${t.task} = ${t.task};\n` });
    // Finished in the order 3, 1, 2; merged in task order 1, 2, 3.
    for (const t of [tws[2], tws[0], tws[1]]) {
      const c = await commitTaskWork(repo.dir, SLUG, t, `Task ${t.task}: endpoint ${t.task}`, `task-${t.task}-1`);
      expect(c.committed).toBe(true);
    }
    for (const t of tws)
      expect(await checkTask(repo.dir, t, { files: [`src/e${t.task}.ts`], owns: [] })).toEqual({
        ok: true,
        changed: [`src/e${t.task}.ts`],
      });
    const first = await mergeTask(repo.dir, tws[0]);
    expect(first).toMatchObject({ kind: "merged", already: false });
    expect(await head()).toBe((await git(repo.dir, "rev-parse", tws[0].branch)).trim()); // a fast-forward
    for (const t of tws.slice(1))
      expect(await mergeTask(repo.dir, t)).toMatchObject({ kind: "merged", already: false });
    expect(await subjects()).toEqual([
      "Task 3: endpoint 3",
      "Task 2: endpoint 2",
      "Task 1: endpoint 1",
      "initial commit",
    ]);
    // No merge commit: a straight line of the tasks' own commits.
    expect((await git(repo.dir, "rev-list", "--merges", "HEAD")).trim()).toBe("");
    // Merging again (a resume after a crash) changes nothing.
    const now = await head();
    expect(await mergeTask(repo.dir, tws[1])).toEqual({ kind: "merged", sha: now, already: true });
    // Merged work may go: the worktrees and branches are removed.
    for (const t of tws) expect(await removeTaskWorktree(repo.dir, t)).toBe(true);
    expect(existsSync(path.join(repo.dir, tws[0].path))).toBe(false);
    expect((await git(repo.dir, "branch", "--list", "autopilot-task/*")).trim()).toBe("");
  });

  it("a two-task conflict: the second task alone goes back and, re-run on the merged result, merges; the first stays merged", async () => {
    const base = await head();
    const [a, b] = [
      await openTaskWorktree(repo.dir, SLUG, "1", 1, base),
      await openTaskWorktree(repo.dir, SLUG, "2", 1, base),
    ];
    await work(a, { "src/shared.ts": "export const a = 2;\n" });
    await work(b, { "src/shared.ts": "export const a = 3;\n" });
    await commitTaskWork(repo.dir, SLUG, a, "Task 1", "task-1-1");
    await commitTaskWork(repo.dir, SLUG, b, "Task 2", "task-2-1");
    expect(await mergeTask(repo.dir, a)).toMatchObject({ kind: "merged" });
    const merged = await head();
    const conflict = await mergeTask(repo.dir, b);
    expect(conflict).toEqual({ kind: "conflict", files: ["src/shared.ts"] });
    // Nothing moved: the session's branch holds task 1; task 2's worktree and branch keep its work.
    expect(await head()).toBe(merged);
    expect(await readFile(path.join(repo.dir, "src/shared.ts"), "utf8")).toBe("export const a = 2;\n");
    expect(await readFile(path.join(repo.dir, b.path, "src/shared.ts"), "utf8")).toBe("export const a = 3;\n");
    expect((await git(path.join(repo.dir, b.path), "status", "--porcelain")).trim()).toBe("");
    // Unmerged work is never removed.
    expect(await removeTaskWorktree(repo.dir, b)).toBe(false);
    expect(existsSync(path.join(repo.dir, b.path))).toBe(true);

    // The retry: a new worktree from the merged result; the executor does the task again there.
    const retry = await openTaskWorktree(repo.dir, SLUG, "2", 2, merged);
    expect(retry.branch).toBe(`autopilot-task/${SLUG}/2-r2`);
    expect(await readFile(path.join(repo.dir, retry.path, "src/shared.ts"), "utf8")).toBe("export const a = 2;\n");
    await work(retry, { "src/shared.ts": "export const a = 2 + 3;\n" });
    await commitTaskWork(repo.dir, SLUG, retry, "Task 2", "task-2-2");
    expect(await mergeTask(repo.dir, retry)).toMatchObject({ kind: "merged", already: false });
    expect(await readFile(path.join(repo.dir, "src/shared.ts"), "utf8")).toBe("export const a = 2 + 3;\n");
    expect(await subjects()).toEqual(["Task 2", "Task 1", "initial commit"]);
    // The first attempt's branch is the user's to discard (it was never merged).
    expect(await removeTaskWorktree(repo.dir, b, { discard: true })).toBe(true);
  });

  it("stops a task that wrote outside its Files and Owns, and names the files", async () => {
    const base = await head();
    const t = await openTaskWorktree(repo.dir, SLUG, "1", 1, base);
    await work(t, { "src/api/users.ts": "x\n", "src/api/deep/x.ts": "y\n", "README.md": "# changed\n" });
    await commitTaskWork(repo.dir, SLUG, t, "Task 1", "task-1-1");
    expect(await checkTask(repo.dir, t, { files: ["src/api/users.ts"], owns: ["src/api/**"] })).toEqual({
      ok: false,
      why: "outside",
      changed: ["README.md", "src/api/deep/x.ts", "src/api/users.ts"],
      outside: ["README.md"],
    });
  });

  it("finds a worktree made before a crash again, keeping its work, and finishes a rebase a crash interrupted", async () => {
    const base = await head();
    const t = await openTaskWorktree(repo.dir, SLUG, "1", 1, base);
    await work(t, { "src/e1.ts": "1\n" });
    // A second open (the resumed engine) neither resets nor removes what is there.
    const again = await openTaskWorktree(repo.dir, SLUG, "1", 1, base);
    expect(again).toEqual(t);
    expect(await readFile(path.join(repo.dir, t.path, "src/e1.ts"), "utf8")).toBe("1\n");
    // A worktree folder removed by hand comes back from its branch, with the committed work.
    await commitTaskWork(repo.dir, SLUG, t, "Task 1", "task-1-1");
    await git(repo.dir, "worktree", "remove", "--force", t.path);
    await openTaskWorktree(repo.dir, SLUG, "1", 1, base);
    expect(await readFile(path.join(repo.dir, t.path, "src/e1.ts"), "utf8")).toBe("1\n");
    // The session moved on (another task merged) and a rebase of task 1 was cut short.
    await writeFile(path.join(repo.dir, "src/other.ts"), "o\n");
    await git(repo.dir, "add", "src/other.ts");
    await git(repo.dir, "commit", "-qm", "other task");
    const wt = path.join(repo.dir, t.path);
    await git(wt, "-c", "sequence.editor=true", "rebase", "-i", "-q", "--exec", "exit 1", await head()).catch(() => "");
    expect(existsSync(path.join(repo.dir, ".git/worktrees", path.basename(t.path), "rebase-merge"))).toBe(true);
    expect(await mergeTask(repo.dir, t)).toMatchObject({ kind: "merged", already: false });
    expect(await subjects()).toEqual(["Task 1", "other task", "initial commit"]);
  });

  it("reads Files and Owns as paths, folders and globs", () => {
    const scope = { files: ["src/a.ts", "./docs/"], owns: ["src/api/**", "test/*.test.ts"] };
    expect(["src/a.ts", "docs/x.md", "src/api/v1/u.ts", "test/a.test.ts"].every((f) => inScope(f, scope))).toBe(true);
    expect(["src/b.ts", "test/deep/a.test.ts", "src/apis/x.ts"].some((f) => inScope(f, scope))).toBe(false);
  });
});
