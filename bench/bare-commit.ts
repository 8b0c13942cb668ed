// The floor a checkpoint report is measured against: the same commit made by hand, a bare
// `git add <its files>` + `git commit -m <its message>` from the bench process, in a copy of the
// project at the commit's parent. Run in the same minutes as the reports, so the same load.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { git, gitEnv } from "./repo.js";
import { processCpu } from "./host.js";

const execFileP = promisify(execFile);

export interface BareCommit {
  /** Wall time of add + commit (ms). */
  ms: number;
  /** CPU time of the two git processes (ms; /proc ticks, exact summed over many). */
  cpu: number;
}

/** Each of `commits` (made in `dir`) made again by hand `times` times; one sample per attempt. */
export async function bareCommits(dir: string, commits: string[], times = 3): Promise<BareCommit[]> {
  const copy = await mkdtemp(path.join(os.tmpdir(), "autopilot-bare-"));
  const out: BareCommit[] = [];
  try {
    await git(os.tmpdir(), "clone", "-q", dir, copy);
    await git(copy, "config", "user.name", "Bench");
    await git(copy, "config", "user.email", "bench@example.invalid");
    await git(copy, "config", "commit.gpgsign", "false");
    for (const sha of commits) {
      const files = (await git(dir, "diff-tree", "--no-commit-id", "-r", "--name-only", sha))
        .split("\n")
        .filter(Boolean);
      const message = (await git(dir, "log", "-1", "--format=%B", sha)).trim();
      const contents = await Promise.all(files.map((f) => git(dir, "show", `${sha}:${f}`)));
      for (let i = 0; i < times; i++) {
        await git(copy, "checkout", "-q", "--detach", `${sha}^`);
        for (const [k, f] of files.entries()) {
          await mkdir(path.dirname(path.join(copy, f)), { recursive: true });
          await writeFile(path.join(copy, f), contents[k]);
        }
        const c0 = processCpu(process.pid);
        const t0 = performance.now();
        const opts = { cwd: copy, env: gitEnv() };
        await execFileP("git", ["add", "--", ...files], opts);
        await execFileP("git", ["commit", "-q", "-m", message], opts);
        const ms = performance.now() - t0;
        const c1 = processCpu(process.pid);
        out.push({ ms, cpu: c0 && c1 ? c1.children - c0.children : NaN });
      }
    }
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
  return out;
}
