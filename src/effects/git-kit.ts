// What every git call here shares: where and how git runs (the project root, the identity's `-c`
// settings), the one way git is run, and the check that a commit id is one before it reaches git.
import { existsSync } from "node:fs";
import { spawn } from "node:child_process";
import { AutopilotError } from "../protocol/errors.js";
import { knownIdentity, rememberIdentity } from "./git-dir.js";

const FALLBACK_IDENTITY = ["user.name=autopilot", "user.email=autopilot@localhost.invalid"];

/** Where and how to run git: the project root, and `-c` settings for every command. */
export interface Git {
  root: string;
  config: string[];
}

export function plainGit(root: string): Git {
  if (!existsSync(root)) {
    throw new AutopilotError(
      "not_a_git_repo",
      `Project directory ${root} does not exist. Run autopilot from your project root.`,
    );
  }
  return { root, config: [] };
}

/**
 * A git client for writing commits. The repository's own identity is used when it has one; the
 * fallback is passed with `-c` so no config file is edited.
 */
export async function committingGit(root: string): Promise<Git> {
  const g = plainGit(root);
  const known = knownIdentity(root);
  if (known !== undefined) return known ? g : { root, config: FALLBACK_IDENTITY };
  // One git for both keys. The last line of a key is its effective value (local over global),
  // as `git config --get` would give it; exit 1 (no key set) reads as no identity.
  const out = await raw(g, ["config", "--get-regexp", "^user\\.(name|email)$"]).catch(() => "");
  const value = new Map<string, string>();
  for (const line of out.split("\n")) {
    const m = /^(user\.(?:name|email))(?: (.*))?$/i.exec(line);
    if (m) value.set(m[1].toLowerCase(), (m[2] ?? "").trim());
  }
  rememberIdentity(root, !!(value.get("user.name") && value.get("user.email")));
  return knownIdentity(root) !== false ? g : { root, config: FALLBACK_IDENTITY };
}

/**
 * Runs git (argv, no shell) in the project root and returns stdout. A non-zero exit rejects only
 * when git wrote to stderr, with that text as the message (callers decide on the output otherwise).
 * The identity goes in as `-c` settings, never through the environment.
 *
 * A plain child process, not simple-git: simple-git 4 waits a fixed 50 ms after every command
 * that prints nothing (`git add`, `git commit -q`, `git reset -q`), whatever its `completion`
 * options say, which was most of a checkpoint report's time. The `close` event alone means the
 * process has ended and all of its output is read.
 */
export function raw(g: Git, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...g.config.flatMap((c) => ["-c", c]), ...args], {
      cwd: g.root,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => err.push(d));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const stderr = Buffer.concat(err).toString("utf8");
      if ((code !== 0 || signal) && stderr.trim()) reject(new Error(stderr.trim()));
      else resolve(Buffer.concat(out).toString("utf8"));
    });
  });
}

export function assertRev(rev: string, what: string): string {
  // Only object names: a value like `--output=x` must never reach git as an option.
  if (typeof rev !== "string" || !/^[0-9a-f]{4,64}$/i.test(rev.trim())) {
    throw new AutopilotError(
      "bad_input",
      `${what} "${String(rev)}" is not a commit id. Use the full sha from \`git rev-parse HEAD\`.`,
    );
  }
  return rev.trim();
}
