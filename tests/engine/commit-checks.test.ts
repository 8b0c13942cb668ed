// Lessons stick: in a real repository whose pre-commit hook (husky's folder as git's hooks path, a
// plain shell check) refuses a commit, every executor brief names the repository's commit checks
// before any refusal, the refusal's cause is kept as a learning that reaches every later executor
// brief of the session, and at DONE it is promoted only when the session's later work has not
// contradicted it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Script } from "../../src/runners/script.js";
import type { PersonaRunner, PersonaTask, RunnerOutcome } from "../../src/runners/types.js";
import { PolicyGate, drive } from "../../src/headless/drive.js";

const SPEC_PATH = "docs/changes/widget/proposal.md";
const SLUG = "changes--widget--proposal";
const SPEC = `# Widget

## Implementation Order

### Phase 1: Core
<!-- complexity: low -->
Build it.

### Phase 2: Command Line
<!-- complexity: low -->
Print it.
`;
const CHECK = `bad=$(git diff --cached --name-only --diff-filter=AM | grep '\\.ts$' | xargs -r grep -n 'console\\.log' /dev/null)
if [ -n "$bad" ]; then echo "lint: no console.log"; echo "$bad"; exit 1; fi
`;
const CAUSE = 'lint: no console.log: src/core/debug.ts:2:console.log("debug");';

/** Every brief a persona read, by persona and result kind. */
class Recording implements PersonaRunner {
  readonly name = "recording";
  readonly simulated = true;
  readonly seen: { persona: string; result: string; phase: string | null; brief: string }[] = [];
  constructor(private readonly inner: PersonaRunner) {}
  async run(task: PersonaTask): Promise<RunnerOutcome> {
    const rel = task.expects.artifacts?.brief ?? /\bBrief: (\S+)/.exec(task.prompt)![1];
    const brief = await readFile(path.join(task.projectRoot, rel), "utf8");
    this.seen.push({ persona: task.persona, result: task.expects.result, phase: task.phaseName, brief });
    return this.inner.run(task);
  }
}

let repo: TempRepo;
let clock = 0;
const now = () => new Date(Date.UTC(2026, 2, 19, 10, 0, clock++));

beforeEach(async () => {
  repo = await makeRepo({
    files: {
      "README.md": "# widget\n",
      [SPEC_PATH]: SPEC,
      "scripts/no-console.sh": CHECK,
      ".husky/pre-commit": "sh scripts/no-console.sh\n",
    },
  });
  await chmod(path.join(repo.dir, ".husky/pre-commit"), 0o755);
  await git(repo.dir, "config", "core.hooksPath", ".husky");
});
afterEach(async () => repo.cleanup());

async function run(script: Script) {
  const engine = new Engine(repo.dir, { now });
  const runner = new Recording(new ScriptedRunner(script));
  const { final } = await drive(engine, (await engine.start(SPEC_PATH)).step, runner, new PolicyGate());
  return { final, runner, engine };
}

const SLOPPY = { "src/core/debug.ts": 'export const x = 1;\nconsole.log("debug");\n' };

describe("the repository's commit checks and the lessons of a refusal", () => {
  it("are named in every executor brief; the refusal's cause reaches every later executor brief; promoted at DONE", async () => {
    const { final, runner } = await run({ phases: { 0: { tasks: 2, files: SLOPPY }, 1: { tasks: 1 } } });
    expect(final.state).toBe("DONE");
    const executors = runner.seen.filter((s) => s.persona === "harness-task-executor");
    expect(executors.length).toBeGreaterThanOrEqual(3);
    for (const e of executors) {
      expect(e.brief).toContain("## The repository's commit checks");
      expect(e.brief).toContain("- pre-commit (.husky/pre-commit): `sh scripts/no-console.sh`");
    }
    // The first executor knew the checks before any refusal; the fix of the refusal is its own job.
    const hookFix = executors.find((e) =>
      /^# Brief for step \d+: fix what the pre-commit hook refused$/m.test(e.brief),
    )!;
    expect(hookFix.brief).toContain('src/core/debug.ts:2:console.log("debug");');
    // Phase 2's executor reads why the hook refused phase 1's commit.
    const later = executors.filter((e) => e.phase === "Command Line");
    expect(later.length).toBeGreaterThan(0);
    for (const e of later) expect(e.brief).toContain(`The repository's pre-commit hook refused a commit: ${CAUSE}`);
    const state = JSON.parse(
      await readFile(path.join(repo.dir, ".harness/sessions", SLUG, "autopilot-state.json"), "utf8"),
    );
    expect(state.decisions.find((d: { decision: string }) => d.decision === "commit_rejected").note).toContain(CAUSE);
    // The session's later work did not contradict it: promoted to the project's learnings.
    const global = await readFile(path.join(repo.dir, ".harness/learnings.md"), "utf8");
    expect(global).toContain(`The repository's pre-commit hook refused a commit: ${CAUSE}`);
  });

  it("the team's subject template reaches every executor brief, and only theirs; the commits follow it", async () => {
    await mkdir(path.join(repo.dir, ".harness"), { recursive: true });
    await writeFile(
      path.join(repo.dir, ".harness/config.json"),
      JSON.stringify({ commitMessage: "{type}: {summary}" }),
    );
    const { final, runner } = await run({ phases: { 0: { tasks: 1 }, 1: { tasks: 1 } } });
    expect(final.state).toBe("DONE");
    const form = "This repository's commit subjects follow the template `{type}: {summary}`";
    for (const s of runner.seen)
      expect(s.brief.includes(form), `${s.persona} ${s.result}`).toBe(s.persona === "harness-task-executor");
    // Only the placeholders the template uses are explained.
    for (const s of runner.seen) expect(s.brief).not.toContain("{label}");
    const subjects = (await git(repo.dir, "log", "--format=%s", "-n2")).trim().split("\n");
    for (const subject of subjects) expect(subject).toMatch(/^[a-z]+: \S/);
  });

  it("a learning the session's later work made false stays in the session, and DONE says why", async () => {
    // Phase 2 empties the hook: the refusal's lesson no longer holds when the session ends.
    const { final } = await run({
      phases: { 0: { tasks: 1, files: SLOPPY }, 1: { tasks: 1, files: { ".husky/pre-commit": "" } } },
    });
    expect(final.state).toBe("DONE");
    expect(final.report).toMatch(
      /1 learning held back in the session, contradicted by its later work \(the pre-commit hook no longer runs any check\)/,
    );
    const global = await readFile(path.join(repo.dir, ".harness/learnings.md"), "utf8");
    expect(global).not.toContain("hook refused a commit");
    const session = await readFile(path.join(repo.dir, ".harness/sessions", SLUG, "learnings.md"), "utf8");
    expect(session).toContain(`The repository's pre-commit hook refused a commit: ${CAUSE}`);
  });
});
