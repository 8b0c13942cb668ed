import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdir, readFile, symlink, readdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { clearScratchpad, listScratchpad, phaseSlug, writeScratchpad } from "../../src/effects/scratchpad.js";
import { tmpProject } from "./_env.js";
import { sessionPathsAt } from "../../src/session/paths.js";

let dir: string;
let cleanup: () => Promise<void>;
let outside: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  ({ dir, cleanup } = await tmpProject());
  outside = await tmpProject();
});
afterEach(async () => {
  await cleanup();
  await outside.cleanup();
});
const sessionDir = ".harness/sessions/s";

async function refused(p: Promise<unknown>, code = "outside_project") {
  await expect(p).rejects.toMatchObject({ code });
}

describe("scratchpad", () => {
  it("writes under <sessionDir>/scratchpad/<phase-slug>/ and lists it", async () => {
    const file = await writeScratchpad(
      sessionPathsAt(dir, sessionDir),
      "Phase 1: Core Scanner",
      "research-rules.md",
      "# notes\n",
    );
    expect(file).toBe(path.join(dir, sessionDir, "scratchpad/phase-1-core-scanner/research-rules.md"));
    expect(await readFile(file, "utf8")).toBe("# notes\n");
    await writeScratchpad(sessionPathsAt(dir, sessionDir), "Phase 1: Core Scanner", "task-2.md", "x");
    expect(await listScratchpad(sessionPathsAt(dir, sessionDir))).toEqual([
      { phase: "phase-1-core-scanner", files: ["research-rules.md", "task-2.md"] },
    ]);
    expect(phaseSlug(2)).toBe("phase-2");
  });

  it("refuses file names that escape: .., absolute, separators", async () => {
    for (const name of ["../x.md", "..", "a/b.md", "a\\b.md", "/etc/passwd", "..\\..\\x", "x\0.md"]) {
      await refused(writeScratchpad(sessionPathsAt(dir, sessionDir), "p", name, "x"));
    }
    await refused((async () => writeScratchpad(sessionPathsAt(dir, "../../elsewhere"), "p", "a.md", "x"))());
    expect(existsSync(path.join(dir, ".harness"))).toBe(false);
  });

  it("refuses to write through a symbolic link", async () => {
    await mkdir(path.join(dir, sessionDir, "scratchpad"), { recursive: true });
    await symlink(outside.dir, path.join(dir, sessionDir, "scratchpad/p"));
    await refused(writeScratchpad(sessionPathsAt(dir, sessionDir), "p", "a.md", "x"));
    expect(await readdir(outside.dir)).toEqual([]);

    await mkdir(path.join(dir, sessionDir, "scratchpad/q"), { recursive: true });
    await symlink(path.join(outside.dir, "target.md"), path.join(dir, sessionDir, "scratchpad/q/a.md"));
    await refused(writeScratchpad(sessionPathsAt(dir, sessionDir), "q", "a.md", "x"));
    expect(existsSync(path.join(outside.dir, "target.md"))).toBe(false);
  });

  it("refuses when the session folder itself leads outside through a link higher up", async () => {
    await symlink(outside.dir, path.join(dir, ".harness"));
    await refused(writeScratchpad(sessionPathsAt(dir, sessionDir), "p", "a.md", "x"));
    expect(await readdir(outside.dir)).toEqual([]);
  });

  it("clearScratchpad removes only that phase and is idempotent", async () => {
    await writeScratchpad(sessionPathsAt(dir, sessionDir), "Phase 1", "a.md", "x");
    await writeScratchpad(sessionPathsAt(dir, sessionDir), "Phase 2", "b.md", "y");
    expect(await clearScratchpad(sessionPathsAt(dir, sessionDir), "Phase 1")).toEqual({ removed: true });
    expect(await clearScratchpad(sessionPathsAt(dir, sessionDir), "Phase 1")).toEqual({ removed: false });
    expect(await listScratchpad(sessionPathsAt(dir, sessionDir))).toEqual([{ phase: "phase-2", files: ["b.md"] }]);
  });

  it("clearing a phase folder that is a link removes the link, never the target", async () => {
    await mkdir(path.join(dir, sessionDir, "scratchpad"), { recursive: true });
    await mkdir(path.join(outside.dir, "keep"));
    await symlink(outside.dir, path.join(dir, sessionDir, "scratchpad/p"));
    await clearScratchpad(sessionPathsAt(dir, sessionDir), "p");
    expect(await readdir(outside.dir)).toEqual(["keep"]);
  });
});
