// Every error a client can provoke is a tool result with isError, a stable code in
// structuredContent.error.code (accepted by the SDK client's output-schema check), and text that
// says what to do next; where there is a current Step it comes with the error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { call, openSession, SCANNER_SLUG, taskFor, writeProjectFile, type Session } from "../helpers/mcp-client.js";
import type { Step } from "../../src/protocol/step.js";
import { git } from "../helpers/git.js";

let s: Session;
let first: Step;
beforeAll(async () => {
  s = await openSession();
  await writeProjectFile(s.root, "docs/no-phases.md", "# A spec\n\nNo implementation order here.\n");
  // Committed: an untracked file would make the first Step ask about changes autopilot did not make.
  await git(s.root, "add", "docs/no-phases.md");
  await git(s.root, "commit", "-qm", "a spec without phases");
  first = await s.start("--review-plans");
});
afterAll(async () => {
  await s.dispose();
});

async function expectError(name: string, args: Record<string, unknown>, code: string, text?: RegExp) {
  const r = await call(s.srv.client, name, args);
  expect(r.result.isError, r.text).toBe(true);
  expect(r.error?.code).toBe(code);
  expect(r.text).toContain(`[${code}]`);
  if (text) expect(r.text).toMatch(text);
  return r;
}

describe("error codes", () => {
  it("unknown_session, on every session tool", async () => {
    for (const [tool, extra] of [
      ["autopilot_next", {}],
      ["autopilot_report", { stepId: 1, result: { kind: "planned" } }],
      ["autopilot_decide", { stepId: 1, answer: "yes" }],
      ["autopilot_status", {}],
      ["autopilot_decisions", {}],
      ["gather_context", {}],
      ["write_scratchpad", { phase: 0, filename: "a.md", content: "x" }],
    ] as const) {
      const r = await expectError(tool, { session: "nope", ...extra }, "unknown_session");
      expect(r.text).toMatch(/autopilot_start|autopilot_status/);
    }
  });

  it("a session name with a path in it: one error, the same words and next step from every session tool, nothing written", async () => {
    const before = await s.state();
    for (const bad of ["../x", "a/b"]) {
      const seen = new Set<string>();
      for (const [tool, extra] of [
        ["autopilot_next", {}],
        ["autopilot_report", { stepId: first.stepId, result: { kind: "planned" } }],
        ["autopilot_decide", { stepId: first.stepId, answer: "yes" }],
        ["autopilot_status", {}],
        ["autopilot_decisions", {}],
        ["gather_context", {}],
        ["write_scratchpad", { phase: 0, filename: "a.md", content: "x" }],
      ] as const) {
        const r = await expectError(
          tool,
          { session: bad, ...extra },
          "outside_project",
          /call autopilot_status to list them/,
        );
        seen.add(JSON.stringify(r.error));
      }
      expect(seen.size, bad).toBe(1);
    }
    expect(await s.state()).toEqual(before);
  });

  it("bad_result: a result of the wrong kind, or one that does not fit the protocol", async () => {
    const wrong = await expectError(
      "autopilot_report",
      { session: SCANNER_SLUG, stepId: first.stepId, result: { kind: "verified", verdict: "pass" } },
      "bad_result",
      /expects a "planned" result/,
    );
    expect(wrong.error?.step).toMatchObject({ stepId: first.stepId });
    const malformed = await expectError(
      "autopilot_report",
      { session: SCANNER_SLUG, stepId: first.stepId, result: { kind: "bogus" } },
      "bad_result",
      /docs\/mcp\.md/,
    );
    expect(malformed.error?.step).toMatchObject({ stepId: first.stepId });
  });

  it("bad_answer: not one of the options, or no question pending", async () => {
    await expectError(
      "autopilot_decide",
      { session: SCANNER_SLUG, stepId: first.stepId, answer: "yes" },
      "bad_answer",
      /not asking/,
    );
    const { result } = await new ScriptedRunner({}).run(taskFor(s.root, first));
    const ask = (await call(s.srv.client, "autopilot_report", { session: SCANNER_SLUG, stepId: first.stepId, result }))
      .step!;
    expect(ask.next.kind).toBe("ask");
    const r = await expectError(
      "autopilot_decide",
      { session: SCANNER_SLUG, stepId: ask.stepId, answer: "maybe" },
      "bad_answer",
      /"yes", "revise", "skip phase", "stop"/,
    );
    expect(r.error?.step).toMatchObject({ stepId: ask.stepId, next: { kind: "ask" } });
  });

  it("stale_step carries the current Step", async () => {
    const r = await expectError(
      "autopilot_decide",
      { session: SCANNER_SLUG, stepId: 0, answer: "yes" },
      "stale_step",
      /Nothing was changed/,
    );
    expect(r.error?.step?.stepId).toBeGreaterThan(0);
    expect(r.text).toMatch(/The current Step:/);
  });

  it("spec_not_found, no_phases, flag_conflict, outside_project", async () => {
    await expectError("autopilot_start", { spec: "docs/missing.md" }, "spec_not_found", /docs\/missing\.md/);
    await expectError("autopilot_start", { spec: "docs/no-phases.md" }, "no_phases");
    await expectError(
      "autopilot_start",
      { spec: "docs/changes/security-scanner/proposal.md", flags: "--fast --thorough" },
      "flag_conflict",
      /Choose one/,
    );
    await expectError("autopilot_start", { spec: "../elsewhere/spec.md" }, "outside_project");
    await expectError("autopilot_next", { session: "../x" }, "outside_project");
    await expectError(
      "write_scratchpad",
      { session: SCANNER_SLUG, phase: 0, filename: "../../escape.md", content: "x" },
      "outside_project",
    );
    await expectError(
      "autopilot_start",
      { spec: "docs/changes/security-scanner/proposal.md", flags: "--turbo" },
      "bad_input",
      /--fast/,
    );
  });

  it('arguments of the wrong type, {"toString": 1} included, get bad_input or bad_result, and change nothing', async () => {
    const before = (await call(s.srv.client, "autopilot_next", { session: SCANNER_SLUG })).step!;
    const odd: unknown[] = [{ toString: 1 }, { valueOf: 1, toString: 1 }, [{ toString: 1 }], 7];
    for (const v of odd) {
      await expectError(
        "autopilot_decide",
        { session: SCANNER_SLUG, stepId: before.stepId, answer: v },
        "bad_input",
        /answer/,
      );
      await expectError(
        "autopilot_decide",
        { session: SCANNER_SLUG, stepId: before.stepId, answer: "yes", rationale: v },
        "bad_input",
        /rationale/,
      );
      if (typeof v !== "number")
        await expectError(
          "autopilot_decide",
          { session: SCANNER_SLUG, stepId: v, answer: "yes" },
          "bad_input",
          /stepId/,
        );
      await expectError(
        "autopilot_report",
        { session: SCANNER_SLUG, stepId: before.stepId, result: v },
        "bad_result",
        /result/,
      );
      await expectError(
        "autopilot_report",
        { session: SCANNER_SLUG, stepId: before.stepId, result: { kind: v } },
        "bad_result",
        /result\.kind/,
      );
      await expectError("autopilot_next", { session: v }, "bad_input", /session/);
      await expectError("autopilot_start", { spec: v }, "bad_input", /spec/);
      await expectError(
        "autopilot_start",
        { spec: "docs/changes/security-scanner/proposal.md", flags: v },
        "bad_input",
        /flags/,
      );
      await expectError(
        "write_scratchpad",
        { session: SCANNER_SLUG, phase: 0, filename: v, content: "x" },
        "bad_input",
        /filename/,
      );
    }
    expect((await call(s.srv.client, "autopilot_next", { session: SCANNER_SLUG })).step).toEqual(before);
  });

  it("valid calls of the helper tools still work next to the errors", async () => {
    const w = await call(s.srv.client, "write_scratchpad", {
      session: SCANNER_SLUG,
      phase: "Core Scanner",
      filename: "notes.md",
      content: "# notes\n",
    });
    expect(w.result.isError).toBeFalsy();
    expect((w.result.structuredContent as { path: string }).path).toBe(
      `.harness/sessions/${SCANNER_SLUG}/scratchpad/core-scanner/notes.md`,
    );
    const g = await call(s.srv.client, "gather_context", { session: SCANNER_SLUG, include: ["state", "handoff"] });
    expect(g.result.isError).toBeFalsy();
    expect((g.result.structuredContent as any).handoff).toMatchObject({ fromSkill: "harness-planning" });
  });
});
