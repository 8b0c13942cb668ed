// A parallel session's plan: the dependency lines are checked like the rest of the plan
// (a circle or an unknown task goes back to the planner), and a sound plan's waves are shown at the
// plan gate and kept in the state file. A serial session reads the same plan as before.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import type { Step } from "../../src/protocol/step.js";
import { readDecisionLog, renderHtml, renderMarkdown } from "../../src/log/index.js";

const SPEC_PATH = "docs/changes/api/proposal.md";
const SLUG = "changes--api--proposal";
const SPEC = `# API\n\n## Implementation Order\n\n### Phase 1: Endpoints\n<!-- complexity: low -->\nThree endpoints.\n`;

let repo: TempRepo;
let clock = 0;
const now = () => new Date(Date.UTC(2026, 2, 19, 10, 0, clock++));

beforeEach(async () => {
  repo = await makeRepo();
  await mkdir(path.join(repo.dir, "docs/changes/api"), { recursive: true });
  await writeFile(path.join(repo.dir, SPEC_PATH), SPEC);
  await git(repo.dir, "add", "-A");
  await git(repo.dir, "commit", "-qm", "spec");
});
afterEach(async () => repo.cleanup());

function planText(deps: string[]): string {
  const tasks = deps.map(
    (d, i) =>
      `### Task ${i + 1}: endpoint ${i + 1}\n\n**Depends on:** ${d} | **Files:** src/e${i + 1}.ts, test/e${i + 1}.test.ts\n\n1. Write the test, then the endpoint.\n\n**Verify:** \`npm test\` → passes\n`,
  );
  return `# Plan: Endpoints\n\n**Tasks:** ${deps.length}\n\n${tasks.join("\n")}`;
}

async function plan(engine: Engine, step: Step, deps: string[]): Promise<Step> {
  if (step.next.kind !== "dispatch") throw new Error(`expected a dispatch, got ${JSON.stringify(step.next)}`);
  const planPath = step.next.expects.artifacts.plan!;
  await mkdir(path.dirname(path.join(repo.dir, planPath)), { recursive: true });
  await writeFile(path.join(repo.dir, planPath), planText(deps));
  return engine.report(SLUG, step.stepId, { kind: "planned", planPath, summary: "three endpoints" });
}

async function brief(step: Step): Promise<string> {
  if (step.next.kind !== "dispatch") throw new Error("expected a dispatch");
  return readFile(path.join(repo.dir, step.next.expects.artifacts.brief!), "utf8");
}

async function state(): Promise<Record<string, any>> {
  return JSON.parse(await readFile(path.join(repo.dir, ".harness/sessions", SLUG, "autopilot-state.json"), "utf8"));
}

describe("a parallel session's plan", () => {
  it("sends a plan whose dependencies form a circle back to the planner, then shows and records the waves of the fixed plan", async () => {
    const engine = new Engine(repo.dir, { now });
    const { step } = await engine.start(SPEC_PATH, "--parallel");
    expect((await state()).parallel).toEqual({ minIndependent: 3 });
    // The planner's brief asks for the header line (a serial session's does not: see below).
    expect(await brief(step)).toContain(
      `under each task heading write "**Depends on:** Task N, Task M | **Files:** <path>, <path> | **Owns:** <glob>"`,
    );

    const back = await plan(engine, step, ["Task 2", "Task 1", "none", "Task 7"]);
    expect(back.state).toBe("PLAN");
    expect(back.next.kind === "dispatch" && back.next.persona).toBe("harness-planner");
    expect(back.report).toContain("Task 4 (endpoint 4) depends on Task 7, which the plan does not have");
    expect(back.report).toContain("Tasks 1 → 2 → 1 depend on each other in a circle");
    expect((await state()).phaseRun.waves).toBeNull();

    const ok = await plan(engine, back, ["none", "none", "none", "Task 1"]);
    expect(ok.state).toBe("EXECUTE");
    expect(ok.report).toContain("Waves: 2 waves, at most 3 tasks at once");
    expect(ok.report).toContain("wave 1: Task 1, Task 2, Task 3");
    expect(ok.report).toContain("wave 2: Task 4");
    expect((await state()).phaseRun.waves).toEqual({
      parallel: true,
      waves: [["1", "2", "3"], ["4"]],
      reason: "2 waves, at most 3 tasks at once",
      serialized: [],
    });
    // The decision log (JSON model, Markdown, HTML) shows the waves the plan was approved with.
    const log = (await readDecisionLog(repo.dir, SLUG))!;
    const gate = log.decisions.find((d) => d.plan)!;
    expect(gate.decision).toBe("auto_approved_plan");
    expect(gate.plan!.waves).toBe("1, 2, 3 → 4 (tasks per wave, in order)");
    expect(renderMarkdown(log)).toContain(`- #${gate.n} 1. Endpoints: 1, 2, 3 → 4 (tasks per wave, in order)`);
    expect(renderHtml(log)).toContain("<strong>Waves:</strong> 1, 2, 3 → 4 (tasks per wave, in order)");
  });

  it("takes the minimum of independent tasks from .harness/config.json and runs below it serially", async () => {
    await mkdir(path.join(repo.dir, ".harness"), { recursive: true });
    await writeFile(
      path.join(repo.dir, ".harness/config.json"),
      JSON.stringify({ parallel: true, parallelMinTasks: 4 }),
    );
    await git(repo.dir, "add", "-A");
    await git(repo.dir, "commit", "-qm", "config");
    const engine = new Engine(repo.dir, { now });
    const { step } = await engine.start(SPEC_PATH);
    const ok = await plan(engine, step, ["none", "none", "none", "Task 1"]);
    expect(ok.report).toContain("Waves: at most 3 tasks could run at once, fewer than 4: the plan runs serially");
    expect((await state()).phaseRun.waves).toMatchObject({ parallel: false, waves: [["1"], ["2"], ["3"], ["4"]] });
  });

  it("leaves a serial session's plan as it was: dependency lines are not checked and no waves are kept", async () => {
    const engine = new Engine(repo.dir, { now });
    const { step } = await engine.start(SPEC_PATH);
    expect(await brief(step)).not.toContain("Depends on");
    const ok = await plan(engine, step, ["Task 2", "Task 1", "none", "Task 7"]);
    expect(ok.state).toBe("EXECUTE");
    expect(ok.report).not.toContain("Waves");
    const s = await state();
    expect(s.parallel).toBeUndefined();
    expect(s.phaseRun).not.toHaveProperty("waves");
  });
});
