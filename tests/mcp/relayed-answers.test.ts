// A host without forms may say it passes on the user's words: autopilot_decide with `userWords`
// records the answer as relayed (the host's claim, quoted), never as a person's answer; the session
// summary and the decision log say so, and a human gate still refuses it.
import { afterEach, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { agreeable, call, openSession, playHost, specWith, stepCall, type Session } from "../helpers/mcp-client.js";

const SPEC_PATH = "docs/specs/feature.md";
const SLUG = "specs--feature";
const SPEC = specWith([
  { name: "Parser", complexity: "low" },
  { name: "Printer", complexity: "low" },
]);

let s: Session | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

describe("relaying the user's words", () => {
  it("records an answer with userWords as relayed, with the words, and says so in the summary", async () => {
    s = await openSession({ spec: SPEC, specPath: SPEC_PATH });
    const ask = await playHost(
      s.srv.client,
      s.root,
      await s.start("--review-plans"),
      new ScriptedRunner({}),
      agreeable,
      {
        until: (x) => x.state === "APPROVE_PLAN",
      },
    );
    // The ask's todo says how to pass the user's reply on.
    expect(ask.todo).toContain('"userWords":<their reply, quoted, when you pass on what they said>');
    const next = await stepCall(s.srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: ask.stepId,
      answer: "yes",
      rationale: "looks complete",
      userWords: "yes, go ahead — it looks complete",
    });
    expect(next.state).toBe("EXECUTE");
    const d = (await s.state(SLUG)).decisions.find((x: { decision: string }) => x.decision === "approved_plan");
    expect(d).toMatchObject({ by: "relayed", answer: "yes", userWords: "yes, go ahead — it looks complete" });

    const phase = await playHost(s.srv.client, s.root, next, new ScriptedRunner({}), agreeable, {
      until: (x) => x.state === "PHASE_COMPLETE",
    });
    expect(phase.state).toBe("PHASE_COMPLETE");
    const summary = await readFile(path.join(s.root, ".harness/sessions", SLUG, "summary.md"), "utf8");
    expect(summary).toContain(
      `approved_plan "yes" (relayed by the host model as the user's words (its claim; no person answered autopilot directly))`,
    );
  });

  it("without userWords the answer stays the host's own", async () => {
    s = await openSession({ spec: SPEC, specPath: SPEC_PATH });
    const ask = await playHost(
      s.srv.client,
      s.root,
      await s.start("--review-plans"),
      new ScriptedRunner({}),
      agreeable,
      {
        until: (x) => x.state === "APPROVE_PLAN",
      },
    );
    await stepCall(s.srv.client, "autopilot_decide", { session: SLUG, stepId: ask.stepId, answer: "yes" });
    const d = (await s.state(SLUG)).decisions.find((x: { decision: string }) => x.decision === "approved_plan");
    expect(d.by).toBe("host");
    expect(d.userWords).toBeUndefined();
  });

  it("a human gate refuses a relayed answer: it is not a person's answer", async () => {
    s = await openSession({ spec: SPEC, specPath: SPEC_PATH, server: { env: { AUTOPILOT_ELICIT: "0" } } });
    const ask = await playHost(
      s.srv.client,
      s.root,
      await s.start("--review-plans --human-gates"),
      new ScriptedRunner({}),
      agreeable,
      {
        until: (x) => x.state === "APPROVE_PLAN",
      },
    );
    const r = await call(s.srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: ask.stepId,
      answer: "yes",
      userWords: "yes",
    });
    expect(r.error?.code).toBe("human_required");
    expect(r.error?.message).toContain("came from the host model relaying what it says are the user's words");
  });
});
