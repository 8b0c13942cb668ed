// Two clients (two server processes) on one session: the same stepId reported twice moves the
// machine once; the loser gets stale_step with the current Step, never a second transition.
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import {
  agreeable,
  call,
  openSession,
  playHost,
  startServer,
  taskFor,
  type ServerHandle,
  type Session,
} from "../helpers/mcp-client.js";

const SLUG = "changes--security-scanner--proposal";
let s: Session | undefined;
let other: ServerHandle | undefined;
afterEach(async () => {
  await other?.close();
  await s?.dispose();
  s = other = undefined;
});

describe("two clients on one session", () => {
  it("the same report sent by both at once: one transition, one stale_step", async () => {
    s = await openSession();
    other = await startServer({ cwd: s.root, name: "second-host" });
    const runner = new ScriptedRunner({});
    const first = await s.start();
    expect(first.next).toMatchObject({ kind: "dispatch", persona: "harness-planner" });
    const { result } = await runner.run(taskFor(s.root, first));

    const args = { session: SLUG, stepId: first.stepId, result };
    const [a, b] = await Promise.all([
      call(s.srv.client, "autopilot_report", args),
      call(other.client, "autopilot_report", args),
    ]);
    const wins = [a, b].filter((x) => x.step);
    const losses = [a, b].filter((x) => x.error);
    expect(wins).toHaveLength(1);
    expect(losses).toHaveLength(1);
    expect(losses[0].error!.code).toBe("stale_step");
    expect(losses[0].result.isError).toBe(true);
    expect(losses[0].text).toMatch(/stale/);
    // The loser is shown where the session is now: the winner's Step.
    expect(losses[0].error!.step).toMatchObject({ stepId: wins[0].step!.stepId, state: wins[0].step!.state });

    const state = await s.state();
    expect(state.stepId).toBe(wins[0].step!.stepId);
    expect(state.decisions.filter((d: any) => d.signals)).toHaveLength(1); // one plan approval, not two
  });

  it("a report after the other client already moved on gets stale_step and changes nothing", async () => {
    s = await openSession();
    other = await startServer({ cwd: s.root, name: "second-host" });
    const runner = new ScriptedRunner({});
    const first = await s.start();
    const { result } = await runner.run(taskFor(s.root, first));
    const moved = await call(s.srv.client, "autopilot_report", { session: SLUG, stepId: first.stepId, result });
    const before = await s.state();
    const late = await call(other.client, "autopilot_report", { session: SLUG, stepId: first.stepId, result });
    expect(late.error).toMatchObject({ code: "stale_step", step: { stepId: moved.step!.stepId } });
    expect(await s.state()).toEqual(before);

    // Both can keep going from the current Step; a stale decide is refused the same way.
    const ask = await playHost(other.client, s.root, late.error!.step!, runner, agreeable, {
      until: (x) => x.next.kind === "ask",
    });
    const yes = await call(s.srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: ask.stepId,
      answer: ask.next.kind === "ask" ? ask.next.options[0] : "",
    });
    expect(yes.step).toBeDefined();
    const again = await call(other.client, "autopilot_decide", { session: SLUG, stepId: ask.stepId, answer: "stop" });
    expect(again.error?.code).toBe("stale_step");
    expect((await s.state()).decisions.filter((d: any) => d.answer === "stop")).toHaveLength(0);
  });
});
