import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyFile, mkdir, readFile, writeFile, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { parseRoadmap, readRoadmap, setFeatureDone, syncRoadmap } from "../../src/effects/roadmap.js";
import { fixturesDir, haveCorpus, tmpProject, upstreamDir } from "./_env.js";
import { projectPaths } from "../../src/session/paths.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tmpProject()));
afterEach(() => cleanup());
const roadmap = () => path.join(dir, "docs/roadmap.md");
async function place(src = path.join(fixturesDir, "roadmap.md")): Promise<string> {
  await mkdir(path.dirname(roadmap()), { recursive: true });
  await copyFile(src, roadmap());
  return readFile(roadmap(), "utf8");
}
function diffLines(a: string, b: string): Array<[number, string, string]> {
  const x = a.split("\n");
  const y = b.split("\n");
  expect(y.length).toBe(x.length);
  return x.flatMap((l, i) => (l === y[i] ? [] : [[i, l, y[i]] as [number, string, string]]));
}
const spec = "docs/changes/security-scanner/proposal.md";

describe("reading the roadmap", () => {
  it("parses front matter, milestones and feature blocks, ignoring fenced examples", async () => {
    await place();
    const r = (await readRoadmap(projectPaths(dir)))!;
    expect(r.frontMatter).toMatchObject({ project: "fixture", version: 1 });
    expect(r.title).toBe("Roadmap");
    expect(r.milestones.map((m) => m.name)).toEqual(["Intake", "v2.0 — Hardening", "Assignment History"]);
    expect(r.features.map((f) => [f.name, f.status, f.spec])).toEqual([
      ["Security Scanner", "planned", spec],
      ["Rule Engine", "done", null],
      ["Blocked Thing", "blocked", "docs/changes/blocked-thing/proposal.md"],
      ["Name Only Feature", "backlog", null],
    ]);
    expect(r.features[0].fields.Priority).toBe("P2");
  });

  it("no roadmap → null", async () => {
    expect(await readRoadmap(projectPaths(dir))).toBeNull();
  });

  it.skipIf(!haveCorpus)("reads the real upstream roadmap", async () => {
    const text = await readFile(path.join(upstreamDir, "roadmap/roadmap.md"), "utf8");
    const r = parseRoadmap(text);
    expect(r.frontMatter.project).toBe("harness-engineering");
    expect(r.features).toHaveLength(159);
    expect(r.features.every((f) => f.status !== null)).toBe(true);
    const counts: Record<string, number> = {};
    for (const f of r.features) counts[f.status!] = (counts[f.status!] ?? 0) + 1;
    expect(counts).toEqual({ done: 105, planned: 31, "in-progress": 8, backlog: 8, blocked: 7 });
    expect(r.milestones.some((m) => m.name === "v5.0 — Enforcement Hardening")).toBe(true);
  });
});

describe("PHASE_COMPLETE roadmap sync", () => {
  it("moves the spec's feature from planned to in-progress, changing only its status line", async () => {
    const before = await place();
    const r = await syncRoadmap(projectPaths(dir), {
      specPath: spec,
      featureName: "Whatever Title",
      phasesComplete: 1,
      phasesTotal: 3,
    });
    expect(r).toMatchObject({ changed: true, feature: "Security Scanner", from: "planned", to: "in-progress" });
    const after = await readFile(roadmap(), "utf8");
    expect(diffLines(before, after)).toEqual([[12, "- **Status:** planned", "- **Status:** in-progress"]]);
  });

  it("is idempotent: a second sync changes nothing and does not rewrite the file", async () => {
    await place();
    await syncRoadmap(projectPaths(dir), { specPath: spec, phasesComplete: 1, phasesTotal: 3 });
    const mtime = (await stat(roadmap())).mtimeMs;
    const text = await readFile(roadmap(), "utf8");
    await new Promise((r) => setTimeout(r, 20));
    expect(await syncRoadmap(projectPaths(dir), { specPath: spec, phasesComplete: 2, phasesTotal: 3 })).toMatchObject({
      changed: false,
      reason: "already",
    });
    expect((await stat(roadmap())).mtimeMs).toBe(mtime);
    expect(await readFile(roadmap(), "utf8")).toBe(text);
  });

  it("never regresses a status a human set (done, blocked)", async () => {
    const before = await place();
    expect(
      await syncRoadmap(projectPaths(dir), {
        specPath: "docs/changes/other.md",
        featureName: "rule engine",
        phasesComplete: 1,
        phasesTotal: 2,
      }),
    ).toMatchObject({
      changed: false,
      reason: "human_status",
      from: "done",
    });
    expect(
      await syncRoadmap(projectPaths(dir), {
        specPath: "docs/changes/blocked-thing/proposal.md",
        phasesComplete: 1,
        phasesTotal: 2,
      }),
    ).toMatchObject({
      changed: false,
      from: "blocked",
    });
    expect(await readFile(roadmap(), "utf8")).toBe(before);
  });

  it("falls back to the spec's H1 title, case-insensitively, when no feature names the spec", async () => {
    const before = await place();
    await syncRoadmap(projectPaths(dir), {
      specPath: "docs/changes/name-only/proposal.md",
      featureName: "name only FEATURE",
      phasesComplete: 1,
      phasesTotal: 2,
    });
    expect(diffLines(before, await readFile(roadmap(), "utf8"))).toEqual([
      [38, "- **Status:** backlog", "- **Status:** in-progress"],
    ]);
  });

  it("no roadmap → nothing happens and no file is created; no matching feature → file untouched", async () => {
    expect(await syncRoadmap(projectPaths(dir), { specPath: spec, phasesComplete: 1, phasesTotal: 2 })).toMatchObject({
      changed: false,
      reason: "no_roadmap",
    });
    expect(await setFeatureDone(projectPaths(dir), { specPath: spec })).toMatchObject({
      changed: false,
      reason: "no_roadmap",
    });
    expect(existsSync(path.join(dir, "docs"))).toBe(false);
    const before = await place();
    expect(
      await syncRoadmap(projectPaths(dir), {
        specPath: "docs/x.md",
        featureName: "Not A Feature",
        phasesComplete: 1,
        phasesTotal: 2,
      }),
    ).toMatchObject({ reason: "no_feature" });
    expect(await readFile(roadmap(), "utf8")).toBe(before);
  });

  it("keeps CRLF line endings", async () => {
    const crlf = (await readFile(path.join(fixturesDir, "roadmap.md"), "utf8")).replace(/\n/g, "\r\n");
    await mkdir(path.dirname(roadmap()), { recursive: true });
    await writeFile(roadmap(), crlf);
    await syncRoadmap(projectPaths(dir), { specPath: spec, phasesComplete: 1, phasesTotal: 2 });
    const after = await readFile(roadmap(), "utf8");
    expect(after).toBe(
      crlf.replace(
        "- **Status:** planned\r\n- **Spec:** docs/changes/security",
        "- **Status:** in-progress\r\n- **Spec:** docs/changes/security",
      ),
    );
  });
});

describe("DONE roadmap update", () => {
  it("sets the spec's feature to done (from in-progress or blocked), once", async () => {
    const before = await place();
    await syncRoadmap(projectPaths(dir), { specPath: spec, phasesComplete: 1, phasesTotal: 2 });
    expect(await setFeatureDone(projectPaths(dir), { specPath: spec })).toMatchObject({
      changed: true,
      from: "in-progress",
      to: "done",
    });
    expect(await setFeatureDone(projectPaths(dir), { specPath: spec })).toMatchObject({
      changed: false,
      reason: "already",
    });
    expect(diffLines(before, await readFile(roadmap(), "utf8"))).toEqual([
      [12, "- **Status:** planned", "- **Status:** done"],
    ]);
    expect(await setFeatureDone(projectPaths(dir), { specPath: "changes/blocked-thing/proposal.md" })).toMatchObject({
      changed: true,
      from: "blocked",
    });
  });

  it.skipIf(!haveCorpus)("on the real roadmap, changes exactly one line", async () => {
    const before = await place(path.join(upstreamDir, "roadmap/roadmap.md"));
    const r = parseRoadmap(before);
    const target = r.features.find((f) => f.status === "planned" && f.spec)!;
    expect(
      await syncRoadmap(projectPaths(dir), { specPath: target.spec!, phasesComplete: 1, phasesTotal: 3 }),
    ).toMatchObject({ changed: true, feature: target.name });
    const after = await readFile(roadmap(), "utf8");
    expect(diffLines(before, after)).toEqual([
      [target.statusLine!, "- **Status:** planned", "- **Status:** in-progress"],
    ]);
    const doneOne = r.features.find((f) => f.status === "done" && f.spec)!;
    expect(
      await syncRoadmap(projectPaths(dir), { specPath: doneOne.spec!, phasesComplete: 1, phasesTotal: 3 }),
    ).toMatchObject({ changed: false });
  });
});
