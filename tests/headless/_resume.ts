// Kill and resume through the CLI: `autopilot run` SIGKILLed after the Nth progress line, then the
// same command again, which must end exactly like a run that was never interrupted: same decisions
// (but for their timestamps), same history, same commits. The kill lands wherever the process
// happens to be after that line: inside a persona, between a report and its effects, inside a commit.
// tests/headless/resume.test.ts (npm test) kills at one point; tests/reliability/resume-cli.test.ts
// (npm run test:reliability) at the others.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TempRepo } from "../helpers/git.js";
import { assertBuilt, cli, outcomeOf, readState, RICH_SCRIPT, SPEC_REL, specRepo, start, subjects } from "./_cli.js";
import { SIDE_BY_SIDE } from "../helpers/timeouts.js";

const ARGS = ["run", SPEC_REL, "--runner", "scripted", "--yes"];

/** One test per count of progress lines ("[+1.2s] ...") after which the run is killed. */
export function killAndResume(lines: number[]): void {
  const repos: TempRepo[] = [];
  beforeAll(() => assertBuilt());
  afterAll(async () => {
    await Promise.all(repos.map((r) => r.cleanup()));
  });

  async function repo() {
    const r = await specRepo({ config: { scripted: RICH_SCRIPT } });
    repos.push(r);
    return r;
  }

  describe("kill and resume", () => {
    // The uninterrupted run every resumed one is compared with. It runs beside the kill cases
    // (each has its own repository), which wait for it only to compare.
    let reference: Promise<{ outcome: ReturnType<typeof outcomeOf>; subjects: string[] }>;

    beforeAll(() => {
      reference = (async () => {
        const r = await repo();
        const res = await cli(ARGS, { cwd: r.dir });
        expect(res.code).toBe(0);
        const ref = { outcome: outcomeOf(await readState(r.dir)), subjects: await subjects(r.dir) };
        expect(ref.outcome.currentState).toBe("DONE");
        return ref;
      })();
      reference.catch(() => {}); // reported by each test that awaits it
    });

    it.concurrent.each(lines)(
      "killed after %i progress lines, resumed, it ends the same",
      async (n) => {
        const r = await repo();
        const p = start(ARGS, { cwd: r.dir });
        await p.waitFor(new RegExp(`(^\\[\\+.*\\n(?:(?!\\[\\+).*\\n)*){${n}}`, "m"));
        p.child.kill("SIGKILL");
        const killed = await p.done;
        expect(killed.signal).toBe("SIGKILL");
        expect(killed.stdout).not.toContain("DONE in");

        const res = await cli(ARGS, { cwd: r.dir });
        expect(res.stderr).toBe("");
        expect(res.code).toBe(0);
        expect(res.stdout).toContain("Resuming autopilot from state");
        expect(res.stdout).toContain("DONE in");
        const ref = await reference;
        expect(outcomeOf(await readState(r.dir))).toEqual(ref.outcome);
        expect(await subjects(r.dir)).toEqual(ref.subjects);
      },
      SIDE_BY_SIDE,
    );
  });
}
