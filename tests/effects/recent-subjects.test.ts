// The convention is read from the last 30 commits once per HEAD: after autopilot's own commit the
// kept window moves by that commit without asking git, and must say exactly what `git log` says;
// a commit someone else makes in between is read from git again.
import { afterEach, describe, expect, it } from "vitest";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { repoConvention } from "../../src/effects/commit-message.js";
import { humanSubjects } from "../../src/effects/recent-subjects.js";
import { commitCheckpoint } from "../../src/effects/git.js";

const repos: TempRepo[] = [];
afterEach(async () => {
  while (repos.length) await repos.pop()!.cleanup();
});

async function byHand(dir: string, subject: string) {
  await writeFile(path.join(dir, `${subject.replace(/\W+/g, "-")}.txt`), subject);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", subject);
}

/** What git says now: the people's subjects among the last 30 non-merge commits. */
async function fromGit(dir: string): Promise<string[]> {
  const out = await git(dir, "log", "-n30", "--no-merges", "--format=%s%x1f%b%x1e", "HEAD");
  return out
    .split("\x1e")
    .map((r) => r.trim().split("\x1f"))
    .filter(([s, b]) => s && !/^Autopilot-Effect:/m.test(b ?? ""))
    .map(([s]) => s);
}

describe("the recent subjects a convention is read from", () => {
  it("after autopilot's commits, the window is git's own: the oldest person's commit drops out", async () => {
    const r = await makeRepo();
    repos.push(r);
    for (let i = 1; i <= 30; i++) await byHand(r.dir, `feat: part ${i}`);
    expect(await humanSubjects(r.dir)).toEqual(await fromGit(r.dir));
    for (let i = 1; i <= 3; i++) {
      await writeFile(path.join(r.dir, `own-${i}.ts`), `export const n = ${i};\n`);
      const c = await commitCheckpoint(r.dir, { label: `cp ${i}`, effectId: `own-${i}` });
      expect(c.committed).toBe(true);
      const kept = await humanSubjects(r.dir);
      expect(kept).toEqual(await fromGit(r.dir));
      expect(kept).toHaveLength(30 - i);
    }
  });

  it("a commit someone else makes between autopilot's is seen at the next one", async () => {
    const r = await makeRepo();
    repos.push(r);
    for (const s of ["Add the reader", "Add the writer", "Fix the totals"]) await byHand(r.dir, s);
    expect(await repoConvention(r.dir)).toEqual({ kind: "plain", capital: true });
    await writeFile(path.join(r.dir, "a.ts"), "export const a = 1;\n");
    await commitCheckpoint(r.dir, { label: "cp", effectId: "a" });
    for (const s of ["feat: count words", "fix: empty input", "feat: totals", "docs: usage"]) await byHand(r.dir, s);
    expect(await repoConvention(r.dir)).toMatchObject({ kind: "conventional", from: "history" });
    expect(await humanSubjects(r.dir)).toEqual(await fromGit(r.dir));
  });
});
