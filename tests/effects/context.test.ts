import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { gatherContext } from "../../src/effects/context.js";
import { appendSessionLearning } from "../../src/effects/learnings.js";
import { tmpProject } from "./_env.js";
import { sessionPaths } from "../../src/session/paths.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tmpProject()));
afterEach(() => cleanup());
const slug = "changes--x--proposal";
const sdir = () => path.join(dir, ".harness/sessions", slug);

describe("gather_context", () => {
  it("returns state, learnings (session first), handoff and validation in one object", async () => {
    await mkdir(sdir(), { recursive: true });
    await writeFile(
      path.join(sdir(), "autopilot-state.json"),
      JSON.stringify({ schemaVersion: 3, currentState: "EXECUTE", custom: 1 }),
    );
    await writeFile(
      path.join(sdir(), "handoff.json"),
      JSON.stringify({ fromSkill: "harness-planning", summary: "s", concerns: ["c"] }),
    );
    await writeFile(path.join(dir, ".harness/learnings.md"), "# Learnings\n\n- **2026-01-01 [skill:x]:** global one\n");
    await appendSessionLearning(sessionPaths(dir, slug), {
      date: "2026-02-01",
      skill: "x",
      outcome: "gotcha",
      text: "session one",
    });
    await mkdir(path.join(dir, ".harness"), { recursive: true });
    await writeFile(path.join(dir, ".harness/config.json"), JSON.stringify({ validation: { commands: ["echo ok"] } }));

    const c = await gatherContext(dir, slug, ["state", "learnings", "handoff", "validation"]);
    expect(c.state).toEqual({ schemaVersion: 3, currentState: "EXECUTE", custom: 1 });
    expect(c.learnings!.map((l) => l.source)).toEqual(["session", "global"]);
    expect(c.handoff).toMatchObject({ fromSkill: "harness-planning", concerns: ["c"] });
    expect(c.validation).toMatchObject({ passed: true, results: [{ command: "echo ok", output: "ok\n" }] });
    expect(c.errors).toBeUndefined();
  });

  it("reads only what is asked for and never runs validation unasked", async () => {
    await mkdir(path.join(dir, ".harness"), { recursive: true });
    const marker = path.join(dir, "ran");
    await writeFile(path.join(dir, ".harness/config.json"), JSON.stringify({ validation: [`touch ${marker}`] }));
    const c = await gatherContext(dir, slug, ["learnings"]);
    expect(Object.keys(c).sort()).toEqual(["learnings", "learningsTruncated", "session"]);
    const { existsSync } = await import("node:fs");
    expect(existsSync(marker)).toBe(false);
  });

  it("absent files give nulls and empty lists; a corrupt state file is reported, not thrown", async () => {
    expect(await gatherContext(dir, slug, ["state", "handoff", "learnings"])).toMatchObject({
      state: null,
      handoff: null,
      learnings: [],
    });
    await mkdir(sdir(), { recursive: true });
    await writeFile(path.join(sdir(), "autopilot-state.json"), "{ torn");
    const c = await gatherContext(dir, slug, ["state"]);
    expect(c.state).toBeNull();
    expect(c.errors?.state).toMatch(/not valid JSON/);
  });
});
