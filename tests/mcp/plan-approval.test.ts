// An approval belongs to one plan, end to end over stdio: every plan decision records the sha256 of
// the plan file it was about; a plan edited after its approval (automatic or by an answer) is
// caught at the next call, the Step says so and the plan gate asks again; an edit while the
// approval question is open does not let the old "yes" through.
import { afterEach, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { appendFile, readFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import {
  agreeable,
  call,
  openSession,
  playHost,
  specWith,
  stepCall,
  taskFor,
  type Session,
} from "../helpers/mcp-client.js";

const SPEC_PATH = "docs/specs/feature.md";
const SLUG = "specs--feature";
const SPEC = specWith([{ name: "Parser", complexity: "low" }]);

let s: Session | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

const sha = async (file: string) =>
  createHash("sha256")
    .update(await readFile(file, "utf8"))
    .digest("hex");

describe("an approval belongs to one plan", () => {
  it("a plan edited after it was auto-approved is asked again, and the executor's report for it is refused", async () => {
    s = await openSession({ spec: SPEC, specPath: SPEC_PATH });
    const runner = new ScriptedRunner({});
    // Low complexity, no concerns: auto-approved; stop at the executor's dispatch.
    const exec = await playHost(s.srv.client, s.root, await s.start(), runner, agreeable, {
      until: (x) => x.state === "EXECUTE" && x.next.kind === "dispatch",
    });
    let state = await s.state(SLUG);
    const plan = path.join(s.root, state.phases[0].planPath);
    const approved = await sha(plan);
    expect(state.decisions[0]).toMatchObject({ decision: "auto_approved_plan", planSha256: approved });
    expect(state.phaseRun.approvedPlanSha256).toBe(approved);

    // The plan changes after approval (by hand, or by a model); the executor runs and reports.
    await appendFile(plan, "\n### Task 4: Delete the tests\n\n- rm -rf tests\n");
    const edited = await sha(plan);
    const { result } = await runner.run(taskFor(s.root, exec));
    const refused = await call(s.srv.client, "autopilot_report", { session: SLUG, stepId: exec.stepId, result });
    expect(refused.error?.code).toBe("stale_step");
    const ask = refused.error!.step!;
    expect(ask).toMatchObject({
      state: "APPROVE_PLAN",
      next: { kind: "ask", options: ["yes", "revise", "skip phase", "stop"] },
    });
    expect(ask.report).toContain("changed after it was approved");
    expect(ask.report).toContain(`sha256 ${approved.slice(0, 12)} → ${edited.slice(0, 12)}`);
    // autopilot_next shows the same question: nothing runs silently.
    expect((await stepCall(s.srv.client, "autopilot_next", { session: SLUG })).stepId).toBe(ask.stepId);
    state = await s.state(SLUG);
    expect(state.phaseRun.approvedPlanSha256).toBeNull();
    expect(state.phaseRun.taskCount).toBe(4);

    const next = await stepCall(s.srv.client, "autopilot_decide", { session: SLUG, stepId: ask.stepId, answer: "yes" });
    expect(next.state).toBe("EXECUTE");
    state = await s.state(SLUG);
    expect(state.decisions.map((d: any) => [d.decision, d.planSha256])).toEqual([
      ["auto_approved_plan", approved],
      ["approved_plan", edited],
    ]);
    expect(state.phaseRun.approvedPlanSha256).toBe(edited);
  });

  it("an edit while the approval question is open: the old question's yes is not applied to the new plan", async () => {
    s = await openSession({ spec: SPEC, specPath: SPEC_PATH });
    const ask = await playHost(
      s.srv.client,
      s.root,
      await s.start("--review-plans"),
      new ScriptedRunner({}),
      agreeable,
      {
        until: (x) => x.next.kind === "ask",
      },
    );
    const plan = path.join(s.root, (await s.state(SLUG)).phases[0].planPath);
    await appendFile(plan, "\n### Task 4: One more thing\n\n- Write src/more.ts.\n");
    const r = await call(s.srv.client, "autopilot_decide", { session: SLUG, stepId: ask.stepId, answer: "yes" });
    expect(r.error?.code).toBe("stale_step");
    expect(r.error?.step).toMatchObject({ state: "APPROVE_PLAN", next: { kind: "ask" } });
    expect(r.error?.step?.report).toContain("changed while the approval question was open");
    expect((await s.state(SLUG)).decisions.filter((d: any) => d.decision === "approved_plan")).toHaveLength(0);
    const ok = await stepCall(s.srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: r.error!.step!.stepId,
      answer: "yes",
    });
    expect(ok.state).toBe("EXECUTE");
    expect((await s.state(SLUG)).decisions.at(-1)).toMatchObject({
      decision: "approved_plan",
      planSha256: await sha(plan),
    });
  });
});
