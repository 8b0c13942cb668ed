// A user's project for the client tests: a git repository with a small multi-phase spec, and the
// helpers to read what autopilot left in it.
import { execFile } from "node:child_process";
import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { autopilotCommits, git, makeRepo, type TempRepo } from "../helpers/git.js";
import { distCli } from "../helpers/build.js";
import { startServer, stepCall, taskFor } from "../helpers/mcp-client.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";

const execFileP = promisify(execFile);

/** Three low-complexity phases: no interactive planning, so a session can run to DONE unattended. */
export const SPEC = `# Greeting Library

A tiny library of greetings.

## Implementation Order

### Phase 1: Core Greeting
<!-- complexity: low -->
A \`greet(name)\` function returning "Hello, <name>!".

### Phase 2: Farewells
<!-- complexity: low -->
A \`farewell(name)\` function returning "Goodbye, <name>!".

### Phase 3: Exports
<!-- complexity: low -->
An index module exporting both.
`;

export async function makeProject(spec = SPEC): Promise<TempRepo> {
  return makeRepo({ files: { "README.md": "# greetings\n", "docs/spec.md": spec } });
}

/**
 * `autopilot install <client>` in the project folder, as a user runs it, and commit what it wrote (a team
 * commits its client config). `autopilot` is the installed bin (from the packed tarball), else this
 * checkout's build. Returns install's output.
 */
export async function installInto(
  dir: string,
  client: string,
  o: { autopilot?: { bin: string; binDir: string }; extra?: string[] } = {},
): Promise<string> {
  const [cmd, pre] = o.autopilot ? [o.autopilot.bin, []] : [process.execPath, [distCli]];
  const { stdout, stderr } = await execFileP(cmd, [...pre, "install", client, ...(o.extra ?? [])], {
    cwd: dir,
    env: {
      ...process.env,
      NO_COLOR: "1",
      ...(o.autopilot ? { PATH: `${o.autopilot.binDir}${path.delimiter}${process.env.PATH}` } : {}),
    },
  });
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", `install autopilot for ${client}`);
  return stdout + stderr;
}

/** The session's state file (the only session in the project). */
export function readSession(dir: string): { slug: string; state: any } {
  const root = path.join(dir, ".harness", "sessions");
  const slugs = existsSync(root)
    ? readdirSync(root).filter((s) => existsSync(path.join(root, s, "autopilot-state.json")))
    : [];
  if (slugs.length !== 1) throw new Error(`expected one session in ${root}, found ${slugs.join(", ") || "none"}`);
  return { slug: slugs[0], state: JSON.parse(readFileSync(path.join(root, slugs[0], "autopilot-state.json"), "utf8")) };
}

export async function commitSubjects(dir: string): Promise<string[]> {
  return (await git(dir, "log", "--format=%s")).trim().split("\n");
}

/** The commits autopilot signed (its `Autopilot:` step trailer), newest first: their subjects and steps. */
export async function autopilotSubjects(dir: string): Promise<string[]> {
  return (await autopilotCommits(dir)).map((c) => c.subject);
}

/** The steps of a parallel wave's task commits ("Task 1: Greetings part 1"), in task order. */
export async function taskSteps(dir: string): Promise<string[]> {
  return (await autopilotCommits(dir))
    .map((c) => c.step)
    .filter((s) => /^Task \d/.test(s))
    .reverse();
}

/**
 * A project whose session waits at the plan approval (started with --review-plans over MCP, the
 * scripted planner's plan in), as a user finds it after /clear, a compaction or a new client.
 */
export async function waitingProject(): Promise<{ repo: TempRepo; dir: string; slug: string; stepId: number }> {
  const repo = await makeProject();
  const srv = await startServer({ cwd: repo.dir });
  try {
    const first = await stepCall(srv.client, "autopilot_start", { spec: "docs/spec.md", flags: "--review-plans" });
    const { result } = await new ScriptedRunner({}).run(taskFor(repo.dir, first));
    const asking = await stepCall(srv.client, "autopilot_report", {
      session: first.session,
      stepId: first.stepId,
      result,
    });
    if (asking.next.kind !== "ask") throw new Error(`expected the plan question, got ${asking.next.kind}`);
    return { repo, dir: repo.dir, slug: asking.session, stepId: asking.stepId };
  } finally {
    await srv.close();
  }
}
