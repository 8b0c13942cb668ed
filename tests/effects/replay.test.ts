// The "done means": a full run of the DONE-time effects, then a second identical run
// (what the engine does after a crash before clearing its outbox), changes nothing.
import { afterEach, describe, expect, it } from "vitest";
import { readFile, readdir, writeFile, stat } from "node:fs/promises";
import path from "node:path";
import { makeRepo, git, type TempRepo } from "../helpers/git.js";
import { commitCheckpoint, headCommit } from "../../src/effects/git.js";
import { appendFailure } from "../../src/effects/failures.js";
import { appendDoneLearnings, appendSessionLearning, promoteSessionLearnings } from "../../src/effects/learnings.js";
import { writeSessionSummary } from "../../src/effects/summary.js";
import { writeFinalHandoff } from "../../src/effects/handoff.js";
import { writePhaseReview } from "../../src/effects/reviews.js";
import { setFeatureDone, syncRoadmap } from "../../src/effects/roadmap.js";
import { clearScratchpad, writeScratchpad } from "../../src/effects/scratchpad.js";
import { fixturesDir } from "./_env.js";
import { projectPaths, sessionPaths, sessionPathsAt } from "../../src/session/paths.js";

let r: TempRepo | null = null;
afterEach(async () => {
  await r?.cleanup();
  r = null;
});

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(d: string) {
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.name === ".git") continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out[path.relative(dir, p)] = `${await readFile(p, "utf8")}@${(await stat(p)).mtimeMs}`;
    }
  }
  await walk(dir);
  return out;
}

describe("replaying effects after a crash", () => {
  it("a second identical run of every effect leaves the repository and files unchanged", async () => {
    r = await makeRepo({ files: { "docs/roadmap.md": await readFile(path.join(fixturesDir, "roadmap.md"), "utf8") } });
    const dir = r.dir;
    const slug = "changes--security-scanner--proposal";
    const sessionDir = `.harness/sessions/${slug}`;
    const spec = "docs/changes/security-scanner/proposal.md";
    const start = await headCommit(dir);
    await appendSessionLearning(sessionPaths(dir, slug), {
      date: "2026-03-19",
      skill: "harness-execution",
      outcome: "gotcha",
      text: "watch the loader",
    });
    await writeScratchpad(sessionPathsAt(dir, sessionDir), "Phase 1: Core", "notes.md", "n");
    await writeFile(path.join(dir, "scanner.ts"), "export {};\n");

    const effects = async () => [
      await commitCheckpoint(dir, { label: "Checkpoint 1: scanner", effectId: `${slug}:1:commit`, since: start }),
      await appendFailure(projectPaths(dir), {
        date: "2026-03-19",
        skill: "harness-autopilot",
        type: "retry-exhausted",
        text: "t",
        effectId: `${slug}:2:fail`,
      }),
      await commitCheckpoint(dir, {
        label: "Phase 1: Core — recovery at task 4",
        effectId: `${slug}:2:commit`,
        since: start,
      }),
      await writePhaseReview(sessionPathsAt(dir, sessionDir), 0, [{ severity: "warning", title: "w" }]),
      await clearScratchpad(sessionPathsAt(dir, sessionDir), "Phase 1: Core"),
      await syncRoadmap(projectPaths(dir), { specPath: spec, phasesComplete: 1, phasesTotal: 1 }),
      await writeSessionSummary(sessionPaths(dir, slug), {
        session: slug,
        lastActive: "2026-03-19T10:00:00Z",
        skill: "harness-autopilot",
        status: "DONE.",
        spec,
        keyContext: "k",
        nextStep: "n",
      }),
      await writeFinalHandoff(sessionPathsAt(dir, sessionDir), {
        summary: "Completed 1 phases",
        completed: ["Phase 1: Core"],
        finalReview: { status: "passed", findingsCount: 0 },
      }),
      await appendDoneLearnings(projectPaths(dir), {
        date: "2026-03-19",
        specName: "Security Scanner",
        phases: 1,
        tasks: 3,
        retries: 3,
        effectId: `${slug}:9:learn`,
      }),
      await promoteSessionLearnings(sessionPaths(dir, slug)),
      await setFeatureDone(projectPaths(dir), { specPath: spec }),
    ];
    await effects();
    const head1 = await headCommit(dir);
    const files1 = await snapshot(dir);
    const log1 = await git(dir, "log", "--format=%s");
    await new Promise((res) => setTimeout(res, 20));
    await effects();
    expect(await headCommit(dir)).toBe(head1);
    expect(await git(dir, "log", "--format=%s")).toBe(log1);
    expect(await snapshot(dir)).toEqual(files1);
    expect(log1.trim().split("\n")).toEqual([
      "Phase 1: Core — recovery at task 4",
      "Checkpoint 1: scanner",
      "initial commit",
    ]);
    expect((await git(dir, "ls-files", ".harness/sessions")).trim()).toBe("");
  });
});
