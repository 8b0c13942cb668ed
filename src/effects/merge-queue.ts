// The merge queue of a parallel session (`--parallel`): each task of a wave works in its own git
// worktree, made by autopilot from the recorded base commit on its own branch; when the task is
// done its work is committed there (autopilot's checkpoint commit: hooks, identity and ownership as
// everywhere), checked (the branch grew from the recorded base; its diff stays inside the task's
// `Files`/`Owns`), and brought onto the session's branch without force: a fast-forward, after
// rebasing the task's own commits onto the session's head when other tasks merged first. A conflict
// aborts the rebase and leaves everything as it was. A task's worktree and branch are removed only
// once its work is on the session's branch, or when the user discards it; nothing here removes
// unmerged work. Every step finds its own earlier result (a crash between any two is resumed by
// running the same step again): the state is git's, read back each time.
import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, readFile, unlink } from "node:fs/promises";
import path from "node:path";
import { minimatch } from "minimatch";
import { projectPaths, WORKTREES_DIR_REL } from "../session/paths.js";
import { writeTextAtomic } from "./fsutil.js";
import { commitCheckpoint, committingRunner, gitExitCode, gitRunner, type CommitCheckpointResult } from "./git.js";
import { withRepoLock } from "./repo-lock.js";
import { ensureSessionLink } from "./worktree.js";

export interface TaskWorktree {
  task: string;
  /** 1 for the first run of the task; a task sent back runs again as attempt 2, 3, ... */
  attempt: number;
  /** Relative to the session's checkout, POSIX. */
  path: string;
  branch: string;
  /** The commit the worktree was made from (the session's head when the task was dispatched). */
  base: string;
}

/** What a task may change: its `Files` and `Owns` (paths, folders or minimatch globs). */
export interface TaskScope {
  files: readonly string[];
  owns: readonly string[];
}

const SAFE = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, "-");

/** `autopilot-task/<slug>/<task>` (`-r<attempt>` from the second attempt): never the session's own branch. */
function taskBranch(slug: string, task: string, attempt: number): string {
  return `autopilot-task/${SAFE(slug)}/${SAFE(task)}${attempt > 1 ? `-r${attempt}` : ""}`;
}

function taskWorktreePath(slug: string, task: string, attempt: number): string {
  return `${WORKTREES_DIR_REL}/${SAFE(slug)}--task-${SAFE(task)}${attempt > 1 ? `-r${attempt}` : ""}`;
}

/**
 * The task's worktree: made from `base` on its own branch, or found again when a crash came after
 * it was made (an existing branch is never moved or reset: its work is kept). The session's folder
 * is linked into it, so the executor's brief and execution state are where it looks.
 */
export async function openTaskWorktree(
  root: string,
  slug: string,
  task: string,
  attempt: number,
  base: string,
): Promise<TaskWorktree> {
  const tw: TaskWorktree = {
    task,
    attempt,
    path: taskWorktreePath(slug, task, attempt),
    branch: taskBranch(slug, task, attempt),
    base,
  };
  const abs = path.join(root, tw.path);
  const git = gitRunner(root);
  await withRepoLock(root, async () => {
    const worktrees = projectPaths(root).worktreesDir;
    await mkdir(worktrees, { recursive: true });
    const ignore = path.join(worktrees, ".gitignore");
    if (!existsSync(ignore)) await writeTextAtomic(ignore, "# autopilot's worktrees (see docs/cli.md)\n*\n");
    if (existsSync(path.join(abs, ".git"))) return;
    // The usual case in one git process: a new branch from the base in a new worktree. When git
    // refuses (the branch is there from before a crash, or a folder removed by hand is still
    // registered), find out which and do what that case needs; an existing branch is never moved.
    if (
      await git(["worktree", "add", "-q", "-b", tw.branch, abs, base]).then(
        () => existsSync(path.join(abs, ".git")),
        () => false,
      )
    )
      return;
    const has = (await git(["rev-parse", "--verify", "-q", `refs/heads/${tw.branch}`]).catch(() => "")).trim();
    await git(["worktree", "prune"]);
    if (has) await git(["worktree", "add", "-q", abs, tw.branch]);
    else await git(["worktree", "add", "-q", "-b", tw.branch, abs, base]);
  });
  await ensureSessionLink(root, slug, {
    path: tw.path,
    branch: tw.branch,
    baseBranch: "",
    startingCommit: base,
    createdAt: "",
  });
  return tw;
}

/** A task commit's message as src/effects/commit-message.ts words it. */
export type TaskCommitMessage = { subject: string; body: string[]; trailers: string[] };

/**
 * Commit what the executor left in the task's worktree (once per effect id, like every checkpoint).
 * Only that worktree's index and branch change, so it takes that worktree's lock alone: the tasks
 * of a wave commit at once.
 */
export async function commitTaskWork(
  root: string,
  slug: string,
  tw: TaskWorktree,
  label: string,
  effectId: string,
  message?: TaskCommitMessage,
): Promise<CommitCheckpointResult> {
  await undoInterruptedRebase(root, tw);
  return commitCheckpoint(path.join(root, tw.path), {
    label,
    ...message,
    effectId,
    since: tw.base,
    slug,
    baseline: null,
    ownIndex: true,
  });
}

/**
 * A rebase of the task's branch that a crash interrupted leaves its worktree on a detached HEAD
 * (mid-way between the session's head and the task's commits): abort it, so the worktree is back
 * on its branch, as it was before the merge began. The merge starts the rebase again.
 */
export async function undoInterruptedRebase(root: string, tw: TaskWorktree): Promise<void> {
  const wtAbs = path.join(root, tw.path);
  if (!existsSync(wtAbs) || !(await rebaseInProgress(wtAbs))) return;
  await withRepoLock(root, async () => {
    if (await rebaseInProgress(wtAbs)) await (await committingRunner(wtAbs))(["rebase", "--abort"]).catch(() => "");
  });
}

/** Whether a changed path is one the task may change. */
export function inScope(file: string, scope: TaskScope): boolean {
  const f = file.replace(/\\/g, "/");
  return [...scope.files, ...scope.owns].some((raw) => {
    const p = raw.replace(/\\/g, "/").replace(/^\.\//, "").replace(/\/+$/, "");
    return f === p || f.startsWith(`${p}/`) || minimatch(f, p, { dot: true });
  });
}

export type TaskCheck =
  | { ok: true; changed: string[] }
  | { ok: false; why: "base"; message: string }
  | { ok: false; why: "outside"; changed: string[]; outside: string[] };

/**
 * The task's branch grew from its recorded base, and its own commits (those not yet on the
 * session's branch checked out in `root`) change only what the task may change.
 */
export async function checkTask(root: string, tw: TaskWorktree, scope: TaskScope): Promise<TaskCheck> {
  const on = await worktreeBranch(root, tw);
  if (on !== tw.branch)
    return {
      ok: false,
      why: "base",
      message: `The worktree ${tw.path} is on ${on || "a detached HEAD"}, not on its branch ${tw.branch}.`,
    };
  const ref = `refs/heads/${tw.branch}`;
  if ((await gitExitCode(root, ["merge-base", "--is-ancestor", tw.base, ref])) !== 0)
    return {
      ok: false,
      why: "base",
      message: `Branch ${tw.branch} did not grow from the recorded base ${tw.base.slice(0, 7)}.`,
    };
  // `HEAD...branch`: from where the task's branch left the session's branch (its own commits only).
  const git = gitRunner(root);
  const diff = (range: string) => git(["diff", "--name-only", "--no-renames", range]);
  const changed = (await diff(`HEAD...${ref}`).catch(() => diff(`${tw.base}..${ref}`)))
    .split("\n")
    .map((s) => s.trim())
    .filter(Boolean);
  const outside = changed.filter((f) => !inScope(f, scope));
  return outside.length ? { ok: false, why: "outside", changed, outside } : { ok: true, changed };
}

export type MergeOutcome =
  | { kind: "merged"; sha: string; already: boolean }
  | { kind: "conflict"; files: string[] }
  | { kind: "refused"; message: string };

/**
 * Bring the task's commits onto the session's branch (checked out in `root`): nothing to do when
 * they are there already; a fast-forward when the session's head is still the task's base; else
 * the task's commits rebased onto the session's head in the task's worktree, then a fast-forward.
 * Never a force, a reset of the session's branch, or a merge commit. A conflict aborts the rebase.
 */
export async function mergeTask(root: string, tw: TaskWorktree): Promise<MergeOutcome> {
  const git = gitRunner(root);
  const wtAbs = path.join(root, tw.path);
  return withRepoLock(root, async () => {
    // A rebase a crash interrupted (when the caller did not undo it first): start it again.
    if (await rebaseInProgress(wtAbs)) await (await committingRunner(wtAbs))(["rebase", "--abort"]).catch(() => "");
    const [head, tip] = await headAndTip(root, tw);
    if (!tip)
      return { kind: "refused", message: `The task's branch ${tw.branch} is gone, so its work cannot be merged.` };
    // Where the two meet: the task's tip (merged already), the session's head (a fast-forward), or
    // an earlier commit (other tasks merged first: the task's own commits are rebased onto the head).
    const meet = (await git(["merge-base", head, tip]).catch(() => "")).trim();
    if (meet === tip) return { kind: "merged", sha: head, already: true };
    if (meet !== head) {
      const wt = await committingRunner(wtAbs);
      let failure: unknown = null;
      try {
        await wt(["rebase", "-q", head]);
      } catch (e) {
        failure = e;
      }
      if (failure || (await rebaseInProgress(wtAbs))) {
        const conflicts = (await wt(["diff", "--name-only", "--diff-filter=U"]).catch(() => ""))
          .split("\n")
          .map((s) => s.trim())
          .filter(Boolean);
        if (conflicts.length || (await rebaseInProgress(wtAbs))) {
          await wt(["rebase", "--abort"]).catch(() => "");
          return { kind: "conflict", files: conflicts };
        }
        return {
          kind: "refused",
          message: `git could not rebase ${tw.branch} onto ${head.slice(0, 7)}: ${firstLine(failure)}`,
        };
      }
    }
    // --ff-only refuses unless the session's head is on the task's (rebased) branch: never a force.
    try {
      await git(["merge", "-q", "--ff-only", tw.branch]);
    } catch (e) {
      return {
        kind: "refused",
        message: `git could not fast-forward to ${tw.branch}: ${firstLine(e)}. Nothing was forced.`,
      };
    }
    const [after, tipAfter] = await headAndTip(root, tw);
    if (!after || after !== tipAfter)
      return { kind: "refused", message: `${tw.branch} is not on the session's branch after the fast-forward.` };
    return { kind: "merged", sha: after, already: false };
  });
}

/** The session's head and the task branch's tip (empty when the branch is gone), in one git process. */
async function headAndTip(root: string, tw: TaskWorktree): Promise<[string, string]> {
  const git = gitRunner(root);
  const both = (await git(["rev-parse", "HEAD", `refs/heads/${tw.branch}`]).catch(() => ""))
    .split("\n")
    .map((s) => s.trim());
  if (both.length >= 2 && /^[0-9a-f]{40,64}$/.test(both[0]) && /^[0-9a-f]{40,64}$/.test(both[1]))
    return [both[0], both[1]];
  return [(await git(["rev-parse", "HEAD"])).trim(), ""];
}

/**
 * Remove the task's worktree and branch, only when its work is on the session's branch (or the
 * user discarded it: `discard`). Returns false, removing nothing, when the work is not merged, or
 * when git refuses (the worktree holds changes that were never committed).
 */
export async function removeTaskWorktree(
  root: string,
  tw: TaskWorktree,
  opts: { discard?: boolean } = {},
): Promise<boolean> {
  const git = gitRunner(root);
  return withRepoLock(root, async () => {
    const tip = (await git(["rev-parse", "--verify", "-q", `refs/heads/${tw.branch}`]).catch(() => "")).trim();
    const branchThere = tip !== "";
    const merged = branchThere && (await gitExitCode(root, ["merge-base", "--is-ancestor", tip, "HEAD"])) === 0;
    if (!merged && !opts.discard && branchThere) return false;
    const abs = path.join(root, tw.path);
    if (existsSync(abs)) {
      // The session's folder linked into it (openTaskWorktree) is autopilot's, not the task's work.
      await unlinkSessionLinks(abs);
      try {
        await git(["worktree", "remove", ...(opts.discard ? ["--force"] : []), abs]);
      } catch {
        return false;
      }
    }
    if (branchThere) await git(["branch", opts.discard ? "-D" : "-d", tw.branch]).catch(() => "");
    return true;
  });
}

async function unlinkSessionLinks(worktree: string): Promise<void> {
  const dir = path.join(worktree, ".harness", "sessions");
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const p = path.join(dir, name);
    if ((await lstat(p).catch(() => null))?.isSymbolicLink()) await unlink(p).catch(() => undefined);
  }
}

/** A linked worktree's own git folder, read from its `.git` file (null: not a linked worktree). */
async function worktreeGitDir(wtAbs: string): Promise<string | null> {
  const text = await readFile(path.join(wtAbs, ".git"), "utf8").catch(() => null);
  const m = text ? /^gitdir:\s*(.+?)\s*$/m.exec(text) : null;
  return m ? path.resolve(wtAbs, m[1]) : null;
}

/** The branch checked out in the task's worktree ("" when detached): its HEAD file, or git when that does not say. */
async function worktreeBranch(root: string, tw: TaskWorktree): Promise<string> {
  const abs = path.join(root, tw.path);
  const dir = await worktreeGitDir(abs);
  const head = dir ? await readFile(path.join(dir, "HEAD"), "utf8").catch(() => "") : "";
  // A files-backend HEAD names the branch; anything else (reftable, a detached HEAD) is asked of git.
  if (head.trim() === `ref: refs/heads/${tw.branch}`) return tw.branch;
  return (await gitRunner(abs)(["symbolic-ref", "-q", "--short", "HEAD"]).catch(() => "")).trim();
}

async function rebaseInProgress(wtAbs: string): Promise<boolean> {
  const dir = await worktreeGitDir(wtAbs);
  for (const d of ["rebase-merge", "rebase-apply"]) {
    const p = dir
      ? path.join(dir, d)
      : path.resolve(
          wtAbs,
          (await gitRunner(wtAbs)(["rev-parse", "--git-path", d]).catch(() => "")).trim() || ".git/none",
        );
    if (existsSync(p)) return true;
  }
  return false;
}

function firstLine(e: unknown): string {
  return (
    String((e as Error)?.message ?? e)
      .trim()
      .split("\n")[0] ?? ""
  );
}
