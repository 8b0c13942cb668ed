// The tool contracts on their own: what each tool refuses and how it bounds what it returns.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createToolbox } from "../../src/runners/tools.js";
import { globToRegExp } from "../../src/runners/tool-search.js";
import { checkResult, loadPersonaPrompt } from "../../src/runners/persona-prompts.js";

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "autopilot-tools-")));
  mkdirSync(path.join(root, "src/deep"), { recursive: true });
  mkdirSync(path.join(root, "node_modules/pkg"), { recursive: true });
  writeFileSync(path.join(root, "src/a.ts"), "export const a = 1;\n// TODO: b\n");
  writeFileSync(path.join(root, "src/deep/b.ts"), "export const b = 'TODO(x)';\n");
  writeFileSync(path.join(root, "node_modules/pkg/index.js"), "// TODO never seen\n");
  writeFileSync(path.join(root, "README.md"), "# Demo\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("toolbox", () => {
  it("lists files with a glob and skips node_modules", async () => {
    const tb = createToolbox(root);
    const all = await tb.call("list_files", {});
    expect(all.content).toContain("src/deep/b.ts");
    expect(all.content).not.toContain("node_modules");
    const ts = await tb.call("list_files", { glob: "src/**/*.ts" });
    expect(ts.content.split("\n").sort()).toEqual(["src/a.ts", "src/deep/b.ts"]);
    const limited = await createToolbox(root, { maxListEntries: 2 }).call("list_files", {});
    expect(limited.content).toMatch(/more not shown/);
  });

  it("searches literally by default and by regex on request, with bounded matches", async () => {
    const tb = createToolbox(root);
    const lit = await tb.call("search", { pattern: "TODO(x)" });
    expect(lit.content).toBe("src/deep/b.ts:1: export const b = 'TODO(x)';");
    const re = await tb.call("search", { pattern: "^export const \\w", regex: true, path: "src" });
    expect(re.content.split("\n")).toHaveLength(2);
    const bad = await tb.call("search", { pattern: "(", regex: true });
    expect(bad.isError).toBe(true);
    writeFileSync(path.join(root, "many.txt"), "hit\n".repeat(500));
    const many = await tb.call("search", { pattern: "hit", path: "many.txt" });
    expect(many.content).toMatch(/400 more matches not shown/);
  });

  it("counts reads in parts as a full read once they cover the whole file", async () => {
    writeFileSync(path.join(root, "long.txt"), "one\ntwo\nthree\nfour\n");
    const tb = createToolbox(root);
    await tb.call("read_file", { path: "long.txt", limit: 2 });
    const early = await tb.call("edit_file", { path: "long.txt", old: "two", new: "TWO" });
    expect(early.isError).toBe(true);
    expect(early.content).toMatch(/lines 1-2 of 4/);
    const rest = await tb.call("read_file", { path: "long.txt", offset: 3 });
    expect(rest.content).toBe("3\tthree\n4\tfour\n[showing lines 3-4 of 4]");
    expect((await tb.call("edit_file", { path: "long.txt", old: "two", new: "TWO" })).isError).toBe(false);
    // The toolbox's own write is the new baseline: a second edit needs no new read.
    expect((await tb.call("edit_file", { path: "long.txt", old: "four", new: "FOUR" })).isError).toBe(false);
    expect(readFileSync(path.join(root, "long.txt"), "utf8")).toBe("one\nTWO\nthree\nFOUR\n");
  });

  it("refuses ambiguous or missing edit text, bad input and unknown tools with actionable messages", async () => {
    writeFileSync(path.join(root, "dup.txt"), "x = 1\nx = 1\n");
    const tb = createToolbox(root);
    await tb.call("read_file", { path: "dup.txt" });
    expect((await tb.call("edit_file", { path: "dup.txt", old: "x = 1", new: "y" })).content).toMatch(/more than once/);
    expect((await tb.call("edit_file", { path: "dup.txt", old: "z", new: "y" })).content).toMatch(/not found/);
    const bad = await tb.call("read_file", { path: 3 });
    expect(bad.isError).toBe(true);
    expect(bad.content).toMatch(/Invalid input for read_file: path/);
    expect((await tb.call("rm_rf", {})).content).toMatch(/Unknown tool rm_rf/);
  });

  it("keeps writes under a symlinked directory inside, including files that do not exist yet", async () => {
    const outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), "autopilot-outside-")));
    try {
      symlinkSync(outside, path.join(root, "out"));
      symlinkSync(path.join(root, "src"), path.join(root, "src-link"));
      const tb = createToolbox(root);
      expect((await tb.call("write_file", { path: "out/deeper/new.txt", content: "x" })).content).toMatch(/symlink/);
      // A link that stays inside the project is fine.
      const ok = await tb.call("write_file", { path: "src-link/c.ts", content: "c\n" });
      expect(ok.isError).toBe(false);
      expect(readFileSync(path.join(root, "src/c.ts"), "utf8")).toBe("c\n");
      expect((await tb.call("search", { pattern: "x", path: "out" })).isError).toBe(true);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("times a command out and reports its exit code", async () => {
    const tb = createToolbox(root);
    const fail = await tb.call("run_command", { command: "echo oops >&2; exit 4" });
    expect(fail.content).toBe("Exit code 4.\noops\n");
    const started = Date.now();
    const slow = await tb.call("run_command", { command: "sleep 20", timeoutSec: 0.5 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(slow.isError).toBe(true);
    expect(slow.content).toMatch(/Timed out after 0.5s/);
  });

  it("shows git status and a diff of the project", async () => {
    const git = (...a: string[]) =>
      execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...a], { cwd: root });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "init");
    const tb = createToolbox(root);
    await tb.call("read_file", { path: "src/a.ts" });
    await tb.call("edit_file", { path: "src/a.ts", old: "a = 1", new: "a = 2" });
    expect((await tb.call("git_status", {})).content).toMatch(/ M src\/a.ts/);
    const diff = await tb.call("git_diff", { path: "src/a.ts" });
    expect(diff.content).toContain("+export const a = 2;");
    expect((await tb.call("git_diff", { path: "../x" })).isError).toBe(true);
  });
});

describe("globToRegExp", () => {
  it("handles *, **, ? and braces", () => {
    expect(globToRegExp("*.ts").test("src/deep/b.ts")).toBe(true);
    expect(globToRegExp("src/*.ts").test("src/deep/b.ts")).toBe(false);
    expect(globToRegExp("src/**/*.ts").test("src/a.ts")).toBe(true);
    expect(globToRegExp("**/*.{ts,md}").test("README.md")).toBe(true);
    expect(globToRegExp("file?.txt").test("file1.txt")).toBe(true);
  });
});

describe("persona results", () => {
  it("fills in the kind, requires each kind's field unless the result is an error", () => {
    expect(checkResult("verified", { verdict: "fail", findings: ["no tests"] })).toEqual({
      ok: true,
      result: { kind: "verified", verdict: "fail", findings: ["no tests"] },
    });
    expect(checkResult("verified", {}).ok).toBe(false);
    expect(checkResult("verified", { error: "could not run tests" }).ok).toBe(true);
    expect(checkResult("reviewed", { findings: [{ severity: "critical", title: "SQL injection" }] }).ok).toBe(true);
    expect(checkResult("reviewed", { findings: [{ severity: "huge", title: "x" }] }).ok).toBe(false);
    expect(checkResult("planned", "not an object").ok).toBe(false);
  });

  it("uses personas/<name>.md without its front matter when present", () => {
    const dir = path.join(root, "personas");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "harness-planner.md"), "---\ntools: [Read]\n---\n\nPlan carefully.\n");
    expect(loadPersonaPrompt("harness-planner", "planned", { personasDir: dir })).toBe("Plan carefully.");
    const fallback = loadPersonaPrompt("harness-verifier", "verified", { personasDir: dir, bundled: false });
    expect(fallback).toMatch(/harness verifier/);
    expect(fallback).toContain('{"kind":"verified","verdict":"pass|fail"');
  });
});
