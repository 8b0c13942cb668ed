// The built-in agent loop end to end: the real SDK client against a local Messages API, in a real
// temporary project. What matters is what the model is sent back, so each script entry asserts on
// the request it receives.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AnthropicRunner, type AnthropicRunnerOptions } from "../../src/runners/anthropic.js";
import type { PersonaTask } from "../../src/runners/types.js";
import { AutopilotError } from "../../src/protocol/errors.js";
import {
  reply,
  startFakeAnthropic,
  toolResults,
  type FakeAnthropic,
  type ScriptEntry,
} from "../helpers/fake-anthropic.js";

let base: string;
let project: string;
let outside: string;
let fake: FakeAnthropic | undefined;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "autopilot-anthropic-")));
  project = path.join(base, "project");
  outside = path.join(base, "outside");
  mkdirSync(path.join(project, "src"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(project, "src/config.txt"), "NAME = demo\nTIMEOUT = 30\n");
  writeFileSync(path.join(outside, "secret.txt"), "TOP SECRET\n");
});

afterEach(async () => {
  const errors = fake?.errors ?? [];
  await fake?.close();
  fake = undefined;
  rmSync(base, { recursive: true, force: true });
  // A failed assertion inside a script entry reaches the runner only as an API error; fail here.
  if (errors.length) throw errors[0];
});

function task(over: Partial<PersonaTask> = {}): PersonaTask {
  return {
    persona: "harness-task-executor",
    description: "Execute phase 1: Config",
    prompt: "Raise the timeout in src/config.txt to 60 and check it.",
    expects: { result: "executed", artifacts: { plan: "docs/plans/phase-1.md" } },
    projectRoot: project,
    session: "demo",
    phaseIndex: 0,
    phaseName: "Config",
    ...over,
  };
}

async function runner(script: ScriptEntry[], opts: AnthropicRunnerOptions = {}) {
  fake = await startFakeAnthropic(script);
  return new AnthropicRunner({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0, env: {}, ...opts });
}

const done: ScriptEntry = () => reply.tool("report_result", { kind: "executed", outcome: "complete" });

describe("AnthropicRunner", () => {
  it("reads, edits, runs a command and reports; usage is summed across turns", async () => {
    const personas = path.join(base, "personas");
    mkdirSync(personas);
    writeFileSync(
      path.join(personas, "harness-task-executor.md"),
      "---\nname: harness-task-executor\n---\nYou execute plans, task by task.\n",
    );
    const usage = {
      input_tokens: 1000,
      output_tokens: 50,
      cache_read_input_tokens: 800,
      cache_creation_input_tokens: 120,
    };
    const r = await runner(
      [
        (req) => {
          // The stable prefix: persona body first, the contract last and marked for caching.
          const system = req.body.system as Array<{ text: string; cache_control?: unknown }>;
          expect(system[0].text).toBe("You execute plans, task by task.");
          expect(system[system.length - 1].cache_control).toEqual({ type: "ephemeral" });
          expect(req.body.model).toBe("claude-test-model");
          const names = req.body.tools!.map((t) => t.name);
          expect(names).toEqual(
            expect.arrayContaining([
              "read_file",
              "write_file",
              "edit_file",
              "list_files",
              "search",
              "run_command",
              "git_status",
              "git_diff",
              "report_result",
            ]),
          );
          const report = req.body.tools!.find((t) => t.name === "report_result")!;
          expect(JSON.stringify(report.input_schema)).toContain('"const":"executed"');
          const first = req.body.messages[0].content as Array<{ text: string }>;
          expect(first[0].text).toContain("Raise the timeout");
          expect(first[0].text).toContain("plan: docs/plans/phase-1.md");
          expect(req.headers["authorization"] ?? req.headers["x-api-key"]).toBeTruthy();
          return reply.tool("read_file", { path: "src/config.txt" }, usage);
        },
        (req) => {
          const [res] = toolResults(req);
          expect(res.is_error).toBeFalsy();
          expect(res.content).toContain("2\tTIMEOUT = 30");
          return reply.tool("edit_file", { path: "src/config.txt", old: "TIMEOUT = 30", new: "TIMEOUT = 60" }, usage);
        },
        (req) => {
          const [res] = toolResults(req);
          expect(res.is_error).toBeFalsy();
          expect(res.content).toMatch(/Edited src\/config.txt/);
          return reply.tool("run_command", { command: "grep TIMEOUT src/config.txt && echo checked" }, usage);
        },
        (req) => {
          const [res] = toolResults(req);
          expect(res.content).toContain("Exit code 0");
          expect(res.content).toContain("TIMEOUT = 60");
          expect(res.content).toContain("checked");
          // Only the newest user content carries the moving cache breakpoint.
          const marked = req.body.messages
            .flatMap((m) => (typeof m.content === "string" ? [] : m.content))
            .filter((b) => b.cache_control);
          expect(marked).toHaveLength(1);
          return reply.tool(
            "report_result",
            { kind: "executed", outcome: "complete", summary: "timeout raised" },
            usage,
          );
        },
      ],
      { model: "claude-test-model", personasDir: personas },
    );
    const out = await r.run(task());
    expect(out.result).toEqual({ kind: "executed", outcome: "complete", summary: "timeout raised" });
    expect(readFileSync(path.join(project, "src/config.txt"), "utf8")).toBe("NAME = demo\nTIMEOUT = 60\n");
    expect(out.usage).toEqual({ inputTokens: 4000, outputTokens: 200, cacheReadTokens: 3200, cacheWriteTokens: 480 });
    expect(fake!.requests).toHaveLength(4);
    expect(out.log!.some((l) => l.startsWith("edit_file src/config.txt"))).toBe(true);
  });

  it("model comes from AUTOPILOT_MODEL and the fallback persona prompt says what to return", async () => {
    const r = await runner(
      [
        (req) => {
          expect(req.body.model).toBe("claude-from-env");
          const system = req.body.system as Array<{ text: string }>;
          expect(system.map((s) => s.text).join("\n")).toContain('"kind":"verified"');
          return reply.tool("report_result", { verdict: "pass" });
        },
      ],
      { env: { AUTOPILOT_MODEL: "claude-from-env" }, personasDir: path.join(base, "no-such-dir") },
    );
    const out = await r.run(task({ persona: "harness-verifier", expects: { result: "verified", artifacts: {} } }));
    expect(out.result).toEqual({ kind: "verified", verdict: "pass" });
  });

  it("runs each persona on the model its task names, unless one model is pinned for all", async () => {
    const asked: string[] = [];
    const answer: ScriptEntry = (req) => {
      asked.push(String(req.body.model));
      return reply.tool("report_result", { verdict: "pass" });
    };
    const verify = { persona: "harness-verifier", expects: { result: "verified", artifacts: {} } } as const;
    const r = await runner([answer, answer]);
    await r.run(task({ ...verify, model: "claude-opus-5-5" }));
    await r.run(task(verify));
    expect(asked).toEqual(["claude-opus-5-5", "claude-sonnet-5-5"]);
    await fake!.close();
    const pinned = await runner([answer], { model: "claude-pinned-1" });
    await pinned.run(task({ ...verify, model: "claude-opus-5-5" }));
    expect(asked.at(-1)).toBe("claude-pinned-1");
  });

  it("refuses paths outside the project (absolute, .., symlinks) and protected files, and says why", async () => {
    symlinkSync(outside, path.join(project, "escape"));
    symlinkSync(path.join(outside, "secret.txt"), path.join(project, "secret-link.txt"));
    symlinkSync(path.join(outside, "missing.txt"), path.join(project, "dangling.txt"));
    mkdirSync(path.join(project, ".harness/sessions/demo"), { recursive: true });
    writeFileSync(path.join(project, ".harness/sessions/demo/autopilot-state.json"), "{}");
    execFileSync("git", ["init", "-q"], { cwd: project });
    const r = await runner([
      () =>
        reply.tools(
          ["read_file", { path: path.join(outside, "secret.txt") }],
          ["read_file", { path: "../outside/secret.txt" }],
          ["read_file", { path: "secret-link.txt" }],
          ["write_file", { path: "escape/planted.txt", content: "x" }],
          ["write_file", { path: "dangling.txt", content: "x" }],
          ["list_files", { path: "escape" }],
          ["write_file", { path: ".git/hooks/pre-commit", content: "#!/bin/sh\n" }],
          ["write_file", { path: ".harness/sessions/demo/autopilot-state.json", content: "{}" }],
          ["read_file", { path: "src/config.txt" }],
        ),
      (req) => {
        const res = toolResults(req);
        expect(res).toHaveLength(9);
        expect(res.slice(0, 8).every((x) => x.is_error)).toBe(true);
        expect(res[0].content).toMatch(/outside the project/);
        expect(res[1].content).toMatch(/outside the project/);
        expect(res[2].content).toMatch(/symlink/);
        expect(res[3].content).toMatch(/symlink/);
        expect(res[4].content).toMatch(/broken symlink/);
        expect(res[5].content).toMatch(/outside the project/);
        expect(res[6].content).toMatch(/git's internal directory/);
        expect(res[7].content).toMatch(/only the autopilot server writes it/);
        for (const x of res) expect(x.content).not.toContain("TOP SECRET");
        // A refusal does not spoil the rest of the turn.
        expect(res[8].is_error).toBeFalsy();
        return done(req);
      },
    ]);
    const out = await r.run(task());
    expect(out.result).toEqual({ kind: "executed", outcome: "complete" });
    expect(existsSync(path.join(outside, "planted.txt"))).toBe(false);
    expect(existsSync(path.join(outside, "missing.txt"))).toBe(false);
    expect(existsSync(path.join(project, ".git/hooks/pre-commit"))).toBe(false);
  });

  it("refuses a stale edit, an edit without a read and an overwrite without a read; a fresh read fixes it", async () => {
    const file = path.join(project, "src/config.txt");
    writeFileSync(path.join(project, "src/other.txt"), "keep me\n");
    const r = await runner([
      () =>
        reply.tools(
          ["edit_file", { path: "src/other.txt", old: "keep", new: "lose" }],
          ["write_file", { path: "src/other.txt", content: "overwritten\n" }],
          ["write_file", { path: "src/new.txt", content: "brand new\n" }],
          ["read_file", { path: "src/config.txt" }],
        ),
      (req) => {
        const res = toolResults(req);
        expect(res[0].is_error).toBe(true);
        expect(res[0].content).toMatch(/have not read it.*read_file/);
        expect(res[1].is_error).toBe(true);
        expect(res[1].content).toMatch(/have not read it/);
        expect(res[2].is_error).toBeFalsy();
        expect(res[3].is_error).toBeFalsy();
        // Someone else changes the file between the model's read and its edit.
        writeFileSync(file, "NAME = demo\nTIMEOUT = 45\nRETRIES = 3\n");
        return reply.tool("edit_file", { path: "src/config.txt", old: "NAME = demo", new: "NAME = prod" });
      },
      (req) => {
        const [res] = toolResults(req);
        expect(res.is_error).toBe(true);
        expect(res.content).toMatch(/changed on disk since you read it/);
        expect(res.content).toMatch(/read_file/);
        return reply.tool("read_file", { path: "src/config.txt" });
      },
      (req) => {
        expect(toolResults(req)[0].content).toContain("RETRIES = 3");
        return reply.tool("edit_file", { path: "src/config.txt", old: "NAME = demo", new: "NAME = prod" });
      },
      (req) => {
        expect(toolResults(req)[0].is_error).toBeFalsy();
        return done(req);
      },
    ]);
    const out = await r.run(task());
    expect(out.result.error).toBeUndefined();
    expect(readFileSync(file, "utf8")).toBe("NAME = prod\nTIMEOUT = 45\nRETRIES = 3\n");
    expect(readFileSync(path.join(project, "src/other.txt"), "utf8")).toBe("keep me\n");
    expect(readFileSync(path.join(project, "src/new.txt"), "utf8")).toBe("brand new\n");
  });

  it("tells the model when a file it read changes on disk (here through its own command)", async () => {
    const r = await runner([
      () => reply.tool("read_file", { path: "src/config.txt" }),
      () => reply.tool("run_command", { command: "echo 'EXTRA = 1' >> src/config.txt" }),
      (req) => {
        const last = req.body.messages[req.body.messages.length - 1].content as Array<{ type: string; text?: string }>;
        const note = last.find((b) => b.type === "text");
        expect(note?.text).toMatch(/changed on disk after you read them.*src\/config.txt/);
        return reply.tool("edit_file", { path: "src/config.txt", old: "EXTRA = 1", new: "EXTRA = 2" });
      },
      (req) => {
        expect(toolResults(req)[0].content).toMatch(/have not read it|changed on disk/);
        return done(req);
      },
    ]);
    await r.run(task());
  });

  it("bounds a huge file read and a huge command output", async () => {
    const line = "0123456789".repeat(8);
    writeFileSync(
      path.join(project, "big.txt"),
      Array.from({ length: 5000 }, (_, i) => `${i + 1}:${line}`).join("\n") + "\n",
    );
    const r = await runner([
      () =>
        reply.tools(
          ["read_file", { path: "big.txt" }],
          [
            "run_command",
            { command: `node -e "process.stdout.write('x'.repeat(300000)); process.stdout.write('THE-END')"` },
          ],
        ),
      (req) => {
        const [read, cmd] = toolResults(req);
        expect(read.is_error).toBeFalsy();
        expect(read.content.length).toBeLessThan(45_000);
        expect(read.content).toMatch(/showing lines 1-\d+ of 5000; call read_file with offset=\d+ to continue/);
        expect(cmd.content.length).toBeLessThan(20_000);
        expect(cmd.content).toContain("THE-END");
        expect(cmd.content).toMatch(/first \d+ characters of output omitted/);
        expect(cmd.content).toContain("Exit code 0");
        // A partial read does not authorize an overwrite.
        return reply.tool("write_file", { path: "big.txt", content: "gone" });
      },
      (req) => {
        const [res] = toolResults(req);
        expect(res.is_error).toBe(true);
        expect(res.content).toMatch(/read only part of big.txt/);
        return done(req);
      },
    ]);
    await r.run(task());
    expect(readFileSync(path.join(project, "big.txt"), "utf8")).toContain("5000:");
  });

  it("elides the oldest tool results once they outgrow the history budget", async () => {
    writeFileSync(path.join(project, "mid.txt"), ("m".repeat(100) + "\n").repeat(30));
    const r = await runner(
      [
        () => reply.tool("read_file", { path: "mid.txt" }),
        () => reply.tool("read_file", { path: "mid.txt" }),
        () => reply.tool("read_file", { path: "mid.txt" }),
        (req) => {
          const all = req.body.messages
            .flatMap((m) => (typeof m.content === "string" ? [] : m.content))
            .filter((b) => b.type === "tool_result");
          expect(all).toHaveLength(3);
          expect(all[0].content).toMatch(/earlier tool result elided/);
          expect(all[2].content).toContain("mmm");
          return done(req);
        },
      ],
      { historyBudgetChars: 7000 },
    );
    expect((await r.run(task())).result.error).toBeUndefined();
  });

  it("rejects an invalid report_result with the reason and accepts the corrected one", async () => {
    const r = await runner([
      () => reply.tool("report_result", { kind: "executed", outcome: "finished" }),
      (req) => {
        const [res] = toolResults(req);
        expect(res.is_error).toBe(true);
        expect(res.content).toMatch(/outcome/);
        return reply.tool("report_result", { kind: "verified", verdict: "pass" });
      },
      (req) => {
        const [res] = toolResults(req);
        expect(res.is_error).toBe(true);
        expect(res.content).toMatch(/expects a result of kind "executed"/);
        return reply.tool("report_result", { kind: "executed", outcome: "checkpoint" });
      },
      (req) => {
        expect(toolResults(req)[0].content).toMatch(/lacks checkpoint/);
        return reply.tool("report_result", {
          outcome: "checkpoint",
          checkpoint: { type: "human-verify", label: "Look at the login page" },
        });
      },
    ]);
    const out = await r.run(task());
    expect(out.result).toEqual({
      kind: "executed",
      outcome: "checkpoint",
      checkpoint: { type: "human-verify", label: "Look at the login page" },
    });
  });

  it("nudges a model that stops without reporting", async () => {
    const r = await runner([
      () => reply.text("All done, I think."),
      (req) => {
        const last = req.body.messages[req.body.messages.length - 1];
        expect(JSON.stringify(last.content)).toContain("report_result");
        return done(req);
      },
    ]);
    expect((await r.run(task())).result).toEqual({ kind: "executed", outcome: "complete" });
  });

  it("ends at the step limit with an error result", async () => {
    const r = await runner(
      [
        () => reply.tool("list_files", {}),
        () => reply.tool("list_files", {}),
        (req) => {
          expect(JSON.stringify(req.body.messages[req.body.messages.length - 1].content)).toContain("one turn left");
          return reply.tool("list_files", {});
        },
      ],
      { maxTurns: 3 },
    );
    const out = await r.run(task());
    expect(out.result.kind).toBe("executed");
    expect(out.result.error).toMatch(/^step limit reached/);
    expect(fake!.requests).toHaveLength(3);
    expect(out.usage!.inputTokens).toBe(300);
  });

  it("turns a server error into an error result, and an auth failure into a thrown AutopilotError", async () => {
    const r = await runner([() => ({ status: 529, type: "overloaded_error", message: "Overloaded" })]);
    const out = await r.run(task());
    expect(out.result.error).toMatch(/model API call failed on turn 1: 529 overloaded_error: Overloaded/);
    await fake!.close();

    const r2 = await runner([() => ({ status: 401, type: "authentication_error", message: "invalid x-api-key" })]);
    const err = await r2.run(task()).catch((e) => e);
    expect(err).toBeInstanceOf(AutopilotError);
    expect(err.message).toMatch(/ANTHROPIC_API_KEY/);
  });

  it("needs an API key, and says how to provide one", () => {
    expect(() => new AnthropicRunner({ env: {} })).toThrow(/ANTHROPIC_API_KEY/);
  });

  it("honours the abort signal", async () => {
    const ac = new AbortController();
    const r = await runner([
      () => {
        ac.abort(new Error("user stopped"));
        return reply.tool("list_files", {});
      },
      () => reply.tool("list_files", {}),
    ]);
    await expect(r.run(task(), ac.signal)).rejects.toThrow(/user stopped|abort/i);
    expect(fake!.requests.length).toBeLessThanOrEqual(1);
  });
});
