// In-band human decisions, on by default: with a client that declares form elicitation, ask Steps
// are put to the user as a form and recorded with channel `elicited`; decline, cancel, a time-out, a
// client without the capability, or elicitation turned off (AUTOPILOT_ELICIT=0, --no-elicit, the
// config's `elicit: false`) all fall back to the ask Step and autopilot_decide (channel `host`).
import { describe, expect, it } from "vitest";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Step } from "../../src/protocol/step.js";
import { agreeable, call, openSession, playHost, specWith, stepCall, taskFor } from "../helpers/mcp-client.js";
import { SIDE_BY_SIDE } from "../helpers/timeouts.js";

const SPEC_PATH = "docs/specs/feature.md";
const SLUG = "specs--feature";
const SPEC = specWith([
  { name: "Parser", complexity: "low" },
  { name: "Printer", complexity: "low" },
]);

interface Seen {
  message: string;
  schema: any;
}

function open(
  env: Record<string, string>,
  onElicit?: (seen: Seen) => ElicitResult | Promise<ElicitResult>,
  args?: string[],
  config?: Record<string, unknown>,
) {
  return openSession({
    spec: SPEC,
    specPath: SPEC_PATH,
    ...(config
      ? {
          files: {
            ".harness/config.json": JSON.stringify({
              validation: { commands: ['node -e "process.exit(0)"'] },
              ...config,
            }),
          },
        }
      : {}),
    server: {
      env,
      args,
      ...(onElicit ? { onElicit: (p) => onElicit({ message: p.message, schema: p.requestedSchema }) } : {}),
    },
  });
}

describe.concurrent("elicitation", { timeout: SIDE_BY_SIDE }, () => {
  it("accept (on by default): every question is answered in the client's form; the host never sees an ask", async ({
    onTestFinished,
  }) => {
    const seen: Seen[] = [];
    const s = await open({}, (p) => {
      seen.push(p);
      const options: string[] = p.schema.properties.answer.enum;
      const answer = options.includes("yes") ? "yes" : options[0];
      return { action: "accept", content: { answer, rationale: "looks right" } };
    });
    onTestFinished(() => s.dispose());
    const trace = { steps: [] as Step[] };
    const end = await playHost(
      s.srv.client,
      s.root,
      await s.start("--review-plans"),
      new ScriptedRunner({}),
      () => {
        throw new Error("the host was asked");
      },
      { trace },
    );
    expect(end.state).toBe("DONE");
    expect(trace.steps.some((x) => x.next.kind === "ask")).toBe(false);
    // Two plan approvals and one "continue?" between the phases.
    expect(seen).toHaveLength(3);
    expect(seen[0].schema.properties.answer.description).toBe("Approve this plan and begin execution?");
    expect(seen[0].schema.properties.answer.enum).toEqual(["yes", "revise", "skip phase", "stop"]);
    expect(seen[0].schema.required).toEqual(["answer"]);
    // What the user decides on is in the first two lines (Claude Code shows two, then "… (+N more
    // lines)"): the plan with its size, and the signal that paused it; no option is repeated.
    const [plan, why] = seen[0].message.split("\n").filter((l) => l.trim());
    expect(plan).toMatch(/^Plan: \S*parser\S*\.md \(\d+ tasks?\)$/);
    expect(why).toBe("Paused by: Review mode: manual (--review-plans flag set)");
    expect(seen[1].schema.properties.answer.description).toMatch(
      /^Phase 1 complete\. Next: Phase 2: Printer \(complexity: low\)\. Continue\?$/,
    );
    // (The review's own "Review: <counts>" line is left out where the phase summary says the same counts.)
    expect(
      seen[1].message
        .split("\n")
        .filter((l) => l.trim())
        .slice(0, 2),
    ).toEqual([
      "Phase 1: Parser — COMPLETE",
      // Each finding once, by severity and fate ("1 note open"), or the counts when there is none.
      expect.stringMatching(
        /\| Review: (\d+ (blocking|warning|note) (open|fixed|disputed|overridden|deferred)\b.*|0 blocking, 0 warning, 0 note)$/,
      ),
    ]);
    for (const f of seen)
      expect(`${f.message}\n${f.schema.properties.answer.description}`).not.toMatch(/\([^()]* \/ [^()]*\)/);
    const decisions = (await s.state(SLUG)).decisions;
    const human = decisions.filter((d: any) => d.by === "elicited");
    expect(human).toHaveLength(3);
    expect(decisions.filter((d: any) => d.answer !== undefined).every((d: any) => d.by === "elicited")).toBe(true);
    expect(human.every((d: any) => d.answer === "yes" && d.rationale === "looks right")).toBe(true);
  });

  it("the text result says what the user answered in-band", async ({ onTestFinished }) => {
    const s = await open({ AUTOPILOT_ELICIT: "1" }, () => ({ action: "accept", content: { answer: "yes" } }));
    onTestFinished(() => s.dispose());
    const first = await s.start("--review-plans");
    const { result } = await new ScriptedRunner({}).run(taskFor(s.root, first));
    const r = await call(s.srv.client, "autopilot_report", { session: SLUG, stepId: first.stepId, result });
    expect(r.step?.state).toBe("EXECUTE");
    expect(r.text).toMatch(/The user answered "yes" in the client's form/);
  });

  for (const action of ["decline", "cancel"] as const) {
    it(`${action}: the ask Step comes back and autopilot_decide still works`, async ({ onTestFinished }) => {
      let asked = 0;
      const s = await open({}, () => {
        asked++;
        return { action };
      });
      onTestFinished(() => s.dispose());
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
      expect(asked).toBe(1);
      expect(ask).toMatchObject({ state: "APPROVE_PLAN", next: { kind: "ask" } });
      // The form was turned down: the host's answer is applied, recorded as the host's.
      const next = await stepCall(s.srv.client, "autopilot_decide", {
        session: SLUG,
        stepId: ask.stepId,
        answer: "yes",
      });
      expect(next.state).toBe("EXECUTE");
      const d = (await s.state(SLUG)).decisions.find((x: any) => x.decision === "approved_plan");
      expect(d).toMatchObject({ by: "host", answer: "yes" });
    });
  }

  it("time-out: a user who does not answer leaves the ask Step", async ({ onTestFinished }) => {
    const s = await open(
      { AUTOPILOT_ELICIT: "1", AUTOPILOT_ELICIT_TIMEOUT_MS: "300" },
      () =>
        new Promise<ElicitResult>((r) => setTimeout(() => r({ action: "accept", content: { answer: "yes" } }), 1500)),
    );
    onTestFinished(() => s.dispose());
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
    expect(ask).toMatchObject({ state: "APPROVE_PLAN", next: { kind: "ask" } });
    expect((await s.state(SLUG)).decisions.filter((d: any) => d.by === "elicited")).toHaveLength(0);
  });

  it("an answer not among the options is ignored", async ({ onTestFinished }) => {
    const s = await open({}, () => ({ action: "accept", content: { answer: "definitely" } }), ["--elicit"]);
    onTestFinished(() => s.dispose());
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
    expect(ask.next.kind).toBe("ask");
  });

  it("not enabled: a client that could elicit is never asked in-band", async ({ onTestFinished }) => {
    let asked = 0;
    const s = await open({ AUTOPILOT_ELICIT: "0" }, () => {
      asked++;
      return { action: "accept", content: { answer: "yes" } };
    });
    onTestFinished(() => s.dispose());
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
    expect(ask.next.kind).toBe("ask");
    expect(asked).toBe(0);
  });

  for (const [how, env, args, config] of [
    ["--no-elicit", {}, ["--no-elicit"], undefined],
    ['the config\'s "elicit": false', {}, undefined, { elicit: false }],
  ] as const) {
    it(`turned off with ${how}: the client's form is never used`, async ({ onTestFinished }) => {
      let asked = 0;
      const s = await open(
        { ...env },
        () => {
          asked++;
          return { action: "accept", content: { answer: "yes" } };
        },
        args ? [...args] : undefined,
        config,
      );
      onTestFinished(() => s.dispose());
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
      expect(ask.next.kind).toBe("ask");
      expect(asked).toBe(0);
    });
  }

  it("the client does not declare elicitation: the ask Step as usual, and the host's answer is recorded as host", async ({
    onTestFinished,
  }) => {
    const s = await open({});
    onTestFinished(() => s.dispose());
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
    expect(ask.next.kind).toBe("ask");
    await stepCall(s.srv.client, "autopilot_decide", { session: SLUG, stepId: ask.stepId, answer: "yes" });
    const d = (await s.state(SLUG)).decisions.find((x: any) => x.decision === "approved_plan");
    expect(d).toMatchObject({ by: "host", answer: "yes" });
    const log = JSON.parse((await call(s.srv.client, "autopilot_decisions", { session: SLUG })).text);
    const logged = log.decisions.find((x: any) => x.decision === "approved_plan");
    expect(logged).toMatchObject({
      who: "host",
      byPerson: false,
      whoText: "answered by the host model; no person may have seen it",
    });
  });
});
