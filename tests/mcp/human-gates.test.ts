// --human-gates over stdio with the SDK client: the protected gates (a plan paused by a signal, a
// failed verification skipped, a blocking review overridden, the final review overridden) refuse
// the host's autopilot_decide with human_required and leave every file as it was; `autopilot
// approve` in a real pseudo-terminal (node-pty) passes each of them, recorded as `terminal`; the
// same command without a terminal refuses; a client with a form gets the question there instead.
import { describe, expect, it } from "vitest";
import { readdir, readFile } from "node:fs/promises";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { spawn as ptySpawn } from "@lydell/node-pty";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Step } from "../../src/protocol/step.js";
import { git } from "../helpers/git.js";
import {
  agreeable,
  call,
  MAIN_JS,
  openSession,
  playHost,
  specWith,
  stepCall,
  type Session,
} from "../helpers/mcp-client.js";
import { SIDE_BY_SIDE } from "../helpers/timeouts.js";

const SPEC_PATH = "docs/specs/feature.md";
const SLUG = "specs--feature";
const SPEC = specWith([
  { name: "Parser", complexity: "low" },
  { name: "Printer", complexity: "low" },
]);

/** Every file under .harness and the HEAD commit: what "nothing changed on disk" compares. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = { HEAD: (await git(root, "rev-parse", "HEAD")).trim() };
  const walk = async (dir: string) => {
    for (const e of await readdir(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) await walk(rel);
      // The session lock's owner note is rewritten by every call that takes the lock (a refused
      // call takes it to read the state); it is lock machinery, not session data.
      else if (!/\.lock(\.owner)?$/.test(e.name)) out[rel] = await readFile(path.join(root, rel), "utf8");
    }
  };
  await walk(".harness");
  return out;
}

/** `autopilot approve SLUG` in a real pseudo-terminal; types `answer` at the prompt. */
function approveInPty(root: string, answer: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...(process.env as Record<string, string>), GIT_CONFIG_NOSYSTEM: "1" };
    const p = ptySpawn(process.execPath, [MAIN_JS, "approve", SLUG], { cwd: root, env, cols: 120, rows: 40 });
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

const untilAsk = (x: Step) => x.next.kind === "ask";

async function refusedThenApproved(session: Session, ask: Step, answer: string, rationale: string) {
  expect(ask.next.kind).toBe("ask");
  if (ask.next.kind !== "ask") throw new Error("not an ask");
  expect(ask.next.humanOnly).toContain(answer);
  expect(ask.todo).toContain(`autopilot approve ${SLUG}`);
  const before = await snapshot(session.root);
  const refused = await call(session.srv.client, "autopilot_decide", { session: SLUG, stepId: ask.stepId, answer });
  expect(refused.error?.code).toBe("human_required");
  expect(refused.error?.message).toContain(`autopilot approve ${SLUG}`);
  expect(refused.error?.message).toContain("client's form");
  expect(refused.error?.step?.stepId).toBe(ask.stepId);
  expect(await snapshot(session.root)).toEqual(before);

  const done = await approveInPty(session.root, `${answer} ${rationale}`);
  expect(done.code, done.output).toBe(0);
  expect(done.output).toContain(ask.next.question);
  expect(done.output).toContain("This is a human gate");
  expect(done.output).toContain(`Recorded "${answer}" (${rationale}), answered at this terminal`);
  // A chat client drives this session, never autopilot run: the way on is the client alone.
  expect(done.output.trimEnd().split(/\r?\n/).at(-1)).toBe(
    "To go on: tell your chat client to continue (it calls autopilot_next).",
  );
  expect(done.output).not.toContain("autopilot run");
  const d = (await session.state(SLUG)).decisions.at(-1);
  expect(d).toMatchObject({ answer, by: "terminal", rationale });
  return stepCall(session.srv.client, "autopilot_next", { session: SLUG });
}

describe.concurrent("--human-gates", { timeout: SIDE_BY_SIDE }, () => {
  it("each protected gate refuses the host's decide, changing nothing; autopilot approve in a pty passes it", async ({
    onTestFinished,
  }) => {
    const s = await openSession({ spec: SPEC, specPath: SPEC_PATH });
    onTestFinished(() => s.dispose());
    const runner = new ScriptedRunner({
      phases: { 0: { verifyFailsOnce: true }, 1: { blockingReviewOnce: true } },
      finalBlocking: 1,
    });
    const play = (from: Step) => playHost(s.srv.client, s.root, from, runner, agreeable, { until: untilAsk });

    // 1. The plan paused by a signal (--review-plans).
    let step = await play(await s.start("--review-plans --human-gates"));
    expect(step).toMatchObject({ state: "APPROVE_PLAN", next: { kind: "ask", humanOnly: ["yes", "skip phase"] } });
    expect((await s.state(SLUG)).humanOnlyGates).toBe(true);
    step = await refusedThenApproved(s, step, "yes", "read the plan myself");
    expect(step.state).toBe("EXECUTE");

    // 2. Skipping a failed verification. "fix" is not protected: the host may pass it on.
    step = await play(step);
    expect(step).toMatchObject({ state: "VERIFY", next: { kind: "ask", humanOnly: ["skip verification"] } });
    step = await refusedThenApproved(s, step, "skip verification", "flaky check, tracked elsewhere");
    expect(step.state).toBe("REVIEW");

    // Between phases ("continue?") is not a human gate: the host answers it.
    step = await play(step);
    expect(step).toMatchObject({ state: "PHASE_COMPLETE" });
    expect(step.next.kind === "ask" && step.next.humanOnly).toBeFalsy();
    step = await stepCall(s.srv.client, "autopilot_decide", { session: SLUG, stepId: step.stepId, answer: "yes" });

    // Phase 2's plan pauses too.
    step = await play(step);
    expect(step.state).toBe("APPROVE_PLAN");
    step = await refusedThenApproved(s, step, "yes", "fine");

    // 3. Overriding a blocking review finding.
    step = await play(step);
    expect(step).toMatchObject({ state: "REVIEW", next: { kind: "ask", humanOnly: ["override"] } });
    step = await refusedThenApproved(s, step, "override", "false positive");

    // 4. Accepting the final review over blocking findings.
    step = await play(step);
    expect(step).toMatchObject({ state: "FINAL_REVIEW", next: { kind: "ask", humanOnly: ["override"] } });
    step = await refusedThenApproved(s, step, "override", "accepted risk");
    expect(step.state).toBe("DONE");

    const decisions = (await s.state(SLUG)).decisions.filter((d: any) => d.answer !== undefined);
    expect(decisions.map((d: any) => [d.decision, d.by])).toEqual([
      ["approved_plan", "terminal"],
      ["skipped_verification", "terminal"],
      ["continued", "host"],
      ["approved_plan", "terminal"],
      ["overrode_review", "terminal"],
      ["overrode_final_review", "terminal"],
    ]);
  });

  it("autopilot approve without a terminal refuses with no_tty and changes nothing; --thorough turns human gates on", async ({
    onTestFinished,
  }) => {
    const s = await openSession({ spec: SPEC, specPath: SPEC_PATH });
    onTestFinished(() => s.dispose());
    const ask = await playHost(s.srv.client, s.root, await s.start("--thorough"), new ScriptedRunner({}), agreeable, {
      until: untilAsk,
    });
    expect(ask).toMatchObject({ state: "APPROVE_PLAN", next: { humanOnly: ["yes", "skip phase"] } });
    const before = await snapshot(s.root);
    // The way a model's shell tool runs a command: pipes, no terminal; "yes" waiting on stdin.
    const r = spawnSync(process.execPath, [MAIN_JS, "approve", SLUG], {
      cwd: s.root,
      input: "1\n",
      encoding: "utf8",
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("needs an interactive terminal");
    expect(r.stderr).toContain("[no_tty]");
    expect(await snapshot(s.root)).toEqual(before);
    // "revise" and "stop" stay open to the host.
    const revised = await stepCall(s.srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: ask.stepId,
      answer: "revise",
    });
    expect(revised.next.kind).toBe("ask");
  });

  it("a client with a form: the host's refused decide puts the question to the user, whose answer is recorded as elicited", async ({
    onTestFinished,
  }) => {
    const asked: string[] = [];
    const s = await openSession({
      spec: SPEC,
      specPath: SPEC_PATH,
      server: {
        onElicit: (p) => {
          asked.push(p.message);
          // The first time (right after the plan) the user declines; the second, they approve.
          return asked.length === 1
            ? { action: "decline" }
            : { action: "accept", content: { answer: "yes", rationale: "seen it" } };
        },
      },
    });
    onTestFinished(() => s.dispose());
    const ask = await playHost(
      s.srv.client,
      s.root,
      await s.start("--review-plans --human-gates"),
      new ScriptedRunner({}),
      agreeable,
      { until: untilAsk },
    );
    expect(asked).toHaveLength(1);
    const r = await call(s.srv.client, "autopilot_decide", { session: SLUG, stepId: ask.stepId, answer: "yes" });
    expect(r.error).toBeUndefined();
    expect(r.step?.state).toBe("EXECUTE");
    expect(r.text).toContain("the question went to the user in the client's form");
    expect(asked).toHaveLength(2);
    expect((await s.state(SLUG)).decisions.at(-1)).toMatchObject({
      decision: "approved_plan",
      by: "elicited",
      rationale: "seen it",
    });
  });
});
