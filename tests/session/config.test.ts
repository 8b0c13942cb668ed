// `.harness/config.json` as users write it: every key through one reader, with one failure policy
// (src/session/config.ts): a bad key or a file that is not JSON is a clear error naming the key and
// the fix, before anything is made; a bad convenience switch is a warning.
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readProjectConfig } from "../../src/session/config.js";
import { Engine } from "../../src/engine/engine.js";
import { makeRepo, type TempRepo } from "../helpers/git.js";

const SPEC = "docs/changes/tiny/proposal.md";
const specText = "# Tiny\n\n## Implementation Order\n\n### Phase 1: Core\n<!-- complexity: low -->\nBuild it.\n";

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

async function project(config: string | null): Promise<string> {
  repo = await makeRepo({ files: { "README.md": "# tiny\n", [SPEC]: specText } });
  if (config !== null) {
    await mkdir(path.join(repo.dir, ".harness"), { recursive: true });
    await writeFile(path.join(repo.dir, ".harness/config.json"), config);
  }
  return repo.dir;
}

describe(".harness/config.json", () => {
  it("reads every key it knows, with a BOM, and leaves other keys alone", async () => {
    const dir = await project(
      "\uFEFF" +
        JSON.stringify({
          validation: { commands: [" npm test ", ""] },
          runner: "command",
          command: "claude -p --agent {persona}",
          budget: "$5",
          retryBudget: 4,
          commitMessage: "chore(autopilot): {summary}",
          elicit: false,
          humanGates: true,
          worktree: true,
          otherTool: { keep: 1 },
        }),
    );
    const { config, warnings } = await readProjectConfig(dir);
    expect(warnings).toEqual([]);
    expect(config).toEqual({
      validation: ["npm test"],
      runner: "command",
      command: "claude -p --agent {persona}",
      budget: { tokens: null, usd: 5 },
      retryBudget: 4,
      commitMessage: "chore(autopilot): {summary}",
      elicit: false,
      humanGates: true,
      worktree: true,
    });
    expect((await readProjectConfig(await project(JSON.stringify(["npm run lint"])))).config).toEqual({
      validation: ["npm run lint"],
    });
    expect(await readProjectConfig(await project(null))).toEqual({ config: {}, warnings: [] });
  });

  it("refuses a bad key by name, saying what it must be and what it is", async () => {
    const dir = await project(JSON.stringify({ budget: "lots" }));
    await expect(readProjectConfig(dir)).rejects.toMatchObject({
      code: "bad_input",
      message:
        '.harness/config.json: "budget" must be tokens ("200k", 50000) or US dollars ("$5"); it is "lots". Fix it in .harness/config.json.',
    });
    const nested = await project(JSON.stringify({ scripted: { phases: { "1": { tasks: 0 } } } }));
    await expect(readProjectConfig(nested)).rejects.toThrow(/"scripted" must be .*"scripted\.phases\.1\.tasks"/);
  });

  it("refuses a parallelMinTasks outside 2 to 20 by name, and ignores a parallel switch that is not true or false", async () => {
    await expect(readProjectConfig(await project(JSON.stringify({ parallelMinTasks: 1 })))).rejects.toMatchObject({
      code: "bad_input",
      message:
        '.harness/config.json: "parallelMinTasks" must be a whole number of tasks from 2 to 20 (default 3); it is 1. Fix it in .harness/config.json.',
    });
    const { config, warnings } = await readProjectConfig(
      await project(JSON.stringify({ parallel: "on", parallelMinTasks: 4 })),
    );
    expect(config).toEqual({ parallelMinTasks: 4 });
    expect(warnings).toEqual(['.harness/config.json: "parallel" must be true or false, not "on"; ignored.']);
  });

  it("ignores a convenience switch that is not true or false, with a warning", async () => {
    const dir = await project(JSON.stringify({ worktree: "yes", elicit: 0, retryBudget: 2 }));
    const { config, warnings } = await readProjectConfig(dir);
    expect(config).toEqual({ retryBudget: 2 });
    expect(warnings).toEqual([
      '.harness/config.json: "elicit" must be true or false, not 0; ignored.',
      '.harness/config.json: "worktree" must be true or false, not "yes"; ignored.',
    ]);
  });

  it("a start refuses a config that is not JSON before it makes anything (it used to start without the budget)", async () => {
    const dir = await project('{ "budget": "$5", }');
    const e = await new Engine(dir).start(SPEC).catch((x) => x);
    expect(e).toMatchObject({
      code: "bad_input",
      message: expect.stringMatching(/^\.harness\/config\.json is not valid JSON .*Fix it, or remove it\.$/),
    });
    expect(existsSync(path.join(dir, ".harness/sessions"))).toBe(false);
  });
});
