// The person's words between gates, over stdio with the SDK client and the built CLI: the host's
// autopilot_decide with only userWords at a dispatch Step records them and leaves the Step where it
// was; an answer at a Step that asks nothing is refused with what to do, naming no option; a person
// at a terminal gives a direction with `autopilot note` (in a real pseudo-terminal), and the next
// persona's brief quotes it. Without a terminal the command refuses and changes nothing.
import { afterEach, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { spawn as ptySpawn } from "@lydell/node-pty";
import { call, MAIN_JS, openSession, specWith, stepCall, type Session } from "../helpers/mcp-client.js";

const SPEC_PATH = "docs/specs/feature.md";
const SLUG = "specs--feature";
let s: Session | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

/** `autopilot note SLUG <words>` in a real pseudo-terminal. */
function noteInPty(root: string, words: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...(process.env as Record<string, string>), GIT_CONFIG_NOSYSTEM: "1" };
    const p = ptySpawn(process.execPath, [MAIN_JS, "note", SLUG, ...words], { cwd: root, env, cols: 160, rows: 40 });
    let output = "";
    const timer = setTimeout(() => {
      p.kill();
      reject(new Error(`autopilot note did not finish:\n${output}`));
    }, 30_000);
    p.onData((d) => (output += d));
    p.onExit(({ exitCode }) => {
      clearTimeout(timer);
      resolve({ code: exitCode, output });
    });
  });
}

describe("words between gates", () => {
  it("autopilot_decide with only userWords at a dispatch Step: recorded, the Step unchanged, the brief quotes them", async () => {
    s = await openSession({ spec: specWith([{ name: "Parser", complexity: "low" }]), specPath: SPEC_PATH });
    const first = await s.start();
    expect(first.next.kind).toBe("dispatch");
    const brief = path.join(s.root, ".harness/sessions", SLUG, "briefs", `step-${first.stepId}.md`);
    expect(await readFile(brief, "utf8")).not.toContain("What the person said");

    const noted = await call(s.srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: first.stepId,
      userWords: "dates are ISO 8601, always",
    });
    expect(noted.error).toBeUndefined();
    expect(noted.step).toMatchObject({ stepId: first.stepId, next: { kind: "dispatch" } });
    expect(noted.text).toContain(
      `Recorded as the user's words (relayed by the host model): "dates are ISO 8601, always"`,
    );
    const text = await readFile(brief, "utf8");
    expect(text).toContain("## What the person said");
    expect(text).toContain(
      `- phase 1, a note between steps, while the plan was being written (relayed by the host model): "dates are ISO 8601, always"`,
    );
    expect((await s.state(SLUG)).decisions.at(-1)).toMatchObject({
      decision: "noted",
      by: "relayed",
      userWords: "dates are ISO 8601, always",
      phase: 0,
      state: "PLAN",
    });

    // An answer with no words at that Step: refused; the error names no option, says what to do.
    const refused = await call(s.srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: first.stepId,
      answer: "yes",
    });
    expect(refused.error?.code).toBe("bad_answer");
    expect(refused.error?.todo).toBe(
      "Nothing changed: this Step asks nothing; follow it (error.step). To pass on what the user said, call autopilot_decide with userWords only.",
    );
    expect(refused.text).not.toMatch(/Next:.*option/);
  });

  it("autopilot note in a terminal: the person's direction reaches the next persona; without a terminal, refused", async () => {
    s = await openSession({ spec: specWith([{ name: "Parser", complexity: "low" }]), specPath: SPEC_PATH });
    const first = await s.start();
    const piped = spawnSync(process.execPath, [MAIN_JS, "note", SLUG, "keep", "it", "small"], {
      cwd: s.root,
      encoding: "utf8",
    });
    expect(piped.status).toBe(1);
    expect(piped.stderr).toContain("no_tty");
    expect((await s.state(SLUG)).decisions).toEqual([]);

    const done = await noteInPty(s.root, ["keep", "the", "parser", "under", "100", "lines"]);
    expect(done.code, done.output).toBe(0);
    expect(done.output).toContain(`Recorded as the user's words (at a terminal): "keep the parser under 100 lines"`);
    expect((await s.state(SLUG)).decisions.at(-1)).toMatchObject({
      decision: "noted",
      by: "terminal",
      rationale: "keep the parser under 100 lines",
    });
    // The planner runs now: its brief (written again) quotes the person.
    const again = await stepCall(s.srv.client, "autopilot_next", { session: SLUG });
    expect(again.stepId).toBe(first.stepId);
    const brief = await readFile(
      path.join(s.root, ".harness/sessions", SLUG, "briefs", `step-${first.stepId}.md`),
      "utf8",
    );
    expect(brief).toContain(`(at a terminal): "keep the parser under 100 lines"`);
  });
});
