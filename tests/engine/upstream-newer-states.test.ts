// Sessions written by upstream's newer skill (states INTEGRATE and OUTCOME_EVAL, still
// schemaVersion 5; phase-N-integration.json files; plans with `**Owns:**` lines) resume here: each
// new state is read as the nearest of our ten, the user is told, the original value is kept, and
// the session runs to DONE in a real git repository with nothing of upstream's lost.
import { afterEach, describe, expect, it } from "vitest";
import { cp, mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { PolicyGate, drive } from "../../src/headless/drive.js";
import { migrateState } from "../../src/session/migrate.js";
import { countPlan } from "../../src/markdown/plan.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/upstream-newer/", import.meta.url));
const SPEC = "docs/changes/notify/proposal.md";
const SLUG = "changes--notify--proposal";
const PLANS = [
  "docs/changes/notify/plans/2026-09-01-delivery-core-plan.md",
  "docs/changes/notify/plans/2026-09-02-retry-policy-plan.md",
];

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

async function filesUnder(dir: string, base = dir): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) Object.assign(out, await filesUnder(abs, base));
    else out[path.relative(base, abs).split(path.sep).join("/")] = await readFile(abs, "utf8");
  }
  return out;
}

/** A repository holding the fixture project, with the session paused in `which`. */
async function pausedIn(which: "integrate" | "outcome-eval") {
  repo = await makeRepo({
    files: { "README.md": "# notify\n", ...(await filesUnder(path.join(FIXTURES, "project"))) },
  });
  const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
  const dir = path.join(repo.dir, ".harness/sessions", SLUG);
  await mkdir(dir, { recursive: true });
  await cp(path.join(FIXTURES, which), dir, { recursive: true });
  const stateFile = path.join(dir, "autopilot-state.json");
  const text = (await readFile(stateFile, "utf8")).replace("STARTING_COMMIT", head);
  await writeFile(stateFile, text);
  return { dir, original: JSON.parse(text) as Record<string, any>, head };
}

const clock = (() => {
  let n = 0;
  return () => new Date(Date.UTC(2026, 8, 3, 10, 0, n++));
})();

describe("upstream's newer session files", () => {
  it("plans with **Owns:** lines count the same tasks and checkpoints", async () => {
    for (const [file, tasks, checkpoints] of [
      [PLANS[0], 3, 0],
      [PLANS[1], 2, 1],
    ] as const) {
      const counted = countPlan(await readFile(path.join(FIXTURES, "project", file), "utf8"));
      expect(counted, file).toMatchObject({ tasks, checkpoints });
    }
  });

  it("a session paused at INTEGRATE is read as VERIFY, keeps the original, and resumes to DONE with nothing lost", async () => {
    const { dir, original } = await pausedIn("integrate");
    const integration = await readFile(path.join(dir, "phase-0-integration.json"), "utf8");
    const plansBefore = await Promise.all(PLANS.map((p) => readFile(path.join(repo!.dir, p), "utf8")));

    const engine = new Engine(repo!.dir, { now: clock });
    const { step, resumed, notes } = await engine.start(SPEC);
    expect(resumed).toBe(true);
    expect(step.state).toBe("VERIFY");
    expect(step.next).toMatchObject({ kind: "dispatch", persona: "harness-verifier" });
    // The user is told what was mapped, and why.
    expect(notes.join("\n")).toContain('currentState "INTEGRATE" read as "VERIFY"');
    expect(notes.join("\n")).toContain("phase-N-integration.json is kept");

    const { final } = await drive(engine, step, new ScriptedRunner(), new PolicyGate());
    expect(final.state).toBe("DONE");

    const state = await engine.read(SLUG);
    expect(state.originalCurrentState).toBe("INTEGRATE");
    // Upstream's own fields and records are all still there.
    expect(state.integration).toEqual(original.integration);
    expect(state.phases.map((p) => p.integrationTier)).toEqual(["small", "small"]);
    expect(state.decisions.slice(0, 2)).toEqual(original.decisions);
    expect(state.phases.map((p) => p.status)).toEqual(["complete", "complete"]);
    // Phase 2's plan (with **Owns:** lines) was read, counted and left as it was.
    expect(state.history[1]).toMatchObject({ phase: 1, tasksCompleted: 2 });
    expect(state.decisions.find((d) => d.phase === 1 && d.signals)?.signals?.taskCount).toBe(2);
    for (const [i, p] of PLANS.entries()) expect(await readFile(path.join(repo!.dir, p), "utf8")).toBe(plansBefore[i]);
    expect(await readFile(path.join(dir, "phase-0-integration.json"), "utf8")).toBe(integration);
    expect(await readFile(path.join(dir, "state.json"), "utf8")).toContain('"Task 3": "complete"');
  });

  it("a session paused at OUTCOME_EVAL is read as FINAL_REVIEW and finishes with its history, reviews and extra fields intact", async () => {
    const { dir, original } = await pausedIn("outcome-eval");
    const before = await filesUnder(dir);

    const engine = new Engine(repo!.dir, { now: clock });
    const { step, notes } = await engine.start(SPEC);
    expect(step.state).toBe("FINAL_REVIEW");
    expect(step.next).toMatchObject({ kind: "dispatch", persona: "harness-code-reviewer" });
    expect(notes.join("\n")).toContain('currentState "OUTCOME_EVAL" read as "FINAL_REVIEW"');

    const { final } = await drive(engine, step, new ScriptedRunner(), new PolicyGate());
    expect(final.state).toBe("DONE");
    expect(final.next.kind).toBe("done");

    const state = await engine.read(SLUG);
    expect(state.originalCurrentState).toBe("OUTCOME_EVAL");
    expect(state.outcomeEval).toEqual(original.outcomeEval);
    expect(state.history).toHaveLength(2);
    for (const [i, h] of original.history.entries()) {
      expect(state.history[i]).toMatchObject({
        phase: h.phase,
        name: h.name,
        tasksCompleted: h.tasksCompleted,
        integrationPassed: true,
      });
    }
    expect(state.decisions.slice(0, 3).map((d) => d.decision)).toEqual(original.decisions.map((d: any) => d.decision));
    expect(state.decisions[1].rationale).toBe("checkpoint reviewed");
    expect(state.phases.map((p) => [p.status, p.completedAt])).toEqual(
      original.phases.map((p: any) => [p.status, p.completedAt]),
    );
    // Upstream's integration and review files are untouched; DONE wrote its own files beside them.
    const after = await filesUnder(dir);
    for (const f of [
      "phase-0-integration.json",
      "phase-1-integration.json",
      "phase-0-review.json",
      "phase-1-review.json",
    ])
      expect(after[f], f).toBe(before[f]);
    expect(JSON.parse(after["handoff.json"])).toMatchObject({ fromSkill: "harness-autopilot", phase: "DONE" });
  });

  it("autopilot state check's reader keeps every field of both files", async () => {
    for (const which of ["integrate", "outcome-eval"]) {
      const raw = JSON.parse(await readFile(path.join(FIXTURES, which, "autopilot-state.json"), "utf8"));
      const { state, notes } = migrateState(raw, {});
      for (const k of Object.keys(raw)) expect(Object.keys(state), `${which}: ${k}`).toContain(k);
      expect(state).toMatchObject({ schemaVersion: 5, originalCurrentState: raw.currentState });
      expect(notes.some((n) => n.includes(`"${raw.currentState}" read as`))).toBe(true);
    }
  });
});
