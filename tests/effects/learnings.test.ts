import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  appendDoneLearnings,
  appendSessionLearning,
  countLearningEntries,
  promoteSessionLearnings,
  pruneNotice,
  readLearnings,
} from "../../src/effects/learnings.js";
import { tmpProject } from "./_env.js";
import { projectPaths, sessionPaths } from "../../src/session/paths.js";
import { renderNotice } from "../../src/session/notices.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tmpProject()));
afterEach(() => cleanup());

const globalFile = () => path.join(dir, ".harness/learnings.md");
const sessionFile = (slug: string) => path.join(dir, ".harness/sessions", slug, "learnings.md");

const done = {
  date: "2026-03-19",
  specName: "Security Scanner",
  phases: 3,
  tasks: 30,
  retries: 1,
  observation: "Phase 2 needed interactive planning",
  effectId: "s-40-learn",
};

describe("DONE learnings block", () => {
  it("appends the skill's block to .harness/learnings.md", async () => {
    await appendDoneLearnings(projectPaths(dir), done);
    const body = await readFile(globalFile(), "utf8");
    expect(body).toBe(
      "# Learnings\n\n" +
        "## 2026-03-19 — Autopilot: Security Scanner <!-- autopilot:s-40-learn -->\n" +
        "- [skill:harness-autopilot] [outcome:complete] Executed 3 phases, 30 tasks, 1 retries\n" +
        "- [skill:harness-autopilot] [outcome:observation] Phase 2 needed interactive planning\n",
    );
  });

  it("a replay of the same effect appends nothing", async () => {
    await appendDoneLearnings(projectPaths(dir), done);
    expect((await appendDoneLearnings(projectPaths(dir), done)).appended).toBe(false);
    expect(await countLearningEntries(projectPaths(dir))).toBe(1);
  });

  it("keeps what the file already had", async () => {
    await mkdir(path.dirname(globalFile()), { recursive: true });
    await writeFile(
      globalFile(),
      "# Learnings\n\n- **2026-01-01 [skill:harness-execution] [outcome:gotcha]:** old one\n",
    );
    await appendDoneLearnings(projectPaths(dir), { ...done, observation: null });
    const body = await readFile(globalFile(), "utf8");
    expect(body.startsWith("# Learnings\n\n- **2026-01-01")).toBe(true);
    expect(body).not.toContain("[outcome:observation]");
    expect(await countLearningEntries(projectPaths(dir))).toBe(2);
  });
});

describe("promoting session learnings", () => {
  const slug = "changes--scanner--proposal";
  async function seed() {
    for (const [outcome, text] of [
      ["gotcha", "Always check null before access"],
      ["decision", "Use Result type over exceptions"],
      ["success", "All 5 tasks completed"],
      ["observation", "Pre-commit hook enforces baselines"],
      [null, "untagged note"],
    ] as const) {
      await appendSessionLearning(sessionPaths(dir, slug), {
        date: "2026-03-25",
        skill: "harness-execution",
        outcome,
        text,
      });
    }
  }

  it("moves gotcha/decision/observation entries to the global file and keeps the rest in the session", async () => {
    await seed();
    expect(await promoteSessionLearnings(sessionPaths(dir, slug))).toEqual({ promoted: 3, kept: 2, held: [] });
    const g = await readFile(globalFile(), "utf8");
    expect(g).toContain("- **2026-03-25 [skill:harness-execution] [outcome:gotcha]:** Always check null before access");
    expect(g).toContain("Use Result type over exceptions");
    expect(g).toContain("Pre-commit hook enforces baselines");
    expect(g).not.toContain("All 5 tasks completed");
    const s = await readFile(sessionFile(slug), "utf8");
    expect(s).toContain("All 5 tasks completed");
    expect(s).toContain("untagged note");
    expect(s).not.toContain("Always check null");
  });

  it("promotes nothing twice: a replay and an entry already global add no duplicates", async () => {
    await mkdir(path.dirname(globalFile()), { recursive: true });
    await writeFile(
      globalFile(),
      "# Learnings\n\n- **2026-03-25 [skill:harness-execution] [outcome:gotcha]:** Always check null before access\n",
    );
    await seed();
    expect(await promoteSessionLearnings(sessionPaths(dir, slug))).toEqual({ promoted: 2, kept: 2, held: [] });
    expect(await promoteSessionLearnings(sessionPaths(dir, slug))).toEqual({ promoted: 0, kept: 2, held: [] });
    const g = await readFile(globalFile(), "utf8");
    expect(g.match(/Always check null/g)).toHaveLength(1);
    expect(await countLearningEntries(projectPaths(dir))).toBe(3);
  });

  it("finishes a move that crashed between writing global and rewriting the session", async () => {
    await seed();
    const before = await readFile(sessionFile(slug), "utf8");
    await promoteSessionLearnings(sessionPaths(dir, slug));
    await writeFile(sessionFile(slug), before); // the session rewrite "never happened"
    expect(await promoteSessionLearnings(sessionPaths(dir, slug))).toEqual({ promoted: 0, kept: 2, held: [] });
    expect((await readFile(globalFile(), "utf8")).match(/\[outcome:/g)).toHaveLength(3);
    expect(await readFile(sessionFile(slug), "utf8")).not.toContain("[outcome:gotcha]");
  });

  it("a session without learnings promotes nothing and creates no file", async () => {
    expect(await promoteSessionLearnings(sessionPaths(dir, slug))).toEqual({ promoted: 0, kept: 0, held: [] });
    expect(await countLearningEntries(projectPaths(dir))).toBe(0);
  });

  it("the same session learning appended twice is written once", async () => {
    const l = { date: "2026-03-25", skill: "harness-execution", outcome: "gotcha", text: "same" };
    await appendSessionLearning(sessionPaths(dir, slug), l);
    expect((await appendSessionLearning(sessionPaths(dir, slug), l)).appended).toBe(false);
  });
});

describe("counting and the prune suggestion", () => {
  it("counts dated bullets and dated blocks like upstream", async () => {
    await mkdir(path.dirname(globalFile()), { recursive: true });
    await writeFile(
      globalFile(),
      [
        "# Learnings",
        "",
        "Some prose that is not an entry.",
        "",
        "- **2026-01-01 [skill:a]:** one",
        "  continued line",
        "",
        "## 2026-01-02 — Autopilot: X",
        "- [skill:harness-autopilot] [outcome:complete] Executed 1 phases, 2 tasks, 0 retries",
        "",
        "- **2026-01-03:** three",
      ].join("\n"),
    );
    expect(await countLearningEntries(projectPaths(dir))).toBe(3);
  });

  it("suggests pruning only above 30 entries, in the skill's words", () => {
    expect(pruneNotice(30)).toBeNull();
    expect(renderNotice(pruneNotice(31)!)).toBe(
      "Global learnings.md has 31 entries (threshold: 30). Run `harness learnings prune` to analyze patterns and archive old entries.",
    );
  });
});

describe("reading learnings for gather_context", () => {
  it("returns session entries first, then global, newest first, de-duplicated and bounded", async () => {
    const slug = "s";
    await mkdir(path.dirname(globalFile()), { recursive: true });
    const g = ["# Learnings", ""];
    for (let i = 1; i <= 40; i++)
      g.push(`- **2026-01-${String((i % 28) + 1).padStart(2, "0")} [skill:x]:** global ${i}`, "");
    g.push("- **2026-02-01 [skill:x] [outcome:gotcha]:** shared");
    await writeFile(globalFile(), g.join("\n"));
    await appendSessionLearning(sessionPaths(dir, slug), {
      date: "2026-03-01",
      skill: "x",
      outcome: "gotcha",
      text: "session one",
    });
    await appendSessionLearning(sessionPaths(dir, slug), {
      date: "2026-02-01",
      skill: "x",
      outcome: "gotcha",
      text: "shared",
    });
    const r = await readLearnings(sessionPaths(dir, slug), { max: 5 });
    expect(r.entries.map((e) => e.source)).toEqual(["session", "session", "global", "global", "global"]);
    expect(r.entries[0].text).toContain("shared");
    expect(r.entries[1].text).toContain("session one");
    expect(r.entries[2].text).toContain("global 40");
    expect(r.entries.filter((e) => e.text.includes("shared"))).toHaveLength(1);
    expect(r.truncated).toBe(true);
    expect(r.total).toBe(42);
    const small = await readLearnings(sessionPaths(dir, slug), { max: 100, maxChars: 200 });
    expect(small.entries.map((e) => e.text).join("").length).toBeLessThanOrEqual(200);
  });
});
