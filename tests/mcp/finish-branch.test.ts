// DONE offers the person what to do with the work, through the real MCP SDK client against the
// built server: open the pull request, merge a --worktree session's branch, or keep it, each with
// the exact commands for this repository. Nothing is pushed before the person chooses; the commands
// the Step shows, run as they are (here: what a host does once the person chose), push the branch
// to a bare remote and hand gh (a stand-in that records its arguments) the title and pr.md.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { git } from "../helpers/git.js";
import { agreeable, assertBuilt, openSession, playHost, specWith, type Session } from "../helpers/mcp-client.js";
import { bareRemote, ghCall, ghStandIn, pathWith, Scratch } from "../helpers/finish.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { renderStepText } from "../../src/protocol/host-view.js";

const SPEC = specWith([
  { name: "Counting Core", complexity: "low" },
  { name: "Command", complexity: "low" },
]);
const scratch = new Scratch();
let s: Session | null = null;
beforeAll(() => assertBuilt());
afterEach(async () => {
  await s?.dispose();
  s = null;
  await scratch.cleanup();
});

/** The command line of the report's "open the pull request" choice, as the person would copy it. */
/** The commands of the report's "open the pull request" line, in order. */
function prCommands(report: string): string[] {
  const line = report.split("\n").find((l) => l.includes("1. open the pull request:"))!;
  return [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
}

function prCommand(report: string): string {
  return prCommands(report).at(-1)!;
}

async function sh(command: string, cwd: string, PATH: string): Promise<void> {
  await promisify(execFile)("sh", ["-c", command], { cwd, env: { ...process.env, PATH, GIT_CONFIG_NOSYSTEM: "1" } });
}

describe("finishing the branch at DONE", () => {
  it("offers the pull request with commands that push nothing until run, then push the branch and give gh the title and pr.md", async () => {
    const ghDir = await ghStandIn(scratch);
    const PATH = await pathWith(scratch, ghDir);
    s = await openSession({ spec: SPEC, specPath: "docs/wc.md", server: { env: { PATH } } });
    const bare = await bareRemote(scratch, s.root);
    const done = await playHost(s.srv.client, s.root, await s.start(), new ScriptedRunner(), agreeable);
    expect(done.next.kind).toBe("done");
    const slug = done.session;
    const title = (await s.state(slug)).pullRequest.title as string;
    const report = done.report!;
    const file = `.harness/sessions/${slug}/pr.md`;
    const head = `autopilot/${slug}`;
    expect(report).toContain(
      [
        `Finish the branch as the person chooses (PR text: ${file}):`,
        `  1. open the pull request: \`git push origin main:${head} && gh pr create --title '${title}' --body-file ${file} --head ${head} --base main\``,
        "  2. keep it: the commits stay on main.",
      ].join("\n"),
    );
    expect(renderStepText(done)).toMatch(
      /Ask them how to finish the branch \(the report's options\) and run only the commands of the one they choose/,
    );
    // Offered, not done: the remote is untouched and gh was not called.
    expect((await git(bare, "for-each-ref")).trim()).toBe("");
    await expect(ghCall(ghDir)).rejects.toThrow();

    await sh(prCommand(report), s.root, PATH);
    expect((await git(bare, "rev-parse", head)).trim()).toBe((await git(s.root, "rev-parse", "main")).trim());
    const gh = await ghCall(ghDir);
    expect(gh.args).toEqual(["pr", "create", "--title", title, "--body-file", file, "--head", head, "--base", "main"]);
    expect(gh.body).toContain("## What changed");
  });

  it("a --worktree session without a remote or gh: the merge, the commands to add a remote and push, quoted for a folder with spaces", async () => {
    const PATH = await pathWith(scratch, null);
    s = await openSession({ spec: SPEC, specPath: "docs/word count.md", server: { env: { PATH } } });
    const first = await s.start("--worktree", "docs/word count.md");
    // The personas work in the session's worktree, as its dispatch prompts say.
    const worktree = path.join(s.root, ".harness/worktrees", first.session);
    const done = await playHost(s.srv.client, worktree, first, new ScriptedRunner(), agreeable);
    expect(done.next.kind).toBe("done");
    const slug = done.session;
    expect(slug).toContain(" ");
    const branch = `autopilot/${slug.replace(/ /g, "-")}`;
    const report = done.report!;
    expect(report).toContain(
      `  1. open the pull request: no remote yet (\`git remote add origin <url>\` first); push with \`git push -u origin ${branch}\`, then open it on your git host, or install gh and run \`gh pr create`,
    );
    expect(report).toContain(`--body-file '.harness/sessions/${slug}/pr.md' --head ${branch} --base main\``);
    expect(report).toContain(`  2. merge ${branch} into main: \`autopilot merge '${slug}'\``);
    expect(report).toContain(`  3. keep it: the commits stay on ${branch} (worktree .harness/worktrees/${slug}).`);

    // The person adds a remote and installs gh, then runs the push and gh's command as shown (not
    // chained: without gh, a line that pushed and then called gh would fail halfway).
    const bare = await bareRemote(scratch, s.root);
    const ghDir = await ghStandIn(scratch);
    const [push, ghLine] = prCommands(report).slice(-2);
    expect(push).toMatch(/^git push /);
    for (const command of [push, ghLine]) await sh(command, s.root, await pathWith(scratch, ghDir));
    expect((await git(bare, "rev-parse", branch)).trim()).toBe((await git(s.root, "rev-parse", branch)).trim());
    const gh = await ghCall(ghDir);
    expect(gh.args.slice(4)).toEqual([
      "--body-file",
      `.harness/sessions/${slug}/pr.md`,
      "--head",
      branch,
      "--base",
      "main",
    ]);
    expect(gh.body).toContain("## What changed");
  });
});
