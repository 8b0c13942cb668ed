// Where users live: the real, interactive Claude Code TUI, in a terminal the test controls (tmux),
// against the loopback Messages API whose model is the scripted brain. A simulated user reads the
// screen and answers with the keyboard what Claude Code puts in front of a person: the folder
// trust question, the new MCP server, the auto-mode notice and "Do you want to proceed?", and
// autopilot's questions as the client's form. It types `/autopilot docs/spec.md --review-plans`,
// `/clear`, `/compact` and "continue" at the prompt, kills the TUI and starts it again; each run
// reaches DONE, and the channel of every decision is checked in the state file.
//
// Every screen the user acted on is kept; when a test fails they are written to
// test-artifacts/tui/<test>/ (one file per step, plus the scrollback and the model's log).
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureBuilt, projectRoot } from "../helpers/build.js";
import type { TempRepo } from "../helpers/git.js";
import { startModelServer, type ModelServer } from "./anthropic-sse.js";
import { Brain } from "./brain/brain.js";
import { claudeCode } from "./dialects/claude-code.js";
import { CLAUDE_CODE_VERSION, claudeEnv, ensureClaudeCode, type Installed } from "./claude-code.js";
import { installPackedAutopilot } from "./autopilot-package.js";
import { autopilotSubjects, installInto, makeProject, readSession } from "./project.js";
import { Terminal, tmuxMissing } from "./tui.js";

let installed: Installed;
let autopilot: { bin: string; binDir: string };
beforeAll(async () => {
  await ensureBuilt();
  const noTmux = await tmuxMissing();
  if (noTmux) {
    installed = { skip: noTmux };
    return console.warn(`[clients] Claude Code TUI tests skip: ${noTmux}`);
  }
  installed = await ensureClaudeCode();
  if ("skip" in installed) return console.warn(`[clients] Claude Code TUI tests skip: ${installed.skip}`);
  console.log(`[clients] Claude Code TUI ${installed.version} at ${installed.bin}`);
  const packed = await installPackedAutopilot();
  if ("skip" in packed) {
    installed = { skip: packed.skip };
    return console.warn(`[clients] Claude Code TUI tests skip: ${packed.skip}`);
  }
  autopilot = packed;
});

const cleanups: Array<() => Promise<void> | void> = [];
const repos: TempRepo[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
  if (!process.env.AUTOPILOT_KEEP_CLIENT_REPOS) for (const r of repos) await r.cleanup();
});

// ------------------------------------------------------------------------------------------------
// Reading the screen

/** The lines below the last horizontal rule: the dialog Claude Code shows, or the footer. */
function dialogLines(screen: string): string[] {
  const lines = screen.split("\n");
  let at = -1;
  lines.forEach((l, i) => {
    if (/^\s*─{20,}\s*$/.test(l)) at = i;
  });
  return lines.slice(at + 1);
}

function dialog(screen: string): string {
  return dialogLines(screen).join("\n");
}

/** The option the dialog's cursor (❯) is on (the innermost one: an open list's, inside its field's). */
function cursorLine(screen: string): string | null {
  const l = dialogLines(screen)
    .filter((x) => /❯\s*\S/.test(x))
    .at(-1);
  return l ? l.replace(/^.*?❯\s*/, "").trim() : null;
}

/** A dialog's text for comparing screens: trailing blanks dropped. */
function norm(screen: string): string {
  return dialog(screen).replace(/[ \t]+$/gm, "");
}

/** The last lines of the conversation, just above the input box. */
function transcriptTail(screen: string, n = 3): string {
  const lines = screen.split("\n");
  const rules = lines.flatMap((l, i) => (/^\s*─{20,}\s*$/.test(l) ? [i] : []));
  const box = rules.length >= 2 ? rules[rules.length - 2] : lines.length;
  return lines
    .slice(0, box)
    .filter((l) => l.trim())
    .slice(-n)
    .join("\n");
}

/** The input prompt is empty and no dialog is open. */
function promptReady(screen: string): boolean {
  return (
    /^❯\s*$/m.test(screen) &&
    !/Do you want to proceed\?|requests your input|Enter to confirm|Enter to stay in auto mode/.test(dialog(screen))
  );
}

interface Form {
  /** The lines of the message as the form shows them unexpanded (the "… (+N more lines)" line included). */
  shown: string[];
  question: string;
}

function formOf(screen: string): Form | null {
  const lines = dialogLines(screen);
  const title = lines.findIndex((l) => /MCP server .autopilot. requests your input/.test(l));
  if (title < 0) return null;
  const field = lines.findIndex((l, i) => i > title && /Answer:/.test(l));
  if (field < 0) return null;
  const why = lines.findIndex((l, i) => i > field && /Why \(optional\)/.test(l));
  const question = lines
    .slice(field + 1, why < 0 ? field + 2 : why)
    .map((l) => l.trim())
    .filter((l) => l && !/^[◯◉●✔❯]/.test(l))
    .join(" ");
  return {
    shown: lines
      .slice(title + 1, field)
      .map((l) => l.trim())
      .filter(Boolean),
    question,
  };
}

// ------------------------------------------------------------------------------------------------
// The user

type FormAction = { answer: string; why?: string } | "decline" | "cancel" | "leave";

interface Policy {
  /** At "Auto mode can't check actions in this session": stay in auto mode, or leave for accept edits. */
  autoMode: "stay" | "leave";
  /** What to do with a form autopilot shows. */
  form: (f: Form) => FormAction;
}

/** A person at the keyboard: answers the dialogs Claude Code shows, as the policy says. */
class User {
  /** What the user was asked and answered, in order ("trust", "mcp server", "permission: …", "form: …"). */
  readonly log: string[] = [];
  readonly forms: Array<Form & { action: string }> = [];
  policy: Policy;

  constructor(
    readonly term: Terminal,
    readonly model: ModelServer,
    policy: Policy,
  ) {
    this.policy = policy;
  }

  /** Move the dialog's cursor to the option containing `label`, then press Enter. */
  private async pick(label: string | RegExp): Promise<void> {
    const matches = (l: string | null) => l !== null && (typeof label === "string" ? l.includes(label) : label.test(l));
    await this.cursorTo(matches, `the option "${label}"`);
    await this.press("Enter");
  }

  /**
   * Press a key on a dialog once it has settled (a dialog drawn a moment ago may not take keys yet),
   * and wait for it to take effect: the dialog changes. On a loaded machine a key can still be lost
   * on a dialog that has just appeared: when nothing at all changed for 20 s, the same key again
   * (a delay that long is far less likely than a lost key; a key taken twice shows in the screens).
   */
  private async press(key: string): Promise<void> {
    const before = await this.settled();
    for (let attempt = 1; ; attempt++) {
      await this.term.keys(key);
      const took = await this.term
        .waitFor(`${key} to take effect`, (x) => norm(x) !== norm(before) || undefined, attempt < 3 ? 20_000 : 60_000)
        .then(
          () => true,
          (e: unknown) => (attempt < 3 ? false : Promise.reject(e instanceof Error ? e : new Error(String(e)))),
        );
      if (took) return;
      await this.term.record(`${key} had no effect: pressed again`);
    }
  }

  /** The screen once its dialog has not changed for a second. */
  private async settled(): Promise<string> {
    let last = await this.term.screen();
    let since = Date.now();
    return this.term.waitFor(
      "the dialog to settle",
      (x) => {
        if (norm(x) !== norm(last)) {
          last = x;
          since = Date.now();
          return undefined;
        }
        return Date.now() - since >= 1000 ? x : undefined;
      },
      60_000,
    );
  }

  /** Move the cursor down until `test` holds for the line it is on. */
  private async cursorTo(test: (line: string) => boolean, what: string): Promise<string> {
    for (let i = 0; i < 12; i++) {
      const s = await this.settled();
      const at = cursorLine(s);
      if (at !== null && test(at)) return s;
      await this.term.keys("Down");
      // A Down lost on a loaded machine is pressed again by the next round; the loop re-reads where the cursor is.
      await this.term
        .waitFor("the cursor to move", (x) => cursorLine(x) !== at || undefined, 20_000)
        .catch(() => this.term.record("Down had no effect"));
    }
    throw new Error(`cannot reach ${what}:\n${dialog(await this.term.screen())}`);
  }

  /** Answer a form with the keyboard: open the list, choose, give a reason, Accept; or Decline, or Esc. */
  private async answerForm(f: Form, action: FormAction): Promise<void> {
    const label = typeof action === "string" ? action : `${action.answer}${action.why ? ` (${action.why})` : ""}`;
    this.forms.push({ ...f, action: label });
    this.log.push(`form: ${f.question} → ${label}`);
    await this.term.record(`form: ${f.question.slice(0, 40)} → ${label}`);
    if (action === "leave") return;
    if (action === "cancel") {
      await this.press("Escape");
      await this.term.waitFor("the form to close", (x) => formOf(x)?.question !== f.question || undefined, 60_000);
      return;
    }
    if (action !== "decline") {
      await this.cursorTo((l) => /Answer:/.test(l), "the Answer field");
      await this.press("Right"); // expand the list of options
      await this.term.waitFor("the options", (x) => /◯/.test(dialog(x)));
      await this.cursorTo((l) => l.replace(/^[◯◉●]\s*/, "").trim() === action.answer, `the option "${action.answer}"`);
      await this.press("Space");
      await this.term.waitFor("the answer chosen", (x) =>
        new RegExp(`✔ Answer: (▸ )?${action.answer}\\b`).test(dialog(x)),
      );
      if (action.why) {
        await this.cursorTo((l) => /Why \(optional\)/.test(l), "the Why field");
        await this.term.type(action.why);
        await this.term.waitFor("the reason typed", (x) => x.includes(action.why!));
      }
    }
    await this.cursorTo((l) => /Accept\s+Decline/.test(l), "the Accept button");
    if (action === "decline") {
      await this.press("Right");
      await this.term.waitFor("Decline chosen", (x) => /❯\s*Decline/.test(dialog(x)) || undefined, 10_000);
    }
    await this.press("Enter");
    await this.term.waitFor("the form to close", (x) => formOf(x)?.question !== f.question || undefined, 60_000);
  }

  /** After answering a dialog: wait until the text that marks it is gone from the screen. */
  private async gone(mark: RegExp, what: string): Promise<void> {
    await this.term.waitFor(`${what} to close`, (x) => !mark.test(dialog(x)) || undefined, 60_000);
  }

  /** Handle the dialog on the screen, if there is one. Returns false when there was none. */
  async handle(screen: string): Promise<boolean> {
    const d = dialog(screen);
    if (/Is this a project you created or one you trust/.test(screen) && /Yes, I trust this folder/.test(screen)) {
      this.log.push("trust");
      await this.term.record("trust dialog");
      await this.pick("Yes, I trust this folder");
      await this.gone(/Yes, I trust this folder/, "the trust dialog");
      return true;
    }
    if (/New MCP server found in this project: autopilot/.test(d)) {
      this.log.push("mcp server");
      await this.term.record("new MCP server dialog");
      await this.pick(/^Use this MCP server$/);
      await this.gone(/New MCP server found/, "the MCP server dialog");
      return true;
    }
    if (/Detected a custom API key/.test(d)) {
      this.log.push("api key");
      await this.term.record("API key dialog");
      await this.pick(/^Yes$/);
      await this.gone(/Detected a custom API key/, "the API key dialog");
      return true;
    }
    if (/Enter to stay in auto mode/.test(d)) {
      this.log.push(`auto mode unavailable: ${this.policy.autoMode}`);
      await this.term.record(`auto mode can't check: ${this.policy.autoMode}`);
      await this.press(this.policy.autoMode === "stay" ? "Enter" : "BTab");
      await this.gone(/Enter to stay in auto mode/, "the auto-mode notice");
      return true;
    }
    if (/Do you want to proceed\?/.test(d)) {
      const lines = dialogLines(screen).map((l) => l.trim());
      const what =
        lines.find((l) => /Autopilot \w+ Tool|Launch a new agent|^(Write|Edit|Bash|Read)\b/.test(l)) ??
        lines.slice(0, 3).join(" ");
      this.log.push(`permission: ${what}`);
      await this.term.record(`permission: ${what}`);
      await this.pick(/^(\d\. )?Yes$/);
      return true;
    }
    const f = formOf(screen);
    if (f && !this.leftOpen(f)) {
      await this.answerForm(f, this.policy.form(f));
      return true;
    }
    return false;
  }

  /** A form the user chose to leave open (the screen is not changed by looking at it again). */
  private leftOpen(f: Form): boolean {
    const last = this.forms.at(-1);
    return !!last && last.action === "leave" && last.question === f.question;
  }

  /** Answer dialogs until `goal` holds. */
  async until<T>(what: string, goal: (screen: string) => T | undefined | false, timeoutMs = 600_000): Promise<T> {
    return this.term.waitFor(
      what,
      async (screen) => {
        if (await this.handle(screen)) return undefined;
        return goal(screen);
      },
      timeoutMs,
    );
  }

  /** The reply that ended the host's turn, once it is on screen and the prompt is free again. */
  turnEnded(since: number, screen: string): string | undefined {
    const host = this.model.requests.filter((r) => r.kind === "host" && r.n > since);
    const last = host.at(-1);
    if (!last || last.decision?.kind !== "reply") return undefined;
    // A turn the model ended to wait for a background subagent is not the end of its work.
    if (/running in the background/.test(last.decision.text)) return undefined;
    if (this.model.requests.some((r) => r.n > last.n && (r.kind === "host" || r.kind === "subagent"))) return undefined;
    const first = last.decision.text.split("\n")[0].slice(0, 40);
    return screen.includes(first) && promptReady(screen) ? last.decision.text : undefined;
  }

  /** Type a message at the prompt and press Enter; returns the request count it was typed at. */
  async say(text: string): Promise<number> {
    await this.until("the prompt", (s) => promptReady(s) || undefined, 120_000);
    const since = this.model.requests.length;
    await this.term.type(text);
    await this.term.waitFor(`"${text}" typed`, (s) => s.includes(text));
    await this.term.record(`typed: ${text}`);
    await this.term.keys("Enter");
    this.log.push(`said: ${text}`);
    return since;
  }

  /** Answer dialogs until the host ends its turn; returns its reply. */
  async reply(since: number, timeoutMs = 900_000): Promise<string> {
    const text = await this.until(
      "the end of the host's turn",
      (s) => {
        // The client stopped the turn itself (a refused or interrupted action): no reply will come.
        if (promptReady(s) && /Interrupted · What should Claude do instead\?/.test(transcriptTail(s)))
          throw new Error(`the client stopped the turn:\n${s}`);
        return this.turnEnded(since, s);
      },
      timeoutMs,
    );
    await this.term.record("turn ended");
    return text;
  }
}

// ------------------------------------------------------------------------------------------------
// One user's setup

interface Setup {
  repo: TempRepo;
  home: string;
  model: ModelServer;
  modelLog: string[];
  term: Terminal;
  user: User;
  env: NodeJS.ProcessEnv;
}

/**
 * A project with `autopilot install claude [extra]` committed, a home where Claude Code's own
 * first-run onboarding (theme, the API key) is done, and, with `trusted`, the folder already
 * trusted; the TUI not started yet.
 */
async function setUp(ctx: TestContext, o: { extra?: string[]; trusted?: boolean; policy: Policy }): Promise<Setup> {
  if ("skip" in installed) throw new Error("unreachable");
  const repo = await makeProject();
  repos.push(repo);
  await installInto(repo.dir, "claude", { autopilot, extra: o.extra });
  const home = mkdtempSync(path.join(tmpdir(), "autopilot-claude-tui-home-"));
  cleanups.push(() => {
    // Claude Code's own background work can still be writing in its home after the TUI is gone: a
    // temporary folder left behind is reported, not a failed suite.
    try {
      rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch (e) {
      console.warn(`[clients] left ${home} behind: ${(e as Error).message}`);
    }
  });
  writeFileSync(
    path.join(home, ".claude.json"),
    JSON.stringify(
      {
        hasCompletedOnboarding: true,
        lastOnboardingVersion: installed.version.split(" ")[0],
        theme: "dark",
        // The loopback key, approved once as a user does at the first start.
        customApiKeyResponses: { approved: ["sk-ant-loopback-test"], rejected: [] },
        ...(o.trusted ? { projects: { [repo.dir]: { hasTrustDialogAccepted: true } } } : {}),
      },
      null,
      2,
    ),
  );
  const modelLog: string[] = [];
  const brain = new Brain(claudeCode);
  const model = await startModelServer({
    label: ctx.task.name,
    dialect: claudeCode,
    decide: (c) => brain.decide(c),
    log: (l) => modelLog.push(l),
  });
  cleanups.push(() => model.close());
  const term = new Terminal();
  cleanups.push(() => term.close());
  const env = {
    ...claudeEnv(home, model.url),
    PATH: `${autopilot.binDir}${path.delimiter}${process.env.PATH}`,
    TERM: "xterm-256color",
  };
  const user = new User(term, model, o.policy);
  // Keep every screen of a failed test.
  ctx.onTestFailed(async () => {
    const dir = path.join(projectRoot, "test-artifacts", "tui", ctx.task.name.replace(/[^\w.-]+/g, "_").slice(0, 80));
    await term.saveArtifacts(dir, { "model.log": modelLog.join("\n") + "\n", "user.log": user.log.join("\n") + "\n" });
    console.warn(`[clients] the TUI test's screens are in ${dir}`);
  });
  return { repo, home, model, modelLog, term, user, env };
}

async function startTui(s: Setup, args: string[] = []): Promise<void> {
  if ("skip" in installed) throw new Error("unreachable");
  await s.term.start(installed.bin, args, { cwd: s.repo.dir, env: s.env });
}

function state(s: Setup): any {
  try {
    return readSession(s.repo.dir).state;
  } catch {
    return null;
  }
}

/** The decisions as [state, phase, answer, channel]. */
function decisions(s: Setup): Array<[string, number, string, string]> {
  return (state(s)?.decisions ?? []).map((d: any) => [d.state, d.phase, d.answer, d.by]);
}

/** Answer each question the host asks in the conversation with "yes", until the session is DONE. */
async function toDone(s: Setup, since: number, onTurn?: (reply: string) => Promise<number | null>): Promise<string> {
  for (let turns = 0; turns < 20; turns++) {
    const reply = await s.user.reply(since);
    if (state(s)?.currentState === "DONE") return reply;
    const next = onTurn ? await onTurn(reply) : null;
    if (next !== null) {
      since = next;
      continue;
    }
    if (!/\nOptions: /.test(reply)) throw new Error(`the host ended its turn without a question:\n${reply}`);
    since = await s.user.say("yes");
  }
  throw new Error("more than 20 turns");
}

const isPlanGate = (f: Form) => /Approve this plan/.test(f.question);
const isContinueGate = (f: Form) => /Continue\?/.test(f.question);

describe(`Claude Code TUI ${CLAUDE_CODE_VERSION} with autopilot install claude`, () => {
  it("a first run as a user meets it: trust and MCP server answered with keys, auto mode asking for every action, every gate in the form (one declined, one cancelled with Esc), to DONE", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    let continues = 0;
    const s = await setUp(ctx, {
      policy: {
        autoMode: "stay",
        form: (f) => {
          if (isPlanGate(f)) return { answer: "yes", ...(s.user.forms.length === 0 ? { why: "plan reads well" } : {}) };
          if (isContinueGate(f)) return ++continues === 1 ? "decline" : "cancel";
          throw new Error(`unexpected form: ${f.question}`);
        },
      },
    });
    await startTui(s);
    // Claude Code's own first questions, answered with the keyboard.
    await s.user.until("the prompt", (x) => promptReady(x) || undefined, 180_000);
    expect(s.user.log.slice(0, 2)).toEqual(["trust", "mcp server"]);

    const since = await s.user.say("/autopilot docs/spec.md --review-plans");
    const asked: string[] = [];
    const done = await toDone(s, since, (reply) => {
      // A declined or cancelled form: the question comes back to the conversation, unanswered.
      if (/\nOptions: yes \/ stop/.test(reply)) {
        asked.push(reply);
        const open = state(s);
        expect(open.currentState).toBe("PHASE_COMPLETE");
        expect(decisions(s).filter(([st, ph]) => st === "PHASE_COMPLETE" && ph === open.currentPhase)).toEqual([]);
      }
      return Promise.resolve(null);
    });
    expect(done).toMatch(/DONE/);
    const st = state(s);
    expect(st.currentState).toBe("DONE");
    expect(st.phases.map((p: any) => p.status)).toEqual(["complete", "complete", "complete"]);
    expect(asked).toHaveLength(2);

    // Every plan approved in the form (the first with a reason); both continue questions declined
    // or cancelled in the form, then answered by the user in the conversation and passed on by the
    // host with the user's words: recorded as relayed (the host's claim, not a form's answer).
    expect(decisions(s)).toEqual([
      ["APPROVE_PLAN", 0, "yes", "elicited"],
      ["PHASE_COMPLETE", 0, "yes", "relayed"],
      ["APPROVE_PLAN", 1, "yes", "elicited"],
      ["PHASE_COMPLETE", 1, "yes", "relayed"],
      ["APPROVE_PLAN", 2, "yes", "elicited"],
    ]);
    expect(st.decisions[0].rationale).toBe("plan reads well");
    expect(s.user.forms.map((f) => f.action)).toEqual(["yes (plan reads well)", "decline", "yes", "cancel", "yes"]);
    // What the user decides on is in what the form shows unexpanded (two lines and "… (+N more
    // lines)"), and the question repeats no option.
    const [plan, cont] = s.user.forms;
    expect(plan.question).toBe("Approve this plan and begin execution?");
    expect(plan.shown.slice(0, 2)).toEqual([
      expect.stringMatching(/^Plan: docs\/plans\/\S+-core-greeting-plan\.md \(2 tasks\)$/),
      "Paused by: Review mode: manual (--review-plans flag set)",
    ]);
    expect(cont.question).toBe("Phase 1 complete. Next: Phase 2: Farewells (complexity: low). Continue?");
    // (The review's own line is left out: the summary's Review field says the same.)
    expect(cont.shown.slice(0, 2)).toEqual([
      "Phase 1: Core Greeting — COMPLETE",
      "Tasks: 2/2 | Retries: 0 | Verification: pass | Review: 1 note open",
    ]);

    // Without --allow, in auto mode behind a non-Anthropic endpoint: the notice once, then a
    // question for every autopilot tool call and every subagent launch.
    expect(s.user.log.filter((l) => l.startsWith("auto mode unavailable"))).toHaveLength(1);
    const permissions = s.user.log.filter((l) => l.startsWith("permission: "));
    for (const tool of ["Start", "Report", "Decide"])
      expect(
        permissions.some((p) => p.includes(`Autopilot ${tool} Tool`)),
        tool,
      ).toBe(true);
    expect(permissions.filter((p) => p.includes("Launch a new agent")).length).toBeGreaterThanOrEqual(13);

    // The TUI ran each persona in the background: the host waited for each notification; in auto
    // mode Claude Code offered SubagentHandback and the personas handed their result back with it.
    const host = s.model.requests.filter((r) => r.kind === "host");
    expect(host.some((r) => r.decision?.kind === "reply" && /running in the background/.test(r.decision.text))).toBe(
      true,
    );
    const subagents = s.model.requests.filter((r) => r.kind === "subagent");
    if (subagents.some((r) => r.conv?.tools.includes("SubagentHandback")))
      expect(
        subagents.filter(
          (r) => r.decision?.kind === "tool_calls" && r.decision.calls.some((c) => c.name === "SubagentHandback"),
        ).length,
      ).toBeGreaterThanOrEqual(13);
    expect(s.model.errors).toEqual([]);
    expect((await autopilotSubjects(s.repo.dir)).length).toBeGreaterThanOrEqual(3);
  });

  it('install --allow, accept edits: /clear, /compact and a killed TUI mid-run, each followed by "continue" (the SessionStart hook names the session), to DONE', async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    let plans = 0;
    let conts = 0;
    const s = await setUp(ctx, {
      extra: ["--allow"],
      trusted: true,
      policy: {
        autoMode: "leave",
        form: (f) => {
          if (isPlanGate(f)) return ++plans === 3 ? "leave" : { answer: "yes" };
          if (isContinueGate(f)) return ++conts === 1 ? "cancel" : "decline";
          throw new Error(`unexpected form: ${f.question}`);
        },
      },
    });
    await startTui(s);
    await s.user.until("the prompt", (x) => promptReady(x) || undefined, 180_000);
    // The folder was trusted and --allow approved the server: Claude Code asks neither.
    expect(s.user.log).toEqual([]);

    await s.user.say("/autopilot docs/spec.md --review-plans");
    // With --allow autopilot's tools need no approval; the first subagent launch meets the auto-mode
    // notice, whose Shift+Tab leaves for accept edits and stops the turn: "continue" goes on.
    await s.user.until(
      "the turn stopped in accept-edits mode",
      (x) =>
        (s.user.log.some((l) => l.startsWith("auto mode")) && promptReady(x) && /accept edits on/.test(x)) || undefined,
    );
    expect(s.user.log.filter((l) => !l.startsWith("said: "))).toEqual(["auto mode unavailable: leave"]);
    expect(state(s).currentState).toBe("PLAN");
    let since = await s.user.say("continue");
    let reply: string;

    // Phase 1's continue question, cancelled with Esc in the form → asked in the conversation.
    reply = await s.user.reply(since);
    expect(reply).toMatch(/Continue\?[\s\S]*Options: yes \/ stop/);
    // /clear: the conversation is gone; the SessionStart hook tells the model which session is open.
    await s.user.say("/clear");
    await s.user.until(
      "the cleared screen",
      (x) => (promptReady(x) && !x.includes("Options: yes / stop")) || undefined,
      120_000,
    );
    since = await s.user.say("continue");
    reply = await s.user.reply(since);
    expect(reply).toMatch(/Continue\?[\s\S]*Options: yes \/ stop/);
    since = await s.user.say("yes");

    // Phase 2's continue question, declined in the form → asked in the conversation; /compact.
    reply = await s.user.reply(since);
    expect(reply).toMatch(/Phase 2 complete[\s\S]*Options: yes \/ stop/);
    await s.user.say("/compact");
    await s.user.until("the compaction", (x) => (/Compacted/.test(x) && promptReady(x)) || undefined, 300_000);
    since = await s.user.say("continue");
    reply = await s.user.reply(since);
    expect(reply).toMatch(/Phase 2 complete[\s\S]*Options: yes \/ stop/);
    await s.user.say("yes");

    // Phase 3's plan is on screen as a form: the TUI is killed there, and started again.
    await s.user.until("phase 3's plan gate", (x) => {
      const f = formOf(x);
      return (f && isPlanGate(f) && plans === 3) || undefined;
    });
    const pid = await s.term.pid();
    process.kill(pid, "SIGKILL");
    await s.term.waitFor("the TUI to die", async () => (await s.term.dead()) || undefined, 30_000);
    await s.term.record("killed");
    expect(state(s).currentState).toBe("APPROVE_PLAN");
    // Started again the way docs/clients.md advises behind a non-Anthropic endpoint: in accept-edits mode.
    await startTui(s, ["--permission-mode", "acceptEdits"]);
    since = await s.user.say("continue");
    const final = await toDone(s, since);
    expect(final).toMatch(/DONE/);

    const st = state(s);
    expect(st.phases.map((p: any) => p.status)).toEqual(["complete", "complete", "complete"]);
    // The answers typed in the conversation (the continue questions, and the plan after the restart)
    // reach autopilot with the user's words: relayed.
    expect(decisions(s)).toEqual([
      ["APPROVE_PLAN", 0, "yes", "elicited"],
      ["PHASE_COMPLETE", 0, "yes", "relayed"],
      ["APPROVE_PLAN", 1, "yes", "elicited"],
      ["PHASE_COMPLETE", 1, "yes", "relayed"],
      ["APPROVE_PLAN", 2, "yes", "relayed"],
    ]);
    // No permission question at all: autopilot's tools by --allow, the rest by accept-edits mode.
    expect(s.user.log.filter((l) => l.startsWith("permission: "))).toEqual([]);
    // Each "continue" after /clear, /compact and the restart was resumed from the hook's line.
    const resumed = s.model.requests.filter(
      (r) =>
        r.kind === "host" &&
        r.decision?.kind === "tool_calls" &&
        r.decision.calls.some((c) => c.name === "mcp__autopilot__autopilot_next"),
    );
    expect(resumed.length).toBeGreaterThanOrEqual(3);
    expect(s.model.errors).toEqual([]);
  });
});
