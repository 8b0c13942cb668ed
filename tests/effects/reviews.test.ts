import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cp, readFile, readdir, rename } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { formatFindingsForPrompt, readPhaseReviews, writePhaseReview } from "../../src/effects/reviews.js";
import { fixturesDir, haveCorpus, tmpProject, upstreamDir } from "./_env.js";
import { sessionPathsAt } from "../../src/session/paths.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tmpProject()));
afterEach(() => cleanup());
const sessionDir = ".harness/sessions/s";

describe("phase review files", () => {
  it("REVIEW writes phase-<phase number>-review.json as an array in the skill's shape: Phase 1's is phase-1-review.json", async () => {
    await writePhaseReview(sessionPathsAt(dir, sessionDir), 0, [
      { severity: "critical", file: "src/a.ts", line: 12, title: "Null deref", rationale: "x may be undefined" },
      { severity: "note", title: "Naming" },
    ]);
    expect(await readdir(path.join(dir, sessionDir))).toEqual(["phase-1-review.json"]);
    const raw = JSON.parse(await readFile(path.join(dir, sessionDir, "phase-1-review.json"), "utf8"));
    expect(raw).toEqual([
      {
        severity: "blocking",
        file: "src/a.ts",
        line: 12,
        title: "Null deref",
        rationale: "x may be undefined",
        originalSeverity: "critical",
      },
      { severity: "note", title: "Naming" },
    ]);
  });

  it("a replay writes the same file and reports nothing written", async () => {
    const f = [{ severity: "warning", title: "w" }];
    expect((await writePhaseReview(sessionPathsAt(dir, sessionDir), 2, f)).written).toBe(true);
    expect((await writePhaseReview(sessionPathsAt(dir, sessionDir), 2, f)).written).toBe(false);
  });

  it("reads arrays with 0-based N and both severity vocabularies", async () => {
    await cp(path.join(fixturesDir, "reviews/zero-based"), path.join(dir, sessionDir), { recursive: true });
    const r = await readPhaseReviews(sessionPathsAt(dir, sessionDir), { phaseCount: 2 });
    expect(r.map((x) => [x.file, x.phase])).toEqual([
      ["phase-0-review.json", 0],
      ["phase-1-review.json", 1],
    ]);
    expect(r[1].findings.map((f) => f.severity)).toEqual(["blocking", "warning", "note"]);
    expect(r[0].findings[0]).toMatchObject({ line: 108, title: "Step 5 resume ambiguity" });
    expect(r[0].findings[1]).toMatchObject({ line: 26, lineEnd: 28 });
    expect(r[1].findings[2]).toMatchObject({ rationale: "Uses \\n\\n now." });
  });

  it("reads objects with a findings field and 1-based N", async () => {
    await cp(path.join(fixturesDir, "reviews/one-based-objects"), path.join(dir, sessionDir), { recursive: true });
    const r = await readPhaseReviews(sessionPathsAt(dir, sessionDir), { phaseCount: 2 });
    expect(r.map((x) => x.phase)).toEqual([0, 1]);
    expect(r[0].findings).toEqual([
      { severity: "blocking", file: "src/a.ts", title: "Unchecked null" },
      {
        severity: "warning",
        file: "src/b.ts",
        title: "Scanner divergence",
        status: "fixed",
        fix: "Added JSDoc",
        rationale: "Added JSDoc",
        originalSeverity: "important",
      },
    ]);
  });

  it("reads the files it writes by their phase numbers, and an older session's 0-based files beside them", async () => {
    const ws = sessionPathsAt(dir, sessionDir);
    const rounds = (title: string) => ({ rounds: [{ findings: [{ severity: "note", title }], resolution: null }] });
    // Two phases of a three-phase session, named by their numbers: phase-1 and phase-2.
    await writePhaseReview(ws, 0, [], { ...rounds("one"), name: "Core" });
    await writePhaseReview(ws, 1, [], { ...rounds("two"), name: "Command" });
    const fresh = await readPhaseReviews(ws, { phaseCount: 3 });
    expect(fresh.map((r) => [r.file, r.phase, r.findings[0].title])).toEqual([
      ["phase-1-review.json", 0, "one"],
      ["phase-2-review.json", 1, "two"],
    ]);
    expect(formatFindingsForPrompt(fresh, { phaseNames: ["Core", "Command"] }).split("\n")[0]).toBe(
      "Phase 1 (Core), phase-1-review.json: 0 blocking, 0 warning, 1 note",
    );
    // A session begun by an earlier autopilot: phase 1 in phase-0-review.json (upstream's bare array),
    // resumed in phase 2, whose file is named by its number. Each is read as its own phase.
    const older = sessionPathsAt(dir, ".harness/sessions/older");
    await cp(path.join(fixturesDir, "reviews/zero-based/phase-0-review.json"), older.review(0));
    await writePhaseReview(older, 1, [], { ...rounds("two"), name: "Command" });
    expect((await readPhaseReviews(older, { phaseCount: 3 })).map((r) => [r.file, r.phase])).toEqual([
      ["phase-0-review.json", 0],
      ["phase-2-review.json", 1],
    ]);
    // Resumed in the middle of phase 2's review: its older file (phase-1, by index) and its new one
    // hold the same phase; the one named by the number is read, once.
    await writePhaseReview(older, 1, [], { ...rounds("two, older"), name: "Command" });
    await rename(older.review(2), older.review(1));
    await writePhaseReview(older, 1, [], { ...rounds("two, re-reviewed"), name: "Command" });
    expect(
      (await readPhaseReviews(older, { phaseCount: 3 })).map((r) => [r.file, r.phase, r.findings[0].title]),
    ).toEqual([
      ["phase-0-review.json", 0, "Step 5 resume ambiguity"],
      ["phase-2-review.json", 1, "two, re-reviewed"],
    ]);
  });

  it("formats all phases' findings for the final review brief, blocking first and bounded", async () => {
    await cp(path.join(fixturesDir, "reviews/zero-based"), path.join(dir, sessionDir), { recursive: true });
    const reviews = await readPhaseReviews(sessionPathsAt(dir, sessionDir));
    const text = formatFindingsForPrompt(reviews, { phaseNames: ["Setup", "Auto-approve"] });
    // Each phase names its file: phase-0-review.json holds phase 1 (0-based, as upstream numbers them).
    expect(text.split("\n")[0]).toBe("Phase 1 (Setup), phase-0-review.json: 0 blocking, 1 warning, 1 note");
    expect(text).toContain(
      "Phase 2 (Auto-approve), phase-1-review.json: 1 blocking, 1 warning, 1 note\n- [blocking] SKILL.md:34 — Gates contradict auto-approve: Deferred to Phase 3.",
    );
    const short = formatFindingsForPrompt(reviews, { maxChars: 120 });
    expect(short.length).toBeLessThan(220);
    expect(short).toMatch(/more findings omitted/);
    expect(formatFindingsForPrompt([])).toBe("No per-phase review findings were recorded.");
  });

  it("no session folder → no reviews", async () => {
    expect(await readPhaseReviews(sessionPathsAt(dir, sessionDir))).toEqual([]);
  });

  it.skipIf(!haveCorpus)("reads every real phase-N-review.json in the corpus", async () => {
    let files = 0;
    for (const s of await readdir(path.join(upstreamDir, "sessions"))) {
      const src = path.join(upstreamDir, "sessions", s);
      if (s.endsWith(".txt")) continue;
      const names = (await readdir(src)).filter((n) => /^phase-\d+-review\.json$/.test(n));
      if (!names.length) continue;
      const state = existsSync(path.join(src, "autopilot-state.json"))
        ? (JSON.parse(await readFile(path.join(src, "autopilot-state.json"), "utf8")) as { phases?: unknown[] })
        : {};
      const rel = `.harness/sessions/${s}`;
      await cp(src, path.join(dir, rel), { recursive: true });
      const reviews = await readPhaseReviews(sessionPathsAt(dir, rel), { phaseCount: state.phases?.length });
      expect(reviews).toHaveLength(names.length);
      for (const r of reviews) {
        files++;
        expect(r.phase).toBeGreaterThanOrEqual(0);
        expect(r.phase).toBeLessThan(state.phases?.length ?? 99);
        const raw = JSON.parse(await readFile(path.join(src, r.file), "utf8"));
        const rawList = Array.isArray(raw) ? raw : raw.findings;
        expect(r.findings).toHaveLength(rawList.length);
        for (const f of r.findings) {
          expect(["blocking", "warning", "note"]).toContain(f.severity);
          expect(f.title.length).toBeGreaterThan(0);
        }
      }
      expect(formatFindingsForPrompt(reviews).length).toBeGreaterThan(0);
    }
    expect(files).toBeGreaterThanOrEqual(5);
  });
});
