// Each view alone tells the model everything. Claude Code and Codex show the model only a tool
// result's structuredContent, Gemini CLI only its text; so over stdio, for each client (told apart
// by the initialize clientInfo.name the real clients send), every Step of a session (dispatch, ask,
// wait, done) and every error is checked twice: the text alone, and the structured JSON alone, must
// each hold what the host needs to act: which subagent tool and persona, the whole prompt, the
// question and options, and the exact next call with session and stepId.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Step } from "../../src/protocol/step.js";
import {
  agreeable,
  call,
  makeProject,
  REPO_ROOT,
  SCANNER_PATH,
  SCANNER_SLUG,
  specWith,
  startServer,
  taskFor,
  type CallOutcome,
  type ServerHandle,
} from "../helpers/mcp-client.js";
import type { TempRepo } from "../helpers/git.js";

const PERSONAS = path.join(REPO_ROOT, "personas").split(path.sep).join("/");
const ONE_PATH = "docs/changes/one/proposal.md";

interface HostCase {
  clientName: string;
  /** What a dispatch instruction must name for this client: the tool and how it names the persona. */
  dispatch: (persona: string) => string[];
  /**
   * The lean Step (Claude Code): the todo's call after names the Step's own `session` and `stepId`
   * (beside it in the JSON) instead of copying them.
   */
  lean?: boolean;
  /** What the lean Step's dispatch todo names instead of `dispatch` (default: the same). */
  leanDispatch?: (persona: string) => string[];
  /** Extra `serve` arguments, and the case's name when it differs from the client's. */
  serveArgs?: string[];
  label?: string;
}

const HOSTS: HostCase[] = [
  // Claude Code's todo names the Step's own persona field (the same todo for every persona); its
  // text view names the agent.
  {
    clientName: "claude-code",
    dispatch: (p) => ["Agent tool", `subagent_type "${p}"`, "run_in_background false"],
    leanDispatch: () => ["Agent tool", "subagent_type next.persona", "run_in_background false"],
    lean: true,
  },
  // The Claude Code plugin's server: the plugin's agents are named autopilot:<persona>.
  {
    clientName: "claude-code",
    label: "claude-code (plugin, serve --agent-prefix autopilot:)",
    serveArgs: ["--agent-prefix", "autopilot:"],
    dispatch: (p) => ["Agent tool", `subagent_type "autopilot:${p}"`, "run_in_background false"],
    // One todo for every persona (shown once): the agent is the prefix and next.persona.
    leanDispatch: () => ["Agent tool", 'subagent_type "autopilot:" + next.persona', "run_in_background false"],
    lean: true,
  },
  {
    clientName: "codex-mcp-client",
    dispatch: (p) => ["spawn_agent", `You are ${p}: follow ${PERSONAS}/${p}.md`, "wait_agent"],
  },
  { clientName: "gemini-cli-mcp-client", dispatch: (p) => ["invoke_agent", `agent_name "${p}"`] },
  { clientName: "some-editor", dispatch: (p) => [`${p} subagent`, `${PERSONAS}/${p}.md`] },
];

const callOf = (s: Step) => `{"session":"${s.session}","stepId":${s.stepId}`;

/** The structured view as the model gets it: compact JSON of structuredContent, nothing else. */
function structuredView(out: CallOutcome): string {
  return JSON.stringify(out.result.structuredContent);
}

/** What each view must carry for a Step, as strings that must appear in it. */
function needs(step: Step, host: HostCase): string[] {
  const n = step.next;
  const common = [step.session];
  switch (n.kind) {
    case "dispatch":
      // A lean Step (Claude Code's) has no description or expects; the text view always does.
      return [
        ...common,
        n.persona,
        ...(n.description ? [n.description] : []),
        ...(n.expects ? [n.expects.result] : []),
        ...n.prompt.split("\n"),
        ...host.dispatch(n.persona),
        "autopilot_report",
      ];
    case "ask":
      return [
        ...common,
        n.question,
        ...n.options.map((o) => `"${o}"`),
        ...(n.context ? n.context.split("\n") : []),
        "autopilot_decide",
      ];
    case "wait":
      return [n.reason, n.resumeWith];
    default:
      return [step.report!.split("\n")[0]];
  }
}

function checkText(out: CallOutcome, host: HostCase): void {
  const step = out.step!;
  const text = out.text;
  for (const want of needs(step, host)) {
    expect(text, `text view lacks ${JSON.stringify(want)}`).toContain(want);
  }
  if (step.next.kind === "dispatch" || step.next.kind === "ask") expect(text).toContain(callOf(step));
  // (Claude Code's lean ask leaves out report lines its question repeats: each line it keeps is here.)
  if (step.report) for (const line of step.report.split("\n")) expect(text).toContain(line);
}

/**
 * `answered`: the kind of Step the call answered (autopilot_report: dispatch, autopilot_decide: ask).
 * `earlier`: the Steps this connection showed before, since the last autopilot_start. Claude Code's
 * lean Step leaves out a dispatch or plain ask todo it has shown once (the earlier result is in
 * every later request; with an agent prefix too); every other Step, and every other
 * client's, carries one.
 */
function checkStructured(out: CallOutcome, host: HostCase, answered?: string, earlier: CallOutcome[] = []): void {
  const view = JSON.parse(structuredView(out)) as Step;
  const n = view.next;
  const sameTodo = (o: CallOutcome) => {
    const v = o.result.structuredContent as unknown as Step;
    if (v.next.kind !== n.kind || !v.todo) return false;
    return n.kind === "ask" ? !n.humanOnly?.length && !(v.next as typeof n).humanOnly?.length : true;
  };
  const shown = (n.kind === "dispatch" || n.kind === "ask") && earlier.some(sameTodo);
  const repeated = !!host.lean && shown;
  // Claude Code's Step after a report or a decision leaves out the session (the call named it).
  if (host.lean && answered) expect(view.session, `${n.kind} after a ${answered}`).toBeUndefined();
  else expect(view.session).toEqual(expect.any(String));
  if (repeated) {
    expect(view.todo, `${n.kind} after a ${answered}`).toBeUndefined();
    expect(typeof view.stepId === "number").toBe(true);
    if (n.kind === "dispatch") expect(n.prompt).toMatch(/ Brief: \S+\/briefs\/step-\d+\.md$/);
    else expect(n.options.length).toBeGreaterThan(1);
    return;
  }
  expect(view.todo, `${n.kind} after ${answered ?? "autopilot_start"}`).toEqual(expect.any(String));
  // todo alone says what to do; the fields it points at (next.prompt, next.question...) are there.
  if (n.kind === "dispatch") {
    for (const want of (host.leanDispatch ?? host.dispatch)(n.persona))
      expect(view.todo, host.clientName).toContain(want);
    if (host.lean) {
      // The persona writes its result file (the brief names it): the host reports only the step.
      expect(view.todo).toContain(
        "then autopilot_report {stepId, usage: its <usage> block} (its result is saved; pass none)",
      );
      expect(typeof view.stepId === "number").toBe(true);
      // The prompt names the brief, which exists and says which result to reply with.
      expect(n.prompt).toMatch(/ Brief: \S+\/briefs\/step-\d+\.md$/);
    } else {
      expect(view.todo).toContain(
        `then call autopilot_report ${callOf(view)},"result":<its JSON reply, kind "${n.expects.result}">,"usage":<its usage block, if any>}`,
      );
    }
    expect(view.todo).toContain("next.prompt");
    expect(n.prompt.length).toBeGreaterThan(20);
  } else if (n.kind === "ask" && host.lean && !n.humanOnly?.length) {
    // The report does not say again what the question says (it is read in every later request).
    for (const line of (view.report ?? "").split("\n").map((l) => l.trim()))
      if (line.length >= 20) expect(n.question).not.toContain(line);
    expect(view.todo).toContain(
      "then autopilot_decide {stepId, answer, rationale: their reason, if given, userWords: their reply, quoted}",
    );
    expect(view.todo).toMatch(/next\.question.*next\.options/);
    expect(n.options.length).toBeGreaterThan(1);
  } else if (n.kind === "ask") {
    expect(view.todo).toContain(`then call autopilot_decide ${callOf(view)},"answer":<one option>`);
    expect(view.todo).toMatch(/next\.question.*next\.options/);
    expect(n.options.length).toBeGreaterThan(1);
  } else if (n.kind === "wait") {
    expect(view.todo).toMatch(/next\.reason.*next\.resumeWith/);
    expect(n.resumeWith).toContain("autopilot_start");
  } else {
    expect(view.todo).toMatch(/done/);
    expect(view.report).toMatch(/All phases complete/);
  }
}

describe.each(HOSTS.map((h) => ({ ...h, label: h.label ?? h.clientName })))("$label: both views complete", (host) => {
  let repo: TempRepo;
  let srv: ServerHandle;
  const seen: CallOutcome[] = [];
  /** The kind of Step each of `seen` answered (undefined: autopilot_start). */
  const answered: Array<string | undefined> = [];
  beforeAll(async () => {
    repo = await makeProject({ files: { [ONE_PATH]: specWith([{ name: "Only", complexity: "low" }]) } });
    srv = await startServer({ cwd: repo.dir, name: host.clientName, args: host.serveArgs });
  });
  afterAll(async () => {
    await srv.close();
    await repo.cleanup();
  });

  it("every Step, dispatch to wait: the text alone and the structured JSON alone", async () => {
    const runner = new ScriptedRunner({});
    let out = await call(srv.client, "autopilot_start", { spec: SCANNER_PATH });
    let kindAnswered: string | undefined;
    for (let i = 0; i < 40 && out.step && out.step.next.kind !== "wait"; i++) {
      seen.push(out);
      answered.push(kindAnswered);
      const step = out.step;
      kindAnswered = step.next.kind;
      if (step.next.kind === "dispatch") {
        const { result } = await runner.run(taskFor(repo.dir, step));
        out = await call(srv.client, "autopilot_report", { session: step.session, stepId: step.stepId, result });
      } else if (step.next.kind === "ask") {
        out = await call(srv.client, "autopilot_decide", {
          session: step.session,
          stepId: step.stepId,
          answer: agreeable(step as never),
        });
      }
    }
    expect(out.error, out.text).toBeUndefined();
    seen.push(out);
    answered.push(kindAnswered);
    const kinds = new Set(seen.map((o) => o.step!.next.kind));
    expect([...kinds].sort()).toEqual(["ask", "dispatch", "wait"]);
    seen.forEach((o, i) => {
      checkText(o, host);
      checkStructured(o, host, answered[i], seen.slice(0, i));
    });
    // Claude Code leaves out a todo it has shown on this connection; the session above repeats
    // dispatches, so this is not vacuous (with an agent prefix each agent's todo is its own, and
    // this session dispatches each agent once).
    const untold = seen.filter((o) => (o.result.structuredContent as { todo?: string }).todo === undefined).length;
    if (host.lean && !host.serveArgs) expect(untold).toBeGreaterThan(0);
    else if (!host.lean) expect(untold).toBe(0);
  });

  it("a done Step: both views", async () => {
    const runner = new ScriptedRunner({});
    let out = await call(srv.client, "autopilot_start", { spec: `${ONE_PATH} --fast` });
    for (let i = 0; i < 20 && out.step && out.step.next.kind === "dispatch"; i++) {
      const { result } = await runner.run(taskFor(repo.dir, out.step));
      out = await call(srv.client, "autopilot_report", { session: out.step.session, stepId: out.step.stepId, result });
    }
    expect(out.step?.next.kind, out.text).toBe("done");
    checkText(out, host);
    checkStructured(out, host, "dispatch");
  });

  it("errors: code, message and next step in both views; the current Step with this client's todo", async () => {
    const current = seen.at(-1)!.step!;
    const stale = await call(srv.client, "autopilot_report", {
      session: SCANNER_SLUG,
      stepId: current.stepId - 1,
      result: { kind: "planned" },
    });
    expect(stale.result.isError).toBe(true);
    const sv = JSON.parse(structuredView(stale)) as {
      error: { code: string; message: string; todo: string; step: Step };
    };
    expect(sv.error).toMatchObject({
      code: "stale_step",
      message: expect.any(String),
      todo: expect.stringMatching(/Nothing changed/),
    });
    expect(sv.error.step).toMatchObject({ session: SCANNER_SLUG, stepId: current.stepId });
    expect(sv.error.step.todo).toBe(current.todo);
    expect(stale.text).toContain(`Error [stale_step]: ${sv.error.message}`);
    expect(stale.text).toContain(`Next: ${sv.error.todo}`);
    expect(stale.text).toContain(current.next.kind === "wait" ? current.next.reason : callOf(current));

    // autopilot_status with a session shows the same Step, with this client's todo.
    const status = await call(srv.client, "autopilot_status", { session: SCANNER_SLUG });
    expect((status.result.structuredContent as { step: Step }).step.todo).toBe(current.todo);

    const unknown = await call(srv.client, "autopilot_next", { session: "no-such-session" });
    const uv = JSON.parse(structuredView(unknown)) as { error: { code: string; message: string; todo: string } };
    expect(uv.error.code).toBe("unknown_session");
    expect(uv.error.todo).toContain("autopilot_status");
    expect(unknown.text).toContain(uv.error.message);
    expect(unknown.text).toContain(uv.error.todo);
  });
});
