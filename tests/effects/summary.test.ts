import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { readSessionIndex, readSessionSummary, writeSessionSummary } from "../../src/effects/summary.js";
import { tmpProject } from "./_env.js";
import { projectPaths, sessionPaths } from "../../src/session/paths.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tmpProject()));
afterEach(() => cleanup());

const slug = "changes--security-scanner--proposal";
const phaseFields = {
  session: slug,
  lastActive: "2026-03-19T12:00:00Z",
  skill: "harness-autopilot",
  phase: "1 of 3",
  status: "Phase 1 complete. 8/8 tasks.",
  spec: "docs/changes/security-scanner/proposal.md",
  plan: "docs/plans/2026-03-19-core-scanner-plan.md",
  keyContext: "Core scanner built.\nRegistry chosen over switch.",
  nextStep: "Continue to Phase 2: Rule Engine",
};
const index = () => path.join(dir, ".harness/sessions/index.md");

describe("session summary", () => {
  it("writes summary.md in upstream's format and reads it back", async () => {
    await writeSessionSummary(sessionPaths(dir, slug), phaseFields);
    const body = await readFile(path.join(dir, ".harness/sessions", slug, "summary.md"), "utf8");
    expect(body).toBe(
      [
        "## Session Summary",
        "",
        `**Session:** ${slug}`,
        "**Last active:** 2026-03-19T12:00:00Z",
        "**Skill:** harness-autopilot",
        "**Phase:** 1 of 3",
        "**Status:** Phase 1 complete. 8/8 tasks.",
        "**Spec:** docs/changes/security-scanner/proposal.md",
        "**Plan:** docs/plans/2026-03-19-core-scanner-plan.md",
        "**Key context:** Core scanner built. Registry chosen over switch.",
        "**Next step:** Continue to Phase 2: Rule Engine",
        "",
      ].join("\n"),
    );
    const back = await readSessionSummary(sessionPaths(dir, slug));
    expect(back).toMatchObject({ session: slug, phase: "1 of 3", nextStep: "Continue to Phase 2: Rule Engine" });
    expect(await readSessionSummary(sessionPaths(dir, "other"))).toBeNull();
  });

  it("replaces the slug's line in index.md, keeps other sessions' lines, never duplicates", async () => {
    await mkdir(path.dirname(index()), { recursive: true });
    await writeFile(
      index(),
      "## Active Sessions\n\n- [other](other/summary.md) — execution, in progress (2026-03-01)\n",
    );
    await writeSessionSummary(sessionPaths(dir, slug), phaseFields);
    await writeSessionSummary(sessionPaths(dir, slug), {
      ...phaseFields,
      phase: undefined,
      plan: undefined,
      lastActive: "2026-03-20T09:00:00Z",
      status: "DONE. 3 phases, 30 tasks complete.",
      nextStep: "All phases complete. Create PR or close session.",
    });
    const lines = (await readFile(index(), "utf8")).split("\n");
    expect(lines.filter((l) => l.startsWith(`- [${slug}]`))).toEqual([
      `- [${slug}](${slug}/summary.md) — autopilot, done. 3 phases, 30 tasks complete. (2026-03-20)`,
    ]);
    expect(lines).toContain("- [other](other/summary.md) — execution, in progress (2026-03-01)");
    expect((await readSessionIndex(projectPaths(dir))).map((e) => e.slug)).toEqual(["other", slug]);
  });

  it("moves a finished session out of Active Sessions, and a fresh one of the same spec back in", async () => {
    await mkdir(path.dirname(index()), { recursive: true });
    await writeFile(
      index(),
      "## Active Sessions\n\n- [other](other/summary.md) — execution, in progress (2026-03-01)\n",
    );
    await writeSessionSummary(sessionPaths(dir, slug), phaseFields);
    await writeSessionSummary(sessionPaths(dir, slug), {
      ...phaseFields,
      phase: undefined,
      lastActive: "2026-03-20T09:00:00Z",
      status: "DONE. 3 phases, 30 tasks complete.",
    });
    const done = `- [${slug}](${slug}/summary.md) — autopilot, done. 3 phases, 30 tasks complete. (2026-03-20)`;
    expect(await readFile(index(), "utf8")).toBe(
      `## Active Sessions\n\n- [other](other/summary.md) — execution, in progress (2026-03-01)\n\n## Finished Sessions\n\n${done}\n`,
    );
    await writeSessionSummary(sessionPaths(dir, slug), phaseFields);
    expect(await readFile(index(), "utf8")).toBe(
      `## Active Sessions\n\n- [other](other/summary.md) — execution, in progress (2026-03-01)\n- [${slug}](${slug}/summary.md) — autopilot, phase 1 of 3, phase 1 complete. 8/8 tasks. (2026-03-19)\n\n## Finished Sessions\n`,
    );
  });

  it("a replay with the same fields rewrites nothing", async () => {
    await writeSessionSummary(sessionPaths(dir, slug), phaseFields);
    const before = await stat(index());
    const bodyBefore = await readFile(index(), "utf8");
    await new Promise((r) => setTimeout(r, 20));
    await writeSessionSummary(sessionPaths(dir, slug), phaseFields);
    expect((await stat(index())).mtimeMs).toBe(before.mtimeMs);
    expect(await readFile(index(), "utf8")).toBe(bodyBefore);
  });

  it("creates index.md with the upstream heading when missing", async () => {
    await writeSessionSummary(sessionPaths(dir, slug), phaseFields);
    expect(await readFile(index(), "utf8")).toBe(
      `## Active Sessions\n\n- [${slug}](${slug}/summary.md) — autopilot, phase 1 of 3, phase 1 complete. 8/8 tasks. (2026-03-19)\n`,
    );
  });

  it("refuses a slug that would leave the sessions folder", async () => {
    // Refused where every session path is made (src/session/paths.ts), with the code every tool
    // gives for such a session name.
    await expect((async () => writeSessionSummary(sessionPaths(dir, "../x"), phaseFields))()).rejects.toMatchObject({
      code: "outside_project",
    });
  });
});
