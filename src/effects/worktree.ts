// A workspace per session: `--worktree` (or `"worktree": true` in .harness/config.json) runs a
// session in its own git worktree, `.harness/worktrees/<slug>`, on the branch `autopilot/<slug>`
// made from the starting commit. Sessions then run side by side without touching each other's
// files or commits. The session's files stay in the project's `.harness/sessions/<slug>/` (with
// `worktree.json`, which says where the worktree is); the worktree's `.harness/sessions/<slug>` is a
// link to that folder, so a removed worktree never takes the session's record with it.
//
// Never forces, never rewrites history: creation is `git worktree add -b`, the merge back is a
// plain `git merge` that stops (and aborts cleanly) at a conflict.
import { existsSync } from "node:fs";
import { lstat, mkdir, readFile, stat, symlink } from "node:fs/promises";
import path from "node:path";
import { AutopilotError } from "../protocol/errors.js";
import { shellWord } from "../protocol/words.js";
import {
  projectPaths,
  sessionDirRel,
  sessionPaths,
  WORKTREE_POINTER_FILE,
  WORKTREES_DIR_REL,
  type SessionPaths,
} from "../session/paths.js";
import { readTextOrNull, writeTextAtomic } from "./fsutil.js";
import { assertGitReady, gitRunner } from "./git.js";
import { withRepoLock } from "./repo-lock.js";

export interface WorktreePointer {
  /** Project-relative, POSIX. */
  path: string;
  branch: string;
  /** The branch the session started from (where a merge goes back to). */
  baseBranch: string;
  startingCommit: string;
  createdAt: string;
}

/** The session's branch: `autopilot/<slug>`, with what git refuses in a branch name (spaces, `~^:?*[\`) as `-`. */
export function branchFor(slug: string): string {
  // eslint-disable-next-line no-control-regex
  return `autopilot/${slug.replace(/[\s~^:?*[\\\u0000-\u001f\u007f]+|@\{/g, "-")}`;
}

/** The session's worktree record (null: the session runs in the checkout). */
export async function readPointer(ws: SessionPaths): Promise<WorktreePointer | null> {
  const { projectRoot: root, slug } = ws;
  const file = ws.worktreePointer;
  const text = await readTextOrNull(file);
  if (text === null) return null;
  try {
    const p = JSON.parse(text) as WorktreePointer;
    if (typeof p?.path === "string" && typeof p.branch === "string") return p;
  } catch {
    // fall through
  }
  throw new AutopilotError(
    "corrupt_state",
    `${path.relative(root, file)} does not read as a worktree record. Fix or remove it (the session itself is in ${WORKTREES_DIR_REL}/${slug}).`,
  );
}

/**
 * Create the session's worktree from HEAD on `autopilot/<slug>`. Serialised through the
 * repository lock: parallel `git worktree add` calls fight over git's own locks and config.
 */
export async function createWorktree(root: string, slug: string, now: string): Promise<WorktreePointer> {
  const { branch: baseBranch } = await assertGitReady(root);
  const git = gitRunner(root);
  return withRepoLock(root, async () => {
    const existing = await readPointer(sessionPaths(root, slug));
    if (existing) return existing;
    const branch = branchFor(slug);
    const rel = `${WORKTREES_DIR_REL}/${slug}`;
    const abs = path.join(root, rel);
    const has = (await git(["rev-parse", "--verify", "-q", `refs/heads/${branch}`]).catch(() => "")).trim();
    if (has)
      throw new AutopilotError(
        "bad_input",
        `Branch ${branch} already exists (from an earlier session?), and autopilot never reuses or moves a branch it did not just make. Merge or delete it (\`git branch -d ${branch}\`), or start without --worktree.`,
      );
    if (existsSync(abs))
      throw new AutopilotError(
        "bad_input",
        `${rel} already exists and is not this session's worktree. Move it away (or \`git worktree remove ${rel}\`), then start again.`,
      );
    // The worktrees folder is autopilot's: ignored as a whole, so the project's `git status` and a
    // `git add -A` never pick up a session's checkout.
    const worktrees = projectPaths(root).worktreesDir;
    await mkdir(worktrees, { recursive: true });
    const ignore = path.join(worktrees, ".gitignore");
    if (!existsSync(ignore)) await writeTextAtomic(ignore, "# autopilot's session worktrees (see docs/cli.md)\n*\n");
    const startingCommit = (await git(["rev-parse", "HEAD"])).trim();
    await git(["worktree", "add", "-q", "-b", branch, abs, startingCommit]);
    const pointer: WorktreePointer = { path: rel, branch, baseBranch, startingCommit, createdAt: now };
    await writeTextAtomic(sessionPaths(root, slug).worktreePointer, JSON.stringify(pointer, null, 2) + "\n");
    await ensureSessionLink(root, slug, pointer);
    return pointer;
  });
}

/** The worktree's `.harness/sessions/<slug>` → the project's session folder (made again if missing). */
export async function ensureSessionLink(root: string, slug: string, pointer: WorktreePointer): Promise<void> {
  const link = sessionPaths(path.join(root, pointer.path), slug).sessionDir;
  const exists = await lstat(link).then(
    () => true,
    () => false,
  );
  if (exists) return;
  await mkdir(path.dirname(link), { recursive: true });
  await symlink(sessionPaths(root, slug).sessionDir, link, "dir");
}

/**
 * The worktree is still there, on its branch, and the branch still holds the session's last
 * commit. Otherwise an error that says what happened and what to do: never a silent "complete".
 */
export async function checkWorktree(
  root: string,
  slug: string,
  pointer: WorktreePointer,
  lastCommit: string | null,
): Promise<string> {
  const abs = path.join(root, pointer.path);
  const git = gitRunner(root);
  const branchTip = (await git(["rev-parse", "--verify", "-q", `refs/heads/${pointer.branch}`]).catch(() => "")).trim();
  const isDir = await stat(abs).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir || !existsSync(path.join(abs, ".git"))) {
    const fix = branchTip
      ? `Its branch ${pointer.branch} is still there (at ${branchTip.slice(0, 7)}) and the session's record is kept in ${sessionDirRel(slug)}/: recreate the worktree with \`git worktree prune && git worktree add ${shellWord(pointer.path)} ${shellWord(pointer.branch)}\`, then call again to continue where it stopped.`
      : `Its branch ${pointer.branch} is gone too, so the session's commits are lost to it. To start over, run \`git worktree prune\` and move ${sessionDirRel(slug)}/ away, then start the spec again.`;
    throw new AutopilotError(
      "worktree_missing",
      `The worktree of session "${slug}" (${pointer.path}) was removed. ${fix}`,
      {
        worktree: pointer.path,
        branch: pointer.branch,
      },
    );
  }
  const wt = gitRunner(abs);
  const on = (await wt(["symbolic-ref", "-q", "--short", "HEAD"]).catch(() => "")).trim();
  if (on !== pointer.branch)
    throw new AutopilotError(
      "worktree_diverged",
      `The worktree ${pointer.path} is on ${on ? `branch ${on}` : "a detached HEAD"}, not on the session's branch ${pointer.branch}. Switch it back (\`git -C ${pointer.path} switch ${pointer.branch}\`), then call again.`,
      { worktree: pointer.path, branch: pointer.branch },
    );
  const want = lastCommit ?? pointer.startingCommit;
  const contained = await isAncestor(wt, want, "HEAD");
  if (!contained)
    throw new AutopilotError(
      "worktree_diverged",
      `Branch ${pointer.branch} no longer contains the session's last commit ${want.slice(0, 7)} (it was reset or rewritten), so autopilot will not continue on it. If that was a mistake, bring the commit back (\`git -C ${pointer.path} reflog\` shows it; \`git -C ${pointer.path} merge ${want.slice(0, 12)}\`), then call again. To start over instead, move ${sessionDirRel(slug)}/ away.`,
      { worktree: pointer.path, branch: pointer.branch, commit: want },
    );
  return abs;
}

/**
 * `a` is on `b`'s history. By output, not exit status: `raw` resolves on a non-zero exit that
 * printed nothing, which is exactly what `merge-base --is-ancestor` does.
 */
async function isAncestor(git: (args: string[]) => Promise<string>, a: string, b: string): Promise<boolean> {
  const full = (await git(["rev-parse", "--verify", "-q", `${a}^{commit}`]).catch(() => "")).trim();
  if (!full) return false;
  const base = (await git(["merge-base", full, b]).catch(() => "")).trim();
  return base === full;
}

/** Copy the spec into a new worktree when HEAD does not hold it as the user has it (uncommitted). */
export async function bringSpec(root: string, worktree: string, specRel: string): Promise<boolean> {
  const mine = await readFile(path.join(root, specRel));
  const theirs = await readFile(path.join(worktree, specRel)).catch(() => null);
  if (theirs && theirs.equals(mine)) return false;
  await mkdir(path.dirname(path.join(worktree, specRel)), { recursive: true });
  await writeTextAtomic(path.join(worktree, specRel), mine.toString("utf8"));
  return true;
}

export interface MergeResult {
  merged: boolean;
  sha?: string;
  conflicts?: string[];
  message: string;
}

/**
 * Merge `autopilot/<slug>` into the branch the session started from, in the project's checkout.
 * A fast-forward or a merge commit; never a force, a rebase or a reset. A conflict is aborted
 * (the checkout is left as it was) and reported with its files.
 */
export async function mergeBack(root: string, slug: string): Promise<MergeResult> {
  const pointer = await readPointer(sessionPaths(root, slug));
  if (!pointer)
    throw new AutopilotError(
      "unknown_session",
      `Session "${slug}" does not run in a worktree (no ${sessionDirRel(slug)}/${WORKTREE_POINTER_FILE}); its commits are already on your branch.`,
    );
  const { branch } = await assertGitReady(root);
  if (branch !== pointer.baseBranch)
    throw new AutopilotError(
      "bad_input",
      `The project is on branch ${branch}, but session "${slug}" started from ${pointer.baseBranch}. autopilot does not switch branches for you: \`git switch ${pointer.baseBranch}\`, then merge again.`,
    );
  const git = gitRunner(root);
  return withRepoLock(root, async () => {
    const before = (await git(["rev-parse", "HEAD"])).trim();
    let failure: unknown = null;
    try {
      await git(["merge", "--no-edit", "-m", `Merge ${pointer.branch} (autopilot session ${slug})`, pointer.branch]);
    } catch (e) {
      failure = e;
    }
    // Decide on what git left behind, not on how the call ended.
    const conflicts = (await git(["diff", "--name-only", "--diff-filter=U"]).catch(() => ""))
      .split("\n")
      .map((s) => s.trim())
      .filter(Boolean);
    if (failure || conflicts.length || !(await isAncestor(git, pointer.branch, "HEAD"))) {
      const e = failure ?? new Error("the branch is not on HEAD's history after the merge");
      if (conflicts.length) {
        await git(["merge", "--abort"]).catch(() => "");
        throw new AutopilotError(
          "merge_conflict",
          `Merging ${pointer.branch} into ${branch} conflicts in ${conflicts.join(", ")}. Nothing was changed (the merge was aborted). Merge by hand (\`git merge ${pointer.branch}\`, resolve, commit), or open a pull request from ${pointer.branch}.`,
          { conflicts, branch: pointer.branch },
        );
      }
      throw new AutopilotError(
        "bad_input",
        `git could not merge ${pointer.branch} into ${branch}: ${
          String((e as Error).message)
            .trim()
            .split("\n")[0]
        }. Nothing was forced; fix that (e.g. commit or stash your own changes), then merge again.`,
      );
    }
    const after = (await git(["rev-parse", "HEAD"])).trim();
    if (after === before)
      return { merged: false, sha: after, message: `${branch} already contains ${pointer.branch}; nothing to merge.` };
    return {
      merged: true,
      sha: after,
      message: `Merged ${pointer.branch} into ${branch} (${after.slice(0, 7)}). The worktree stays at ${pointer.path}: \`git worktree remove ${pointer.path}\` when you are done with it.`,
    };
  });
}
