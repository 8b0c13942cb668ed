// The retry budget over MCP (the policy's RETRY_BUDGET): that many failures of one task are retried with escalating context and
// the next attempt may pass; one more failure exhausts the budget, keeps the passing work in a
// recovery commit and records the failure in .harness/failures.md.
import { afterEach, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Step } from "../../src/protocol/step.js";
import { autopilotCommits, git } from "../helpers/git.js";
import { agreeable, openSession, playHost, specWith, stepCall, type Session } from "../helpers/mcp-client.js";
import { RETRY_BUDGET } from "../../src/rules/policy.js";

const SPEC_PATH = "docs/specs/scanner.md";
const SLUG = "specs--scanner";
const SPEC = specWith([{ name: "Core Scanner", complexity: "low" }]);

let s: Session | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

describe("retry budget", () => {
  it(`a task failing ${RETRY_BUDGET} times is retried each time and then passes`, async () => {
    s = await openSession({ spec: SPEC, specPath: SPEC_PATH });
    const trace = { steps: [] as Step[] };
    const runner = new ScriptedRunner({ phases: { 0: { fail: { task: 2, times: RETRY_BUDGET } } } });
    const end = await playHost(s.srv.client, s.root, await s.start(), runner, agreeable, { trace });
    expect(end.state).toBe("DONE");
    // No human was asked about the failures: each came back as another executor dispatch.
    expect(trace.steps.some((x) => x.state === "EXECUTE" && x.next.kind === "ask")).toBe(false);
    const retries = trace.steps.filter((x) => x.state === "EXECUTE" && /FAILED/.test(x.report ?? ""));
    expect(retries.map((x) => x.report!.match(new RegExp(`Retry (\\d+)/${RETRY_BUDGET}`))?.[1])).toEqual(
      Array.from({ length: RETRY_BUDGET }, (_, i) => String(i + 1)),
    );
    for (const r of retries) expect(r.next).toMatchObject({ kind: "dispatch", persona: "harness-task-executor" });
    const state = await s.state(SLUG);
    expect(state.history[0]).toMatchObject({ retriesUsed: RETRY_BUDGET });
    expect((await autopilotCommits(s.root)).filter((c) => /recovery/.test(c.step))).toEqual([]);
  });

  it("one failure more than the budget exhausts it: recovery commit, failures.md, then the human decides", async () => {
    s = await openSession({ spec: SPEC, specPath: SPEC_PATH });
    const runner = new ScriptedRunner({
      phases: { 0: { fail: { task: 2, times: RETRY_BUDGET + 1, error: "Test timeout after 5000ms" } } },
    });
    const ask = await playHost(s.srv.client, s.root, await s.start(), runner, agreeable, {
      until: (x) => x.next.kind === "ask",
    });
    expect(ask).toMatchObject({
      state: "EXECUTE",
      next: { kind: "ask", options: ["fix manually and continue", "revise plan", "stop"] },
    });
    expect(ask.report).toMatch(/budget exhausted/);
    expect(ask.report).toContain(`Attempt ${RETRY_BUDGET}:`);

    const recovery = (await autopilotCommits(s.root)).filter((c) => /recovery at task/.test(c.step));
    expect(recovery).toHaveLength(1);
    expect(recovery[0].step).toContain("Core Scanner");
    // Its subject says what it holds, in the repository's style: unfinished work on the task.
    expect(recovery[0].subject).toBe("Unfinished work on task 2 (Core Scanner step 2)");
    const failures = await readFile(path.join(s.root, ".harness/failures.md"), "utf8");
    expect(failures).toMatch(/Core Scanner/);
    expect(failures).toMatch(/Test timeout after 5000ms/);
    // The task's passing predecessor is in the recovery commit.
    expect(await git(s.root, "show", "--stat", "--format=%s", "HEAD")).toMatch(/task-1\.ts/);

    const next = await stepCall(s.srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: ask.stepId,
      answer: "fix manually and continue",
      rationale: "I fixed the async test by hand",
    });
    expect(next.next.kind).toBe("dispatch");
    const d = (await s.state(SLUG)).decisions.at(-1);
    expect(d).toMatchObject({
      answer: "fix manually and continue",
      by: "host",
      rationale: "I fixed the async test by hand",
    });
    expect((await playHost(s.srv.client, s.root, next, runner, agreeable)).state).toBe("DONE");
  });
});
