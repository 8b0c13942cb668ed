import { afterEach, describe, expect, it } from "vitest";
import { mkdir, writeFile, rm } from "node:fs/promises";
import path from "node:path";
import { makeRepo, git, type TempRepo } from "../helpers/git.js";
import { assertGitReady, commitCheckpoint, headCommit } from "../../src/effects/git.js";
import { commitsSince, diffScope } from "../../src/effects/git-history.js";
import { AutopilotError } from "../../src/protocol/errors.js";

const repos: TempRepo[] = [];
async function repo(opts?: Parameters<typeof makeRepo>[0]): Promise<TempRepo> {
  const r = await makeRepo(opts);
  repos.push(r);
  return r;
}
afterEach(async () => {
  while (repos.length) await repos.pop()!.cleanup();
});

async function count(dir: string): Promise<number> {
  return Number((await git(dir, "rev-list", "--count", "HEAD")).trim());
}
async function lastMessage(dir: string): Promise<string> {
  return git(dir, "log", "-1", "--format=%B");
}
async function expectCode(p: Promise<unknown>, code: string): Promise<AutopilotError> {
  const e = await p.then(
    () => null,
    (err) => err,
  );
  expect(e).toBeInstanceOf(AutopilotError);
  expect((e as AutopilotError).code).toBe(code);
  return e as AutopilotError;
}

describe("checkpoint commits", () => {
  it("commits every project change with the subject it is given (the label without one) and an effect trailer", async () => {
    const { dir } = await repo();
    await writeFile(path.join(dir, "a.ts"), "export const a = 1;\n");
    const r = await commitCheckpoint(dir, { label: "Checkpoint 1: types and interfaces", effectId: "s1-e1" });
    expect(r.committed).toBe(true);
    expect(r.sha).toBe(await headCommit(dir));
    const msg = await lastMessage(dir);
    expect(msg.split("\n")[0]).toBe("Checkpoint 1: types and interfaces");
    expect(msg).toContain("\n\nAutopilot-Effect: s1-e1");
    expect((await git(dir, "show", "--name-only", "--format=", "HEAD")).trim()).toBe("a.ts");
  });

  it("writes the body's paragraphs after the subject and the trailers in the last paragraph, before the effect's", async () => {
    const { dir } = await repo();
    await writeFile(path.join(dir, "b.ts"), "x\n");
    await commitCheckpoint(dir, {
      label: "Phase 1: Core — recovery at task 4",
      subject: "feat: keep the reader",
      body: ["Why it is kept.", "- one\n- two"],
      trailers: ["Autopilot: Phase 1: Core — recovery at task 4"],
      effectId: "r1",
    });
    expect((await lastMessage(dir)).trimEnd()).toBe(
      "feat: keep the reader\n\nWhy it is kept.\n\n- one\n- two\n\nAutopilot: Phase 1: Core — recovery at task 4\nAutopilot-Effect: r1",
    );
    const trailers = await git(dir, "log", "-1", "--format=%(trailers:only,unfold)");
    expect(trailers.trim().split("\n")).toEqual([
      "Autopilot: Phase 1: Core — recovery at task 4",
      "Autopilot-Effect: r1",
    ]);
  });

  it("commits deletions and renames too", async () => {
    const { dir } = await repo({ files: { "old.ts": "1\n", "keep.ts": "k\n" } });
    await rm(path.join(dir, "old.ts"));
    await writeFile(path.join(dir, "new.ts"), "1\n");
    const r = await commitCheckpoint(dir, { label: "cp", effectId: "del" });
    expect(r.committed).toBe(true);
    expect((await git(dir, "ls-files")).trim().split("\n").sort()).toEqual(["keep.ts", "new.ts"]);
    expect((await git(dir, "status", "--porcelain")).trim()).toBe("");
  });

  it("returns committed:false and makes no commit when nothing changed", async () => {
    const { dir } = await repo();
    const before = await count(dir);
    expect(await commitCheckpoint(dir, { label: "Checkpoint 3", effectId: "e3" })).toEqual({ committed: false });
    expect(await count(dir)).toBe(before);
  });

  it("never commits session scratch under .harness/sessions, but does commit .harness/learnings.md", async () => {
    const { dir } = await repo();
    await mkdir(path.join(dir, ".harness/sessions/s/scratchpad/p"), { recursive: true });
    await writeFile(path.join(dir, ".harness/sessions/s/autopilot-state.json"), "{}");
    await writeFile(path.join(dir, ".harness/sessions/s/scratchpad/p/notes.md"), "notes");
    await writeFile(path.join(dir, ".harness/learnings.md"), "# Learnings\n");
    const r = await commitCheckpoint(dir, { label: "cp", effectId: "e" });
    expect(r.committed).toBe(true);
    const files = (await git(dir, "show", "--name-only", "--format=", "HEAD")).trim().split("\n");
    expect(files).toEqual([".harness/learnings.md"]);
    expect((await git(dir, "ls-files", ".harness/sessions")).trim()).toBe("");
    // .gitignore was not touched
    expect((await git(dir, "status", "--porcelain", ".gitignore")).trim()).toBe("");
  });

  it("only session scratch changed → committed:false", async () => {
    const { dir } = await repo();
    await mkdir(path.join(dir, ".harness/sessions/s"), { recursive: true });
    await writeFile(path.join(dir, ".harness/sessions/s/handoff.json"), "{}");
    const before = await count(dir);
    expect((await commitCheckpoint(dir, { label: "cp", effectId: "e" })).committed).toBe(false);
    expect(await count(dir)).toBe(before);
  });

  it("leaves session files the user had staged out of the commit", async () => {
    const { dir } = await repo();
    await mkdir(path.join(dir, ".harness/sessions/s"), { recursive: true });
    await writeFile(path.join(dir, ".harness/sessions/s/handoff.json"), "{}");
    await git(dir, "add", "-f", ".harness/sessions/s/handoff.json");
    await writeFile(path.join(dir, "c.ts"), "c\n");
    await commitCheckpoint(dir, { label: "cp", effectId: "e" });
    expect((await git(dir, "show", "--name-only", "--format=", "HEAD")).trim()).toBe("c.ts");
  });

  it("running the same effect twice (a replay after a crash) makes one commit", async () => {
    const { dir } = await repo();
    const start = await headCommit(dir);
    await writeFile(path.join(dir, "a.ts"), "1\n");
    const first = await commitCheckpoint(dir, { label: "cp 1", effectId: "sess-7-commit", since: start });
    await writeFile(path.join(dir, "later.ts"), "edits made after the commit\n");
    const second = await commitCheckpoint(dir, { label: "cp 1", effectId: "sess-7-commit", since: start });
    expect(second.sha).toBe(first.sha);
    expect(second.replayed).toBe(true);
    expect(await count(dir)).toBe(2);
    // a different effect id whose name is a prefix-extension is a different effect
    const third = await commitCheckpoint(dir, { label: "cp 2", effectId: "sess-7-commit-2", since: start });
    expect(third.sha).not.toBe(first.sha);
    expect(await count(dir)).toBe(3);
  });

  it("treats labels that look like git options or contain newlines and shell syntax as plain text", async () => {
    const { dir } = await repo();
    const head0 = await headCommit(dir);
    await writeFile(path.join(dir, "x.txt"), "x\n");
    await commitCheckpoint(dir, { label: "--amend", effectId: "o1" });
    expect(await count(dir)).toBe(2); // a new commit, not an amended one
    expect((await git(dir, "rev-parse", "HEAD~1")).trim()).toBe(head0);
    expect((await lastMessage(dir)).split("\n")[0]).toBe("--amend");

    await writeFile(path.join(dir, "y.txt"), "y\n");
    await commitCheckpoint(dir, {
      label: "line one\nline two $(touch pwned) `id`; rm -rf / && echo",
      effectId: "o2\nx",
    });
    const msg = await lastMessage(dir);
    expect(msg.split("\n")[0]).toBe("line one line two $(touch pwned) `id`; rm -rf / && echo");
    expect(msg).toContain("Autopilot-Effect: o2_x");
    await expect(import("node:fs/promises").then((m) => m.stat(path.join(dir, "pwned")))).rejects.toThrow();
  });

  it("uses a fallback identity only when the repository has none", async () => {
    const { dir } = await repo({ identity: false });
    await writeFile(path.join(dir, "z.txt"), "z\n");
    // HOME without a global identity, so only the fallback can supply one
    const home = process.env.HOME;
    const xdg = process.env.XDG_CONFIG_HOME;
    process.env.HOME = dir;
    process.env.XDG_CONFIG_HOME = path.join(dir, ".none");
    try {
      const r = await commitCheckpoint(dir, { label: "cp", effectId: "id1" });
      expect(r.committed).toBe(true);
    } finally {
      process.env.HOME = home;
      if (xdg === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = xdg;
    }
    expect((await git(dir, "log", "-1", "--format=%an <%ae>")).trim()).toMatch(/.+ <.+>/);
    expect((await git(dir, "config", "--local", "--list")).includes("user.email")).toBe(false);
  });

  it("does not touch other branches", async () => {
    const { dir } = await repo();
    await git(dir, "branch", "other");
    const other = (await git(dir, "rev-parse", "other")).trim();
    await writeFile(path.join(dir, "a.ts"), "1\n");
    await commitCheckpoint(dir, { label: "cp", effectId: "b1" });
    expect((await git(dir, "rev-parse", "other")).trim()).toBe(other);
    expect((await git(dir, "rev-parse", "--abbrev-ref", "HEAD")).trim()).toBe("main");
  });
});

describe("git readiness errors", () => {
  it("not a git repository → not_a_git_repo with a next step", async () => {
    const { dir } = await repo();
    await rm(path.join(dir, ".git"), { recursive: true, force: true });
    const e = await expectCode(assertGitReady(dir), "not_a_git_repo");
    expect(e.message).toMatch(/git init/);
    await expectCode(commitCheckpoint(dir, { label: "x", effectId: "x" }), "not_a_git_repo");
  });

  it("a repository without commits → no_commits", async () => {
    const { dir } = await repo({ initialCommit: false });
    const e = await expectCode(assertGitReady(dir), "no_commits");
    expect(e.message).toMatch(/initial commit/);
    await expectCode(headCommit(dir), "no_commits");
  });

  it("detached HEAD → detached_head", async () => {
    const { dir } = await repo();
    await git(dir, "checkout", "-q", "--detach");
    const e = await expectCode(assertGitReady(dir), "detached_head");
    expect(e.message).toMatch(/git switch/);
  });

  it("a ready repository reports its branch", async () => {
    const { dir } = await repo({ branch: "feature/x" });
    expect(await assertGitReady(dir)).toEqual({ branch: "feature/x" });
  });
});

describe("final review scope and PR text", () => {
  it("diffScope covers startingCommit..HEAD with the changed files and a stat", async () => {
    const { dir } = await repo();
    const start = await headCommit(dir);
    await writeFile(path.join(dir, "a.ts"), "1\n");
    await commitCheckpoint(dir, { label: "Checkpoint 1: a", effectId: "1" });
    await mkdir(path.join(dir, "src"));
    await writeFile(path.join(dir, "src/b.ts"), "2\n");
    await commitCheckpoint(dir, { label: "Checkpoint 2: b", effectId: "2" });
    const scope = await diffScope(dir, start);
    expect(scope.range).toBe(`${start}..HEAD`);
    expect(scope.files.sort()).toEqual(["a.ts", "src/b.ts"]);
    expect(scope.stat).toMatch(/2 files changed/);
  });

  it("commitsSince lists commits oldest first, each with its subject and body", async () => {
    const { dir } = await repo();
    const start = await headCommit(dir);
    await writeFile(path.join(dir, "a.ts"), "1\n");
    await commitCheckpoint(dir, {
      label: "Checkpoint 1: a",
      effectId: "1",
      subject: "feat: add a",
      body: ["Why a is needed."],
    });
    await writeFile(path.join(dir, "b.ts"), "1\n");
    await commitCheckpoint(dir, { label: "Phase 2: Rules — recovery at task 4", effectId: "2" });
    const commits = await commitsSince(dir, start);
    expect(commits.map((c) => c.subject)).toEqual(["feat: add a", "Phase 2: Rules — recovery at task 4"]);
    expect(commits[0].body).toMatch(/^Why a is needed\.\n\n/);
    expect(commits[0].body).toContain("Autopilot-Effect: 1");
  });

  it("refuses a startingCommit that is not a commit id", async () => {
    const { dir } = await repo();
    await expectCode(diffScope(dir, "--output=/tmp/x"), "bad_input");
    await expectCode(commitsSince(dir, "deadbeef"), "bad_input");
  });
});
