// What the person changes mid-session stays out of autopilot's commits, in a real git repository:
// while a question waits for them (the files they create or change then are theirs), and
// `.harness/config.json` whenever they write it. Each commit's report names what it left out, and
// the files are still there, uncommitted, at DONE.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendFile, chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { PolicyGate, drive, type Gate, type GateAnswer } from "../../src/headless/drive.js";
import type { AskNext, Step } from "../../src/protocol/step.js";
import type { PersonaRunner, PersonaTask, RunnerOutcome } from "../../src/runners/types.js";

const SPEC_PATH = "docs/changes/widget/proposal.md";
const SPEC = `# Widget

## Implementation Order

### Phase 1: Core
<!-- complexity: low -->
Build it.

### Phase 2: Polish
<!-- complexity: low -->
Polish it.
`;
const CONTINUE = "fix it yourself and continue";
const TEMPLATE = JSON.stringify({ commitMessage: "JIRA-1 {type}: {summary}" }) + "\n";

let repo: TempRepo;
let clock = 0;
const now = () => new Date(Date.UTC(2026, 2, 19, 10, 0, clock++));

beforeEach(async () => {
  repo = await makeRepo({
    files: { "README.md": "# widget\n", "src/app.ts": "export const app = 1;\n", [SPEC_PATH]: SPEC },
  });
});
afterEach(async () => repo.cleanup());

/** Files of each commit after `since`. */
async function commitsAfter(since: string): Promise<Array<{ subject: string; files: string[] }>> {
  const out = await git(repo.dir, "log", "--reverse", "--format=%x1e%s%x1f", "--name-only", `${since}..HEAD`);
  return out
    .split("\x1e")
    .filter((r) => r.trim())
    .map((r) => {
      const [subject, rest] = r.split("\x1f");
      return { subject, files: rest.split("\n").filter((f) => f.trim()) };
    });
}

/** The person at the refused commit: fixes the message as the question says, and meanwhile edits their own files. */
class PersonAtRefusal implements Gate {
  private readonly policy = new PolicyGate();
  asked = 0;
  async answer(step: Step, ask: AskNext): Promise<GateAnswer> {
    if (!ask.options.includes(CONTINUE)) return this.policy.answer(step, ask);
    this.asked++;
    await writeFile(path.join(repo.dir, ".harness/config.json"), TEMPLATE);
    await appendFile(path.join(repo.dir, "src/app.ts"), "export const mine = 2;\n");
    await mkdir(path.join(repo.dir, "notes"), { recursive: true });
    await writeFile(path.join(repo.dir, "notes/todo.md"), "- ask about limits\n");
    return { answer: CONTINUE, by: "terminal", rationale: "set the template" };
  }
}

describe("files the person touches mid-session stay theirs", () => {
  it("what they create or change while a question waits is in no commit, and every report says so", async () => {
    const hook = path.join(repo.dir, ".git/hooks/commit-msg");
    await writeFile(hook, `#!/bin/sh\ngrep -q '^JIRA-1 ' "$1" || { echo "subject must start with JIRA-1"; exit 1; }\n`);
    await chmod(hook, 0o755);
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const engine = new Engine(repo.dir, { now });
    const gate = new PersonAtRefusal();
    const reports: string[] = [];
    const { final } = await drive(engine, (await engine.start(SPEC_PATH)).step, new ScriptedRunner(), gate, {
      onStep: (s) => s.report && reports.push(s.report),
    });
    expect(final.state).toBe("DONE");
    expect(gate.asked).toBe(1);
    const commits = await commitsAfter(head);
    expect(commits.length).toBeGreaterThanOrEqual(2);
    for (const c of commits) {
      expect(c.subject).toMatch(/^JIRA-1 /);
      for (const f of [".harness/config.json", "src/app.ts", "notes/todo.md"])
        expect(c.files, `${c.subject} has ${f}`).not.toContain(f);
    }
    // The refused commit, made after the answer, still holds the personas' work.
    expect(commits[0].files.some((f) => f.startsWith("src/core/") || f.startsWith("docs/plans/"))).toBe(true);
    const said = reports.join("\n");
    expect(said).toContain("Left out of autopilot's commit");
    for (const f of [".harness/config.json", "src/app.ts", "notes/todo.md"])
      expect(said).toContain(`${f} — you changed it during the session, while autopilot waited for you`);
    // Still there for the person to commit.
    const status = await git(repo.dir, "status", "--porcelain", "--untracked-files=all");
    expect(status).toContain(" M src/app.ts");
    expect(status).toContain("?? notes/todo.md");
    expect(status).toContain("?? .harness/config.json");
    expect(await readFile(path.join(repo.dir, "src/app.ts"), "utf8")).toContain("mine = 2");
  });

  it("keeps .harness/config.json out even when the person writes it while a persona works", async () => {
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const scripted = new ScriptedRunner();
    let written = false;
    const runner: PersonaRunner = {
      name: "scripted",
      simulated: true,
      async run(task: PersonaTask): Promise<RunnerOutcome> {
        if (task.persona === "harness-task-executor" && !written) {
          written = true;
          await writeFile(path.join(repo.dir, ".harness/config.json"), JSON.stringify({ retryBudget: 2 }) + "\n");
        }
        return scripted.run(task);
      },
    };
    const engine = new Engine(repo.dir, { now });
    const reports: string[] = [];
    const { final } = await drive(engine, (await engine.start(SPEC_PATH)).step, runner, new PolicyGate(), {
      onStep: (s) => s.report && reports.push(s.report),
    });
    expect(final.state).toBe("DONE");
    expect(written).toBe(true);
    for (const c of await commitsAfter(head)) expect(c.files, c.subject).not.toContain(".harness/config.json");
    expect(await git(repo.dir, "status", "--porcelain", "--", ".harness/config.json")).toMatch(/^\?\? /);
    expect(reports.join("\n")).toContain(".harness/config.json — autopilot's settings for this project (your file)");
  });
});
