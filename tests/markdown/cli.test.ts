// Runs the built CLI the way a user does (`npm test` builds first). Paths are relative to the
// working directory, as on the command line.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "./helpers.js";

const bin = path.join(projectRoot, "dist/src/cli/main.js");
const built = existsSync(bin);
if (!built) console.warn(`[skip] CLI tests: ${bin} not built; run \`npx tsc -p .\` (npm test does)`);

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: projectRoot, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!built)("autopilot spec and autopilot plan on the command line", () => {
  it("spec --json prints exactly name, complexity and annotated for each phase", () => {
    const r = cli("spec", "tests/fixtures/specs/fenced-example.md", "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      phases: [
        { name: "Real first phase", complexity: "low", annotated: true },
        { name: "Real second phase", complexity: "medium", annotated: false },
      ],
    });
  });

  it("spec without --json prints a readable table", () => {
    const r = cli("spec", "tests/fixtures/specs/ids-and-separators.md");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("5a");
    expect(r.stdout).toContain("Em dash with lettered id");
    expect(r.stdout).toContain("4 phases");
  });

  it("spec exits 1 with a one-line reason when the file does not exist", () => {
    const r = cli("spec", "docs/changes/nope/proposal.md", "--json");
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("spec_not_found");
    expect(r.stderr).toContain("docs/changes/nope/proposal.md");
  });

  it("spec exits 1 with what it found when the spec has no Phase headings", () => {
    const r = cli("spec", "tests/fixtures/specs/numbered-list.md", "--json");
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("no_phases");
    expect(r.stderr).toContain("3 numbered list items");
  });

  it("spec and plan exit 2 when FILE is missing", () => {
    expect(cli("spec", "--json").code).toBe(2);
    expect(cli("plan", "--json").code).toBe(2);
    expect(cli("spec", "--bogus", "x.md").code).toBe(2);
  });

  it("plan --json prints the task and checkpoint counts and what the plan check finds", () => {
    const r = cli("plan", "tests/fixtures/plans/task-headings.md", "--json");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ tasks: 7, checkpoints: 4 });
    // That fixture's tasks name no files and run no command: the server would send it back.
    expect(out.problems).toContain(
      'Task 1 (Add the types) names no files: add a "**Files:** <path>, <path>" line with every file it creates or changes.',
    );
  });

  it("plan exits 1 with plan_not_found when the file does not exist", () => {
    const r = cli("plan", "docs/plans/missing-plan.md", "--json");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("plan_not_found");
  });

  it("an unknown command exits 2 with the usage, also one named like an object's property", () => {
    for (const name of ["frobnicate", "toString", "constructor"]) {
      const r = cli(name);
      expect(r.code, name).toBe(2);
      expect(r.stderr).toContain(`autopilot: unknown command "${name}"`);
      expect(r.stderr).toContain("usage: autopilot <command>");
    }
  });
});
