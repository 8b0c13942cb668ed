// The persona and skill files the package ships: valid front matter, the contract each must state.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import matter from "gray-matter";
import { describe, expect, it } from "vitest";
import { REPO } from "./helpers.js";
import { PERSONAS } from "../../src/vocabulary.js";

const personaFiles = readdirSync(join(REPO, "personas")).filter((f) => f.endsWith(".md"));
const skillDirs = readdirSync(join(REPO, "skills")).filter((d) => statSync(join(REPO, "skills", d)).isDirectory());

describe("personas/*.md", () => {
  it("are the personas the protocol dispatches", () => {
    expect(personaFiles.sort()).toEqual(PERSONAS.map((p) => `${p}.md`).sort());
  });

  it.each(personaFiles)("%s has Claude Code agent front matter and a body", (file) => {
    const { data, content } = matter(readFileSync(join(REPO, "personas", file), "utf8"), {});
    expect(data.name).toBe(file.replace(/\.md$/, ""));
    expect(typeof data.description).toBe("string");
    expect(typeof data.tools).toBe("string");
    expect(content.length).toBeGreaterThan(500);
    // the result goes back as one fenced JSON block the host passes to autopilot_report unchanged
    expect(content).toContain("```json");
    expect(content).toMatch(/"error"/);
  });

  // Claude Code 2.1's tools (native builds have no Grep or Glob: search goes through Bash); an
  // unknown name in `tools:` is dropped silently, so only these may appear.
  it("list only tools Claude Code 2.1 has", () => {
    for (const f of personaFiles) {
      const tools = String(matter(readFileSync(join(REPO, "personas", f), "utf8"), {}).data.tools).split(/,\s*/);
      // Claude Code's own tools, and the one autopilot tool a persona calls (its server's name for it).
      for (const t of tools)
        expect(["Read", "Bash", "Write", "Edit", "mcp__autopilot__autopilot_result"], `${f}: ${t}`).toContain(t);
    }
  });

  it("the reviewer and the verifier cannot edit files", () => {
    for (const f of ["harness-code-reviewer.md", "harness-verifier.md"]) {
      const tools = String(matter(readFileSync(join(REPO, "personas", f), "utf8"), {}).data.tools);
      // No Write, no Edit; the one MCP tool records their result and changes no project file.
      expect(tools.split(/,\s*/).sort()).toEqual(["Bash", "Read", "mcp__autopilot__autopilot_result"]);
    }
  });

  it("each persona states the result kind the server expects", () => {
    const body = (f: string) => readFileSync(join(REPO, "personas", f), "utf8");
    expect(body("harness-planner.md")).toMatch(/"kind": "planned"/);
    expect(body("harness-planner.md")).toContain("### Task N: Name");
    expect(body("harness-planner.md")).toContain("**Tasks:** N");
    expect(body("harness-planner.md")).toContain("handoff.json");
    for (const m of ["human-verify", "decision", "human-action"])
      expect(body("harness-planner.md")).toContain(`[checkpoint:${m}]`);
    expect(body("harness-task-executor.md")).toMatch(/"kind": "executed"/);
    expect(body("harness-task-executor.md")).toMatch(/Never commit/);
    expect(body("harness-verifier.md")).toMatch(/"kind": "verified"/);
    expect(body("harness-code-reviewer.md")).toMatch(/"kind": "reviewed"/);
  });
});

describe("skills/*/SKILL.md", () => {
  it("include the autopilot skill and the four method skills", () => {
    expect(skillDirs.sort()).toEqual(
      [
        "harness-autopilot",
        "harness-code-review",
        "harness-execution",
        "harness-planning",
        "harness-verification",
      ].sort(),
    );
  });

  it.each(skillDirs)("%s has name and description front matter", (dir) => {
    const { data, content } = matter(readFileSync(join(REPO, "skills", dir, "SKILL.md"), "utf8"), {});
    expect(data.name).toBe(dir);
    expect(typeof data.description).toBe("string");
    expect(data.description.length).toBeGreaterThan(20);
    expect(content.trim().length).toBeGreaterThan(200);
  });

  it("the autopilot skill stays short (under 2.5 KB) and names every tool the loop needs", () => {
    const text = readFileSync(join(REPO, "skills", "harness-autopilot", "SKILL.md"));
    expect(text.byteLength).toBeLessThan(2500);
    for (const tool of [
      "autopilot_start",
      "autopilot_report",
      "autopilot_decide",
      "autopilot_next",
      "autopilot_status",
    ]) {
      expect(text.toString()).toContain(tool);
    }
  });
});
