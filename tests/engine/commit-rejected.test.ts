// The engine in real repositories whose hooks and signing refuse autopilot's commits (plain shell
// hooks here; the real tools are in tests/repos). Nothing crashes: the pre-commit hook's complaint
// goes to the executor and the session reaches DONE with one commit per checkpoint; past the budget
// the user answers; signing that fails is the coded error commit_rejected, the commit still owed and
// made once after the fix.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chmod, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Script } from "../../src/runners/script.js";
import { PolicyGate, drive } from "../../src/headless/drive.js";
import { NoAnswer } from "../../src/headless/terminal-gate.js";
import { AutopilotError } from "../../src/protocol/errors.js";
import type { Step } from "../../src/protocol/step.js";
import { RETRY_BUDGET } from "../../src/rules/policy.js";

const SPEC_PATH = "docs/changes/widget/proposal.md";
const SLUG = "changes--widget--proposal";
const SPEC = `# Widget

## Implementation Order

### Phase 1: Core
<!-- complexity: low -->
Build it.
`;

let repo: TempRepo;
let clock = 0;
const now = () => new Date(Date.UTC(2026, 2, 19, 10, 0, clock++));

beforeEach(async () => {
  repo = await makeRepo({ files: { "README.md": "# widget\n", [SPEC_PATH]: SPEC } });
});
afterEach(async () => repo.cleanup());

async function hook(name: string, script: string): Promise<void> {
  const file = path.join(repo.dir, ".git/hooks", name);
  await writeFile(file, `#!/bin/sh\n${script}\n`);
  await chmod(file, 0o755);
}

const NO_CONSOLE_LOG = `bad=$(git diff --cached --name-only --diff-filter=AM | grep '\\.ts$' | xargs -r grep -n 'console\\.log' /dev/null)
if [ -n "$bad" ]; then echo "lint: no console.log"; echo "$bad"; exit 1; fi`;
const SPDX_HEADER = `for f in $(git diff --cached --name-only --diff-filter=AM | grep '\\.ts$'); do
  head -1 "$f" | grep -q SPDX-License-Identifier || { echo "$f: missing SPDX-License-Identifier header"; fail=1; }
done
exit \${fail:-0}`;

/** The executor writes a debug line with its first task (phase 1, with a passed checkpoint at task 2). */
const SLOPPY: Script = {
  phases: {
    0: {
      tasks: 3,
      checkpoints: { 2: "passed" },
      files: { "src/core/debug.ts": 'export const x = 1;\nconsole.log("debug");\n' },
    },
  },
};

async function ownCommits(since: string) {
  const out = await git(
    repo.dir,
    "log",
    "--reverse",
    "--format=%x1e%s%x1f%(trailers:key=Autopilot-Effect,valueonly)",
    `${since}..HEAD`,
  );
  return out
    .split("\x1e")
    .filter((r) => r.trim())
    .map((r) => {
      const [subject, trailer] = r.split("\x1f");
      return { subject: subject.trim(), trailer: trailer.trim() };
    });
}

async function failure(p: Promise<unknown>): Promise<AutopilotError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AutopilotError);
  return e as AutopilotError;
}

describe("the repository's pre-commit hook refuses a commit", () => {
  it("its complaint goes to the executor, which fixes it; DONE with one commit per checkpoint and the refusal on record", async () => {
    await hook("pre-commit", NO_CONSOLE_LOG);
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const engine = new Engine(repo.dir, { now });
    const steps: Step[] = [];
    const { final } = await drive(
      engine,
      (await engine.start(SPEC_PATH)).step,
      new ScriptedRunner(SLOPPY),
      new PolicyGate(),
      { onStep: (s) => steps.push(s) },
    );
    expect(final.state).toBe("DONE");
    const fix = steps.find(
      (s) => s.next.kind === "dispatch" && s.next.expects.result === "fixed" && s.state === "EXECUTE",
    );
    expect(fix?.report).toContain('src/core/debug.ts:2:console.log("debug");');
    const commits = await ownCommits(head);
    expect(commits.map((c) => c.subject)).toEqual(["Add Core up to step 2", "Add Core"]);
    expect(new Set(commits.map((c) => c.trailer)).size).toBe(commits.length);
    expect(await git(repo.dir, "show", "HEAD~1:src/core/debug.ts")).toBe("export const x = 1;\n");
    const state = await engine.read(SLUG);
    expect(state.decisions.filter((d) => d.decision === "commit_rejected")).toHaveLength(1);
    expect(state.history[0].retriesUsed).toBe(1);
    expect(state.commits.map((c) => c.subject)).toEqual(commits.map((c) => c.subject));
  });

  it("past the retry budget the run waits for a person; fixed by hand, the same commit is made once and the session is DONE", async () => {
    await hook("pre-commit", SPDX_HEADER);
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const engine = new Engine(repo.dir, { now });
    const runner = new ScriptedRunner({ phases: { 0: { tasks: 2 } } });
    // --yes does not answer it: the question stays open for a person.
    const waiting = await drive(engine, (await engine.start(SPEC_PATH)).step, runner, new PolicyGate()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(waiting).toBeInstanceOf(NoAnswer);
    const ask = (waiting as NoAnswer).step;
    expect(ask.state).toBe("VERIFY");
    expect(ask.next.kind === "ask" && ask.next.question).toMatch(
      new RegExp(`rejected autopilot's commit "Phase 1: Core — execution complete" ${RETRY_BUDGET + 1} times`),
    );
    expect(ask.next.kind === "ask" && ask.next.context).toContain(
      "src/core/task-1.ts: missing SPDX-License-Identifier header",
    );
    expect(await ownCommits(head)).toEqual([]);
    // The person adds the headers and answers.
    for (const f of ["src/core/task-1.ts", "src/core/task-2.ts"]) {
      const file = path.join(repo.dir, f);
      await writeFile(file, `// SPDX-License-Identifier: MIT\n${await readFile(file, "utf8")}`);
    }
    const next = await engine.decide(SLUG, ask.stepId, "fix it yourself and continue", "added the headers", "terminal");
    expect(next.state).toBe("VERIFY");
    const { final } = await drive(engine, next, runner, new PolicyGate());
    expect(final.state).toBe("DONE");
    expect((await ownCommits(head)).map((c) => c.subject)).toEqual(["Add Core"]);
    const state = await engine.read(SLUG);
    expect(state.decisions.filter((d) => d.decision === "commit_rejected")).toHaveLength(RETRY_BUDGET + 1);
    expect(state.decisions.find((d) => d.decision === "fixed_commit_manually")).toMatchObject({
      by: "terminal",
      rationale: "added the headers",
    });
  });

  it('"commit without hooks this once" is the user\'s to give under --human-gates; given, the one commit skips the hooks', async () => {
    await hook("commit-msg", `echo "commit messages need a ticket: JIRA-123"; exit 1`);
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const engine = new Engine(repo.dir, { now });
    const runner = new ScriptedRunner({ phases: { 0: { tasks: 1 } } });
    const waiting = (await drive(
      engine,
      (await engine.start(SPEC_PATH, "--human-gates")).step,
      runner,
      new PolicyGate(),
    ).catch((e: NoAnswer) => e)) as NoAnswer;
    const ask = waiting.step;
    expect(ask.next.kind === "ask" && ask.next.humanOnly).toEqual(["commit without hooks this once"]);
    const refused = await failure(engine.decide(SLUG, ask.stepId, "commit without hooks this once", undefined, "host"));
    expect(refused.code).toBe("human_required");
    const next = await engine.decide(
      SLUG,
      ask.stepId,
      "commit without hooks this once",
      "the ticket hook is for people",
      "terminal",
    );
    const { final } = await drive(engine, next, runner, new PolicyGate());
    expect(final.state).toBe("DONE");
    expect((await ownCommits(head)).map((c) => c.subject)).toEqual(["Add Core"]);
    const state = await engine.read(SLUG);
    expect(state.decisions.find((d) => d.decision === "committed_without_hooks")?.by).toBe("terminal");
  });
});

describe("signing that fails", () => {
  it("is the coded error commit_rejected with git's message; the commit stays owed and is made once after the fix", async () => {
    const signer = path.join(repo.dir, ".git", "no-pinentry-gpg");
    await writeFile(signer, '#!/bin/sh\necho "gpg: signing failed: No pinentry" >&2\nexit 2\n');
    await chmod(signer, 0o755);
    await git(repo.dir, "config", "commit.gpgsign", "true");
    await git(repo.dir, "config", "gpg.program", signer);
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const engine = new Engine(repo.dir, { now });
    const runner = new ScriptedRunner({ phases: { 0: { tasks: 1 } } });
    const e = await failure(drive(engine, (await engine.start(SPEC_PATH)).step, runner, new PolicyGate()));
    expect(e.code).toBe("commit_rejected");
    expect(e.message).toMatch(/Git could not sign autopilot's commit "Phase 1: Core — execution complete"/);
    expect(e.message).toMatch(/gpg failed to sign the data/);
    expect(e.message).toMatch(/git config commit\.gpgsign false/);
    expect((await engine.read(SLUG)).outbox.map((x) => x.type)).toEqual(["commit"]);
    // Calling again before the fix changes nothing and says the same.
    expect((await failure(engine.next(SLUG))).code).toBe("commit_rejected");
    expect(await ownCommits(head)).toEqual([]);
    // The user turns signing off (their choice), and the next call makes the commit, once.
    await git(repo.dir, "config", "commit.gpgsign", "false");
    const step = await engine.next(SLUG);
    expect(step.report).toMatch(/Committed [0-9a-f]{7} Add Core/);
    const { final } = await drive(engine, step, runner, new PolicyGate());
    expect(final.state).toBe("DONE");
    expect((await ownCommits(head)).map((c) => c.subject)).toEqual(["Add Core"]);
  });

  it("the commit of the user's own changes that a hook refuses is commit_rejected too, with what to do", async () => {
    await hook("pre-commit", "echo 'TODO left in notes.md'; exit 1");
    await writeFile(path.join(repo.dir, "notes.md"), "TODO\n");
    const engine = new Engine(repo.dir, { now });
    const first = (await engine.start(SPEC_PATH)).step;
    const e = await failure(engine.decide(SLUG, first.stepId, "commit them first", undefined, "terminal"));
    expect(e.code).toBe("commit_rejected");
    expect(e.message).toMatch(
      /pre-commit hook rejected the commit of your changes made before autopilot:\nTODO left in notes\.md\n/,
    );
    expect(e.message).toMatch(/in your files \(or commit them yourself\)/);
    await hook("pre-commit", "exit 0");
    const step = await engine.next(SLUG);
    expect(step.report).toContain("Committed your 1 earlier change");
  });
});
