// A workspace per session (--worktree), in real git repositories: each session in its own worktree
// on autopilot/<slug>, two at once to DONE with disjoint commits, found again on resume, a removed
// worktree or rewritten branch reported with what to do, and a merge back that never forces.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { PolicyGate, drive } from "../../src/headless/drive.js";
import { mergeBack } from "../../src/effects/worktree.js";
import { AutopilotError } from "../../src/protocol/errors.js";

const spec = (title: string, phase: string) => `# ${title}

## Implementation Order

### Phase 1: ${phase}
<!-- complexity: low -->
Build it.
`;
const A = { path: "docs/changes/alpha/proposal.md", slug: "changes--alpha--proposal" };
const B = { path: "docs/changes/beta/proposal.md", slug: "changes--beta--proposal" };

let repo: TempRepo;
let clock = 0;
const now = () => new Date(Date.UTC(2026, 10, 1, 9, 0, clock++));
beforeEach(async () => {
  repo = await makeRepo({
    files: { "README.md": "# two\n", [A.path]: spec("Alpha", "Alpha Core"), [B.path]: spec("Beta", "Beta Core") },
  });
});
afterEach(async () => repo.cleanup());

const head = async (dir = repo.dir, ref = "HEAD") => (await git(dir, "rev-parse", ref)).trim();
async function commitsOn(
  branch: string,
  since: string,
): Promise<Array<{ sha: string; subject: string; body: string }>> {
  const out = await git(repo.dir, "log", "--format=%H%x1f%s%x1f%b%x1e", `${since}..${branch}`);
  return out
    .split("\x1e")
    .filter((r) => r.trim())
    .map((r) => {
      const [sha, subject, body] = r.trim().split("\x1f");
      return { sha, subject, body };
    });
}
async function errorOf(p: Promise<unknown>): Promise<AutopilotError> {
  const e = await p.then(
    () => null,
    (x) => x,
  );
  expect(e).toBeInstanceOf(AutopilotError);
  return e as AutopilotError;
}

describe("--worktree", () => {
  it("a spec path with spaces gets a branch git accepts, and the merge command the DONE Step prints pastes as it is", async () => {
    const spaced = "docs/my feature/spec v2.md";
    await mkdir(path.join(repo.dir, "docs/my feature"), { recursive: true });
    await writeFile(path.join(repo.dir, spaced), spec("Spaced", "Spaced Core"));
    await git(repo.dir, "add", "-A");
    await git(repo.dir, "commit", "-qm", "a spec with spaces in its path");
    const engine = new Engine(repo.dir, { now });
    const first = await engine.start(spaced, "--worktree");
    expect(first.step.report).toContain("on branch autopilot/my-feature--spec-v2");
    const { final } = await drive(engine, first.step, new ScriptedRunner(), new PolicyGate());
    expect(final.state).toBe("DONE");
    expect(final.report).toContain("`autopilot merge 'my feature--spec v2'`");
    expect((await git(repo.dir, "rev-parse", "--verify", "-q", "autopilot/my-feature--spec-v2")).trim()).toMatch(
      /^[0-9a-f]{40}$/,
    );
  });

  it("two sessions in worktrees run at once to DONE with disjoint commits on their own branches", async () => {
    const base = await head();
    const run = async (s: typeof A) => {
      const engine = new Engine(repo.dir, { now });
      const first = await engine.start(s.path, "--worktree");
      expect(first.step.report).toContain(
        `Working in its own git worktree .harness/worktrees/${s.slug} on branch autopilot/${s.slug}`,
      );
      return drive(engine, first.step, new ScriptedRunner(), new PolicyGate());
    };
    const [ra, rb] = await Promise.all([run(A), run(B)]);
    expect(ra.final.state).toBe("DONE");
    expect(rb.final.state).toBe("DONE");

    // The project's branch and checkout are untouched.
    expect(await head()).toBe(base);
    expect((await git(repo.dir, "status", "--porcelain", "--", ".", ":(exclude).harness/sessions")).trim()).toBe("");
    expect((await git(repo.dir, "branch", "--show-current")).trim()).toBe("main");

    const ca = await commitsOn(`autopilot/${A.slug}`, base);
    const cb = await commitsOn(`autopilot/${B.slug}`, base);
    expect(ca.length).toBeGreaterThanOrEqual(1);
    expect(cb.length).toBeGreaterThanOrEqual(1);
    expect(ca.map((c) => c.sha).filter((x) => cb.some((c) => c.sha === x))).toEqual([]);
    for (const c of ca) expect(c.body, c.subject).toContain(`Autopilot-Effect: ${A.slug}@`);
    for (const c of cb) expect(c.body, c.subject).toContain(`Autopilot-Effect: ${B.slug}@`);
    // Each branch holds only its own session's files.
    const files = async (branch: string) =>
      (await git(repo.dir, "diff", "--name-only", `${base}..${branch}`)).trim().split("\n");
    expect((await files(`autopilot/${A.slug}`)).some((f) => f.includes("beta"))).toBe(false);
    expect((await files(`autopilot/${B.slug}`)).some((f) => f.includes("alpha"))).toBe(false);
    // The DONE Step offers the pull request (its description in pr.md) and the merge back.
    expect(ra.final.report).toContain(`autopilot merge ${A.slug}`);
    expect(ra.final.report).toContain(
      `--body-file .harness/sessions/${A.slug}/pr.md --head autopilot/${A.slug} --base main`,
    );
  });

  it("is found again on resume, and dispatches name the worktree the persona works in", async () => {
    const engine = new Engine(repo.dir, { now });
    const first = await engine.start(A.path, "--worktree");
    expect(first.step.next.kind).toBe("dispatch");
    const wt = path.join(repo.dir, ".harness/worktrees", A.slug);
    expect((first.step.next as { prompt: string }).prompt).toContain(`Work in ${wt}`);
    // A new conversation, no flag: the same session, in the same worktree.
    const again = await new Engine(repo.dir, { now }).start(A.path);
    expect(again.resumed).toBe(true);
    expect(again.step.state).toBe(first.step.state);
    expect((await engine.read(A.slug)).decisions).toEqual([]);
    expect((again.step.next as { prompt: string }).prompt).toContain(`Work in ${wt}`);
    expect(await engine.rootFor(A.slug)).toBe(wt);
    expect(await engine.sessions()).toContain(A.slug);
  });

  it("reads the project's .harness/config.json as the checkout has it, not the worktree's copy of the starting commit", async () => {
    // Not committed: the worktree made from HEAD has no config at all. Its validation command
    // leaves a mark in the folder it runs in, and its template names the commits.
    await mkdir(path.join(repo.dir, ".harness"), { recursive: true });
    await writeFile(
      path.join(repo.dir, ".harness/config.json"),
      JSON.stringify({
        validation: { commands: ["node -e \"require('fs').writeFileSync('validated.mark', '')\""] },
        commitMessage: "chore(autopilot): {summary}",
      }),
    );
    const engine = new Engine(repo.dir, { now });
    const start = head();
    // --fast: VERIFY runs the validation commands itself.
    const first = await engine.start(A.path, "--worktree --fast");
    const { final } = await drive(engine, first.step, new ScriptedRunner(), new PolicyGate());
    expect(final.next.kind).toBe("done");
    const subjects = (await commitsOn(`autopilot/${A.slug}`, await start)).map((c) => c.subject);
    expect(subjects.length).toBeGreaterThan(0);
    for (const s of subjects) expect(s).toMatch(/^chore\(autopilot\): /);
    expect(existsSync(path.join(repo.dir, ".harness/worktrees", A.slug, "validated.mark"))).toBe(true);
  });

  it("a worktree removed by hand is reported with what to do, and the session continues once it is back", async () => {
    const engine = new Engine(repo.dir, { now });
    const first = await engine.start(A.path, "--worktree");
    const wt = path.join(repo.dir, ".harness/worktrees", A.slug);
    await rm(wt, { recursive: true, force: true });
    const e = await errorOf(engine.next(A.slug));
    expect(e.code).toBe("worktree_missing");
    expect(e.message).toContain(
      `git worktree prune && git worktree add .harness/worktrees/${A.slug} autopilot/${A.slug}`,
    );
    // Never a silent answer: start and report say the same.
    expect((await errorOf(engine.start(A.path))).code).toBe("worktree_missing");
    await git(repo.dir, "worktree", "prune");
    await git(repo.dir, "worktree", "add", "-q", `.harness/worktrees/${A.slug}`, `autopilot/${A.slug}`);
    const back = await engine.next(A.slug);
    expect(back.stepId).toBe(first.step.stepId);
    expect(back.next.kind).toBe("dispatch");
  });

  it("a branch that lost the session's commits is reported, not continued", async () => {
    const engine = new Engine(repo.dir, { now });
    const first = await engine.start(A.path, "--worktree");
    // Run to the first commit, then rewrite the branch under it.
    const runner = new ScriptedRunner();
    const gate = new PolicyGate();
    let step = first.step;
    for (let i = 0; i < 30 && (await engine.read(A.slug)).commits.length === 0; i++) {
      const n = step.next;
      if (n.kind === "dispatch") {
        const { result } = await runner.run({
          persona: n.persona,
          description: n.description,
          prompt: n.prompt,
          expects: n.expects,
          projectRoot: await engine.rootFor(A.slug),
          session: A.slug,
          phaseIndex: 0,
          phaseName: "Alpha Core",
        });
        step = await engine.report(A.slug, step.stepId, result);
      } else if (n.kind === "ask") {
        const a = await gate.answer(step, n);
        step = await engine.decide(A.slug, step.stepId, a.answer, a.rationale, a.by);
      } else break;
    }
    const state = await engine.read(A.slug);
    expect(state.commits.length).toBeGreaterThan(0);
    const wt = path.join(repo.dir, ".harness/worktrees", A.slug);
    await git(wt, "reset", "-q", "--hard", state.startingCommit!);
    const e = await errorOf(engine.next(A.slug));
    expect(e.code).toBe("worktree_diverged");
    expect(e.message).toContain(state.commits.at(-1)!.sha.slice(0, 7));
    expect(e.message).toContain("reflog");
  });

  it("merges back without forcing; a conflict changes nothing and is reported", async () => {
    const engine = new Engine(repo.dir, { now });
    const first = await engine.start(A.path, "--worktree");
    const { final } = await drive(engine, first.step, new ScriptedRunner(), new PolicyGate());
    expect(final.state).toBe("DONE");
    const branch = `autopilot/${A.slug}`;
    const tip = await head(repo.dir, branch);

    // Someone committed on main meanwhile, touching a file the session also made.
    const plan = (await engine.read(A.slug)).phases[0].planPath!;
    await mkdir(path.dirname(path.join(repo.dir, plan)), { recursive: true });
    await writeFile(path.join(repo.dir, plan), "# a different plan\n");
    await git(repo.dir, "add", plan);
    await git(repo.dir, "commit", "-qm", "someone else's plan");
    const before = await head();
    const e = await errorOf(mergeBack(repo.dir, A.slug));
    expect(e.code).toBe("merge_conflict");
    expect(e.message).toContain(plan);
    expect(await head()).toBe(before);
    expect(existsSync(path.join(repo.dir, ".git/MERGE_HEAD"))).toBe(false);
    expect((await git(repo.dir, "status", "--porcelain", "--", ".", ":(exclude).harness")).trim()).toBe("");
    expect(await head(repo.dir, branch)).toBe(tip);

    // Resolved upstream of autopilot (the other commit reverted): the merge goes through, as a merge.
    await git(repo.dir, "revert", "--no-edit", "HEAD");
    const r = await mergeBack(repo.dir, A.slug);
    expect(r.merged).toBe(true);
    await git(repo.dir, "merge-base", "--is-ancestor", tip, "HEAD");
    await git(repo.dir, "merge-base", "--is-ancestor", before, "HEAD");
    expect(await readFile(path.join(repo.dir, plan), "utf8")).not.toBe("# a different plan\n");
  });
});
