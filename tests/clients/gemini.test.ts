// The real Gemini CLI (from the npm registry, pinned, installed into a cache by the test) runs the
// documented start command headless (`gemini -p`) in a project, with only what
// `autopilot install gemini --global` wrote into its HOME (plus the user's own API-key settings,
// pointed at a loopback Gemini API whose model is the scripted brain). Gemini shows the model only
// the text content of an MCP result, so the brain reads each Step from autopilot's text view; it
// dispatches personas through Gemini's own subagent tool (invoke_agent) and, inside each
// subagent, writes the plan and the code with Gemini's file tools and ends with complete_task.
// The session takes two flags, --fast and --review-plans, and both must arrive (fast rigor,
// review-plans recorded); its one question is answered in a resumed session.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureBuilt } from "../helpers/build.js";
import type { TempRepo } from "../helpers/git.js";
import { Brain } from "./brain/brain.js";
import { gemini } from "./dialects/gemini.js";
import {
  clientWithPackage,
  documentedStart,
  expectFastTwoPhaseDone,
  expectWaveDone,
  ensureGemini,
  explain,
  geminiHome,
  installFor,
  play,
  SPEC_ONE_WAVE,
  SPEC_TWO_PHASES,
  START_ARGS,
} from "./codex-gemini.js";
import { startGeminiModel } from "./gemini-sse.js";
import { makeProject, readSession } from "./project.js";

let installed: Awaited<ReturnType<typeof clientWithPackage>>;
beforeAll(async () => {
  await ensureBuilt();
  installed = await clientWithPackage("Gemini CLI", ensureGemini);
});

const cleanups: Array<() => void> = [];
const repos: TempRepo[] = [];
afterAll(async () => {
  for (const c of cleanups) c();
  if (!process.env.AUTOPILOT_KEEP_CLIENT_REPOS) for (const r of repos) await r.cleanup();
});

const HEADLESS = ["--yolo", "--output-format", "stream-json"];

/** A project with `spec`, the loopback model driven by a brain, install --global, and the documented start command with `args`, played to its end. */
async function playGemini(spec: string, brain: Brain, args: string) {
  if ("skip" in installed) throw new Error(installed.skip);
  const { autopilot, bin } = installed;
  const repo = await makeProject(spec);
  repos.push(repo);
  const home = mkdtempSync(path.join(tmpdir(), "autopilot-gemini-home-"));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const log: string[] = [];
  const model = await startGeminiModel({ dialect: gemini, decide: (c) => brain.decide(c), log: (l) => log.push(l) });
  cleanups.push(() => void model.close());
  const { output: out, env } = await installFor("gemini", repo.dir, geminiHome(home, model.url).env, autopilot, [
    "--global",
  ]);
  const start = documentedStart(out);
  const runs = await play(bin, {
    cwd: repo.dir,
    env,
    model,
    first: ["-p", `${start} ${args}`, ...HEADLESS],
    next: (answer) => ["-p", answer, "--resume", "latest", ...HEADLESS],
  });
  return { repo, model, runs, why: explain(`gemini (start: ${start})`, runs, log) };
}

describe("Gemini CLI (real binary) with autopilot install gemini --global", () => {
  it(`the documented start command with ${START_ARGS} runs a two-phase spec to DONE through Gemini's subagents`, async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const { repo, model, runs, why } = await playGemini(SPEC_TWO_PHASES, new Brain(gemini), START_ARGS);
    expect(model.errors, why).toEqual([]);
    // Gemini found the command by the name install documents (no clash renamed it away).
    expect(runs[0].stderr, why).not.toMatch(/Conflicts detected for command/);

    await expectFastTwoPhaseDone(repo.dir, model, runs, why, `Arguments: ${START_ARGS}`);

    // Each persona ran as a Gemini subagent defined by the agent file install wrote.
    const invoked = model.requests.flatMap((r) =>
      r.kind === "host" && r.decision?.kind === "tool_calls"
        ? r.decision.calls.filter((c) => c.name === "invoke_agent").map((c) => c.args.agent_name)
        : [],
    );
    expect(new Set(invoked)).toEqual(new Set(["harness-planner", "harness-task-executor", "harness-code-reviewer"]));
    const personas = new Set(model.requests.filter((r) => r.kind === "subagent").map((r) => r.persona));
    expect(personas).toEqual(new Set(["harness-planner", "harness-task-executor", "harness-code-reviewer"]));
    // Gemini showed the host model only autopilot's text view (no JSON), and that was enough.
    const results = model.requests.flatMap((r) =>
      r.kind === "host"
        ? (r.conv?.messages ?? []).flatMap((m) =>
            m.parts.flatMap((p) =>
              p.type === "tool_result" && p.result.name?.startsWith("mcp_autopilot_") ? [p.result.text] : [],
            ),
          )
        : [],
    );
    expect(results.length).toBeGreaterThan(0);
    expect(
      results.every(
        (t) =>
          !t
            .trim()
            .replace(/^<untrusted_context>\s*/, "")
            .startsWith("{"),
      ),
    ).toBe(true);
  });

  it("each subagent runs on its agent file's model (planner and reviewer pro, executor and verifier flash), none named in invoke_agent", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const { repo, model, runs, why } = await playGemini(SPEC_ONE_WAVE, new Brain(gemini), "docs/spec.md");
    expect(model.errors, why).toEqual([]);
    expect(runs.length).toBeGreaterThan(0);
    expect(readSession(repo.dir).state.currentState, why).toBe("DONE");
    // The model of each request is in its URL: /v1beta/models/<model>:streamGenerateContent.
    const byPersona = new Map<string, Set<string>>();
    for (const r of model.requests.filter((x) => x.kind === "subagent")) {
      const m = /\/models\/([^/:]+):/.exec(String(r.url))?.[1] ?? "?";
      const set = byPersona.get(String(r.persona)) ?? new Set<string>();
      set.add(/flash-lite|flash|pro/.exec(m)?.[0] ?? m);
      byPersona.set(String(r.persona), set);
    }
    expect(Object.fromEntries([...byPersona].map(([k, v]) => [k, [...v]])), why).toEqual({
      "harness-planner": ["pro"],
      "harness-task-executor": ["flash"],
      "harness-verifier": ["flash"],
      "harness-code-reviewer": ["pro"],
    });
    const invoked = model.requests.flatMap((r) =>
      r.kind === "host" && r.decision?.kind === "tool_calls"
        ? r.decision.calls.filter((c) => c.name === "invoke_agent")
        : [],
    );
    expect(
      invoked.every((c) => Object.keys(c.args).sort().join() === "agent_name,prompt"),
      why,
    ).toBe(true);
  });

  it("--fast --parallel: the host invokes a wave's three executors in one message, each in its own worktree; all merged in task order, to DONE", async (ctx) => {
    if ("skip" in installed) return ctx.skip(installed.skip);
    const { repo, model, why } = await playGemini(
      SPEC_ONE_WAVE,
      new Brain(gemini, { tasksPerPlan: 3 }),
      "docs/spec.md --fast --parallel",
    );
    expect(model.errors, why).toEqual([]);

    const { dispatchTurns } = await expectWaveDone(repo.dir, model, why, {
      dispatchTool: "invoke_agent",
      reportTool: "mcp_autopilot_autopilot_report",
      promptOf: (a) => String((a.prompt as string | undefined) ?? ""),
      writes: (r) =>
        r.decision?.kind === "tool_calls"
          ? r.decision.calls.flatMap((c) => gemini.writePathOf(r.conv!, { id: "", ...c }) ?? [])
          : [],
    });
    // The host read the wave from the text view alone and made the three invoke_agent calls in one message.
    expect(
      dispatchTurns.map((t) => t.length),
      why,
    ).toEqual([3]);
  });
});
