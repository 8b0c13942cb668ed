// A commit in a repository with the user's rules: hooks that refuse or rewrite, a commit-msg check,
// signing that fails, submodules. Plain shell hooks in real repositories (the real tools — the
// pre-commit framework, husky, commitlint, lint-staged, gpg — are in tests/repos, `npm run
// test:repos`). What git refuses must come back as a CommitRejected naming the hook and carrying
// its output, with nothing committed and nothing of the user's touched.
import { afterEach, describe, expect, it } from "vitest";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import {
  CommitRejected,
  commitCheckpoint,
  effectTrailerValue,
  findEffectCommit,
  headCommit,
} from "../../src/effects/git.js";

const repos: TempRepo[] = [];
async function repo(files?: Record<string, string>): Promise<string> {
  const r = await makeRepo(files ? { files } : {});
  repos.push(r);
  return r.dir;
}
afterEach(async () => {
  while (repos.length) await repos.pop()!.cleanup();
});

async function hook(dir: string, name: string, script: string): Promise<void> {
  const file = path.join(dir, ".git/hooks", name);
  await writeFile(file, `#!/bin/sh\n${script}\n`);
  await chmod(file, 0o755);
}

async function refusal(p: Promise<unknown>): Promise<CommitRejected> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(CommitRejected);
  return e as CommitRejected;
}

const count = async (dir: string) => Number((await git(dir, "rev-list", "--count", "HEAD")).trim());

/** A lint hook as teams write them: no console.log in staged TypeScript, each offence as file:line:text. */
const NO_CONSOLE_LOG = `bad=$(git diff --cached --name-only --diff-filter=AM | grep '\\.ts$' | xargs -r grep -n 'console\\.log' /dev/null)
if [ -n "$bad" ]; then echo "lint: no console.log"; echo "$bad"; exit 1; fi`;

describe("a commit the repository's hooks refuse", () => {
  it("names the pre-commit hook and carries its output; nothing is committed and the user's staged work stays staged", async () => {
    const dir = await repo({ "README.md": "# r\n", "notes.md": "n\n" });
    await hook(dir, "pre-commit", NO_CONSOLE_LOG);
    await writeFile(path.join(dir, "notes.md"), "the user's staged edit\n");
    await git(dir, "add", "notes.md");
    const head = await headCommit(dir);
    await writeFile(path.join(dir, "a.ts"), 'export const a = 1;\nconsole.log("debug");\n');
    const e = await refusal(
      commitCheckpoint(dir, {
        label: "Checkpoint 1: a",
        effectId: "e1",
        baseline: { head, takenAt: "", entries: [{ path: "notes.md", hash: null }] },
      }),
    );
    expect(e.kind).toBe("hook");
    expect(e.hook).toBe("pre-commit");
    expect(e.output).toContain("lint: no console.log");
    expect(e.output).toContain('a.ts:2:console.log("debug");');
    expect(e.paths).toEqual(["a.ts"]);
    expect(await headCommit(dir)).toBe(head);
    expect((await git(dir, "diff", "--cached", "--name-only")).split("\n")).toContain("notes.md");
    expect(await readFile(path.join(dir, "notes.md"), "utf8")).toBe("the user's staged edit\n");
  });

  it("once the complaint is fixed, the same effect commits once", async () => {
    const dir = await repo();
    await hook(dir, "pre-commit", NO_CONSOLE_LOG);
    await writeFile(path.join(dir, "a.ts"), 'console.log("x");\n');
    await refusal(commitCheckpoint(dir, { label: "cp", effectId: "e2" }));
    await writeFile(path.join(dir, "a.ts"), "export const a = 1;\n");
    const r = await commitCheckpoint(dir, { label: "cp", effectId: "e2" });
    expect(r.committed).toBe(true);
    expect((await commitCheckpoint(dir, { label: "cp", effectId: "e2" })).replayed).toBe(true);
    expect(await count(dir)).toBe(2);
  });

  it("names the commit-msg hook when the message is what it refuses", async () => {
    const dir = await repo();
    await hook(
      dir,
      "commit-msg",
      `head -1 "$1" | grep -Eq '^(feat|fix|chore)(\\(.+\\))?: ' || { echo "subject must be conventional: $(head -1 "$1")"; exit 1; }`,
    );
    await writeFile(path.join(dir, "a.ts"), "a\n");
    const e = await refusal(commitCheckpoint(dir, { label: "Phase 1: Core — execution complete", effectId: "m1" }));
    expect(e.hook).toBe("commit-msg");
    expect(e.output).toContain("subject must be conventional: Phase 1: Core — execution complete");
    const ok = await commitCheckpoint(dir, {
      label: "x",
      subject: "chore(autopilot): phase 1 Core, execution complete",
      effectId: "m1",
    });
    expect(ok.committed).toBe(true);
  });

  it("commits with --no-verify only when asked (the user's answer), and never on its own", async () => {
    const dir = await repo();
    await hook(dir, "pre-commit", "echo 'tests failed'; exit 1");
    await writeFile(path.join(dir, "a.ts"), "a\n");
    await refusal(commitCheckpoint(dir, { label: "cp", effectId: "v1" }));
    const r = await commitCheckpoint(dir, { label: "cp", effectId: "v1", noVerify: true });
    expect(r.committed).toBe(true);
    expect(await count(dir)).toBe(2);
  });

  it("a hook that rewrites autopilot's files and fails (a formatter) is run once more, and the rewrite is committed", async () => {
    const dir = await repo();
    // As the pre-commit framework's fixers do: rewrite the staged files, fail so the person adds them again.
    await hook(
      dir,
      "pre-commit",
      `for f in $(git diff --cached --name-only --diff-filter=AM); do
  if grep -q ' $' "$f"; then sed -i 's/[[:space:]]*$//' "$f"; echo "trailing whitespace fixed in $f"; fixed=1; fi
done
exit \${fixed:-0}`,
    );
    await writeFile(path.join(dir, "a.ts"), "export const a = 1;   \n");
    const r = await commitCheckpoint(dir, { label: "cp", effectId: "f1" });
    expect(r.committed).toBe(true);
    expect(await git(dir, "show", "HEAD:a.ts")).toBe("export const a = 1;\n");
    expect((await git(dir, "status", "--porcelain", "--", "a.ts")).trim()).toBe("");
  });

  it("what a hook changes in the commit's own index (lint-staged's way) is committed, and the path is not left staged against it", async () => {
    const dir = await repo({ "README.md": "# r\n", "mine.md": "mine\n" });
    await hook(
      dir,
      "pre-commit",
      `for f in $(git diff --cached --name-only --diff-filter=AM); do sed -i 's/[[:space:]]*$//' "$f"; git add "$f"; done`,
    );
    await writeFile(path.join(dir, "mine.md"), "the user's unstaged edit   \n");
    const head = await headCommit(dir);
    await writeFile(path.join(dir, "a.ts"), "export const a = 1;   \n");
    const r = await commitCheckpoint(dir, {
      label: "cp",
      effectId: "l1",
      baseline: { head, takenAt: "", entries: [{ path: "mine.md", hash: null }] },
    });
    expect(r.committed).toBe(true);
    expect((await git(dir, "show", "--name-only", "--format=", "HEAD")).trim()).toBe("a.ts");
    expect(await git(dir, "show", "HEAD:a.ts")).toBe("export const a = 1;\n");
    expect(await git(dir, "status", "--porcelain")).toBe(" M mine.md\n");
    expect(await readFile(path.join(dir, "mine.md"), "utf8")).toBe("the user's unstaged edit   \n");
  });

  it("signing that fails is a signing refusal with git's message, and nothing is committed", async () => {
    const dir = await repo();
    const signer = path.join(dir, ".git", "failing-gpg");
    await writeFile(signer, '#!/bin/sh\necho "gpg: signing failed: Inappropriate ioctl for device" >&2\nexit 2\n');
    await chmod(signer, 0o755);
    await git(dir, "config", "commit.gpgsign", "true");
    await git(dir, "config", "gpg.program", signer);
    await writeFile(path.join(dir, "a.ts"), "a\n");
    const e = await refusal(commitCheckpoint(dir, { label: "cp", effectId: "g1" }));
    expect(e.kind).toBe("signing");
    expect(e.output).toMatch(/gpg failed to sign the data/);
    expect(await count(dir)).toBe(1);
  });
});

describe("the effect trailer and the repository's other parts", () => {
  it("keeps the trailer line within 100 characters and finds the commit again by it, or by the whole id an older commit carries", async () => {
    const dir = await repo();
    const long = `${"changes--a-rather-long-feature-name--with-a-subfolder--proposal".repeat(2)}@0123456789ab/s12-commit`;
    const value = effectTrailerValue(long);
    expect(`Autopilot-Effect: ${value}`.length).toBeLessThanOrEqual(100);
    expect(value).not.toBe(effectTrailerValue(long.replace("s12", "s13")));
    await writeFile(path.join(dir, "a.ts"), "a\n");
    const r = await commitCheckpoint(dir, { label: "cp", effectId: long });
    expect(await git(dir, "log", "-1", "--format=%B")).toContain(`Autopilot-Effect: ${value}\n`);
    expect(await findEffectCommit(dir, long)).toBe(r.sha);
    // A commit an earlier version made with the id in full.
    await writeFile(path.join(dir, "b.ts"), "b\n");
    await git(dir, "add", "b.ts");
    const older = long.replace("s12", "s7");
    await git(dir, "commit", "-q", "-m", "[autopilot] old", "-m", `Autopilot-Effect: ${older}`);
    expect(await findEffectCommit(dir, older)).toBe(await headCommit(dir));
  });

  it("a replay finds the commit by its trailer whatever the subject's convention", async () => {
    const dir = await repo();
    await writeFile(path.join(dir, "a.ts"), "a\n");
    const first = await commitCheckpoint(dir, {
      label: "Checkpoint 1: a",
      subject: "chore(autopilot): checkpoint 1 a",
      effectId: "conv-1",
    });
    // The template changed between the crash and the replay: still the one commit.
    const again = await commitCheckpoint(dir, {
      label: "Checkpoint 1: a",
      subject: "feat(PROJ-1): checkpoint 1 a",
      effectId: "conv-1",
    });
    expect(again).toMatchObject({ committed: true, replayed: true, sha: first.sha });
    expect(await count(dir)).toBe(2);
  });

  it("never stages a submodule, whatever changed in it", async () => {
    const lib = await repo({ "lib.ts": "export const lib = 1;\n" });
    const dir = await repo();
    await git(dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib");
    await git(dir, "commit", "-q", "-m", "add submodule");
    const pinned = (await git(dir, "ls-tree", "HEAD", "vendor/lib")).trim();
    // The submodule moves to a new commit of its own, and has an untracked file too.
    await writeFile(path.join(dir, "vendor/lib/lib.ts"), "export const lib = 2;\n");
    await git(path.join(dir, "vendor/lib"), "commit", "-q", "-am", "inside the submodule");
    await writeFile(path.join(dir, "vendor/lib/scratch.txt"), "x\n");
    await mkdir(path.join(dir, "src"), { recursive: true });
    await writeFile(path.join(dir, "src/a.ts"), "a\n");
    const r = await commitCheckpoint(dir, { label: "cp", effectId: "sm1" });
    expect(r.committed).toBe(true);
    expect((await git(dir, "show", "--name-only", "--format=", "HEAD")).trim()).toBe("src/a.ts");
    expect((await git(dir, "ls-tree", "HEAD", "vendor/lib")).trim()).toBe(pinned);
  });
});
