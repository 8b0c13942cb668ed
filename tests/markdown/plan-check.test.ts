// The plan check in code: a task without files, without a verification step, with a placeholder or
// over the size rule is reported, one line per problem, in words the planner can act on.
import { describe, expect, it } from "vitest";
import { COMMIT_MARKER, countPlan, planProblems, planTasks } from "../../src/markdown/plan.js";
import { TASK_SIZE } from "../../src/rules/policy.js";

/** A task in the shape the planner's texts ask for; `omit` leaves a part out. */
function task(
  n: number,
  opts: { omit?: "files" | "verify"; files?: string[]; steps?: string[]; marker?: string } = {},
): string {
  const files = opts.files ?? [`src/part-${n}.js`, `test/part-${n}.test.js`];
  const steps = opts.steps ?? [
    `Write test/part-${n}.test.js and run \`node --test\`: it fails.`,
    `Write src/part-${n}.js.`,
    "Run the test again: it passes.",
  ];
  return [
    `### Task ${n}: Part ${n}${opts.marker ? ` ${opts.marker}` : ""}`,
    "",
    ...(opts.omit === "files" ? [] : [`**Files:** ${files.join(", ")}`, ""]),
    ...steps.map((s, i) => `${i + 1}. ${s}`),
    "",
    ...(opts.omit === "verify" ? [] : ["**Verify:** `node --test` → all tests pass", ""]),
  ].join("\n");
}

function plan(...tasks: string[]): string {
  return ["# Plan: Parts", "", `**Tasks:** ${tasks.length}`, "", "## Tasks", "", ...tasks].join("\n");
}

describe("the plan check", () => {
  it("passes a plan whose every task names its files, its steps and its verification", () => {
    expect(planProblems(plan(task(1), task(2), task(3)))).toEqual([]);
  });

  it("reports a task that names no files", () => {
    const problems = planProblems(plan(task(1), task(2, { omit: "files" })));
    expect(problems).toEqual([expect.stringMatching(/^Task 2 \(Part 2\) names no files: add a "\*\*Files:\*\*/)]);
  });

  it("reports an unverifiable task: no Verify line and no step that runs a command", () => {
    const text = plan(task(1, { omit: "verify", steps: ["Write src/part-1.js.", "Make sure it works."] }), task(2));
    expect(planProblems(text)).toEqual([
      expect.stringMatching(/^Task 1 \(Part 1\) has no verification step: end it with "\*\*Verify:\*\*/),
    ]);
    // A step that runs a command is a verification too (upstream plans write "Run: `harness validate`").
    expect(planProblems(plan(task(1, { omit: "verify" }), task(2)))).toEqual([]);
  });

  it("reports a vague task: a placeholder in its prose, not in its code", () => {
    const vague = task(1, {
      steps: ["Add validation as needed.", "Handle the other cases, etc.", "Run `node --test`."],
    });
    expect(planProblems(plan(vague))).toEqual([
      expect.stringMatching(/^Task 1 \(Part 1\) leaves work undecided \("as needed", "etc\."\)/),
    ]);
    expect(planProblems(plan(task(1, { steps: ["Pick the format: TBD.", "Run `node --test`."] })))[0]).toMatch(/"TBD"/);
    expect(planProblems(plan(task(1), task(2, { steps: ["Similar to Task 1.", "Run `node --test`."] })))[0]).toMatch(
      /^Task 2 .*"similar to Task N"/,
    );
    // A command or a code block may say anything.
    const inCode = task(1, {
      steps: ["Run `grep -n 'TBD etc' src` and see no output.", "Write the file:\n\n   ```js\n   // as needed\n   ```"],
    });
    expect(planProblems(plan(inCode))).toEqual([]);
  });

  it("reports a plan that points at the session's scratchpad, which the phase end deletes and no commit holds", () => {
    const dir = ".harness/sessions/changes--wc--proposal/scratchpad/counting-core";
    const pointing = task(1, { steps: [`Follow the research in \`${dir}/tokenizer.md\`.`, "Run `node --test`."] });
    expect(planProblems(plan(pointing, task(2)))).toEqual([
      `The plan points at ${dir}/tokenizer.md: the scratchpad is deleted when the phase ends and never committed, so the committed plan would point at nothing. Write what the tasks need into the plan itself.`,
    ]);
    // A link to it, or the folder alone, is a pointer too; the word in prose is not.
    expect(planProblems(plan(task(1), `See [notes](scratchpad/core/notes.md).\n\n${task(2)}`))).toHaveLength(1);
    expect(planProblems(plan(task(1, { steps: ["Keep no scratchpad notes here.", "Run `node --test`."] })))).toEqual(
      [],
    );
  });

  it(`reports an oversized task: more than ${TASK_SIZE.maxFiles} files or ${TASK_SIZE.maxSteps} steps`, () => {
    const wide = task(1, { files: ["a.js", "b.js", "c.js", "d.js"] });
    expect(planProblems(plan(wide))).toEqual([
      expect.stringMatching(/^Task 1 \(Part 1\) touches 4 files \(more than 3\): split it/),
    ]);
    const long = task(1, { steps: Array.from({ length: 11 }, (_, i) => `Step ${i + 1}: run \`node --test\`.`) });
    expect(planProblems(plan(long))).toEqual([
      expect.stringMatching(/^Task 1 \(Part 1\) has 11 steps \(more than 10\): split it/),
    ]);
  });

  it("reads the Files line in the shapes plans write it", () => {
    const listed = [
      "### Task 1: Types",
      "",
      "**Files:**",
      "- CREATE src/types.ts",
      "- MODIFY src/index.ts",
      "",
      "1. Run `tsc`.",
      "",
    ].join("\n");
    expect(planProblems(plan(listed))).toEqual([]);
    const upstream = [
      "### Task 1: Types",
      "",
      "**Depends on:** none | **Files:** `src/a.ts`, `src/a.test.ts`",
      "",
      "1. Run: `npx vitest run src/a.test.ts`",
      "",
    ].join("\n");
    expect(planProblems(plan(upstream))).toEqual([]);
  });

  it("needs no files or command from a task a person does (decision, human-action)", () => {
    const choose = [
      "### Task 2: Choose the storage [checkpoint:decision]",
      "",
      "Options: sqlite or json files; I recommend json files.",
      "",
    ].join("\n");
    expect(planProblems(plan(task(1), choose))).toEqual([]);
  });

  it("reports a Tasks header that disagrees with the headings, and a plan with no task headings", () => {
    expect(planProblems(["**Tasks:** 3", "", task(1), task(2)].join("\n"))).toEqual([
      "The header says **Tasks:** 3 but the plan has 2 task headings: make them agree.",
    ]);
    expect(planProblems("# Plan\n\nDo the thing.\n")).toEqual([expect.stringMatching(/no task headings/)]);
  });

  it("reads [checkpoint:commit] in a heading as an automated commit point, never as a human checkpoint", () => {
    const text = plan(task(1), task(2, { marker: COMMIT_MARKER }), task(3, { marker: "[checkpoint:human-verify]" }));
    expect(planProblems(text)).toEqual([]);
    expect(countPlan(text)).toEqual({ tasks: 3, checkpoints: 1 });
    expect(planTasks(text).map((t) => [t.name, t.checkpoint, t.commitPoint ?? false])).toEqual([
      ["Part 1", null, false],
      ["Part 2", null, true],
      ["Part 3", "human-verify", false],
    ]);
  });
});
