// What `autopilot approve` says to do after the answer: the `autopilot run` command that ran the
// session, for a session `autopilot run` drove (in a real pseudo-terminal, after a run stopped at a
// human gate), and that command, run again, carries the session on from the answer.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawn as ptySpawn } from "@lydell/node-pty";
import { assertBuilt, cli, CLI, readState, SLUG, SPEC_REL, specRepo } from "./_cli.js";
import type { TempRepo } from "../helpers/git.js";

let repo: TempRepo | undefined;
beforeAll(() => assertBuilt());
afterEach(async () => repo?.cleanup());

function approveInPty(root: string, answer: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...(process.env as Record<string, string>), GIT_CONFIG_NOSYSTEM: "1" };
    const p = ptySpawn(process.execPath, [CLI, "approve", SLUG], { cwd: root, env, cols: 200, rows: 60 });
    let output = "";
    let typed = false;
    const timer = setTimeout(() => {
      p.kill();
      reject(new Error(`autopilot approve did not finish:\n${output}`));
    }, 30_000);
    p.onData((d) => {
      output += d;
      if (!typed && output.includes("  > ")) {
        typed = true;
        p.write(`${answer}\r`);
      }
    });
    p.onExit(({ exitCode }) => {
      clearTimeout(timer);
      resolve({ code: exitCode, output });
    });
  });
}

describe("autopilot approve, for a session autopilot run drives", () => {
  it("names the run's own command as the way to go on, and that command carries on from the answer", async () => {
    repo = await specRepo({ config: { scripted: { phases: { 0: { tasks: 1 }, 1: { tasks: 1 }, 2: { tasks: 1 } } } } });
    const args = ["run", SPEC_REL, "--runner", "scripted", "--yes", "--review-plans", "--human-gates"];
    const stopped = await cli(args, { cwd: repo.dir });
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(3);
    expect(stopped.stdout).toContain(`To continue: run \`autopilot approve ${SLUG}\``);

    const approved = await approveInPty(repo.dir, "yes read it");
    expect(approved.code, approved.output).toBe(0);
    const lines = approved.output.split(/\r?\n/).filter((l) => l.trim());
    expect(lines.at(-1)).toBe(
      `To go on: run \`autopilot run ${SPEC_REL} --runner scripted --yes --review-plans --human-gates\` again (the command that ran this session), or tell the chat client that drives it to continue (autopilot_next).`,
    );
    expect((await readState(repo.dir)).decisions.at(-1)).toMatchObject({ answer: "yes", by: "terminal" });

    // The command it names goes on from the approved plan (to phase 2's plan, the next human gate).
    const again = await cli(args, { cwd: repo.dir });
    expect(again.code, again.stdout + again.stderr).toBe(3);
    expect((await readState(repo.dir)).currentPhase).toBe(1);
  });
});
