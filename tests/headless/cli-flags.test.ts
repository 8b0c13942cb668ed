// The built `autopilot` command, as a user types it: a mistyped flag gets "did you mean", and the
// command `autopilot run` tells you to continue with is the one you typed, every flag kept.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { SPEC_REL, assertBuilt, cli, specRepo, start } from "./_cli.js";
import type { TempRepo } from "../helpers/git.js";

let repo: TempRepo | undefined;
beforeAll(() => assertBuilt());
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

describe.concurrent("flag typos", () => {
  it.each([
    [["run", "spec.md", "--thorogh"], "--thorough"],
    [["run", "spec.md", "--reveiw-plans"], "--review-plans"],
    [["run", "spec.md", "--runer", "scripted"], "--runner"],
    [["log", "x", "--fromat", "md"], "--format"],
    [["status", "--jsno"], "--json"],
    [["validate", "--timout", "3"], "--timeout"],
    [["serve", "--elict"], "--elicit"],
    [["spec", "f.md", "--jsn"], "--json"],
  ])("autopilot %j says did you mean %s (exit 2)", async (args, want) => {
    const r = await cli(args, { cwd: process.cwd() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`did you mean ${want}?`);
    expect(r.stderr).not.toMatch(/positional argument|place it at the end/);
    expect(r.stderr).toMatch(/usage: autopilot/i);
  });

  it("a missing value and a value given to a switch are said plainly", async () => {
    const missing = await cli(["run", "spec.md", "--runner"], { cwd: process.cwd() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--runner needs a value");
    const given = await cli(["run", "spec.md", "--yes=1"], { cwd: process.cwd() });
    expect(given.stderr).toContain("--yes takes no value");
  });
});

describe("autopilot run's hint to continue", () => {
  it("keeps every flag of the original command after an interrupt", async () => {
    repo = await specRepo();
    const args = ["run", SPEC_REL, "--runner", "scripted", "--yes", "--review-plans"];
    const p = start(args, { cwd: repo.dir });
    await p.waitFor(/\[\+[\d.]+s\]/);
    p.child.kill("SIGINT");
    const r = await p.done;
    expect(r.code).toBe(130);
    expect(r.stdout).toContain(`continue with: autopilot run ${SPEC_REL} --runner scripted --yes --review-plans`);
  });
});
