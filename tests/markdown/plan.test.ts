import { describe, expect, it } from "vitest";
import { countPlan, planTasks } from "../../src/markdown/plan.js";
import { fixture } from "./helpers.js";

describe("counting the tasks and checkpoints of a plan", () => {
  it("counts Task headings and the tasks that carry a checkpoint marker in the heading, steps or prose", () => {
    expect(countPlan(fixture("plans/task-headings.md"))).toEqual({ tasks: 7, checkpoints: 3 + 1 });
  });

  it("does not count markers in fenced code, in the overview before the tasks, or after the last task", () => {
    const tasks = planTasks(fixture("plans/task-headings.md"));
    expect(tasks.find((t) => t.number === "5")?.checkpoint).toBeNull();
    expect(tasks.find((t) => t.number === "1")?.checkpoint).toBeNull();
  });

  it("counts a task with two markers once", () => {
    expect(planTasks(fixture("plans/task-headings.md")).find((t) => t.number === "6")?.checkpoint).toBe("human-verify");
  });

  it("does not treat a 'Depends on' reference to another task's checkpoint as a checkpoint", () => {
    expect(planTasks(fixture("plans/task-headings.md")).find((t) => t.number === "7")?.checkpoint).toBeNull();
  });

  it("names each task and its checkpoint kind for prompts", () => {
    expect(planTasks(fixture("plans/task-headings.md")).slice(1, 4)).toEqual([
      { number: "2", name: "Review the types", checkpoint: "human-verify" },
      { number: "3", name: "Engine core", checkpoint: "decision" },
      { number: "4", name: "Wire the CLI", checkpoint: "human-action" },
    ]);
  });

  it("accepts Task headings at any level, inserted numbers like 3.5, em dashes and the T3 short form", () => {
    expect(planTasks(fixture("plans/heading-variants.md"))).toEqual([
      { number: "1", name: "Level two heading", checkpoint: null },
      { number: "2", name: "Level four with em dash", checkpoint: null },
      { number: "2.5", name: "Inserted after numbering", checkpoint: "human-verify" },
      { number: "3", name: "Short form", checkpoint: null },
    ]);
    expect(countPlan(fixture("plans/heading-variants.md"))).toEqual({ tasks: 4, checkpoints: 1 });
  });

  it("falls back to the **Tasks:** N header when there are no Task headings", () => {
    expect(countPlan(fixture("plans/header-only.md"))).toEqual({ tasks: 4, checkpoints: 1 });
  });

  it("ignores Task headings that only appear in a quoted template", () => {
    expect(countPlan(fixture("plans/fenced-tasks.md"))).toEqual({ tasks: 2, checkpoints: 0 });
  });

  it("reports zero for text with neither Task headings nor a header", () => {
    expect(countPlan(fixture("plans/no-tasks.md"))).toEqual({ tasks: 0, checkpoints: 0 });
    expect(countPlan("")).toEqual({ tasks: 0, checkpoints: 0 });
  });

  it("reads `**Tasks**: N` as well as `**Tasks:** N`", () => {
    expect(countPlan("# Plan\n\n**Tasks**: 3\n")).toEqual({ tasks: 3, checkpoints: 0 });
  });
});
