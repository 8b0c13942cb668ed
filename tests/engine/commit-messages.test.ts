// A session's commits as its reviewer reads them, in real repositories: the executor's proposed
// message in the repository's convention, autopilot's own subject naming what a fix round fixed
// when the fixer proposed none, and autopilot only in the trailer.
import { afterEach, describe, expect, it } from "vitest";
import { autopilotCommits, git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { PersonaRunner, PersonaTask, RunnerOutcome } from "../../src/runners/types.js";
import { PolicyGate, drive } from "../../src/headless/drive.js";

const SPEC_PATH = "docs/changes/wc/proposal.md";
const SPEC = `# Word count

## Implementation Order

### Phase 1: Counting Core
<!-- complexity: low -->
Count words.
`;

let repo: TempRepo;
afterEach(async () => repo?.cleanup());

/** The scripted personas, but a fixer that proposes no commit message. */
class SilentFixer implements PersonaRunner {
  readonly name = "silent-fixer";
  readonly simulated = true;
  constructor(private readonly inner: PersonaRunner) {}
  async run(task: PersonaTask): Promise<RunnerOutcome> {
    const out = await this.inner.run(task);
    if (out.result.kind !== "fixed") return out;
    const { commitMessage: _drop, ...rest } = out.result;
    return { ...out, result: rest };
  }
}

async function session(runner: PersonaRunner, files: Record<string, string> = {}) {
  repo = await makeRepo({ files: { "README.md": "# wc\n", [SPEC_PATH]: SPEC, ...files } });
  const engine = new Engine(repo.dir);
  const { final } = await drive(engine, (await engine.start(SPEC_PATH)).step, runner, new PolicyGate());
  expect(final.state).toBe("DONE");
  return autopilotCommits(repo.dir);
}

describe("the commits of a session", () => {
  it("carry the executor's messages in Conventional Commits where commitlint is configured, with autopilot in the trailer", async () => {
    const own = await session(new ScriptedRunner({ phases: { 0: { tasks: 2, blockingReviewOnce: true } } }), {
      ".commitlintrc.json": '{"extends":["@commitlint/config-conventional"]}\n',
    });
    expect(own.map((c) => c.subject).reverse()).toEqual([
      "feat(counting-core): add Counting Core",
      "fix(counting-core): unchecked input reaches the parser",
    ]);
    expect(own.map((c) => c.step).reverse()).toEqual([
      "Phase 1: Counting Core — execution complete",
      "Phase 1: Counting Core — review fixes (round 1)",
    ]);
    const body = await git(repo.dir, "log", "-1", "--format=%B", own[0].sha);
    expect(body).toContain("\n\nSimulated by autopilot's scripted runner.\n\n");
    expect(body).not.toMatch(/^\[autopilot\]/);
  });

  it("name what a fix round fixed when the fixer proposed no message", async () => {
    const own = await session(
      new SilentFixer(new ScriptedRunner({ phases: { 0: { tasks: 2, blockingReviewOnce: true } } })),
    );
    expect(own[0].step).toBe("Phase 1: Counting Core — review fixes (round 1)");
    expect(own[0].subject).toBe("Fix unchecked input reaches the parser (simulated)");
  });
});
