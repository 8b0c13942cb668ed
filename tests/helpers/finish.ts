// The outside world of finishing a branch, for real: a bare repository as the remote, a `gh`
// stand-in that records what it was asked, and a PATH with or without gh.
import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { git } from "./git.js";

/** Temporary folders, removed by `cleanup`. */
export class Scratch {
  private readonly dirs: string[] = [];
  async dir(): Promise<string> {
    const d = await mkdtemp(path.join(tmpdir(), "autopilot-finish-"));
    this.dirs.push(d);
    return d;
  }
  async cleanup(): Promise<void> {
    await Promise.all(this.dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  }
}

/**
 * A folder holding a `gh` that writes each argument on a line of `<folder>/gh-args`, copies the
 * file after `--body-file` to `<folder>/gh-body`, and answers with a pull request's URL, as gh does.
 */
export async function ghStandIn(scratch: Scratch): Promise<string> {
  const dir = await scratch.dir();
  const script = `#!/bin/sh
here=$(dirname "$0")
: > "$here/gh-args"
prev=""
for a in "$@"; do
  printf '%s\\n' "$a" >> "$here/gh-args"
  if [ "$prev" = "--body-file" ]; then cp "$a" "$here/gh-body"; fi
  prev="$a"
done
echo "https://github.example/acme/wc/pull/7"
`;
  await writeFile(path.join(dir, "gh"), script);
  await chmod(path.join(dir, "gh"), 0o755);
  return dir;
}

/** What the stand-in was given: its arguments, and the body file's content. */
export async function ghCall(ghDir: string): Promise<{ args: string[]; body: string }> {
  const args = (await readFile(path.join(ghDir, "gh-args"), "utf8")).replace(/\n$/, "").split("\n");
  return { args, body: await readFile(path.join(ghDir, "gh-body"), "utf8") };
}

/** A bare repository added to `repo` as origin. */
export async function bareRemote(scratch: Scratch, repo: string): Promise<string> {
  const bare = path.join(await scratch.dir(), "remote.git");
  await git(path.dirname(bare), "init", "-q", "--bare", bare);
  await git(repo, "remote", "add", "origin", bare);
  return bare;
}

/** PATH with the stand-in first, or (null) a PATH holding git alone: no gh, even on a machine that has one. */
export async function pathWith(scratch: Scratch, ghDir: string | null): Promise<string> {
  if (ghDir) return [ghDir, process.env.PATH ?? ""].join(path.delimiter);
  const only = await scratch.dir();
  const real = (await promisify(execFile)("sh", ["-c", "command -v git"])).stdout.trim();
  await symlink(real, path.join(only, "git"));
  return only;
}
