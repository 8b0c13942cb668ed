// The repository's commit lock: one autopilot process at a time adds and commits in a repository
// (or in one linked worktree of it), and a git the user runs that holds the index is said with a code.
import path from "node:path";
import { existsSync } from "node:fs";
import { acquireLock, LockBusyError, type HeldLock } from "../session/lock.js";
import { AutopilotError } from "../protocol/errors.js";
import { gitDirs } from "./git-dir.js";
import { plainGit, raw } from "./git-kit.js";

const REPO_LOCK_WAIT_MS = 30_000;

/** The repository's shared .git folder (the main one for a linked worktree); a root keeps its own. */
const commonDirs = new Map<string, string>();
async function commonDir(root: string, own = false): Promise<string> {
  const key = `${own ? "own" : "common"}\0${root}`;
  const known = commonDirs.get(key);
  if (known && existsSync(known)) return known;
  const common =
    gitDirs(root)?.[own ? "gitDir" : "commonDir"] ??
    path.resolve(root, (await raw(plainGit(root), ["rev-parse", own ? "--git-dir" : "--git-common-dir"])).trim());
  commonDirs.set(key, common);
  return common;
}

/**
 * Sessions lock themselves, not the repository: two sessions of one repository (two processes)
 * share one git index, and without this their add+commit raced on .git/index.lock and one failed
 * with an uncoded git error (found by tests/reliability/concurrency.test.ts). The engine also holds
 * it around read-modify-write of files every session shares (failures.md, learnings.md, the
 * roadmap). Not re-entrant.
 *
 * `worktree`: the lock of this linked worktree alone (its own git folder), for what touches only
 * its index and its own branch (a wave task's commit, src/effects/merge-queue.ts), so the tasks of
 * a wave commit at once. Everything that touches the session's branch takes the repository's lock.
 */
export async function withRepoLock<T>(
  root: string,
  fn: () => Promise<T>,
  opts: { worktree?: boolean } = {},
): Promise<T> {
  const common = await commonDir(root, opts.worktree === true);
  const lockPath = path.join(common, "autopilot-commit.lock");
  let held: HeldLock;
  try {
    held = await acquireLock(
      { target: common, dir: lockPath },
      { staleMs: 10_000, waitMs: REPO_LOCK_WAIT_MS, pollMs: 25 },
    );
  } catch (e) {
    if (!(e instanceof LockBusyError)) throw e;
    throw new AutopilotError(
      "busy",
      `Another autopilot process has been committing in this repository for ${REPO_LOCK_WAIT_MS / 1000} s (lock ${lockPath}). Call autopilot_next to retry the commit; it is made once.`,
    );
  }
  try {
    return await fn();
  } catch (e) {
    // A git the user runs (an editor, a hook, another tool) holds the index: say so with a code.
    if (!(e instanceof AutopilotError) && /index\.lock/.test(String((e as Error)?.message)))
      throw new AutopilotError(
        "busy",
        `Another git process is using this repository (.git/index.lock exists). Wait for it to finish (or remove the file if no git is running), then call autopilot_next: the commit is retried, and made once.`,
      );
    throw e;
  } finally {
    await held.release();
  }
}
