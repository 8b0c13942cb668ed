// Which remote finishing the branch pushes to, read from the repository's config: the branch's own
// upstream remote when it has one, else origin, else the first remote; none when there is none.
import { afterEach, describe, expect, it } from "vitest";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { finishFacts } from "../../src/effects/finish.js";
import { sessionPaths } from "../../src/session/paths.js";

const repos: TempRepo[] = [];
afterEach(async () => {
  while (repos.length) await repos.pop()!.cleanup();
});

async function facts(setup: (dir: string) => Promise<void>, branch = "main") {
  const r = await makeRepo({ branch });
  repos.push(r);
  await setup(r.dir);
  return finishFacts(sessionPaths(r.dir, "s"), "Count words", { PATH: "" });
}

describe("the remote the branch is finished to", () => {
  it("the branch's upstream remote, even when it is not origin (a name with a dot)", async () => {
    const f = await facts(async (d) => {
      await git(d, "remote", "add", "origin", "https://example.invalid/o.git");
      await git(d, "remote", "add", "team.mirror", "https://example.invalid/t.git");
      await git(d, "config", "branch.Feature.x.remote", "team.mirror");
    }, "Feature.x");
    expect(f).toMatchObject({ branch: "Feature.x", remote: "team.mirror", head: "Feature.x", gh: false });
  });

  it("origin before other remotes; the first remote when there is no origin; none at all", async () => {
    const both = await facts(async (d) => {
      await git(d, "remote", "add", "zeta", "https://example.invalid/z.git");
      await git(d, "remote", "add", "origin", "https://example.invalid/o.git");
    });
    expect(both).toMatchObject({ remote: "origin", head: "autopilot/s", base: "main" });
    expect((await facts((d) => git(d, "remote", "add", "zeta", "z").then(() => undefined))).remote).toBe("zeta");
    expect((await facts(() => Promise.resolve())).remote).toBeNull();
  });
});
