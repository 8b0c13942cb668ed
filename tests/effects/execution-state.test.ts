// The executor's state.json when the session is DONE: its position says the run is complete (no task
// of the last phase under way); what it does not understand it leaves as it is.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { closeExecutionState } from "../../src/effects/execution-state.js";
import { sessionPaths } from "../../src/session/paths.js";

let dir: string;
const ws = () => sessionPaths(dir, "s");
const file = () => path.join(dir, ".harness/sessions/s/state.json");

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "autopilot-exec-state-"));
  await mkdir(path.dirname(file()), { recursive: true });
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe("the execution state at DONE", () => {
  it("drops the task its position points at and keeps every other field; closing again writes nothing", async () => {
    await writeFile(
      file(),
      JSON.stringify({
        autopilotPhase: "Command Line",
        position: { phase: "execute", task: "Task 2", wave: 1 },
        progress: { "Task 1": "complete", "Task 2": "complete" },
        lastSession: { date: "2026-03-19", summary: "tasks 1-2 done" },
      }),
    );
    expect(await closeExecutionState(ws())).toEqual({ written: true });
    const once = await readFile(file(), "utf8");
    expect(JSON.parse(once)).toEqual({
      autopilotPhase: "Command Line",
      position: { phase: "complete", wave: 1 },
      progress: { "Task 1": "complete", "Task 2": "complete" },
      lastSession: { date: "2026-03-19", summary: "tasks 1-2 done" },
    });
    expect(await closeExecutionState(ws())).toEqual({ written: false });
    expect(await readFile(file(), "utf8")).toBe(once);
  });

  it("leaves a missing file missing and a file that is not a JSON object as it is", async () => {
    expect(await closeExecutionState(ws())).toEqual({ written: false });
    await expect(readFile(file(), "utf8")).rejects.toThrow();
    for (const text of ["not json", "[1, 2]"]) {
      await writeFile(file(), text);
      expect(await closeExecutionState(ws())).toEqual({ written: false });
      expect(await readFile(file(), "utf8")).toBe(text);
    }
  });
});
