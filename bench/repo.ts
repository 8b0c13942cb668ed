// A throwaway git project for the bench (a copy of the tests' approach, not an import of them):
// git binary via execFile, a committed spec, a .harness/config.json with a cheap validation command.
import { execFile } from "node:child_process";
import { mkdtemp, mkdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const execFileP = promisify(execFile);

export const gitEnv = (): Record<string, string> => ({
  ...(process.env as Record<string, string>),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
});

export async function git(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileP("git", args, { cwd: dir, env: gitEnv(), maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

export interface Project {
  dir: string;
  specPath: string;
  slug: string;
  cleanup(): Promise<void>;
}

export function specWith(n: number, complexity: (i: number) => "low" | "medium" | "high" = () => "low"): string {
  const body = Array.from(
    { length: n },
    (_, i) => `### Phase ${i + 1}: Part ${i + 1}\n<!-- complexity: ${complexity(i)} -->\nBuild part ${i + 1}.\n`,
  ).join("\n");
  return `# Bench Feature\n\nA feature for the benchmark.\n\n## Implementation Order\n\n${body}`;
}

/**
 * A git repository with the spec committed. The validation command is the shell builtin `true`:
 * the engine still spawns it (a real shell), but no toolchain time hides the engine's own cost.
 */
export async function makeProject(spec: string, specPath = "docs/changes/bench/proposal.md"): Promise<Project> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), "autopilot-bench-")));
  await git(dir, "init", "-q", "-b", "main");
  await git(dir, "config", "user.name", "Bench");
  await git(dir, "config", "user.email", "bench@example.invalid");
  await git(dir, "config", "commit.gpgsign", "false");
  const files: Record<string, string> = {
    "README.md": "# bench project\n",
    // humanGates off: the bench answers every question itself, --thorough included.
    ".harness/config.json": JSON.stringify({ validation: { commands: ["true"] }, humanGates: false }) + "\n",
    [specPath]: spec,
  };
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", "initial commit");
  const slug = specPath
    .replace(/^docs\//, "")
    .replace(/\.md$/, "")
    .split("/")
    .join("--");
  return { dir, specPath, slug, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
