// `autopilot run --pr`: at DONE the branch is pushed and the pull request opened with gh, in a real
// repository with a local bare remote and a `gh` stand-in first on PATH that records its arguments
// and the body file it was given. Without a remote or without gh: a clear error with the commands
// to run, exit 1, and the work committed all the same.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { git, type TempRepo } from "../helpers/git.js";
import { bareRemote, ghCall, ghStandIn, pathWith, Scratch } from "../helpers/finish.js";
import { assertBuilt, cli, readState, SLUG, SPEC_REL, specRepo } from "./_cli.js";

const repos: TempRepo[] = [];
const scratch = new Scratch();
beforeAll(() => assertBuilt());
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.cleanup()));
  await scratch.cleanup();
});

async function repo(): Promise<string> {
  const r = await specRepo();
  repos.push(r);
  return r.dir;
}

async function run(dir: string, ghDir: string | null, ...extra: string[]) {
  return cli(["run", SPEC_REL, "--runner", "scripted", "--yes", "--pr", ...extra], {
    cwd: dir,
    env: { PATH: await pathWith(scratch, ghDir) },
  });
}

describe("autopilot run --pr", () => {
  it("pushes the session's work to a branch of its own and opens the pull request with its title and pr.md", async () => {
    const dir = await repo();
    const bare = await bareRemote(scratch, dir);
    const ghDir = await ghStandIn(scratch);
    const res = await run(dir, ghDir);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    const title = (await readState(dir)).pullRequest.title as string;
    const prFile = `.harness/sessions/${SLUG}/pr.md`;

    // The work was on main, the branch a pull request goes into: it went to autopilot/<slug>, main untouched.
    const head = `autopilot/${SLUG}`;
    expect((await git(bare, "rev-parse", head)).trim()).toBe((await git(dir, "rev-parse", "main")).trim());
    await expect(git(bare, "rev-parse", "--verify", "-q", "refs/heads/main")).rejects.toThrow();

    const gh = await ghCall(ghDir);
    expect(gh.args).toEqual([
      "pr",
      "create",
      "--title",
      title,
      "--body-file",
      prFile,
      "--head",
      head,
      "--base",
      "main",
    ]);
    expect(gh.body).toBe(await readFile(path.join(dir, prFile), "utf8"));
    expect(gh.body).toContain("## What changed");
    expect(res.stdout).toContain("Pull request: https://github.example/acme/wc/pull/7");
  });

  it("from a feature branch pushes that branch under its own name and lets gh pick the base", async () => {
    const dir = await repo();
    const bare = await bareRemote(scratch, dir);
    await git(dir, "switch", "-q", "-c", "feature/wc");
    const ghDir = await ghStandIn(scratch);
    const res = await run(dir, ghDir);
    expect(res.code).toBe(0);
    expect((await git(bare, "rev-parse", "feature/wc")).trim()).toBe(
      (await git(dir, "rev-parse", "feature/wc")).trim(),
    );
    expect((await ghCall(ghDir)).args.slice(-2)).toEqual(["--head", "feature/wc"]);
    // -u: the branch now tracks the remote's, as a developer's first push leaves it.
    expect((await git(dir, "config", "branch.feature/wc.remote")).trim()).toBe("origin");
  });

  it("without a remote: exit 1, the commands to run, and the work committed", async () => {
    const dir = await repo();
    const ghDir = await ghStandIn(scratch);
    const res = await run(dir, ghDir);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      "autopilot run: No pull request was opened: no remote yet (`git remote add origin <url>` first); then",
    );
    expect(res.stderr).toContain(`; then \`git push origin main:autopilot/${SLUG} && gh pr create --title `);
    expect(res.stderr).toContain("The work stays committed on main. [pr_not_opened]");
    expect(res.stdout).toContain("DONE in");
    expect((await readState(dir)).currentState).toBe("DONE");
    expect(await git(dir, "log", "--format=%s")).toMatch(/counting core/i);
    await expect(ghCall(ghDir)).rejects.toThrow();
  });

  it("without gh: exit 1 with the push and gh commands, nothing pushed; --json says so in its outcome", async () => {
    const dir = await repo();
    const bare = await bareRemote(scratch, dir);
    const res = await run(dir, null, "--json");
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      `No pull request was opened: push with \`git push origin main:autopilot/${SLUG}\`, then open it on your git host, or install gh and run \`gh pr create`,
    );
    const outcome = JSON.parse(res.stdout.trim().split("\n").at(-1)!);
    expect(outcome).toMatchObject({ event: "outcome", outcome: "failed", exitCode: 1, state: "DONE" });
    expect(outcome.error.code).toBe("pr_not_opened");
    expect((await git(bare, "for-each-ref")).trim()).toBe("");
  });
});
