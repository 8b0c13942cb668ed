// The one path check (src/session/confine.ts), and the readers and writers that use it: what a
// path may name inside the project and what it may not, however it is spelled.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkPath, confine, isInside } from "../../src/session/confine.js";
import { createToolbox } from "../../src/runners/tools.js";
import { readPlanFacts } from "../../src/engine/results.js";
import { resolveSpecPath } from "../../src/session/slug.js";
import { writeScratchpad } from "../../src/effects/scratchpad.js";
import { sessionPaths } from "../../src/session/paths.js";

let tmp: string;
let root: string;
let outside: string;
beforeEach(() => {
  tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "autopilot-confine-")));
  root = path.join(tmp, "project");
  outside = path.join(tmp, "elsewhere");
  mkdirSync(path.join(root, "docs/plans"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, "secret.md"), "# Secret\n");
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const PLAN = "# Plan\n\n### Task 1: one\n\n- [ ] do it\n";

describe("confine", () => {
  it("refuses .. as a whole segment and accepts a name that starts with ..", () => {
    expect(() => confine(root, "../elsewhere/secret.md")).toThrow(expect.objectContaining({ code: "outside_project" }));
    expect(() => confine(root, "docs/../../elsewhere")).toThrow(/outside the project/);
    expect(() => confine(root, "..")).toThrow(/outside the project/);
    expect(confine(root, "..foo/bar.md")).toBe(path.join(root, "..foo/bar.md"));
    expect(confine(root, "docs/..plans")).toBe(path.join(root, "docs/..plans"));
    expect(confine(root, "docs/plans/../x.md")).toBe(path.join(root, "docs/x.md"));
    expect(confine(root, ".")).toBe(root);
    expect(isInside(root, path.join(root, "..foo"))).toBe(true);
    expect(isInside(root, path.join(tmp, "project-other"))).toBe(false);
  });

  it("accepts an absolute path inside the project and refuses one outside", () => {
    expect(confine(root, path.join(root, "docs/a.md"))).toBe(path.join(root, "docs/a.md"));
    expect(() => confine(root, "/etc/passwd")).toThrow(/outside the project/);
    expect(() => confine(root, path.join(outside, "secret.md"))).toThrow(
      expect.objectContaining({ details: { path: path.join(outside, "secret.md"), why: "outside" } }),
    );
  });

  it("reads Windows separators as separators, so ..\\ escapes and C:\\ is absolute", () => {
    expect(() => confine(root, "..\\elsewhere\\secret.md")).toThrow(/outside the project/);
    expect(() => confine(root, "docs\\..\\..\\elsewhere")).toThrow(/outside the project/);
    expect(() => confine(root, "C:\\Windows\\system.ini")).toThrow(/outside the project/);
    expect(confine(root, "docs\\plans\\p.md")).toBe(path.join(root, "docs", "plans", "p.md"));
  });

  it("follows links only while they stay inside", () => {
    symlinkSync(outside, path.join(root, "docs/out"));
    symlinkSync(path.join(root, "docs/plans"), path.join(root, "inner"));
    symlinkSync(path.join(tmp, "missing"), path.join(root, "dangling"));
    // Lexically these are inside; only following the link shows where they lead.
    expect(checkPath(root, "docs/out/secret.md").ok).toBe(true);
    const out = checkPath(root, "docs/out/secret.md", { links: true });
    expect(out).toMatchObject({
      ok: false,
      escape: { why: "link", via: path.join(root, "docs/out/secret.md"), real: path.join(outside, "secret.md") },
    });
    // A file that does not exist yet is judged by the folder it would be written in.
    expect(checkPath(root, "docs/out/new/file.md", { links: true })).toMatchObject({
      ok: false,
      escape: { why: "link" },
    });
    expect(checkPath(root, "inner/p.md", { links: true })).toMatchObject({
      ok: true,
      real: path.join(root, "docs/plans/p.md"),
    });
    expect(checkPath(root, "dangling", { links: true })).toMatchObject({ ok: false, escape: { why: "broken" } });
    expect(() => confine(root, "docs/out/secret.md", { links: true })).toThrow(/through a symbolic link/);
  });

  it("refuses a NUL byte", () => {
    expect(checkPath(root, "docs/a\0.md")).toEqual({ ok: false, escape: { why: "nul" } });
  });
});

describe("the readers and writers that use it", () => {
  it("read a plan kept in a folder whose name starts with .. (was refused as outside the project)", async () => {
    mkdirSync(path.join(root, "..plans"));
    writeFileSync(path.join(root, "..plans/plan.md"), PLAN);
    const facts = await readPlanFacts(root, "..plans/plan.md", []);
    expect(facts).toMatchObject({ path: "..plans/plan.md", taskCount: 1 });
  });

  it("refuse a plan that links outside, and read no plan through a dangling link", async () => {
    symlinkSync(path.join(outside, "secret.md"), path.join(root, "docs/plans/plan.md"));
    await expect(readPlanFacts(root, "docs/plans/plan.md", [])).rejects.toMatchObject({ code: "outside_project" });
    symlinkSync(path.join(tmp, "missing.md"), path.join(root, "docs/plans/gone.md"));
    expect(await readPlanFacts(root, "docs/plans/gone.md", [])).toBeNull();
    await expect(readPlanFacts(root, "..\\elsewhere\\secret.md", [])).rejects.toMatchObject({
      code: "outside_project",
    });
  });

  it("let a headless persona write under a ..-named folder but not through ..\\", async () => {
    const tb = createToolbox(root);
    expect((await tb.call("write_file", { path: "..notes/a.md", content: "x" })).isError).toBe(false);
    expect(readFileSync(path.join(root, "..notes/a.md"), "utf8")).toBe("x");
    const escaped = await tb.call("write_file", { path: "..\\elsewhere\\owned.md", content: "x" });
    expect(escaped).toMatchObject({ isError: true, content: expect.stringMatching(/outside the project/) });
    const read = await tb.call("read_file", { path: "C:\\elsewhere\\secret.md" });
    expect(read).toMatchObject({ isError: true, content: expect.stringMatching(/outside the project/) });
  });

  it("take a spec only from inside the project, by any spelling", () => {
    writeFileSync(path.join(root, "docs/spec.md"), "# Spec\n");
    expect(resolveSpecPath(root, "docs\\spec.md").rel).toBe("docs/spec.md");
    expect(() => resolveSpecPath(root, "..\\elsewhere\\secret.md")).toThrow(
      expect.objectContaining({ code: "outside_project" }),
    );
    symlinkSync(path.join(outside, "secret.md"), path.join(root, "docs/linked.md"));
    expect(() => resolveSpecPath(root, "docs/linked.md")).toThrow(/resolves to .*secret\.md, outside the project/);
  });

  it("refuse a scratchpad folder that a dangling link would carry elsewhere", async () => {
    const ws = sessionPaths(root, "docs--spec");
    mkdirSync(path.dirname(ws.sessionDir), { recursive: true });
    symlinkSync(path.join(tmp, "nowhere"), path.join(root, ".harness/sessions/docs--spec"));
    await expect(writeScratchpad(ws, "Phase 1", "notes.md", "x")).rejects.toMatchObject({ code: "outside_project" });
  });
});
