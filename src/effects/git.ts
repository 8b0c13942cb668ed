// Git effects: checkpoint and recovery commits and what a hook refused (how git runs: git-kit.ts;
// the repository's commit lock: repo-lock.ts; what the history says: git-history.ts). Never pushes, never rewrites history, never switches or touches another branch: every write
// here is one `git add` plus one `git commit` on the checked-out branch.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import { AutopilotError } from "../protocol/errors.js";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import {
  hashPath,
  leftOutNotice,
  listChanges,
  notSessionWork,
  selectOwnChanges,
  topPrefix,
  type Baseline,
  type GitRunner,
  type LeftOut,
} from "./ownership.js";
import { readHead } from "./git-dir.js";
import { assertRev, committingGit, plainGit, raw, type Git } from "./git-kit.js";
import { withRepoLock } from "./repo-lock.js";
import { noteOwnCommit } from "./recent-subjects.js";
import { hookRuns } from "./git-trace.js";

const EFFECT_TRAILER = "Autopilot-Effect";

/**
 * Throws AutopilotError `not_a_git_repo`, `no_commits` or `detached_head`, each with the command
 * that fixes it. Returns the current branch name.
 */
export async function assertGitReady(root: string): Promise<{ branch: string }> {
  const g = plainGit(root);
  const read = readHead(root);
  if (read) return { branch: read.branch };
  // The usual case in one git: inside a work tree, and HEAD names a branch with a commit.
  // Anything else (not a repository, no commit yet, detached) is told apart by the checks below.
  const quick = (await raw(g, ["rev-parse", "--is-inside-work-tree", "--symbolic-full-name", "HEAD"]).catch(() => ""))
    .trim()
    .split("\n");
  if (quick.length === 2 && quick[0] === "true" && quick[1].startsWith("refs/"))
    return { branch: quick[1].replace(/^refs\/heads\//, "") };
  let inside: string;
  try {
    inside = (await raw(g, ["rev-parse", "--is-inside-work-tree"])).trim();
  } catch {
    inside = "";
  }
  if (inside !== "true") {
    throw new AutopilotError(
      "not_a_git_repo",
      `${root} is not inside a git repository. Run \`git init\` and commit your work, then start autopilot again.`,
    );
  }
  // raw resolves (not rejects) on a non-zero exit with empty stderr, so decide on output.
  const head = (await raw(g, ["rev-parse", "--verify", "-q", "HEAD"]).catch(() => "")).trim();
  if (!head) {
    throw new AutopilotError(
      "no_commits",
      'The repository has no commits yet, so there is no starting commit to review against. Make an initial commit (`git add -A && git commit -m "initial commit"`), then start autopilot again.',
    );
  }
  const ref = (await raw(g, ["symbolic-ref", "-q", "HEAD"]).catch(() => "")).trim();
  if (!ref) {
    throw new AutopilotError(
      "detached_head",
      "HEAD is detached, so checkpoint commits would belong to no branch. Check out a branch (`git switch -c <name>`), then start autopilot again.",
    );
  }
  return { branch: ref.replace(/^refs\/heads\//, "") };
}

export async function headCommit(root: string): Promise<string> {
  const read = plainGit(root) && readHead(root);
  if (read) return read.sha;
  await assertGitReady(root);
  return (await raw(plainGit(root), ["rev-parse", "HEAD"])).trim();
}

/** One line, no control characters, bounded: the label is data, never syntax. */
export function sanitizeLabel(label: string): string {
  const flat = String(label ?? "")
    // eslint-disable-next-line no-control-regex -- control characters are what this strips
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const bounded = flat.length > 200 ? flat.slice(0, 199) + "…" : flat;
  return bounded || "checkpoint";
}

function sanitizeEffectId(effectId: string): string {
  const id = String(effectId ?? "")
    // eslint-disable-next-line no-control-regex -- control characters are what this strips
    .replace(/[\u0000-\u001f\u007f\s]+/g, "_")
    .trim();
  if (!id)
    throw new AutopilotError(
      "bad_input",
      "commitCheckpoint needs a non-empty effectId so a replay can find its commit.",
    );
  return id;
}

/**
 * The trailer line's value for an effect id. commitlint's conventional config refuses footer lines
 * over 100 characters, and a session's id carries its slug: an id that would make the line longer
 * is shortened to its start and a hash of the whole (deterministic, so a replay finds it again).
 */
export function effectTrailerValue(effectId: string): string {
  const id = sanitizeEffectId(effectId);
  if (`${EFFECT_TRAILER}: ${id}`.length <= TRAILER_LINE_MAX) return id;
  const hash = createHash("sha256").update(id).digest("hex").slice(0, 16);
  return `${id.slice(0, TRAILER_LINE_MAX - EFFECT_TRAILER.length - 2 - hash.length - 1)}~${hash}`;
}
const TRAILER_LINE_MAX = 100;

/**
 * The commit on HEAD's history (after `since`, when given) whose message carries the trailer
 * `Autopilot-Effect: <effectId>` as a whole line; null if none.
 */
export async function findEffectCommit(root: string, effectId: string, since?: string | null): Promise<string | null> {
  const id = sanitizeEffectId(effectId);
  // The trailer as written now, and the whole id as commits made before ids were shortened carry it.
  const wants = [...new Set([`${EFFECT_TRAILER}: ${effectTrailerValue(id)}`, `${EFFECT_TRAILER}: ${id}`])];
  const args = ["log", "--format=%H%x1f%B%x1e", "--fixed-strings", ...wants.map((w) => `--grep=${w}`)];
  args.push(since ? `${assertRev(since, "since")}..HEAD` : "HEAD");
  const out = await raw(plainGit(root), args);
  for (const rec of out.split("\x1e")) {
    const [sha, body] = rec.split("\x1f");
    if (!sha?.trim() || body === undefined) continue;
    // --grep is a substring match ("e-1" would match "e-10"), so confirm the exact line.
    if (body.split(/\r?\n/).some((l) => wants.includes(l.trim()))) return sha.trim();
  }
  return null;
}

export interface CommitCheckpointArgs {
  label: string;
  /** Unique per effect; written as the `Autopilot-Effect:` trailer so a replay finds the commit. */
  effectId: string;
  phase?: number | null;
  /** The session's startingCommit: limits the replay search to this session's commits. */
  since?: string | null;
  /**
   * What was already changed when the session started (docs/state-file.md, "What autopilot
   * commits"). Absent: every change in the project is the caller's own (tests, tools).
   */
  baseline?: Baseline | null;
  /** The session's slug: the specs and plans of the project's other sessions are left out. */
  slug?: string;
  /**
   * Commit exactly these project-relative paths (the user's pre-session changes, at their
   * request), instead of selecting autopilot's own.
   */
  paths?: string[];
  /** The subject (src/effects/commit-message.ts words it in the repository's convention); else the label. */
  subject?: string;
  /** Owed by the transition of this very call: no earlier attempt to look for in the history. */
  fresh?: boolean;
  /** Paragraphs after the subject, and trailer lines before the effect's own (the message's `body`, `trailers`). */
  body?: string[];
  trailers?: string[];
  /** `--no-verify`: the user chose, this once, to commit without the repository's hooks. */
  noVerify?: boolean;
  /** Runs over the commit's paths before it is attempted (the repository's read-only checks); throws CommitRejected to refuse it. */
  precheck?: (paths: string[]) => Promise<void>;
  /**
   * A linked worktree with an index of its own (a wave task's): locked alone (withRepoLock's
   * `worktree`), so the commits of a wave's tasks run at once.
   */
  ownIndex?: boolean;
}

export interface CommitCheckpointResult {
  committed: boolean;
  sha?: string;
  message?: string;
  /** True when the commit already existed (the effect ran before a crash). */
  replayed?: boolean;
  /** Changes that are not autopilot's and stayed out of the commit, with why. */
  leftOut?: LeftOut[];
}

export { leftOutNotice };

/** A git runner with an identity for commits git makes itself (a rebase), in `root`. */
export async function committingRunner(root: string): Promise<GitRunner> {
  const g = await committingGit(root);
  return (args) => raw(g, args);
}

/**
 * The exit code of a read-only git command in `root`, for the questions git answers by its exit
 * status alone (`merge-base --is-ancestor`: 0 yes, 1 no, 128 an unknown commit): one process.
 */
export async function gitExitCode(root: string, args: string[]): Promise<number> {
  return (await spawnGit(plainGit(root), args, {})).code;
}

/** A git runner for the ownership checks, in the project root. */
export function gitRunner(root: string): GitRunner {
  const g = plainGit(root);
  return (args) => raw(g, args);
}

/**
 * A commit of autopilot's own changes in the project (see ./ownership.ts), never session files. Idempotent by the effect trailer: a second run returns the first commit.
 * Nothing to commit → `{ committed: false }`, silently.
 */
export async function commitCheckpoint(root: string, args: CommitCheckpointArgs): Promise<CommitCheckpointResult> {
  await assertGitReady(root);
  return withRepoLock(root, () => commitLocked(root, args), { worktree: args.ownIndex === true });
}

async function commitLocked(root: string, args: CommitCheckpointArgs): Promise<CommitCheckpointResult> {
  const id = sanitizeEffectId(args.effectId);
  const subject = sanitizeLabel(args.subject ?? args.label);
  // An effect this call's own transition owes cannot have been committed before (no crash between).
  const existing = args.fresh ? null : await findEffectCommit(root, id, args.since ?? null);
  if (existing) return { committed: true, sha: existing, message: subject, replayed: true };

  const g = await committingGit(root);
  const run: GitRunner = (a) => raw(g, a);
  const changes = await listChanges(run, topPrefix(root));
  let stage: string[];
  let leftOut: LeftOut[] = [];
  if (args.paths) {
    const wanted = new Set(args.paths);
    stage = changes.filter((p) => wanted.has(p));
  } else {
    const others = args.slug ? await notSessionWork(root, args.slug) : new Map<string, string>();
    ({ stage, leftOut } = await selectOwnChanges(root, changes, args.baseline ?? null, others));
  }
  if (!stage.length) return { committed: false, ...(leftOut.length ? { leftOut } : {}) };
  if (!args.noVerify) await args.precheck?.(stage);

  // Exactly these paths, literally (a file named `*.ts` is one file), from a file so a long list
  // never meets the argv limit. `git commit -- <paths>` commits only them: whatever the user had
  // staged elsewhere stays staged and out of this commit.
  const parent = readHead(root)?.sha;
  const dir = await mkdtemp(path.join(tmpdir(), "autopilot-paths-"));
  const list = path.join(dir, "paths");
  try {
    await writeFile(list, stage.map((p) => `:(literal)${p}`).join("\0") + "\0");
    const from = [`--pathspec-from-file=${list}`, "--pathspec-file-nul"];
    const commitArgs = [
      "commit",
      "-q",
      ...(args.noVerify ? ["--no-verify"] : []),
      "-m",
      subject,
      ...(args.body ?? []).flatMap((p) => ["-m", p]),
      "-m",
      [...(args.trailers ?? []), `${EFFECT_TRAILER}: ${effectTrailerValue(id)}`].join("\n"),
      ...from,
    ];
    await raw(g, ["add", "-A", ...from]);
    const before = await hashes(root, stage);
    let attempt = await commitTraced(g, commitArgs, path.join(dir, "trace"));
    // A formatter run by the pre-commit hook (the pre-commit framework's fixers) rewrites the files
    // and fails the commit, as it does for a person, who adds the files again and commits again.
    // autopilot does the same, once, for its own files only.
    if (
      attempt.rejection?.kind === "hook" &&
      attempt.rejection.hook === "pre-commit" &&
      (await hashes(root, stage)) !== before
    ) {
      await raw(g, ["add", "-A", ...from]);
      attempt = await commitTraced(g, commitArgs, path.join(dir, "trace-again"));
    }
    if (attempt.rejection)
      throw new CommitRejected(attempt.rejection.kind, attempt.rejection.hook, attempt.rejection.output, stage);
    if (attempt.failure) throw attempt.failure;
    // `git commit -- <paths>` runs the hooks on a temporary index; what a hook changed there (a
    // formatter run by lint-staged) is committed, while the real index keeps the paths as they were
    // added before the hook. Set those entries to the commit, so autopilot's files are not left
    // looking staged against it. Only autopilot's own paths are touched.
    if (attempt.hooksRan) await raw(g, ["reset", "-q", ...from]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const sha = readHead(root)?.sha ?? (await raw(g, ["rev-parse", "HEAD"])).trim();
  if (!args.ownIndex) noteOwnCommit(root, parent, sha, subject);
  return { committed: true, sha, message: subject, ...(leftOut.length ? { leftOut } : {}) };
}

/** One hash of the content of `paths`, to tell whether a hook rewrote any of them. */
async function hashes(root: string, paths: string[]): Promise<string> {
  const h = createHash("sha256");
  for (const p of paths) h.update(`${p}\0${(await hashPath(root, p)) ?? "-"}\0`);
  return h.digest("hex");
}

/**
 * The repository refused autopilot's commit: one of its hooks (`kind: "hook"`, with the hook's name)
 * or the commit signing it asks for (`kind: "signing"`). `output` is what git and the hook printed,
 * trimmed. The engine turns a hook's refusal into work for the executor (or a question) and a
 * signing failure into the coded error `commit_rejected`; the commit stays owed either way.
 */
export class CommitRejected extends Error {
  constructor(
    readonly kind: "hook" | "signing",
    /** `pre-commit`, `commit-msg`, `prepare-commit-msg`, ...; null for signing. */
    readonly hook: string | null,
    readonly output: string,
    /** The paths autopilot tried to commit. */
    readonly paths: string[],
  ) {
    super(
      kind === "hook" ? `the ${hook} hook rejected the commit: ${output}` : `git could not sign the commit: ${output}`,
    );
    this.name = "CommitRejected";
  }
}

interface TracedCommit {
  rejection?: { kind: "hook" | "signing"; hook: string | null; output: string };
  failure?: Error;
  /** A pre-commit hook ran (it may have changed the temporary index). */
  hooksRan: boolean;
}

/** Hook output worth showing: the last lines, without colour codes. */
const OUTPUT_LINES = 80;
const OUTPUT_CHARS = 8000;
export function trimOutput(text: string): string {
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r\n?/g, "\n");
  const lines = plain.split("\n").map((l) => l.trimEnd());
  while (lines.length && !lines[0].trim()) lines.shift();
  while (lines.length && !lines.at(-1)!.trim()) lines.pop();
  let out = lines.length > OUTPUT_LINES ? ["…", ...lines.slice(-OUTPUT_LINES)].join("\n") : lines.join("\n");
  if (out.length > OUTPUT_CHARS) out = "…" + out.slice(-OUTPUT_CHARS);
  return out;
}

const SIGNING_FAILED =
  /failed to sign|gpg failed|ssh-keygen|signing failed|failed to write commit object|error: (?:could not|couldn't|cannot) .*\bsign/i;

/**
 * `git commit` with its hooks observed: git's trace2 event stream (to a file, so nothing is added
 * to what the hooks print) names each hook it runs and the exit code it got, which tells a hook's
 * refusal from any other failure and names the hook. No shell; stdin closed (a hook that waits for
 * a terminal fails instead of hanging the session); the user's hooks and settings apply as they are.
 */
async function commitTraced(g: Git, args: string[], traceFile: string): Promise<TracedCommit> {
  const { code, stdout, stderr } = await spawnGit(g, args, { GIT_TRACE2_EVENT: traceFile });
  const hooks = await hookRuns(traceFile);
  const hooksRan = hooks.some((h) => h.name === "pre-commit");
  if (code === 0) return { hooksRan };
  const output = trimOutput([stdout, stderr].filter((t) => t.trim()).join("\n"));
  const failed = hooks.find((h) => h.code !== null && h.code !== 0);
  if (failed) return { hooksRan, rejection: { kind: "hook", hook: failed.name, output } };
  if (SIGNING_FAILED.test(stderr)) return { hooksRan, rejection: { kind: "signing", hook: null, output } };
  return { hooksRan, failure: new Error(output || `git commit exited with ${code}`) };
}

/** Run git (argv, no shell) with extra environment; resolves with the exit code and the output's last 64 KB. */
function spawnGit(
  g: Git,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const KEEP = 64 * 1024;
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...g.config.flatMap((c) => ["-c", c]), ...args], {
      cwd: g.root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout = (stdout + d).slice(-KEEP)));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-KEEP)));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}
