import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { appendFailure, describeAttempts, readFailures } from "../../src/effects/failures.js";
import { tmpProject } from "./_env.js";
import { projectPaths } from "../../src/session/paths.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tmpProject()));
afterEach(() => cleanup());

const file = () => path.join(dir, ".harness/failures.md");

describe(".harness/failures.md", () => {
  it("creates the file with `# Failures` and one upstream-format line per entry", async () => {
    const text = describeAttempts("Phase 1: Core, task 4: wire parser", [
      { fixAttempted: "Added generic parameter", result: "Type error persists" },
      { fixAttempted: "Fixed import path", result: "Tests still timeout" },
      { fixAttempted: "Added async/await", error: "connection refused\nat x.ts:1" },
    ]);
    await appendFailure(projectPaths(dir), {
      date: "2026-03-19T10:00:00Z",
      skill: "harness-autopilot",
      type: "retry-exhausted",
      text,
      effectId: "s-12-fail",
    });
    const body = await readFile(file(), "utf8");
    const lines = body.split("\n");
    expect(lines[0]).toBe("# Failures");
    const entry = lines.find((l) => l.startsWith("- **"))!;
    expect(entry).toMatch(
      /^- \*\*2026-03-19 \[skill:harness-autopilot\] \[type:retry-exhausted\]:\*\* Phase 1: Core, task 4: wire parser — Attempt 1: Added generic parameter → Type error persists; Attempt 2: Fixed import path → Tests still timeout; Attempt 3: Added async\/await → connection refused; at x.ts:1 <!-- autopilot:s-12-fail -->$/,
    );
    // upstream's own reader regex still matches the line
    expect(/^- \*\*(\d{4}-\d{2}-\d{2}) \[skill:([^\]]+)\] \[type:([^\]]+)\]:\*\* (.+)$/.test(entry)).toBe(true);
  });

  it("replaying the same effect adds no second line", async () => {
    const input = {
      date: "2026-03-19",
      skill: "harness-autopilot",
      type: "final-review",
      text: "4 rounds",
      effectId: "e1",
    };
    expect((await appendFailure(projectPaths(dir), input)).appended).toBe(true);
    expect((await appendFailure(projectPaths(dir), input)).appended).toBe(false);
    expect(await readFailures(projectPaths(dir))).toHaveLength(1);
  });

  it("appends below a human's existing entries and reads every entry back", async () => {
    await mkdir(path.dirname(file()), { recursive: true });
    await writeFile(file(), "# Failures\n\n- **2026-01-02 [skill:harness-execution] [type:test]:** flaky test");
    await appendFailure(projectPaths(dir), {
      date: new Date("2026-03-20T00:00:00Z"),
      skill: "harness-autopilot",
      type: "retry-exhausted",
      text: "x",
      effectId: "e2",
    });
    const entries = await readFailures(projectPaths(dir));
    expect(entries).toEqual([
      { date: "2026-01-02", skill: "harness-execution", type: "test", text: "flaky test", effectId: null },
      { date: "2026-03-20", skill: "harness-autopilot", type: "retry-exhausted", text: "x", effectId: "e2" },
    ]);
    expect(await readFile(file(), "utf8")).toContain("flaky test\n\n- **2026-03-20");
  });

  it("keeps tags parseable when names contain brackets or newlines", async () => {
    await appendFailure(projectPaths(dir), {
      date: "2026-03-19",
      skill: "harness]autopilot",
      type: "a\nb",
      text: "t",
      effectId: "e3",
    });
    expect((await readFailures(projectPaths(dir)))[0]).toMatchObject({ skill: "harnessautopilot", type: "a; b" });
  });

  it("no file → no entries", async () => {
    expect(await readFailures(projectPaths(dir))).toEqual([]);
  });
});
