import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyFile, mkdir, readdir, readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { readHandoff, writeFinalHandoff } from "../../src/effects/handoff.js";
import { fixturesDir, haveCorpus, tmpProject, upstreamDir } from "./_env.js";
import { sessionPathsAt } from "../../src/session/paths.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tmpProject()));
afterEach(() => cleanup());

const sessionDir = ".harness/sessions/s";
async function place(src: string): Promise<void> {
  await mkdir(path.join(dir, sessionDir), { recursive: true });
  await copyFile(src, path.join(dir, sessionDir, "handoff.json"));
}

describe("tolerant handoff reading", () => {
  it("a planner handoff without timestamp: concerns, string decisions, plan from its artifacts", async () => {
    await place(path.join(fixturesDir, "handoffs/planner-no-timestamp.json"));
    const h = (await readHandoff(sessionPathsAt(dir, sessionDir)))!;
    expect(h.timestamp).toBeNull();
    expect(h.phase).toBe("VALIDATE");
    expect(h.concerns).toEqual(["Rule loader may need a cache", "Two tasks touch the same file"]);
    expect(h.decisions).toEqual([{ what: "Use a registry instead of a switch" }]);
    expect(h.planPath).toBe("docs/changes/scanner/plans/2026-03-19-rule-engine-plan.md");
  });

  it("an executor handoff: {what, why} decisions, completedTasks/pendingTasks, no concerns, unknown fields kept", async () => {
    await place(path.join(fixturesDir, "handoffs/executor-what-why.json"));
    const h = (await readHandoff(sessionPathsAt(dir, sessionDir)))!;
    expect(h.phase).toBeNull();
    expect(h.concerns).toEqual([]);
    expect(h.decisions).toEqual([
      { what: "Downgraded web-tree-sitter", why: "WASM format mismatch" },
      { what: "Kept the old parser behind a flag" },
    ]);
    expect(h.completed).toEqual(["Task 1", "Task 2", "Task 3"]);
    expect(h.pending).toEqual(["Task 4"]);
    expect(h.verificationResults).toEqual({ tsc: "pass" });
    expect(h.learnings).toEqual(["tsup, not tsc --build"]);
    // an executor's plan file in its artifacts is not its plan
    expect(h.planPath).toBeNull();
  });

  it("a minimal verifier handoff normalises to empty lists", async () => {
    await place(path.join(fixturesDir, "handoffs/verifier-minimal.json"));
    expect(await readHandoff(sessionPathsAt(dir, sessionDir))).toMatchObject({
      fromSkill: "harness-verification",
      completed: [],
      pending: [],
      concerns: [],
      decisions: [],
      verdict: "pass",
    });
  });

  it("absent or torn handoff → null", async () => {
    expect(await readHandoff(sessionPathsAt(dir, sessionDir))).toBeNull();
    await place(path.join(fixturesDir, "handoffs/broken.json"));
    expect(await readHandoff(sessionPathsAt(dir, sessionDir))).toBeNull();
  });

  it.skipIf(!haveCorpus)("reads every real handoff.json in the corpus without losing a field", async () => {
    const files: string[] = [];
    for (const s of await readdir(path.join(upstreamDir, "sessions"))) {
      const f = path.join(upstreamDir, "sessions", s, "handoff.json");
      if (existsSync(f)) files.push(f);
    }
    files.push(path.join(upstreamDir, "legacy-v1/handoff.json"));
    expect(files.length).toBeGreaterThan(20);
    for (const f of files) {
      await place(f);
      const raw = JSON.parse(await readFile(f, "utf8")) as Record<string, unknown>;
      const h = await readHandoff(sessionPathsAt(dir, sessionDir));
      expect(h, f).not.toBeNull();
      for (const k of Object.keys(raw)) expect(h, `${f}: ${k}`).toHaveProperty(k);
      expect(Array.isArray(h!.concerns)).toBe(true);
      expect(
        h!.decisions.every((d) => typeof d.what === "string" && d.what.length > 0),
        f,
      ).toBe(true);
      if (Array.isArray(raw.decisions)) expect(h!.decisions.length, f).toBe(raw.decisions.length);
      expect(typeof h!.summary).toBe("string");
    }
  });
});

describe("final handoff at DONE", () => {
  const data = {
    summary: "Completed 3 phases with 30 total tasks",
    completed: ["Phase 1: Core Scanner", "Phase 2: Rule Engine", "Phase 3: CLI"],
    decisions: [
      { phase: 0, decision: "auto_approved_plan", by: "auto", fired: [] },
      { phase: 1, decision: "approved_plan", by: "human", fired: ["highComplexity"] },
      { phase: null, decision: "overridden_final_review", rationale: "accepted risk", state: "FINAL_REVIEW" },
      "a legacy string decision",
    ],
    contextKeywords: ["scanner", "rules"],
    finalReview: { status: "passed", findingsCount: 1 },
  };

  it("writes the fields the skill lists and reads back through the tolerant reader", async () => {
    await writeFinalHandoff(sessionPathsAt(dir, sessionDir), data);
    const raw = JSON.parse(await readFile(path.join(dir, sessionDir, "handoff.json"), "utf8"));
    expect(Object.keys(raw)).toEqual([
      "fromSkill",
      "phase",
      "summary",
      "completed",
      "pending",
      "concerns",
      "decisions",
      "contextKeywords",
      "finalReview",
    ]);
    expect(raw).toMatchObject({
      fromSkill: "harness-autopilot",
      phase: "DONE",
      pending: [],
      concerns: [],
      finalReview: { status: "passed", findingsCount: 1 },
    });
    expect(raw.decisions).toEqual([
      "Phase 1: auto_approved_plan (auto)",
      "Phase 2: approved_plan (human) [signals: highComplexity]",
      "FINAL_REVIEW: overridden_final_review — accepted risk",
      "a legacy string decision",
    ]);
    const h = await readHandoff(sessionPathsAt(dir, sessionDir));
    expect(h!.phase).toBe("DONE");
  });

  it("a replay writes the same bytes and reports nothing written", async () => {
    expect((await writeFinalHandoff(sessionPathsAt(dir, sessionDir), data)).written).toBe(true);
    const before = await readFile(path.join(dir, sessionDir, "handoff.json"), "utf8");
    expect((await writeFinalHandoff(sessionPathsAt(dir, sessionDir), data)).written).toBe(false);
    expect(await readFile(path.join(dir, sessionDir, "handoff.json"), "utf8")).toBe(before);
  });

  it("refuses a session directory outside the project", async () => {
    await expect((async () => writeFinalHandoff(sessionPathsAt(dir, "../elsewhere"), data))()).rejects.toMatchObject({
      code: "outside_project",
    });
  });
});
