import { describe, expect, it } from "vitest";
import { dependencyProblems, planHeaders } from "../../src/markdown/plan-header.js";
import { computeWaves, patternsOverlap } from "../../src/markdown/waves.js";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { corpus, corpusPresent, warnIfCorpusMissing } from "./helpers.js";

warnIfCorpusMissing("plan header corpus test");

/** A plan in the planner's shape: one `### Task N` heading per task with its header line. */
function plan(tasks: { header?: string; files?: string; marker?: string }[]): string {
  const out = [`# Plan\n\n**Tasks:** ${tasks.length}\n`];
  tasks.forEach((t, i) => {
    out.push(`### Task ${i + 1}: step ${i + 1}${t.marker ? ` ${t.marker}` : ""}\n`);
    if (t.header) out.push(`${t.header}\n`);
    else out.push(`**Files:** ${t.files ?? `src/t${i + 1}.ts`}\n`);
    out.push(`1. Write it.\n\n**Verify:** \`npm test\` → passes\n`);
  });
  return out.join("\n");
}

describe("the plan header: Depends on, Files, Owns", () => {
  it("reads each task's dependencies, files and owned globs from upstream's one-line header", () => {
    const h = planHeaders(
      plan([
        { header: "**Depends on:** none | **Files:** src/api/a.ts, test/a.test.ts | **Owns:** `src/api/**`" },
        { header: "**Depends on:** Task 1 | **Files:** `src/b.ts`" },
        { header: "**Depends on:** Tasks 1 and 2, `[checkpoint:decision]` | **Files:** src/c.ts" },
      ]),
    );
    expect(h.map((t) => [t.number, t.dependsOn, t.files, t.owns])).toEqual([
      ["1", [], ["src/api/a.ts", "test/a.test.ts"], ["src/api/**"]],
      ["2", ["1"], ["src/b.ts"], []],
      ["3", ["1", "2"], ["src/c.ts"], []],
    ]);
    expect(h[2].checkpoint).toBeNull();
  });

  it("reads the forms upstream's planners write: ranges, a reason in parentheses, a middle dot between clauses, earlier phases' tasks", () => {
    const h = planHeaders(
      plan([
        { header: "**Depends on:** none · **Files:** src/a.ts · **Category:** implementation" },
        { header: "**Depends on:** Task 1 (it needs the types, and the config) | **Files:** src/b.ts" },
        { header: "**Depends on:** Phase 0 Tasks 1, 4 (the lookup) | **Files:** src/c.ts" },
        { header: "**Depends on:** 1–3 | **Files:** src/d.ts" },
        { header: "**Depends on:** Tasks 1-2, Task 4 | **Files:** src/e.ts" },
      ]),
    );
    expect(h.map((t) => [t.dependsOn, t.files])).toEqual([
      [[], ["src/a.ts"]],
      [["1"], ["src/b.ts"]],
      [[], ["src/c.ts"]],
      [["1", "2", "3"], ["src/d.ts"]],
      [["1", "2", "4"], ["src/e.ts"]],
    ]);
    expect(dependencyProblems(h)).toEqual([]);
  });

  it.skipIf(!corpusPresent)("finds no dependency problem in the upstream plans that have Depends on lines", () => {
    const dir = path.join(corpus, "upstream/plans");
    const withHeaders = readdirSync(dir)
      .filter((f) => f.endsWith(".md"))
      .map((f) => [f, readFileSync(path.join(dir, f), "utf8")] as const)
      .filter(([, text]) => /\*\*Depends on:?\*\*/i.test(text));
    expect(withHeaders.length).toBeGreaterThan(20);
    const problems = withHeaders.flatMap(([f, text]) => dependencyProblems(planHeaders(text)).map((p) => `${f}: ${p}`));
    expect(problems).toEqual([]);
  });

  it("does not read a header inside fenced code", () => {
    const text = plan([{ files: "src/a.ts" }]).replace(
      "1. Write it.",
      "```md\n**Depends on:** Task 9\n```\n\n1. Write it.",
    );
    expect(planHeaders(text)[0].dependsOn).toBeNull();
  });

  it("finds a task number the plan does not have, words that name no task, a task depending on itself, and a circle", () => {
    const problems = dependencyProblems(
      planHeaders(
        plan([
          { header: "**Depends on:** Task 3 | **Files:** a.ts" },
          { header: "**Depends on:** Task 9 | **Files:** b.ts" },
          { header: "**Depends on:** Task 1, the API work | **Files:** c.ts" },
          { header: "**Depends on:** Task 4 | **Files:** d.ts" },
        ]),
      ),
    );
    expect(problems).toEqual([
      expect.stringContaining("Task 2 (step 2) depends on Task 9, which the plan does not have"),
      expect.stringContaining('Task 3 (step 3) has "**Depends on:** the API work", which names no task'),
      expect.stringContaining("Task 4 (step 4) depends on itself"),
      "Tasks 1 → 3 → 1 depend on each other in a circle: none of them could start. Break the circle.",
    ]);
  });
});

describe("waves from dependencies and file overlap", () => {
  const chains = plan([
    { header: "**Depends on:** none | **Files:** src/a1.ts" },
    { header: "**Depends on:** none | **Files:** src/b1.ts" },
    { header: "**Depends on:** none | **Files:** src/c1.ts" },
    { header: "**Depends on:** Task 1 | **Files:** src/a2.ts" },
    { header: "**Depends on:** Task 2 | **Files:** src/b2.ts" },
    { header: "**Depends on:** Task 3 | **Files:** src/c2.ts" },
  ]);

  it("puts three independent chains of two tasks into two waves of three", () => {
    const w = computeWaves(planHeaders(chains), 3);
    expect(w.parallel).toBe(true);
    expect(w.waves).toEqual([
      ["1", "2", "3"],
      ["4", "5", "6"],
    ]);
  });

  it("runs a plan without Depends on lines as one serial chain", () => {
    const w = computeWaves(planHeaders(plan([{}, {}, {}, {}])), 3);
    expect(w).toMatchObject({ parallel: false, waves: [["1"], ["2"], ["3"], ["4"]] });
    expect(w.reason).toContain("one serial chain");
  });

  it("runs serially when fewer tasks than the minimum could run at once", () => {
    expect(computeWaves(planHeaders(chains), 4)).toMatchObject({
      parallel: false,
      waves: [["1"], ["2"], ["3"], ["4"], ["5"], ["6"]],
    });
    const two = plan([
      { header: "**Depends on:** none | **Files:** a.ts" },
      { header: "**Depends on:** none | **Files:** b.ts" },
    ]);
    expect(computeWaves(planHeaders(two), 3).reason).toBe(
      "at most 2 tasks could run at once, fewer than 3: the plan runs serially",
    );
    expect(computeWaves(planHeaders(two), 2).parallel).toBe(true);
  });

  it("never puts two tasks that touch the same file, or a file another owns by glob, in one wave", () => {
    const w = computeWaves(
      planHeaders(
        plan([
          { header: "**Depends on:** none | **Files:** src/api/routes.ts | **Owns:** `src/api/**`" },
          { header: "**Depends on:** none | **Files:** src/api/users.ts" },
          { header: "**Depends on:** none | **Files:** src/ui.ts" },
          { header: "**Depends on:** none | **Files:** src/ui.ts, docs/ui.md" },
          { header: "**Depends on:** none | **Files:** src/cli.ts" },
        ]),
      ),
      2,
    );
    expect(w.waves).toEqual([
      ["1", "3", "5"],
      ["2", "4"],
    ]);
    expect(w.serialized).toEqual([
      "Task 2 after Task 1 (both touch src/api/users.ts)",
      "Task 4 after Task 3 (both touch src/ui.ts)",
    ]);
  });

  it("runs a task where a person acts alone, after everything before it", () => {
    const w = computeWaves(
      planHeaders(
        plan([
          { header: "**Depends on:** none | **Files:** a.ts" },
          { header: "**Depends on:** none | **Files:** b.ts" },
          { header: "**Depends on:** none", marker: "[checkpoint:human-verify]" },
          { header: "**Depends on:** none | **Files:** c.ts" },
          { header: "**Depends on:** none | **Files:** d.ts" },
        ]),
      ),
      2,
    );
    expect(w.waves).toEqual([["1", "2"], ["3"], ["4", "5"]]);
  });

  it("tells globs, folders and files apart", () => {
    expect(patternsOverlap("src/api/**", "src/api/x/y.ts")).toBe(true);
    expect(patternsOverlap("src/api/*.ts", "src/api/**")).toBe(true);
    expect(patternsOverlap("src/api", "src/api/y.ts")).toBe(true);
    expect(patternsOverlap("src/api/**", "src/apis/y.ts")).toBe(false);
    expect(patternsOverlap("./src/a.ts", "src/a.ts")).toBe(true);
    expect(patternsOverlap("src/**/*.test.ts", "lib/a.ts")).toBe(false);
  });
});
