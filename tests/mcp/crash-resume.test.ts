// The server SIGKILLed in the middle of a session, twice: once between calls, once while a call
// is running the validation commands. A new server process continues the same session, and the
// outcome equals an uninterrupted run of the same script: decisions, phase history, final review
// and the subjects of the commits.
import { describe, expect, it } from "vitest";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Script } from "../../src/runners/script.js";
import type { Step } from "../../src/protocol/step.js";
import {
  agreeable,
  call,
  comparable,
  logSubjects,
  openSession,
  playHost,
  specWith,
  startServer,
  taskFor,
  type Session,
} from "../helpers/mcp-client.js";
import { SIDE_BY_SIDE } from "../helpers/timeouts.js";

const SPEC_PATH = "docs/specs/scanner.md";
const SLUG = "specs--scanner";
const SPEC = specWith([
  { name: "Core Scanner", complexity: "low" },
  { name: "Rule Engine", complexity: "low" },
  { name: "CLI Integration", complexity: "low" },
]);
const SCRIPT: Script = {
  phases: { 0: { checkpoints: { 2: "passed" } }, 1: { fail: { task: 2, times: 2 }, concerns: ["rules may overlap"] } },
  finalBlocking: 1,
};
// Long enough to kill the server while it runs, short enough to keep the suite quick.
const SLOW_VALIDATION = ['node -e "setTimeout(() => process.exit(0), 1500)"'];

async function uninterrupted(flags: string, validation?: string[]) {
  const s = await openSession({ spec: SPEC, specPath: SPEC_PATH, validation });
  try {
    const end = await playHost(s.srv.client, s.root, await s.start(flags), new ScriptedRunner(SCRIPT), agreeable);
    expect(end.state).toBe("DONE");
    return { state: comparable(await s.state(SLUG)), subjects: await logSubjects(s.root) };
  } finally {
    await s.dispose();
  }
}

/** Start autopilot in a new server; a lock left by the killed process reads as busy until it goes stale. */
async function resumeAfterCrash(s: Session): Promise<Step> {
  for (let i = 0; i < 20; i++) {
    const r = await call(s.srv.client, "autopilot_start", { spec: SPEC_PATH });
    if (r.step) return r.step;
    expect(r.error?.code).toBe("busy");
    expect(r.text).toMatch(/Another autopilot process holds session/);
  }
  throw new Error("the lock never cleared");
}

describe("server killed and resumed", { timeout: SIDE_BY_SIDE }, () => {
  it.concurrent("killed between calls: a new server continues with identical results", async () => {
    const reference = uninterrupted("");
    const s = await openSession({ spec: SPEC, specPath: SPEC_PATH });
    try {
      const runner = new ScriptedRunner(SCRIPT);
      // Somewhere in phase 2, after its concerns paused the plan and a failure was retried.
      const mid = await playHost(s.srv.client, s.root, await s.start(), runner, agreeable, {
        until: (x) => x.phase?.number === 2 && x.state === "EXECUTE" && /FAILED/.test(x.report ?? ""),
      });
      expect(mid.next.kind).toBe("dispatch");
      await s.srv.kill();

      s.srv = await startServer({ cwd: s.root });
      const resumed = await resumeAfterCrash(s);
      expect(resumed.state).toBe("EXECUTE");
      // The same dispatch (its brief is numbered by the new stepId: resuming is a transition).
      expect(resumed.next).toMatchObject({
        kind: "dispatch",
        persona: mid.next.kind === "dispatch" && mid.next.persona,
        description: (mid.next as { description: string }).description,
      });
      const end = await playHost(s.srv.client, s.root, resumed, runner, agreeable);
      expect(end.state).toBe("DONE");

      const ref = await reference;
      expect(comparable(await s.state(SLUG))).toEqual(ref.state);
      expect(await logSubjects(s.root)).toEqual(ref.subjects);
    } finally {
      await s.dispose();
    }
  });

  it.concurrent("killed during a call (validation running): a new server finishes the call's work", async () => {
    const reference = uninterrupted("--fast", SLOW_VALIDATION);
    const s = await openSession({ spec: SPEC, specPath: SPEC_PATH, validation: SLOW_VALIDATION });
    try {
      const runner = new ScriptedRunner(SCRIPT);
      const exec = await playHost(s.srv.client, s.root, await s.start("--fast"), runner, agreeable, {
        until: (x) => x.phase?.number === 1 && x.state === "EXECUTE" && x.next.kind === "dispatch",
      });
      // Run the executor through the checkpoint to the end of the phase, then kill the server while
      // the report is being processed (fast VERIFY runs the slow validation command inside it).
      let step = exec;
      for (;;) {
        const { result } = await runner.run(taskFor(s.root, step));
        if (result.kind === "executed" && result.outcome === "complete") {
          const pending = call(s.srv.client, "autopilot_report", { session: SLUG, stepId: step.stepId, result }).catch(
            (e) => e,
          );
          await new Promise((r) => setTimeout(r, 600));
          await s.srv.kill();
          await pending;
          break;
        }
        const r = await call(s.srv.client, "autopilot_report", { session: SLUG, stepId: step.stepId, result });
        step = r.step!;
        expect(step.next.kind).toBe("dispatch");
      }

      s.srv = await startServer({ cwd: s.root });
      const resumed = await resumeAfterCrash(s);
      // The report was accepted before the kill: the session is past EXECUTE, never back in it.
      expect(["VERIFY", "REVIEW"]).toContain(resumed.state);
      const end = await playHost(s.srv.client, s.root, resumed, runner, agreeable);
      expect(end.state).toBe("DONE");

      const ref = await reference;
      expect(comparable(await s.state(SLUG))).toEqual(ref.state);
      expect(await logSubjects(s.root)).toEqual(ref.subjects);
    } finally {
      await s.dispose();
    }
  });
});
