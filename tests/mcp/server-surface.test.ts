// What every client sees: server name and version, exactly the nine tools with short
// descriptions (tools/list stays small: it sits in every conversation), output schemas on the Step
// tools, the start prompt, the resources, log messages and progress notifications.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { TOOL_NAMES, type ToolName } from "../../src/mcp/tools/names.js";
import {
  call,
  makeProject,
  openSession,
  REPO_ROOT,
  SCANNER_PATH,
  SCANNER_SLUG,
  specWith,
  startServer,
  taskFor,
  type Session,
} from "../helpers/mcp-client.js";

/** The tools that answer with a Step. */
const STEP_TOOLS: ToolName[] = ["autopilot_start", "autopilot_next", "autopilot_report", "autopilot_decide"];
/** Measured 3.6 KB without `$schema` lines (4.4 KB with them, 7.1 KB before the Step output schema was made minimal); a budget, so that growth is a decision. */
export const TOOLS_LIST_BUDGET = 3900;

let s: Session;
const logs: string[] = [];
beforeAll(async () => {
  s = await openSession({
    validation: ['node -e "setTimeout(() => process.exit(0), 700)"'],
    server: { env: { AUTOPILOT_HEARTBEAT_MS: "100" } },
  });
  s.srv.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(String(n.params.data));
  });
  await s.srv.client.setLoggingLevel("info");
});
afterAll(async () => {
  await s.dispose();
});

describe("server surface", () => {
  it("names itself autopilot with the package version and declares logging", () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8"));
    expect(s.srv.client.getServerVersion()).toMatchObject({ name: "autopilot", version: pkg.version });
    expect(s.srv.client.getServerCapabilities()).toMatchObject({ logging: {}, tools: {}, prompts: {}, resources: {} });
    expect(s.srv.client.getInstructions()).toMatch(/autopilot_start/);
  });

  it("lists exactly the tools of src/mcp/tools/names.ts, in its order, small", async () => {
    const { tools } = await s.srv.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const t of tools) expect(t.description!.length, t.name).toBeLessThanOrEqual(140);
    for (const name of STEP_TOOLS) {
      const t = tools.find((x) => x.name === name)!;
      expect(t.outputSchema, name).toMatchObject({ type: "object" });
    }
    const bytes = Buffer.byteLength(JSON.stringify({ tools }));
    console.log(`tools/list: ${bytes} bytes`);
    expect(bytes).toBeLessThan(TOOLS_LIST_BUDGET);
  });

  it("offers the start prompt with spec and flags", async () => {
    const { prompts } = await s.srv.client.listPrompts();
    const p = prompts.find((x) => x.name === "start")!;
    expect(p.arguments?.slice(0, 2)).toEqual([
      expect.objectContaining({ name: "spec", required: true }),
      expect.objectContaining({ name: "flags", required: false }),
    ]);
    const got = await s.srv.client.getPrompt({ name: "start", arguments: { spec: SCANNER_PATH, flags: "--fast" } });
    const text = (got.messages[0].content as { text: string }).text;
    expect(text).toContain(`autopilot_start with {"spec":"${SCANNER_PATH}","flags":"--fast"}`);
    expect(text).toMatch(/autopilot_report/);
    expect(text).toMatch(/autopilot_decide/);
  });

  it("sends progress while validation runs and logs each Step", async () => {
    const first = await call(s.srv.client, "autopilot_start", { spec: SCANNER_PATH, flags: "--fast" });
    expect(first.step?.rigor).toBe("fast");
    expect(logs.some((l) => l.includes(`autopilot_start ${SCANNER_SLUG}`))).toBe(true);
    const runner = new ScriptedRunner({});
    let step = first.step!;
    const progress: string[] = [];
    // Plan, then execute: reporting the executor's result runs the (slow) validation commands.
    while (step.state !== "REVIEW") {
      const { result } = await runner.run(taskFor(s.root, step));
      const r = await call(
        s.srv.client,
        "autopilot_report",
        { session: SCANNER_SLUG, stepId: step.stepId, result },
        {
          onprogress: (p) => progress.push(p.message ?? ""),
        },
      );
      step = r.step!;
    }
    expect(progress).toContain("running the project's validation commands");
    expect(progress.some((m) => m.startsWith("still "))).toBe(true);
  });

  it("lists sessions and reads their state and decisions as resources", async () => {
    const { resources } = await s.srv.client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain("autopilot://sessions");
    expect(uris).toContain(`autopilot://sessions/${SCANNER_SLUG}/state`);
    expect(uris).toContain(`autopilot://sessions/${SCANNER_SLUG}/decisions`);
    const { resourceTemplates } = await s.srv.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      "autopilot://sessions/{slug}/decisions",
      "autopilot://sessions/{slug}/state",
    ]);

    const read = async (uri: string) =>
      JSON.parse(((await s.srv.client.readResource({ uri })).contents[0] as { text: string }).text);
    const list = await read("autopilot://sessions");
    expect(list.sessions[0]).toMatchObject({ session: SCANNER_SLUG, state: "REVIEW", waitingOn: "persona" });
    const state = await read(`autopilot://sessions/${SCANNER_SLUG}/state`);
    expect(state).toMatchObject({ schemaVersion: 5, currentState: "REVIEW", rigorLevel: "fast" });
    const decisions = await read(`autopilot://sessions/${SCANNER_SLUG}/decisions`);
    expect(decisions.decisions[0]).toMatchObject({
      decision: "auto_approved_plan_fast",
      phase: { index: 0 },
      who: "auto",
    });
    await expect(s.srv.client.readResource({ uri: "autopilot://sessions/nope/state" })).rejects.toThrow(
      /No autopilot session/,
    );
  });

  it("autopilot_status: all sessions, or one in detail", async () => {
    const all = await call(s.srv.client, "autopilot_status", {});
    expect(all.text).toMatch(new RegExp(`${SCANNER_SLUG}: REVIEW · phase 1/3 Core Scanner`));
    const one = await call(s.srv.client, "autopilot_status", { session: SCANNER_SLUG });
    expect(one.result.structuredContent).toMatchObject({
      session: SCANNER_SLUG,
      waitingOn: "persona",
      waitingFor: expect.stringContaining("harness-code-reviewer"),
      // The phase under way is in progress, not pending as the ones after it.
      phases: [
        expect.objectContaining({ name: "Core Scanner", status: "in_progress" }),
        expect.objectContaining({ status: "pending" }),
        expect.objectContaining({ status: "pending" }),
      ],
      step: { state: "REVIEW" },
    });
  });

  it("writes nothing but protocol to stdout", () => {
    // Any stray line would have reached the client's JSON parser; the server kept quiet on stderr too.
    expect(s.srv.stderr()).toBe("");
  });
});

// Claude Code puts each loaded tool definition and each Step JSON into every later request of the
// conversation (docs/performance.md, the Claude Code view), so what it gets is kept to what it acts on.
describe("what Claude Code gets", () => {
  let c: Session;
  beforeAll(async () => {
    c = await openSession({ server: { name: "claude-code" } });
  });
  afterAll(async () => {
    await c.dispose();
  });

  it("the host's five tools and the personas' autopilot_result, one-line descriptions, no $schema lines, within 1.5 KB; the three a session calls at every step always loaded", async () => {
    const { tools } = await c.srv.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "autopilot_decide",
      "autopilot_next",
      "autopilot_report",
      "autopilot_result",
      "autopilot_start",
      "autopilot_status",
    ]);
    // Claude Code sends these from the first request instead of deferring them behind ToolSearch.
    const loaded = tools.filter((t) => t._meta?.["anthropic/alwaysLoad"] === true).map((t) => t.name);
    expect(loaded.sort()).toEqual(["autopilot_decide", "autopilot_report", "autopilot_start"]);
    const json = JSON.stringify(
      tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
    );
    expect(json).not.toContain("$schema");
    for (const t of tools) expect(t.description!.length, t.name).toBeLessThanOrEqual(60);
    console.log(`Claude Code tool definitions: ${Buffer.byteLength(json)} bytes`);
    expect(Buffer.byteLength(json)).toBeLessThan(1500);
    // Left out of the list, not out of the server: a call by name still works.
    const d = await call(c.srv.client, "autopilot_status", {});
    expect(d.result.isError).toBeFalsy();
    const log = await call(c.srv.client, "gather_context", { session: "nope" });
    expect((log.result.structuredContent as { error: { code: string } }).error.code).toBe("unknown_session");
  });

  it("a Step carries what the next action needs, and no phase, rigor, reviewPlans, state, description, expects or nulls", async () => {
    const out = await call(c.srv.client, "autopilot_start", { spec: SCANNER_PATH });
    const json = JSON.stringify(out.result.structuredContent);
    const step = JSON.parse(json);
    expect(Object.keys(step).sort()).toEqual(["next", "report", "session", "stepId", "todo"]);
    expect(Object.keys(step.next).sort()).toEqual(["kind", "persona", "prompt"]);
    expect(step.next).toMatchObject({ kind: "dispatch", persona: "harness-planner" });
    expect(json).not.toContain("null");
    // The prompt: the job and the brief, one line; the brief names the plan and handoff to write
    // and the result kind.
    const brief = /^Plan phase 1\/\d+ "[^"]+"\. Brief: (\S+)$/.exec(step.next.prompt)?.[1];
    expect(brief, step.next.prompt).toMatch(
      new RegExp(`^\\.harness/sessions/${SCANNER_SLUG}/briefs/step-${step.stepId}\\.md$`),
    );
    const text = readFileSync(path.join(c.root, brief!), "utf8");
    expect(text).toMatch(/^- Plan: docs\/changes\/security-scanner\/plans\/\S+-plan\.md \(write it\)$/m);
    expect(text).toMatch(
      new RegExp(`^- Handoff: \\.harness/sessions/${SCANNER_SLUG}/handoff\\.json \\(write it\\)$`, "m"),
    );
    expect(text).toContain('{"kind":"planned"');
    // The call after names the Step's own stepId and fields, not copies of them; the session is the
    // connection's. The persona writes its result where the brief says; the host reports only the step.
    expect(text).toMatch(
      new RegExp(
        `^- Result: \\.harness/sessions/${SCANNER_SLUG}/results/step-${step.stepId}\\.json \\(write your JSON result there too\\)$`,
        "m",
      ),
    );
    expect(step.todo).toBe(
      "Agent tool: subagent_type next.persona, prompt next.prompt, run_in_background false; then autopilot_report {stepId, usage: its <usage> block} (its result is saved; pass none). Run in the background anyway? End your turn; report on its task notification.",
    );
    // The text a content-only client shows keeps the whole Step.
    expect(out.text).toMatch(/phase 1\/\d+/);
    expect(out.text).toContain(`"session":"${SCANNER_SLUG}","stepId":${step.stepId}`);
  });

  it("autopilot_report without a result reads the persona's result file; none there: bad_result naming it, nothing changed", async () => {
    const out = await call(c.srv.client, "autopilot_next", { session: SCANNER_SLUG });
    const step = out.step!;
    expect(step.next.kind).toBe("dispatch");
    const rel = `.harness/sessions/${SCANNER_SLUG}/results/step-${step.stepId}.json`;
    // Not written yet: the host is told where it was looked for and what to send instead.
    const missing = await call(c.srv.client, "autopilot_report", { session: SCANNER_SLUG, stepId: step.stepId });
    const err = (
      missing.result.structuredContent as { error: { code: string; message: string; step: { stepId: number } } }
    ).error;
    expect(err.code).toBe("bad_result");
    expect(err.message).toContain(`the persona wrote no ${rel}`);
    expect(err.message).toContain("result: the persona's JSON reply");
    expect(err.step.stepId).toBe(step.stepId);
    // The scripted planner, as a persona reading its brief, writes its plan, handoff and result file.
    await new ScriptedRunner({}).run(taskFor(c.root, step));
    expect(JSON.parse(readFileSync(path.join(c.root, rel), "utf8")).kind).toBe("planned");
    const next = await call(c.srv.client, "autopilot_report", { session: SCANNER_SLUG, stepId: step.stepId });
    expect(next.error, next.text).toBeUndefined();
    expect(next.step!.stepId).toBeGreaterThan(step.stepId);
    // The Step after a dispatch is a dispatch (the executor): its todo is the one just followed, so left out.
    expect(next.step!.next.kind).toBe("dispatch");
    expect((next.result.structuredContent as { todo?: string }).todo).toBeUndefined();
  });

  it("autopilot_result (a persona's call) checks and records the result of its own dispatch step only, moves nothing, and the host then reports only the step", async () => {
    const out = await call(c.srv.client, "autopilot_next", { session: SCANNER_SLUG });
    const step = out.step!;
    expect(step.next).toMatchObject({ kind: "dispatch", persona: "harness-task-executor" });
    const rel = `.harness/sessions/${SCANNER_SLUG}/results/step-${step.stepId}.json`;
    const stateFile = path.join(c.root, `.harness/sessions/${SCANNER_SLUG}/autopilot-state.json`);
    const before = readFileSync(stateFile, "utf8");
    // Another kind than the step expects, a result that fits no kind, a step that is not the current one:
    // refused with what the persona does next, no host Step shown, no file written, nothing changed.
    const wrong = await call(c.srv.client, "autopilot_result", {
      stepId: step.stepId,
      result: { kind: "planned", planPath: "x.md" },
    });
    expect(wrong.result.isError).toBe(true);
    expect(wrong.text).toContain(`Error [bad_result]: Step ${step.stepId} expects a "executed" result`);
    expect(wrong.text).toContain("call autopilot_result again");
    expect(wrong.text).not.toContain("todo");
    const shapeless = await call(c.srv.client, "autopilot_result", {
      stepId: step.stepId,
      result: { summary: "done" },
    });
    expect(shapeless.text).toMatch(/^Error \[bad_result\]: The result does not fit the protocol/);
    const stale = await call(c.srv.client, "autopilot_result", {
      stepId: step.stepId - 1,
      result: { kind: "planned", planPath: "x.md" },
    });
    expect(stale.text).toMatch(/^Error \[stale_step\]/);
    expect(stale.text).toContain("end with your JSON result in your reply");
    expect(existsSync(path.join(c.root, rel))).toBe(false);
    expect(readFileSync(stateFile, "utf8")).toBe(before);
    // The executor does its work (the scripted persona writes its own result file: removed, so
    // that only autopilot_result records it), then records its result.
    const { result } = await new ScriptedRunner({}).run(taskFor(c.root, step));
    rmSync(path.join(c.root, rel));
    const recorded = await call(c.srv.client, "autopilot_result", { stepId: step.stepId, result });
    expect(recorded.result.isError, recorded.text).toBeFalsy();
    expect(recorded.text).toContain(`Recorded in ${rel}: the host's autopilot_report for this step finds it there`);
    expect(JSON.parse(readFileSync(path.join(c.root, rel), "utf8"))).toEqual(result);
    expect(readFileSync(stateFile, "utf8")).toBe(before);
    const next = await call(c.srv.client, "autopilot_report", { stepId: step.stepId });
    expect(next.error, next.text).toBeUndefined();
    expect(next.step!.stepId).toBeGreaterThan(step.stepId);
  });

  it("a report or a decision without a session is the connection's one session's, else the project's one in progress (or the one at that step); otherwise bad_input naming them, nothing changed", async () => {
    const repo = await makeProject({
      files: { "docs/changes/two/proposal.md": specWith([{ name: "Other", complexity: "low" }]) },
    });
    const srv = await startServer({ cwd: repo.dir, name: "claude-code" });
    try {
      // No Step yet on this connection: it cannot guess.
      const none = await call(srv.client, "autopilot_report", { stepId: 2 });
      expect(none.error?.code, none.text).toBe("bad_input");
      expect(none.error?.message).toContain("pass `session`");
      const first = await call(srv.client, "autopilot_start", { spec: SCANNER_PATH });
      const step = first.step!;
      await new ScriptedRunner({}).run(taskFor(repo.dir, step));
      // As the todo shows the call: the step only.
      const next = await call(srv.client, "autopilot_report", { stepId: step.stepId });
      expect(next.error, next.text).toBeUndefined();
      expect(next.step!.stepId).toBeGreaterThan(step.stepId);
      expect(next.result.structuredContent).not.toHaveProperty("session");
      // A second session in the same conversation: a step alone no longer says which.
      const other = await call(srv.client, "autopilot_start", { spec: "docs/changes/two/proposal.md" });
      expect(other.error, other.text).toBeUndefined();
      const before = readFileSync(
        path.join(repo.dir, `.harness/sessions/${SCANNER_SLUG}/autopilot-state.json`),
        "utf8",
      );
      const two = await call(srv.client, "autopilot_report", { stepId: next.step!.stepId });
      expect(two.error?.code, two.text).toBe("bad_input");
      expect(two.error?.message).toContain(`"${SCANNER_SLUG}"`);
      expect(two.error?.message).toContain(`"${other.step!.session}"`);
      expect(readFileSync(path.join(repo.dir, `.harness/sessions/${SCANNER_SLUG}/autopilot-state.json`), "utf8")).toBe(
        before,
      );
      // A new server process (print mode's next turn, a reconnect) has shown no Step: the project's
      // sessions in progress decide. Two are, at different steps: the step names one of them.
      const fresh = await startServer({ cwd: repo.dir, name: "claude-code" });
      try {
        const nowhere = await fresh.client.callTool({ name: "autopilot_report", arguments: { stepId: 999 } });
        const e = (nowhere.structuredContent as { error: { code: string; message: string } }).error;
        expect(e.code).toBe("bad_input");
        expect(e.message).toContain(`"${SCANNER_SLUG}"`);
        const at = await call(fresh.client, "autopilot_report", { stepId: next.step!.stepId });
        // Resolved to the scanner session (its executor has written no result file yet).
        expect(at.error?.code, at.text).toBe("bad_result");
        expect(at.error?.message).toContain(`.harness/sessions/${SCANNER_SLUG}/results/step-${next.step!.stepId}.json`);
      } finally {
        await fresh.close();
      }
    } finally {
      await srv.close();
      await repo.cleanup();
    }
  });

  it("a fresh session never reads a result file an earlier session of the same spec left behind", async () => {
    const repo = await makeProject();
    const srv = await startServer({ cwd: repo.dir, name: "claude-code" });
    try {
      // A finished earlier session of this spec left results/ (its step ids start at 1 again).
      const dir = path.join(repo.dir, `.harness/sessions/${SCANNER_SLUG}/results`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        path.join(dir, "step-2.json"),
        JSON.stringify({ kind: "planned", planPath: "docs/old-plan.md", concerns: [] }),
      );
      const first = await call(srv.client, "autopilot_start", { spec: SCANNER_PATH });
      expect(first.step!.stepId).toBe(2);
      const out = await call(srv.client, "autopilot_report", { session: SCANNER_SLUG, stepId: 2 });
      expect(out.error?.code, out.text).toBe("bad_result");
      expect(out.error?.message).toContain("the persona wrote no");
    } finally {
      await srv.close();
      await repo.cleanup();
    }
  });
});
