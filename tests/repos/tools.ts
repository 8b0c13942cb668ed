// The real tools of the repository matrix: husky, commitlint and lint-staged (with prettier, the
// formatter lint-staged runs) from the npm registry, installed once into the test-client cache
// (tests/clients/claude-code.ts ensureNpmClient), never into this repository; and the Debian tools
// (the pre-commit framework, git-lfs, gpg), which .ci/run installs. Each test skips with a printed
// reason when its tool cannot be had.
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ensureNpmClient, clientsCacheDir } from "../clients/claude-code.js";
import { git } from "../helpers/git.js";
import { CLI } from "../headless/_cli.js";

const execFileP = promisify(execFile);

/** The versions the matrix was verified with (docs/troubleshooting.md). */
export const NPM_TOOLS = {
  husky: "9.1.7",
  "@commitlint/cli": "20.5.3",
  "@commitlint/config-conventional": "20.5.3",
  "lint-staged": "16.4.0",
  prettier: "3.10.1",
} as const;

/**
 * The folder whose node_modules holds the npm tools, or why there is none. Checked through
 * lint-staged's `--version` (husky has none: `husky <word>` installs hooks into that folder).
 */
export async function npmTools(): Promise<{ dir: string } | { skip: string }> {
  const { "lint-staged": version, ...rest } = NPM_TOOLS;
  const got = await ensureNpmClient(
    "lint-staged",
    version,
    "lint-staged",
    Object.entries(rest).map(([p, v]) => `${p}@${v}`),
  );
  if ("skip" in got) return got;
  return { dir: path.dirname(path.dirname(path.dirname(got.bin))) };
}

/** A command on PATH (a Debian tool), or why not. */
export function debianTool(cmd: string, args: string[] = ["--version"]): { skip: string } | { ok: true } {
  try {
    execFileSync(cmd, args, { stdio: "ignore", timeout: 30_000 });
    return { ok: true };
  } catch {
    return {
      skip: `${cmd} is not installed (Debian: apt-get install -y ${cmd === "gpg" ? "gnupg" : cmd}; .ci/run installs it)`,
    };
  }
}

/** Where the pre-commit framework keeps its environments for these tests (not the developer's). */
export function preCommitHome(): string {
  return path.join(clientsCacheDir(), "pre-commit-home");
}

/** The environment every CLI run and git call of the matrix gets: no system git config. */
export function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    PRE_COMMIT_HOME: preCommitHome(),
    ...extra,
  };
}

/** git with the matrix's environment (GNUPGHOME and such), stdout. */
export async function gitEnv(dir: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<string> {
  const { stdout } = await execFileP("git", args, { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The built CLI, with `input` on stdin (closed after it). */
export function runCli(args: string[], o: { cwd: string; env?: NodeJS.ProcessEnv; input?: string }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: o.cwd,
      env: o.env ?? baseEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(o.input ?? "");
  });
}

/** A shell line as a user pastes it, with `autopilot` being the built CLI. */
export function paste(line: string, o: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", `autopilot() { "${process.execPath}" "${CLI}" "$@"; }\n${line}`], {
      cwd: o.cwd,
      env: o.env ?? baseEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A temporary folder (realpath: git reports resolved paths). */
export async function tempDir(prefix: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), prefix)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Link the npm tools into a repository as its own node_modules would be (git-ignored). */
export async function linkNodeModules(repo: string, tools: string): Promise<void> {
  await symlink(path.join(tools, "node_modules"), path.join(repo, "node_modules"));
  const ignore = path.join(repo, ".gitignore");
  const had = await readFile(ignore, "utf8").catch(() => "");
  await writeFile(ignore, `${had}node_modules\n`);
}

/**
 * A throwaway GnuPG home with one signing key without a passphrase: the success path of
 * `commit.gpgsign`. Returns the home and the key's fingerprint.
 */
export async function throwawayKey(): Promise<{ home: string; fingerprint: string; cleanup: () => Promise<void> }> {
  // A short path: gpg-agent's socket path must stay under the Unix socket limit.
  const home = await mkdtemp(path.join(tmpdir(), "gpg-"));
  await mkdir(home, { recursive: true, mode: 0o700 });
  const env = { ...process.env, GNUPGHOME: home };
  await execFileP(
    "gpg",
    [
      "--batch",
      "--passphrase",
      "",
      "--quick-gen-key",
      "Autopilot Test <autopilot-test@example.invalid>",
      "ed25519",
      "sign",
      "never",
    ],
    { env },
  );
  const { stdout } = await execFileP("gpg", ["--list-secret-keys", "--with-colons"], { env });
  const fingerprint = /^fpr:+([0-9A-F]+):/m.exec(stdout)?.[1];
  if (!fingerprint) throw new Error(`no key generated: ${stdout}`);
  return {
    home,
    fingerprint,
    cleanup: async () => {
      await execFileP("gpgconf", ["--kill", "all"], { env }).catch(() => {});
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** The autopilot commits after `since`: subject, the effect trailer, the files. */
export async function commitsAfter(dir: string, since: string, env: NodeJS.ProcessEnv = baseEnv()) {
  const out = await gitEnv(
    dir,
    env,
    "log",
    "--reverse",
    "--format=%x1e%H%x1f%s%x1f%(trailers:key=Autopilot-Effect,valueonly)%x1f",
    "--name-only",
    `${since}..HEAD`,
  );
  return out
    .split("\x1e")
    .filter((r) => r.trim())
    .map((r) => {
      const [sha, subject, trailer, files] = r.split("\x1f");
      return {
        sha,
        subject,
        trailer: trailer.trim(),
        files: files
          .split("\n")
          .map((f) => f.trim())
          .filter(Boolean),
      };
    });
}

export { git };
