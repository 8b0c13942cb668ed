// The decision log of a real parallel session: `autopilot run --parallel` through the
// built CLI in a real git repository, one task sent back once, then `autopilot log` in its three
// formats. Every task of every wave shows its worktree and branch, its status, the commit its
// merge made the session's head, the validation after that merge, and its attempts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { git, type TempRepo } from "../helpers/git.js";
import { assertBuilt, cli, CLI, readState, SLUG, SPEC_REL, specRepo } from "../headless/_cli.js";

let repo: TempRepo;
let state: Record<string, any>;

function log(format: string): string {
  const r = spawnSync(process.execPath, [CLI, "log", SLUG, "--format", format], { cwd: repo.dir, encoding: "utf8" });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return r.stdout;
}

/** The commit whose subject names the task, on the session's branch. */
async function commitOf(subject: string): Promise<string> {
  return (await git(repo.dir, "log", "--format=%H", "--fixed-strings", `--grep=${subject}`)).trim();
}

beforeAll(async () => {
  assertBuilt();
  // Phase 1: 6 tasks in 3 chains (2 waves of 3), task 2 fails once; phase 2: 4 independent tasks (1 wave); phase 3: serial.
  const script = {
    phases: { "0": { tasks: 6, chains: 3, fail: { task: 2, times: 1 } }, "1": { tasks: 4 }, "2": { tasks: 2 } },
  };
  repo = await specRepo({
    config: { scripted: script, validation: { commands: ["node -e \"console.log('checks ok')\""] } },
  });
  const res = await cli(["run", SPEC_REL, "--runner", "scripted", "--yes", "--parallel", "--jobs", "3"], {
    cwd: repo.dir,
  });
  expect(res.stderr).toBe("");
  expect(res.code).toBe(0);
  state = await readState(repo.dir);
  expect(state.currentState).toBe("DONE");
}, 120_000);
afterAll(async () => repo?.cleanup());

describe("the decision log of a --parallel run", () => {
  it("json: every wave's every task with its worktree, branch, status, merged commit, validation and attempts", async () => {
    const json = JSON.parse(log("json"));
    expect(json.waves.map((w: any) => [w.phase.number, w.number, w.tasks.map((t: any) => t.task)])).toEqual([
      [1, 1, ["1", "2", "3"]],
      [1, 2, ["4", "5", "6"]],
      [2, 1, ["1", "2", "3", "4"]],
    ]);
    for (const w of json.waves)
      for (const t of w.tasks) {
        const phase = w.phase.number;
        expect(t.status).toBe("merged");
        expect(t.worktree).toMatch(new RegExp(`^\\.harness/worktrees/${SLUG}--task-p${phase}-\\w+-${t.task}$`));
        expect(t.branch).toMatch(new RegExp(`^autopilot-task/${SLUG}/p${phase}-\\w+-${t.task}$`));
        // The merged commit is the task's own commit on the session's branch (a fast-forward).
        const name = phase === 1 ? `Counting Core step ${t.task}` : `File Reading step ${t.task}`;
        expect(t.merged).toBe(await commitOf(`Task ${t.task}: ${name}`));
        expect(t.mergedShort).toBe(t.merged.slice(0, 7));
        expect(t.validation).toContain("passed");
        expect(t.attempts).toBe(phase === 1 && t.task === "2" ? 2 : 1);
      }
    const sent = json.waves[0].tasks[1];
    expect(sent.sentBack).toEqual([
      { attempt: 2, why: "failed", error: expect.stringContaining("simulated failure 1") },
    ]);
    expect(sent.statusText).toBe(`merged (${sent.mergedShort}) after 1 send-back`);
    // Built from the state file on disk: the same as the MCP tool's model.
    expect(state.waveLog).toHaveLength(3);
  });

  it("md and html: the same facts for every task", () => {
    const json = JSON.parse(log("json"));
    const md = log("md");
    const html = log("html");
    expect(md).toContain("## Parallel waves");
    expect(html).toContain(`<h2 id="waves-h">Parallel waves</h2>`);
    for (const w of json.waves)
      for (const t of w.tasks) {
        const row = md
          .split("\n")
          .find((l: string) => l.startsWith(`| ${w.phase.number}. ${w.phase.name} | ${w.number} | ${t.task}. `));
        expect(row, `md row for phase ${w.phase.number} wave ${w.number} task ${t.task}`).toBeDefined();
        for (const fact of [t.statusText, String(t.attempts), t.worktree, t.branch, t.mergedShort])
          expect(row).toContain(fact);
        const tr = html
          .split("<tr ")
          .find((l: string) => l.startsWith(`data-task="${w.phase.number}-${w.number}-${t.task}"`));
        expect(tr, `html row for phase ${w.phase.number} wave ${w.number} task ${t.task}`).toBeDefined();
        for (const fact of [t.worktree, t.branch, t.mergedShort, ">merged<"]) expect(tr).toContain(fact);
      }
    expect(md).toMatch(
      /\| 1\. Counting Core \| 1 \| 2\. Counting Core step 2 \| merged \([0-9a-f]{7}\) after 1 send-back \| 2 \|.*\| attempt 2: failed \(/,
    );
  });
});
