// A throwaway git repository for tests that need real commits. Uses the git binary directly
// (execFile, no shell) so the helper does not depend on the code under test.
import { execFile } from "node:child_process";
import { appendFile, mkdtemp, realpath, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const execFileP = promisify(execFile);

export interface MakeRepoOptions {
  /** Files to write before the initial commit, path → content. Default: a README.md. */
  files?: Record<string, string>;
  /** false: leave the repository without any commit. Default true. */
  initialCommit?: boolean;
  /** false: leave user.name/user.email unset in the repository config. Default true. */
  identity?: boolean;
  /** Branch name of the initial branch. Default "main". */
  branch?: string;
}

export interface TempRepo {
  dir: string;
  cleanup(): Promise<void>;
}

/** Run git in `dir` and return stdout; throws with stderr on failure. */
export async function git(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileP("git", args, { cwd: dir, env: gitEnv(), maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

// A developer's global config (hooks path, signing, templates) must not leak into tests.
function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
}

export async function makeRepo(opts: MakeRepoOptions = {}): Promise<TempRepo> {
  // realpath: on macOS /tmp is a symlink and git reports the resolved path.
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), "autopilot-repo-")));
  const branch = opts.branch ?? "main";
  await git(dir, "init", "-q", "-b", branch);
  // The settings `git config` would add, written straight into the new repository's config: three
  // git processes fewer per repository (the suite makes a few hundred).
  await appendFile(
    path.join(dir, ".git", "config"),
    (opts.identity !== false ? "[user]\n\tname = Test User\n\temail = test@example.invalid\n" : "") +
      "[commit]\n\tgpgsign = false\n",
  );
  const files = opts.files ?? { "README.md": "# test project\n" };
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
  if (opts.initialCommit !== false) {
    await git(dir, "add", "-A");
    const idArgs =
      opts.identity === false ? ["-c", "user.name=Test User", "-c", "user.email=test@example.invalid"] : [];
    await git(dir, ...idArgs, "commit", "-q", "-m", "initial commit");
  }
  return {
    dir,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * The commits autopilot signed on HEAD's history (newest first): each with its subject and the step
 * its `Autopilot:` trailer names ("Phase 1: Core — recovery at task 4").
 */
export async function autopilotCommits(dir: string): Promise<Array<{ sha: string; subject: string; step: string }>> {
  const out = await git(dir, "log", "--format=%H%x1f%s%x1f%(trailers:key=Autopilot,valueonly,separator=%x2c)%x1e");
  return out
    .split("\x1e")
    .map((r) => r.trim().split("\x1f"))
    .filter((r) => r.length === 3 && r[2].trim())
    .map(([sha, subject, step]) => ({ sha: sha, subject: subject, step: step.trim() }));
}
