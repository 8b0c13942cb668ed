// The real Claude Code CLI (from the npm registry, pinned, installed into a cache by the test)
// runs /autopilot in a project where only `autopilot install claude` was done, against a loopback
// Messages API whose model is the scripted brain. The brain acts only on what Claude Code shows it
// (the Step as structuredContent JSON), dispatches personas through Claude Code's own Agent tool
// and, inside each subagent, writes the plan and the code with Claude Code's Read/Write tools.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureBuilt } from "../helpers/build.js";
import { git, type TempRepo } from "../helpers/git.js";
import { claudeEnv, ensureClaudeCode, type Installed } from "./claude-code.js";
import { explain, playClaude, type Played, type PlayOptions } from "./claude-play.js";
import type { Conversation } from "./brain/types.js";
import { SPEC_ONE_WAVE } from "./codex-gemini.js";
import { RETRY_BUDGET } from "../../src/rules/policy.js";
import { installPackedAutopilot } from "./autopilot-package.js";
import { autopilotSubjects, installInto, makeProject, readSession, taskSteps } from "./project.js";
import { startServer } from "../helpers/mcp-client.js";
import {
  agentLine,
  alwaysLoaded,
  commandTurn,
  deferredLines,
  installedClaudeIn,
  instructionsBlock,
  skillLine,
  toolDefinition,
} from "../../bench/claude-view.js";

/** Every string in a request body (system blocks, messages, tool definitions). */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) strings(x, out);
  return out;
}

/**
 * bench/claude-view.ts models what Claude Code sends the model of autopilot; each modelled part
 * must be in a real request, byte for byte: the tool definitions, the deferred-tool lines, the
 * agent-type lines, the skill line, the server instructions, the command turn, the tool results.
 * The tools the server marks always-loaded are in the first request already, and the host model
 * never needed a ToolSearch round for them.
 */
async function checkClaudeViewModel(dir: string, p: Played, args: string): Promise<void> {
  const host = p.model.requests.filter(
    (r) => r.kind === "host" && (r.body?.tools ?? []).some((t: any) => String(t.name).startsWith("mcp__autopilot__")),
  );
  expect(host.length).toBeGreaterThan(0);
  const body = host.at(-1)!.body;
  const srv = await startServer({ cwd: dir, name: "claude-code" });
  try {
    const { tools } = await srv.client.listTools();
    const sent = body.tools.filter((t: any) => String(t.name).startsWith("mcp__autopilot__"));
    const defs = new Map(tools.map((t) => [`mcp__autopilot__${t.name}`, toolDefinition(t)]));
    for (const t of sent) expect(JSON.stringify(t)).toBe(defs.get(t.name));
    const always = tools.filter(alwaysLoaded).map((t) => `mcp__autopilot__${t.name}`);
    expect(always.length).toBeGreaterThan(0);
    const first = p.model.requests.find((r) => r.kind === "host")!.body;
    expect(first.tools.map((t: any) => t.name)).toEqual(expect.arrayContaining(always));
    expect(sent.map((t: any) => t.name)).toEqual(expect.arrayContaining(always));
    const searched = p.model.requests.flatMap((r) =>
      r.kind === "host" && r.decision?.kind === "tool_calls"
        ? r.decision.calls.filter((c) => c.name === "ToolSearch")
        : [],
    );
    expect(searched).toEqual([]);
    const all = strings(body);
    const has = (part: string) => all.some((s) => s.includes(part));
    const installed = installedClaudeIn(dir);
    for (const line of deferredLines(tools, !!srv.client.getServerCapabilities()?.resources).split(/(?<=\n)/))
      expect(has(line), line).toBe(true);
    for (const a of installed.agents) expect(has(agentLine(a)), a.name).toBe(true);
    expect(has(skillLine(installed.command))).toBe(true);
    expect(has(instructionsBlock(srv.client.getInstructions() ?? ""))).toBe(true);
    const turn = commandTurn(installed.command, args);
    expect(all).toContain(turn.block);
    expect(all).toContain(turn.body);
    // Each autopilot tool result is compact JSON (structuredContent), nothing else.
    const ids = new Set(
      body.messages.flatMap((m: any) =>
        (Array.isArray(m.content) ? m.content : [])
          .filter((c: any) => c.type === "tool_use" && String(c.name).startsWith("mcp__autopilot__"))
          .map((c: any) => c.id),
      ),
    );
    const results = body.messages.flatMap((m: any) =>
      (Array.isArray(m.content) ? m.content : []).filter(
        (c: any) => c.type === "tool_result" && ids.has(c.tool_use_id),
      ),
    );
    expect(results.length).toBeGreaterThan(1);
    for (const r of results) {
      const text = typeof r.content === "string" ? r.content : r.content.map((c: any) => c.text ?? "").join("");
      expect(JSON.stringify(JSON.parse(text))).toBe(text);
    }
  } finally {
    await srv.close();
  }
}

let installed: Installed;
// autopilot itself as the README installs it: the npm pack tarball, installed globally (into a prefix of its own).
let autopilot: { bin: string; binDir: string };
beforeAll(async () => {
  await ensureBuilt();
  installed = await ensureClaudeCode();
  if ("skip" in installed) return console.warn(`[clients] Claude Code tests skip: ${installed.skip}`);
  console.log(`[clients] Claude Code ${installed.version} at ${installed.bin}`);
  const packed = await installPackedAutopilot();
  if ("skip" in packed) {
    installed = { skip: packed.skip };
    return console.warn(`[clients] Claude Code tests skip: ${packed.skip}`);
  }
  autopilot = packed;
});

/**
 * The user types `prompt` in Claude Code (print mode), then answers every question the session
 * asks with `answer` (a new `claude -p --continue` turn), until a run ends with no question.
 */
async function play(
  label: string,
  dir: string,
  prompt: string,
  o: Omit<PlayOptions, "env"> & {
    /** The user's home folder (default: a fresh one). */
    home?: string;
  } = {},
): Promise<Played> {
  if ("skip" in installed) throw new Error("unreachable");
  let home = o.home;
  if (!home) {
    home = mkdtempSync(path.join(tmpdir(), "autopilot-claude-home-"));
    const h = home;
    cleanups.push(() => rmSync(h, { recursive: true, force: true }));
  }
  const h = home;
  // The user's PATH has the globally installed autopilot on it.
  return playClaude(installed.bin, label, dir, prompt, {
    ...o,
    env: (url) => ({ ...claudeEnv(h, url), PATH: `${autopilot.binDir}${path.delimiter}${process.env.PATH}` }),
  });
}

/**
 * A home folder where the user has answered Claude Code's folder-trust question for `dir` (only
 * they can: until then Claude Code ignores the project's permissions.allow and says so on stderr).
 */
function trustedHome(dir: string): string {
  const home = mkdtempSync(path.join(tmpdir(), "autopilot-claude-home-"));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  writeFileSync(
    path.join(home, ".claude.json"),
    JSON.stringify({ projects: { [dir]: { hasTrustDialogAccepted: true } } }, null, 2),
  );
  return home;
}

function sessionOf(dir: string, p: Played): { slug: string; state: any } {
  try {
    return readSession(dir);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${explain(p)}`, { cause: e });
  }
}

const cleanups: Array<() => void> = [];
const repos: TempRepo[] = [];
afterAll(async () => {
  for (const c of cleanups) c();
  if (!process.env.AUTOPILOT_KEEP_CLIENT_REPOS) for (const r of repos) await r.cleanup();
});

/** The reviewer subagents' autopilot_result calls, and how many Claude Code refused (an error result). */
function recordedByReviewer(p: Awaited<ReturnType<typeof play>>): { recorded: number; refused: number } {
  const calls = new Map<string, boolean>();
  for (const r of p.model.requests) {
    if (r.kind !== "subagent" || r.persona !== "harness-code-reviewer") continue;
    for (const m of r.conv?.messages ?? [])
      for (const x of m.parts) {
        if (x.type === "tool_call" && x.call.name === "mcp__autopilot__autopilot_result")
          calls.set(x.call.id, calls.get(x.call.id) ?? false);
        if (x.type === "tool_result" && calls.has(x.result.callId)) calls.set(x.result.callId, !!x.result.isError);
      }
  }
  const refused = [...calls.values()].filter(Boolean).length;
  return { recorded: calls.size - refused, refused };
}

/** The host's autopilot_report calls that carried a result (the todo says to report only the step). */
function hostReportsWithResult(p: Awaited<ReturnType<typeof play>>): unknown[] {
  return p.model.requests.flatMap((r) =>
    r.kind === "host" && r.decision?.kind === "tool_calls"
      ? r.decision.calls
          .filter((c) => c.name === "mcp__autopilot__autopilot_report" && c.args.result !== undefined)
          .map((c) => c.args)
      : [],
  );
}

describe("Claude Code (real CLI) with autopilot install claude", () => {
  it("/autopilot docs/spec.md --fast runs to DONE, personas dispatched through Claude Code's Agent tool", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const repo = await makeProject();
    repos.push(repo);
    await installInto(repo.dir, "claude", { autopilot });

    const p = await play("claude-code-fast", repo.dir, "/autopilot docs/spec.md --fast");
    expect(p.model.errors, explain(p)).toEqual([]);
    const { state } = sessionOf(repo.dir, p);
    expect(state.currentState, explain(p)).toBe("DONE");
    expect(state.rigorLevel).toBe("fast");
    expect(state.phases.map((ph: any) => ph.status)).toEqual(["complete", "complete", "complete"]);
    // The code the executor subagents wrote through Claude Code's Write tool, committed by autopilot.
    const subjects = await autopilotSubjects(repo.dir);
    expect(subjects.length).toBeGreaterThanOrEqual(3);
    // Each subject is the executor's own proposal (its brief asks for one), not autopilot's fallback.
    expect(subjects.filter((s) => / part \d/.test(s)).length, subjects.join("\n")).toBeGreaterThanOrEqual(3);

    // The host dispatched each persona through Claude Code's own subagent tool, and Claude Code ran
    // it as a subagent with the agent file install wrote (its body is the subagent's system prompt).
    const dispatched = p.model.requests.flatMap((r) =>
      r.kind === "host" && r.decision?.kind === "tool_calls"
        ? r.decision.calls.filter((c) => c.name === "Agent").map((c) => c.args.subagent_type)
        : [],
    );
    expect(new Set(dispatched)).toEqual(new Set(["harness-planner", "harness-task-executor", "harness-code-reviewer"]));
    const subagentPersonas = new Set(p.model.requests.filter((r) => r.kind === "subagent").map((r) => r.persona));
    expect(subagentPersonas).toEqual(new Set(["harness-planner", "harness-task-executor", "harness-code-reviewer"]));
    // The host model saw the Step only as JSON (structuredContent), and that was enough.
    const hostSawStep = p.model.requests.some((r) =>
      r.conv?.messages.some((m) =>
        m.parts.some((x) => x.type === "tool_result" && x.result.text.trim().startsWith('{"session"')),
      ),
    );
    expect(hostSawStep).toBe(true);
    expect(recordedByReviewer(p), explain(p)).toEqual({ recorded: 4, refused: 0 });
    // At DONE the host asks the person how to finish the branch, from the report's ways, and runs none.
    const replies = p.model.requests.flatMap((r) =>
      r.kind === "host" && r.decision?.kind === "reply" ? [r.decision.text] : [],
    );
    expect(replies.at(-1), explain(p)).toContain(
      "How do you want to finish the branch: open the pull request, or keep it?",
    );
    await checkClaudeViewModel(repo.dir, p, "docs/spec.md --fast");
  });

  it("/autopilot docs/spec.md --review-plans (standard rigor) runs to DONE, each plan approved by the user", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const repo = await makeProject();
    repos.push(repo);
    await installInto(repo.dir, "claude", { autopilot });

    const p = await play("claude-code-standard-review-plans", repo.dir, "/autopilot docs/spec.md --review-plans");
    expect(p.model.errors, explain(p)).toEqual([]);
    const { state } = sessionOf(repo.dir, p);
    expect(state.currentState, explain(p)).toBe("DONE");
    // The flag reached the server.
    expect(state.rigorLevel).toBe("standard");
    expect(state.reviewPlans).toBe(true);
    expect(state.phases.map((ph: any) => ph.status)).toEqual(["complete", "complete", "complete"]);
    // --review-plans: every plan waited for the user, who approved it in Claude Code; the host model
    // passed the answer on through autopilot_decide with the user's reply quoted (the todo asks
    // for it), so the server records it as relayed: the model's claim, with the words.
    const approvals = state.decisions.filter((d: any) => d.state === "APPROVE_PLAN");
    expect(approvals.map((d: any) => [d.phase, d.by, d.answer])).toEqual([
      [0, "relayed", "yes"],
      [1, "relayed", "yes"],
      [2, "relayed", "yes"],
    ]);
    for (const d of approvals) expect(d.userWords, JSON.stringify(d)).toBeTruthy();
    // Standard rigor dispatches the verifier too.
    const personas = new Set(p.model.requests.filter((r) => r.kind === "subagent").map((r) => r.persona));
    expect(personas).toEqual(
      new Set(["harness-planner", "harness-task-executor", "harness-verifier", "harness-code-reviewer"]),
    );
    expect((await autopilotSubjects(repo.dir)).length).toBeGreaterThanOrEqual(3);
  });

  it("a blocking review finding: the user answers fix in Claude Code, with words for the fixer; the executor's brief quotes them; the session reaches DONE", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const repo = await makeProject();
    repos.push(repo);
    await installInto(repo.dir, "claude", { autopilot });

    let reviews = 0;
    const questions: string[] = [];
    // The user's reply at the gate: the option, and a request the options do not cover.
    const reply = "fix — and please rename part1 in the README too, it is cheap";
    const p = await play("claude-code-blocking-fix", repo.dir, "/autopilot docs/spec.md --fast", {
      // Phase 1's first review finds a blocking problem; every later review is clean.
      brain: { blockingReview: (phase) => phase === "Core Greeting" && reviews++ === 0 },
      answer: (q) => {
        questions.push(q);
        return /^Options: fix \//m.test(q) ? reply : "yes";
      },
    });
    expect(p.model.errors, explain(p)).toEqual([]);
    const { slug, state } = sessionOf(repo.dir, p);
    expect(state.currentState, explain(p)).toBe("DONE");
    // The user saw the finding and the choice in Claude Code's reply, and their answer was recorded.
    expect(
      questions.some((q) => /part1 is exported under the wrong name/.test(q) && /fix \/ override \/ stop/.test(q)),
    ).toBe(true);
    expect(state.decisions.filter((d: any) => d.answer === "fix").map((d: any) => [d.phase, d.by])).toEqual([
      [0, "relayed"],
    ]);
    // The host passed the user's reply on (userWords), and the fixer read it, quoted, in its brief
    // (through Claude Code's Read tool, inside its subagent): "What the person said".
    expect(state.decisions.find((d: any) => d.answer === "fix").userWords).toContain(
      "please rename part1 in the README too",
    );
    const fixerSaw = p.model.requests
      .filter((r) => r.kind === "subagent" && r.persona === "harness-task-executor")
      .flatMap((r) => r.conv?.messages ?? [])
      .flatMap((m) => m.parts)
      .flatMap((x) => (x.type === "tool_result" ? [x.result.text] : []))
      .filter((t) => /## (Blocking review|Review) findings to fix/.test(t));
    expect(fixerSaw.length, explain(p)).toBeGreaterThan(0);
    expect(fixerSaw[0]).toContain("## What the person said");
    expect(fixerSaw[0]).toMatch(
      /at the review, answering "fix" \(relayed by the host model\): "[^"]*please rename part1 in the README too/,
    );
    // The executor was dispatched to fix exactly that (the lean Step has no description: the model
    // takes the prompt's job sentence), and the phase was reviewed again.
    const dispatches = p.model.requests.flatMap((r) =>
      r.kind === "host" && r.decision?.kind === "tool_calls"
        ? r.decision.calls.filter((c) => c.name === "Agent").map((c) => String(c.args.description))
        : [],
    );
    expect(dispatches.filter((d) => /^Fix the review findings of phase 1\//.test(d))).toHaveLength(1);
    expect(dispatches.filter((d) => /^Review phase 1/.test(d))).toHaveLength(2);
    expect(readFileSync(path.join(repo.dir, "src/core-greeting/part-1.js"), "utf8")).toContain("// fixed");
    expect(existsSync(path.join(repo.dir, ".harness/sessions", slug))).toBe(true);
    expect(state.phases.map((ph: any) => ph.status)).toEqual(["complete", "complete", "complete"]);
  });

  it("each subagent runs on its configured model: the agent file's (planner and reviewer opus, executor sonnet) or .harness/config.json's, named in the Agent call (verifier haiku); a task's last attempt within the retry budget runs on opus, named in the Agent call", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const repo = await makeProject(SPEC_ONE_WAVE);
    repos.push(repo);
    // The team's choice: the verifier on the fast tier, where its agent file says sonnet.
    mkdirSync(path.join(repo.dir, ".harness"), { recursive: true });
    writeFileSync(path.join(repo.dir, ".harness/config.json"), JSON.stringify({ models: { verifier: "fast" } }));
    await installInto(repo.dir, "claude", { autopilot });
    // The executor cannot make its task pass until the budget's last attempt.
    let executorRuns = 0;
    const p = await play("claude-code-models", repo.dir, "/autopilot docs/spec.md", {
      brain: { failRun: () => executorRuns++ < RETRY_BUDGET },
    });
    expect(p.model.errors, explain(p)).toEqual([]);
    const { state } = sessionOf(repo.dir, p);
    expect(state.currentState, explain(p)).toBe("DONE");

    // What Claude Code asked the model for, per subagent run (a run's requests share its first prompt).
    const runs = new Map<string, { persona: string; models: Set<string> }>();
    for (const r of p.model.requests) {
      if (r.kind !== "subagent" || !r.conv) continue;
      const first = r.conv.messages.find((m) => m.role === "user");
      const prompt = first?.parts.map((x) => (x.type === "text" ? x.text : "")).join("") ?? "";
      const run = runs.get(prompt) ?? { persona: String(r.persona), models: new Set<string>() };
      run.models.add(String(r.body?.model));
      runs.set(prompt, run);
    }
    const family = (models: Set<string>) => [
      ...new Set([...models].map((m) => /opus|sonnet|haiku|fable/.exec(m)?.[0])),
    ];
    const seen = [...runs.entries()].map(([prompt, r]) => [
      r.persona,
      /Retry (\d+)\/\d+/.exec(prompt)?.[1] ?? "",
      family(r.models).join(","),
    ]);
    expect(seen, explain(p)).toEqual([
      ["harness-planner", "", "opus"],
      ["harness-task-executor", "", "sonnet"],
      ...Array.from({ length: RETRY_BUDGET - 1 }, (_, i) => ["harness-task-executor", String(i + 1), "sonnet"]),
      ["harness-task-executor", String(RETRY_BUDGET), "opus"],
      ["harness-verifier", "", "haiku"],
      ["harness-code-reviewer", "", "opus"],
      ["harness-code-reviewer", "", "opus"],
    ]);
    // The host named a model only where it differs from the agent file's, as its Step and todo said:
    // the last attempt's and the verifier's.
    const named = p.model.requests.flatMap((r) =>
      r.kind === "host" && r.decision?.kind === "tool_calls"
        ? r.decision.calls.filter((c) => c.name === "Agent" && c.args.model).map((c) => c.args.model)
        : [],
    );
    expect(named).toEqual(["opus", "haiku"]);
    const escalated = (state.usage.runs as any[]).filter((r) => r.escalated);
    expect(escalated.map((r) => [r.persona, r.model])).toEqual([["harness-task-executor", "opus"]]);
  });

  it("install --allow: autopilot's tools run without permission prompts (edits accepted for the session), to DONE", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const repo = await makeProject();
    repos.push(repo);
    await installInto(repo.dir, "claude", { autopilot, extra: ["--allow"] });
    const home = trustedHome(repo.dir);

    // No --dangerously-skip-permissions: what is not allowed is refused (print mode cannot ask).
    const p = await play("claude-code-allow", repo.dir, "/autopilot docs/spec.md --fast", {
      home,
      permissions: ["--permission-mode", "acceptEdits"],
    });
    expect(p.model.errors, explain(p)).toEqual([]);
    const { state } = sessionOf(repo.dir, p);
    expect(state.currentState, explain(p)).toBe("DONE");
    expect(state.phases.map((ph: any) => ph.status)).toEqual(["complete", "complete", "complete"]);
    // The read-only reviewer (no Write) recorded each result through autopilot_result, not refused
    // in accept-edits mode, and the host reported every step without copying a result.
    expect(recordedByReviewer(p), explain(p)).toEqual({ recorded: 4, refused: 0 });
    expect(hostReportsWithResult(p)).toEqual([]);
  });

  it("without --allow, Claude Code refuses autopilot's tools in print mode and nothing starts", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const repo = await makeProject();
    repos.push(repo);
    await installInto(repo.dir, "claude", { autopilot });

    const p = await play("claude-code-no-allow", repo.dir, "/autopilot docs/spec.md --fast", {
      home: trustedHome(repo.dir),
      permissions: ["--permission-mode", "acceptEdits"],
    });
    expect(p.model.errors, explain(p)).toEqual([]);
    expect(existsSync(path.join(repo.dir, ".harness/sessions")), explain(p)).toBe(false);
    // The model was told why: the call needs a permission nobody granted.
    expect(p.runs.at(-1)!.result?.result, explain(p)).toMatch(/permissions to use mcp__autopilot__autopilot_start/);
  });

  it("/autopilot docs/spec.md --fast --parallel: the host starts a wave's three executors in one message, each in its own worktree; all merged in task order, to DONE", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    // One phase whose plan has three independent tasks: one wave.
    const repo = await makeProject(
      "# Greeting Library\n\nA tiny library of greetings.\n\n## Implementation Order\n\n### Phase 1: Greetings\n<!-- complexity: low -->\nThree greetings, each in a module of its own: hello, goodbye, welcome.\n",
    );
    repos.push(repo);
    await installInto(repo.dir, "claude", { autopilot });

    const p = await play("claude-code-wave", repo.dir, "/autopilot docs/spec.md --fast --parallel", {
      brain: { tasksPerPlan: 3 },
    });
    expect(p.model.errors, explain(p)).toEqual([]);
    const { state } = sessionOf(repo.dir, p);
    expect(state.currentState, explain(p)).toBe("DONE");
    expect(state.parallel).toBeTruthy();

    // The host made the wave's three Agent calls in one assistant message (Claude Code sent it back
    // in the next request), one per task, each prompt naming that task's worktree.
    const waveMessages = p.model.requests.flatMap((r) =>
      r.kind === "host"
        ? (r.body?.messages ?? []).filter(
            (m: any) =>
              m.role === "assistant" &&
              Array.isArray(m.content) &&
              m.content.filter((c: any) => c.type === "tool_use" && c.name === "Agent").length >= 3,
          )
        : [],
    );
    expect(waveMessages.length, explain(p)).toBeGreaterThan(0);
    const wave = waveMessages[0].content
      .filter((c: any) => c.type === "tool_use" && c.name === "Agent")
      .map((c: any) => c.input);
    expect(wave.map((a: any) => a.subagent_type)).toEqual([
      "harness-task-executor",
      "harness-task-executor",
      "harness-task-executor",
    ]);
    const worktrees = wave.map((a: any) => /in the git worktree (\S+) \(work only there\)/.exec(a.prompt)?.[1]);
    expect(new Set(worktrees).size).toBe(3);
    // Claude Code ran the three executors at the same time: each had started before any finished.
    const executors = p.model.requests.filter((r) => r.kind === "subagent" && r.persona === "harness-task-executor");
    const firstReply = executors.find((r) => r.decision?.kind === "reply")!.n;
    expect(
      executors.filter((r) => r.conv!.messages.length <= 2 && r.n < firstReply),
      explain(p),
    ).toHaveLength(3);
    // Each executor (its own subagent conversation) wrote only in its worktree, and its result file.
    const written = new Map<string, Set<string>>();
    for (const r of executors) {
      const said = r
        .conv!.messages.flatMap((m) =>
          m.role === "user" ? m.parts.flatMap((x) => (x.type === "text" ? [x.text] : [])) : [],
        )
        .join("\n");
      const tree = /in the git worktree (\S+) \(work only there\)/.exec(said)?.[1];
      expect(worktrees, said.slice(0, 500)).toContain(tree);
      for (const c of r.decision?.kind === "tool_calls" ? r.decision.calls : [])
        if (c.name === "Write")
          (written.get(tree!) ?? written.set(tree!, new Set()).get(tree!))!.add(
            path.relative(repo.dir, String(c.args.file_path)),
          );
    }
    expect([...written.keys()].sort()).toEqual([...worktrees].sort());
    for (const [tree, files] of written)
      for (const f of files)
        expect(
          f.startsWith(`${tree}/`) || /^\.harness\/sessions\/[^/]+\/results\/step-\d+-task-\d\.json$/.test(f),
          f,
        ).toBe(true);
    // The host reported each task by its task.
    const reported = p.model.requests.flatMap((r) =>
      r.kind === "host" && r.decision?.kind === "tool_calls"
        ? r.decision.calls
            .filter((c) => c.name === "mcp__autopilot__autopilot_report" && c.args.task !== undefined)
            .map((c) => String(c.args.task))
        : [],
    );
    expect(reported.sort()).toEqual(["1", "2", "3"]);

    // Each task's work is on the session's branch, in the project's own checkout, committed in task order.
    for (const n of [1, 2, 3])
      expect(readFileSync(path.join(repo.dir, `src/greetings/part-${n}.js`), "utf8")).toContain(
        `export const part${n} `,
      );
    const tasks = await taskSteps(repo.dir);
    expect(tasks).toEqual(["Task 1: Greetings part 1", "Task 2: Greetings part 2", "Task 3: Greetings part 3"]);
    // No task worktree or branch is left.
    expect(
      (await git(repo.dir, "worktree", "list", "--porcelain")).split("\n").filter((l) => l.startsWith("worktree ")),
    ).toHaveLength(1);
    expect((await git(repo.dir, "branch", "--list", "autopilot-task/*")).trim()).toBe("");
    // Nothing left uncommitted but autopilot's own session folder.
    expect((await git(repo.dir, "status", "--porcelain")).trim()).toBe("?? .harness/");
  });

  it("--parallel, the client killed after the wave's first task was reported: the same /autopilot command in a new run starts only the unreported tasks again, to DONE, each merged once", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const repo = await makeProject(SPEC_ONE_WAVE);
    repos.push(repo);
    await installInto(repo.dir, "claude", { autopilot });
    const home = mkdtempSync(path.join(tmpdir(), "autopilot-claude-home-"));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const command = "/autopilot docs/spec.md --fast --parallel";

    // The task reports that went through (each autopilot_report call with a task whose result was no error).
    const reportedIn = (conv: Conversation): string[] => {
      const calls = new Map<string, string>();
      const done: string[] = [];
      for (const m of conv.messages)
        for (const x of m.parts) {
          // The task as the host wrote it: a string or a number (autopilot_report takes either).
          if (
            x.type === "tool_call" &&
            x.call.name === "mcp__autopilot__autopilot_report" &&
            (typeof x.call.args.task === "string" || typeof x.call.args.task === "number")
          )
            calls.set(x.call.id, String(x.call.args.task));
          if (x.type === "tool_result" && calls.has(x.result.callId) && !x.result.isError)
            done.push(calls.get(x.result.callId)!);
        }
      return done;
    };
    // The host machine stops right after the first task's report went through.
    const first = await play("claude-code-wave-killed", repo.dir, command, {
      home,
      brain: { tasksPerPlan: 3 },
      killWhen: (c) => reportedIn(c).length === 1,
    });
    expect(first.runs[0].signal, explain(first)).toBe("SIGKILL");
    const mid = sessionOf(repo.dir, first).state;
    expect(mid.currentState, explain(first)).toBe("EXECUTE");
    const before = await taskSteps(repo.dir);

    // A new client run, the same command (a resumed session keeps its flags).
    const second = await play("claude-code-wave-resumed", repo.dir, command, { home, brain: { tasksPerPlan: 3 } });
    expect(second.model.errors, explain(second)).toEqual([]);
    const { state } = sessionOf(repo.dir, second);
    expect(state.currentState, explain(second)).toBe("DONE");

    const agentPrompts = (p: Played) =>
      p.model.requests.flatMap((r) =>
        r.kind === "host" && r.decision?.kind === "tool_calls"
          ? r.decision.calls
              .filter((c) => c.name === "Agent" && c.args.subagent_type === "harness-task-executor")
              .map((c) => String(c.args.prompt))
          : [],
      );
    const taskOf = (prompt: string) => /^Do task (\d+) /.exec(prompt)?.[1];
    const reports = (p: Played) =>
      p.model.requests.flatMap((r) =>
        r.kind === "host" && r.decision?.kind === "tool_calls"
          ? r.decision.calls
              .filter((c) => c.name === "mcp__autopilot__autopilot_report" && c.args.task !== undefined)
              .map((c) => String(c.args.task))
          : [],
      );
    // Before the kill: the three executors started together; one task reported.
    expect(agentPrompts(first).map(taskOf).sort(), explain(first)).toEqual(["1", "2", "3"]);
    // (The model's answer to the request the kill came at never reached the client.)
    const lastConv = first.model.requests.filter((r) => r.kind === "host").at(-1)!.conv!;
    expect(reportedIn(lastConv)).toHaveLength(1);
    expect(reports(first).slice(0, -1)).toEqual(reportedIn(lastConv));
    const reportedFirst = reportedIn(lastConv)[0];
    // After: the reported task was not started again; the two unreported ones were, in one message,
    // in the worktrees the first run's Step named; each reported once.
    const unreported = ["1", "2", "3"].filter((t) => t !== reportedFirst);
    expect(agentPrompts(second).map(taskOf).sort(), explain(second)).toEqual(unreported);
    const tree = (prompt: string) => /in the git worktree (\S+) \(work only there\)/.exec(prompt)?.[1];
    const firstTrees = new Map(agentPrompts(first).map((pr) => [taskOf(pr), tree(pr)]));
    for (const pr of agentPrompts(second)) expect(tree(pr)).toBe(firstTrees.get(taskOf(pr)));
    // The Step the new run's autopilot_start showed: the unreported tasks, each running since the wave began.
    const resumed = second.model.requests
      .flatMap((r) => (r.kind === "host" ? (r.conv?.messages ?? []).flatMap((m) => m.parts) : []))
      .flatMap((x) =>
        x.type === "tool_result" && /^\{"session"/.test(x.result.text.trim()) ? [JSON.parse(x.result.text)] : [],
      )[0];
    expect(
      resumed?.next?.tasks?.map((t: any) => [t.task, typeof t.startedAt]),
      explain(second),
    ).toEqual(unreported.map((t) => [t, "number"]));
    const waveTurns = second.model.requests.filter(
      (r) =>
        r.kind === "host" &&
        r.decision?.kind === "tool_calls" &&
        r.decision.calls.some((c) => c.name === "Agent" && c.args.subagent_type === "harness-task-executor"),
    );
    expect(waveTurns.map((r) => (r.decision as { calls: unknown[] }).calls.length)).toEqual([2]);
    expect(reports(second).sort()).toEqual(unreported);

    // Each task merged once, in task order; nothing merged before all three were in.
    expect(before).toEqual([]);
    const tasks = await taskSteps(repo.dir);
    expect(tasks).toEqual(["Task 1: Greetings part 1", "Task 2: Greetings part 2", "Task 3: Greetings part 3"]);
    for (const n of [1, 2, 3])
      expect(readFileSync(path.join(repo.dir, `src/greetings/part-${n}.js`), "utf8")).toContain(
        `export const part${n} `,
      );
    expect(
      (await git(repo.dir, "worktree", "list", "--porcelain")).split("\n").filter((l) => l.startsWith("worktree ")),
    ).toHaveLength(1);
    expect((await git(repo.dir, "branch", "--list", "autopilot-task/*")).trim()).toBe("");
    expect((await git(repo.dir, "status", "--porcelain")).trim()).toBe("?? .harness/");
  });

  // The server's MCP prompt, typed as a user does. Claude Code splits the words after the command
  // and maps them in order onto the prompt's arguments (spec, flags, flag2, ...); the prompt reads
  // the flags out of all of them.
  let promptState: any;
  it("/mcp__autopilot__start docs/spec.md --fast --review-plans (the server's MCP prompt) runs to DONE", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const repo = await makeProject();
    repos.push(repo);
    await installInto(repo.dir, "claude", { autopilot });

    const p = await play(
      "claude-code-mcp-prompt",
      repo.dir,
      "/mcp__autopilot__start docs/spec.md --fast --review-plans",
    );
    expect(p.model.errors, explain(p)).toEqual([]);
    const { state } = sessionOf(repo.dir, p);
    expect(state.currentState, explain(p)).toBe("DONE");
    expect(state.rigorLevel, explain(p)).toBe("fast");
    promptState = state;
  });

  // With only `spec` and `flags` as arguments, the third word was dropped.
  it("the MCP prompt passes --review-plans through to the server", (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    expect(promptState?.reviewPlans).toBe(true);
  });
});
