// autopilot commits only its own work. In real git repositories: changes the user had before the
// session (tracked, staged, untracked), client files `autopilot install` wrote, the spec the person
// edits mid-session and a second session's spec stay out of every autopilot commit unless the user
// chose otherwise, and the choice is in the decision log.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { PolicyGate, drive, type Gate, type GateAnswer } from "../../src/headless/drive.js";
import type { AskNext, Step } from "../../src/protocol/step.js";
import type { PersonaRunner, PersonaTask, RunnerOutcome } from "../../src/runners/types.js";
import { MAIN_JS, assertBuilt } from "../helpers/mcp-client.js";

const execFileP = promisify(execFile);

const SPEC_PATH = "docs/changes/widget/proposal.md";
const SLUG = "changes--widget--proposal";
const SPEC = `# Widget

## Implementation Order

### Phase 1: Core
<!-- complexity: low -->
Build it.

### Phase 2: Polish
<!-- complexity: low -->
Polish it.
`;

let repo: TempRepo;
let clock = 0;
const now = () => new Date(Date.UTC(2026, 2, 19, 10, 0, clock++));

beforeEach(async () => {
  repo = await makeRepo({
    files: { "README.md": "# widget\n", "src/app.ts": "export const app = 1;\n", [SPEC_PATH]: SPEC },
  });
});
afterEach(async () => repo.cleanup());

/** The policy, but the user-changes question answered as the test says. */
class UserGate implements Gate {
  readonly asked: Step[] = [];
  private readonly policy = new PolicyGate();
  constructor(private readonly choice: string) {}
  async answer(step: Step, ask: AskNext): Promise<GateAnswer> {
    if (ask.options.includes("leave them out")) {
      this.asked.push(step);
      return { answer: this.choice, by: "terminal", rationale: "test" };
    }
    return this.policy.answer(step, ask);
  }
}

/** Files changed by each commit after `since`, by subject, and whether autopilot signed it (its step trailer). */
async function commitsAfter(since: string): Promise<Array<{ subject: string; files: string[]; autopilot: boolean }>> {
  const out = await git(
    repo.dir,
    "log",
    "--reverse",
    "--format=%x1e%s%x1f%(trailers:key=Autopilot,valueonly,separator=%x2c)%x1f",
    "--name-only",
    `${since}..HEAD`,
  );
  return out
    .split("\x1e")
    .filter((r) => r.trim())
    .map((r) => {
      const [subject, step, rest] = r.split("\x1f");
      const files = rest
        .split("\n")
        .map((f) => f.trim())
        .filter(Boolean);
      return { subject, files, autopilot: step.trim() !== "" };
    });
}

async function run(engine: Engine, gate: Gate, runner: PersonaRunner = new ScriptedRunner()) {
  return drive(engine, (await engine.start(SPEC_PATH)).step, runner, gate);
}

async function userDirtiesTheTree() {
  await appendFile(path.join(repo.dir, "README.md"), "my unfinished notes\n"); // tracked, unstaged
  await writeFile(path.join(repo.dir, "dirty.txt"), "scratch\n"); // untracked
  await writeFile(path.join(repo.dir, "staged.ts"), "export const staged = true;\n");
  await git(repo.dir, "add", "staged.ts"); // staged
}

describe("autopilot commits only its own work", () => {
  it("asks before anything else when the tree has changes it did not make, and leaves them out when told to", async () => {
    await userDirtiesTheTree();
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const engine = new Engine(repo.dir, { now });
    const first = (await engine.start(SPEC_PATH)).step;
    expect(first.state).toBe("INIT");
    expect(first.next.kind).toBe("ask");
    const ask = first.next as AskNext;
    expect(ask.options).toEqual(["commit them first", "leave them out", "stop"]);
    expect(ask.context).toContain("README.md");
    expect(ask.context).toContain("dirty.txt");
    expect(ask.context).toContain("staged.ts");
    // Nothing was committed and nothing dispatched before the answer.
    expect((await git(repo.dir, "rev-parse", "HEAD")).trim()).toBe(head);

    const gate = new UserGate("leave them out");
    const { final } = await drive(engine, first, new ScriptedRunner(), gate);
    expect(final.state).toBe("DONE");
    const commits = await commitsAfter(head);
    expect(commits.length).toBeGreaterThanOrEqual(2);
    for (const c of commits) {
      expect(c.autopilot, c.subject).toBe(true);
      for (const f of ["README.md", "dirty.txt", "staged.ts"])
        expect(c.files, `${c.subject} has ${f}`).not.toContain(f);
    }
    // The user's work is where they left it: edited, untracked, still staged.
    expect(await readFile(path.join(repo.dir, "README.md"), "utf8")).toContain("my unfinished notes");
    const status = await git(repo.dir, "status", "--porcelain");
    expect(status).toContain(" M README.md");
    expect(status).toContain("?? dirty.txt");
    expect(status).toContain("A  staged.ts");
    const state = await engine.read(SLUG);
    expect(state.decisions[0]).toMatchObject({
      decision: "left_out_user_changes",
      answer: "leave them out",
      by: "terminal",
      phase: null,
      state: "INIT",
    });
    expect(state.decisions[0].paths).toEqual(["README.md", "dirty.txt", "staged.ts"]);
  });

  it("commits the user's changes in a commit of their own when they say so, and starts from it", async () => {
    await userDirtiesTheTree();
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const engine = new Engine(repo.dir, { now });
    const { final } = await run(engine, new UserGate("commit them first"));
    expect(final.state).toBe("DONE");
    const commits = await commitsAfter(head);
    expect(commits[0].subject).toBe(`Work in progress before autopilot (${SLUG})`);
    expect(commits[0].files.sort()).toEqual(["README.md", "dirty.txt", "staged.ts"]);
    expect(commits[0].autopilot).toBe(false);
    for (const c of commits.slice(1)) expect(c.autopilot, c.subject).toBe(true);
    const state = await engine.read(SLUG);
    expect(state.startingCommit).toBe((await git(repo.dir, "rev-parse", "HEAD~" + (commits.length - 1))).trim());
    expect(state.decisions[0]).toMatchObject({ decision: "committed_user_changes", by: "terminal" });
    expect((await git(repo.dir, "status", "--porcelain", "--", ".", ":(exclude).harness")).trim()).toBe("");
  });

  it("stop leaves the session at the question, nothing committed", async () => {
    await userDirtiesTheTree();
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const engine = new Engine(repo.dir, { now });
    const { final } = await run(engine, new UserGate("stop"));
    expect(final.next.kind).toBe("wait");
    expect((await git(repo.dir, "rev-parse", "HEAD")).trim()).toBe(head);
    const again = await engine.start(SPEC_PATH);
    expect(again.step.next.kind).toBe("ask");
    expect((again.step.next as AskNext).options).toContain("leave them out");
    expect((await engine.read(SLUG)).decisions.map((d) => d.decision)).toEqual(["stopped"]);
  });

  it("a clean tree is not asked anything", async () => {
    const engine = new Engine(repo.dir, { now });
    const { step } = await engine.start(SPEC_PATH);
    expect(step.state).toBe("PLAN");
    expect(step.next.kind).toBe("dispatch");
  });

  it("leaves a file both the user and autopilot changed out of the commit, and says so in the Step", async () => {
    await appendFile(path.join(repo.dir, "README.md"), "user's line\n");
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    // An executor that also edits README.md.
    const scripted = new ScriptedRunner();
    const runner: PersonaRunner = {
      name: "scripted",
      simulated: true,
      async run(task: PersonaTask): Promise<RunnerOutcome> {
        if (task.persona === "harness-task-executor")
          await appendFile(path.join(repo.dir, "README.md"), `autopilot's line ${task.phaseIndex}\n`);
        return scripted.run(task);
      },
    };
    const reports: string[] = [];
    const engine = new Engine(repo.dir, { now });
    const { final } = await drive(
      engine,
      (await engine.start(SPEC_PATH)).step,
      runner,
      new UserGate("leave them out"),
      {
        onStep: (s) => s.report && reports.push(s.report),
      },
    );
    expect(final.state).toBe("DONE");
    for (const c of await commitsAfter(head)) expect(c.files).not.toContain("README.md");
    const all = reports.join("\n");
    expect(all).toContain("Left out of autopilot's commit");
    expect(all).toMatch(
      /README\.md — you had uncommitted changes there when the session started, and it has changed since/,
    );
    // Both lines are still in the working tree for the user to commit.
    const readme = await readFile(path.join(repo.dir, "README.md"), "utf8");
    expect(readme).toContain("user's line");
    expect(readme).toContain("autopilot's line 0");
  });

  it("leaves the spec the person edited mid-session out of the recovery commit and every later one, and says so", async () => {
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const scripted = new ScriptedRunner({ phases: { 0: { tasks: 3, planDefectAt: 2 } } });
    let edited = false;
    // While the executor works, the person settles a question in the spec: their words, not the session's work.
    const runner: PersonaRunner = {
      name: "scripted",
      simulated: true,
      async run(task: PersonaTask): Promise<RunnerOutcome> {
        if (task.persona === "harness-task-executor" && !edited) {
          edited = true;
          await appendFile(path.join(repo.dir, SPEC_PATH), "\nCounts ignore blank lines.\n");
        }
        return scripted.run(task);
      },
    };
    const reports: string[] = [];
    const engine = new Engine(repo.dir, { now });
    const { final } = await drive(engine, (await engine.start(SPEC_PATH)).step, runner, new PolicyGate(), {
      onStep: (s) => s.report && reports.push(s.report),
    });
    expect(final.state).toBe("DONE");
    const commits = await commitsAfter(head);
    // The executor's work before the plan went back is in a recovery commit, without the spec.
    expect(await git(repo.dir, "log", "--format=%B", `${head}..HEAD`)).toMatch(/^Autopilot: .*plan revision/m);
    for (const c of commits) expect(c.files).not.toContain(SPEC_PATH);
    expect(reports.join("\n")).toContain(
      `${SPEC_PATH} — the spec this session works from: your edit, left for you to commit`,
    );
    expect(await readFile(path.join(repo.dir, SPEC_PATH), "utf8")).toContain("Counts ignore blank lines.");
    expect(await git(repo.dir, "status", "--porcelain", "--", SPEC_PATH)).toMatch(/^ M /);
  });

  it("keeps client files `autopilot install claude` wrote out of every commit", async () => {
    assertBuilt();
    await execFileP(process.execPath, [MAIN_JS, "install", "claude"], {
      cwd: repo.dir,
      env: { ...process.env, HOME: repo.dir },
    });
    const installed = (await git(repo.dir, "status", "--porcelain", "--untracked-files=all"))
      .trim()
      .split("\n")
      .map((l) => l.slice(3));
    expect(installed).toContain(".mcp.json");
    expect(installed.some((p) => p.startsWith(".claude/"))).toBe(true);
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const engine = new Engine(repo.dir, { now });
    const gate = new UserGate("leave them out");
    // Installed again mid-session (a second client, a re-run): still not the session's work.
    const scripted = new ScriptedRunner();
    let once = false;
    const runner: PersonaRunner = {
      name: "scripted",
      simulated: true,
      async run(task: PersonaTask): Promise<RunnerOutcome> {
        if (task.persona === "harness-task-executor" && !once) {
          once = true;
          await mkdir(path.join(repo.dir, ".gemini"), { recursive: true });
          await writeFile(path.join(repo.dir, ".gemini/settings.json"), "{}\n");
        }
        return scripted.run(task);
      },
    };
    const { final } = await drive(engine, (await engine.start(SPEC_PATH)).step, runner, gate);
    expect(final.state).toBe("DONE");
    // The install's files are the client's setup, not uncommitted work of the user's: nothing to ask.
    expect(gate.asked).toHaveLength(0);
    for (const c of await commitsAfter(head)) {
      expect(
        c.files.filter((f) => f === ".mcp.json" || f.startsWith(".claude/") || f.startsWith(".gemini/")),
        c.subject,
      ).toEqual([]);
    }
  });

  it("the question at the start counts the user's own changes, not the files `autopilot install` wrote", async () => {
    assertBuilt();
    await execFileP(process.execPath, [MAIN_JS, "install", "claude"], {
      cwd: repo.dir,
      env: { ...process.env, HOME: repo.dir },
    });
    await appendFile(path.join(repo.dir, "README.md"), "the user's line\n");
    const engine = new Engine(repo.dir, { now });
    const { step } = await engine.start(SPEC_PATH);
    expect(step.next.kind).toBe("ask");
    expect(step.report).toContain("1 uncommitted change autopilot did not make");
    expect((await engine.read(SLUG)).userChanges?.paths).toEqual(["README.md"]);
  });

  it("keeps a second session's spec and plan out of the first session's commits", async () => {
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const engine = new Engine(repo.dir, { now });
    const a = await engine.start(SPEC_PATH);
    expect(a.step.next.kind).toBe("dispatch");
    // The user writes a second spec and starts it while the first session runs.
    const other = "docs/changes/gadget/proposal.md";
    await mkdir(path.join(repo.dir, "docs/changes/gadget"), { recursive: true });
    await writeFile(path.join(repo.dir, other), SPEC.replace("# Widget", "# Gadget"));
    const b = await engine.start(other);
    // Its own spec is untracked: the second session asks about it too.
    expect(b.step.next.kind).toBe("ask");
    let bStep = await engine.decide(b.step.session, b.step.stepId, "leave them out");
    // The second session plans (its plan file appears in the shared checkout).
    expect(bStep.next.kind).toBe("dispatch");
    const scripted = new ScriptedRunner();
    const task = {
      ...(bStep.next as never as PersonaTask),
      projectRoot: repo.dir,
      session: bStep.session,
      phaseIndex: 0,
      phaseName: "Core",
    };
    const planned = await scripted.run(task);
    bStep = await engine.report(bStep.session, bStep.stepId, planned.result);
    const bState = await engine.read(bStep.session);
    const bPlan = bState.phases[0].planPath!;
    expect(bPlan).toBeTruthy();

    const { final } = await drive(engine, a.step, scripted, new PolicyGate());
    expect(final.state).toBe("DONE");
    const commits = await commitsAfter(head);
    expect(commits.length).toBeGreaterThanOrEqual(2);
    for (const c of commits) {
      expect(c.files, c.subject).not.toContain(other);
      expect(c.files, c.subject).not.toContain(bPlan);
    }
  });
});
