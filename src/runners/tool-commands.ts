// run_command, git_status and git_diff: a shell command in the project root (its own process group,
// killed with its children at the time limit, a bounded tail of its output), and git's view of
// the working tree.
import { execFile } from "node:child_process";
import { z } from "zod";
import { runShell } from "./shell.js";
import { Refusal, type Tool, type ToolContext, type ToolResult } from "./tool-kit.js";

const RunInput = z.object({
  command: z.string().min(1).describe("Shell command, run with sh in the project root."),
  timeoutSec: z.number().positive().optional().describe("Time limit in seconds."),
});
const GitStatusInput = z.object({});
const GitDiffInput = z.object({
  path: z.string().optional().describe("Limit the diff to this path."),
});

export function commandTools({ root, limits: o, signal, rel, resolve }: ToolContext): Tool[] {
  async function runCommand(input: z.infer<typeof RunInput>): Promise<ToolResult> {
    const limit = Math.min(input.timeoutSec ?? o.commandTimeoutSec, o.maxCommandTimeoutSec);
    const r = await runShell(input.command, {
      cwd: root,
      env: o.env,
      timeoutMs: limit * 1000,
      maxChars: o.maxCommandOutputChars,
      signal,
    });
    const head = r.timedOut
      ? `Timed out after ${limit}s; the command and its children were killed.`
      : r.signal
        ? `Killed by signal ${r.signal}.`
        : `Exit code ${r.code}.`;
    const dropped = r.droppedChars > 0 ? `[first ${r.droppedChars} characters of output omitted]\n` : "";
    return { content: `${head}\n${dropped}${r.output || "(no output)"}`, isError: r.timedOut };
  }

  function git(args: string[]): Promise<{ code: number; out: string; err: string }> {
    return new Promise((res) => {
      execFile(
        "git",
        ["-c", "core.quotepath=off", "--no-pager", ...args],
        { cwd: root, env: o.env, maxBuffer: 16 * 1024 * 1024, signal },
        (error, stdout, stderr) => {
          const code = error
            ? typeof (error as { code?: unknown }).code === "number"
              ? (error as { code: number }).code
              : 1
            : 0;
          res({ code, out: String(stdout), err: String(stderr) });
        },
      );
    });
  }

  async function gitStatus(): Promise<string> {
    const r = await git(["status", "--porcelain=v1", "--branch"]);
    if (r.code !== 0) throw new Refusal(`git status failed: ${r.err.trim() || `exit ${r.code}`}`);
    return r.out.trim() || "(clean)";
  }

  async function gitDiff(input: z.infer<typeof GitDiffInput>): Promise<string> {
    const spec = input.path ? ["--", rel(resolve(input.path, "read"))] : [];
    const hasHead = (await git(["rev-parse", "--verify", "-q", "HEAD"])).code === 0;
    const r = await git(
      hasHead ? ["diff", "--no-color", "HEAD", ...spec] : ["diff", "--no-color", "--cached", ...spec],
    );
    if (r.code !== 0) throw new Refusal(`git diff failed: ${r.err.trim() || `exit ${r.code}`}`);
    const text = r.out;
    const max = o.maxResultChars - 200;
    if (text.length > max) {
      return text.slice(0, max) + `\n[diff cut at ${max} of ${text.length} characters; pass path to see one file]`;
    }
    return text.trim() || "(no changes)";
  }

  return [
    {
      name: "run_command",
      description:
        "Run a shell command in the project root with a time limit. Returns the exit code and the end of the combined output.",
      schema: RunInput,
      run: runCommand,
    },
    {
      name: "git_status",
      description: "Show git status (branch and changed files).",
      schema: GitStatusInput,
      run: gitStatus,
    },
    {
      name: "git_diff",
      description: "Show uncommitted changes against HEAD, for the whole project or one path.",
      schema: GitDiffInput,
      run: gitDiff,
    },
  ];
}
