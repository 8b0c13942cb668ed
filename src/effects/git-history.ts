// What the history and the tree say, read only: the final review's diff scope and stat, the
// commits a session made (the pull request's list), and what a finished session leaves under .harness/.
import { AutopilotError } from "../protocol/errors.js";
import { HARNESS_SHARED_FILES_REL } from "../session/paths.js";
import { assertRev, plainGit, raw, type Git } from "./git-kit.js";
import { assertGitReady } from "./git.js";

export interface DiffScope {
  range: string;
  files: string[];
  stat: string;
}

/** What FINAL_REVIEW reviews: `startingCommit..HEAD`, its changed files and `--stat`. */
export async function diffScope(root: string, startingCommit: string): Promise<DiffScope> {
  await assertGitReady(root);
  const g = plainGit(root);
  // A full commit id needs no lookup first: the diffs fail on one that is not there, and then it is checked.
  const given = assertRev(startingCommit, "startingCommit");
  const diffs = (range: string) =>
    Promise.all([raw(g, ["diff", "--name-only", range]), raw(g, ["diff", "--stat", range])]);
  let range = `${given}..HEAD`;
  const out = /^[0-9a-f]{40}$/.test(given) ? await diffs(range).catch(() => null) : null;
  const [names, stat] = out ?? (await diffs((range = `${await resolveCommit(g, startingCommit)}..HEAD`)));
  return {
    range,
    files: names
      .trim()
      .split(/\s*\n\s*/)
      .filter(Boolean),
    stat: stat.trimEnd(),
  };
}

/** `git diff --stat` of `startingCommit..HEAD` alone (a reviewer's brief): one git. */
export async function diffStat(root: string, startingCommit: string): Promise<string> {
  return (
    await raw(plainGit(root), ["diff", "--stat", `${assertRev(startingCommit, "startingCommit")}..HEAD`])
  ).trimEnd();
}

async function resolveCommit(g: Git, rev: string): Promise<string> {
  const r = assertRev(rev, "startingCommit");
  const full = (await raw(g, ["rev-parse", "--verify", "-q", `${r}^{commit}`]).catch(() => "")).trim();
  if (!full) {
    throw new AutopilotError(
      "bad_input",
      `startingCommit ${r} is not a commit in this repository. Check the session's startingCommit.`,
    );
  }
  return full;
}

export interface CommitSummary {
  sha: string;
  subject: string;
  /** The message after the subject, trailers included. */
  body: string;
}

/** Commits after `startingCommit` up to HEAD, oldest first (the order a PR body reads). */
export async function commitsSince(root: string, startingCommit: string): Promise<CommitSummary[]> {
  await assertGitReady(root);
  const g = plainGit(root);
  const log = (from: string) => raw(g, ["log", "--reverse", "--format=%H%x1f%s%x1f%b%x1e", `${from}..HEAD`]);
  // A full commit id needs no lookup first: the log fails on one that is not there, and then it is checked.
  const given = assertRev(startingCommit, "startingCommit");
  const out =
    (/^[0-9a-f]{40}$/.test(given) ? await log(given).catch(() => null) : null) ??
    (await log(await resolveCommit(g, startingCommit)));
  return out
    .split("\x1e")
    .filter((rec) => rec.trim())
    .map((rec) => rec.trim().split("\x1f"))
    .map(([sha, subject = "", body = ""]) => ({ sha: sha.trim(), subject, body: body.trim() }));
}

/**
 * What a DONE session leaves under .harness/ for the user to decide on: the shared files git shows
 * as new or changed that are worth committing (learnings, failures), and whether git already
 * ignores the session folders. Reads only.
 */
export async function harnessFilesStatus(
  root: string,
  slug: string,
  /** The session folder's check-ignore, when the caller has asked already. */
  ignoredAlready?: Promise<boolean>,
): Promise<{ commit: string[]; sessionsIgnored: boolean }> {
  const g = plainGit(root);
  const [status, ignored] = await Promise.all([
    raw(g, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ...HARNESS_SHARED_FILES_REL]).catch(
      () => "",
    ),
    ignoredAlready ?? sessionsIgnored(root, slug),
  ]);
  // Records name the files from the repository's top: the project may be a folder inside it.
  const changed = status.split("\0").filter((r) => r.length > 3);
  const commit = HARNESS_SHARED_FILES_REL.filter((rel) => changed.some((r) => r.slice(3).endsWith(rel)));
  return { commit, sessionsIgnored: ignored };
}

/** Whether git ignores the session's folder (one `check-ignore`). Reads only. */
export async function sessionsIgnored(root: string, slug: string): Promise<boolean> {
  const probe = `.harness/sessions/${slug}/autopilot-state.json`;
  return (await raw(plainGit(root), ["check-ignore", "--", probe]).catch(() => "")).trim() !== "";
}
