// The command runner with small Node scripts standing in for an agent CLI.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CommandRunner, extractResult } from "../../src/runners/command.js";
import type { PersonaTask } from "../../src/runners/types.js";

let dir: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "autopilot-command-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function task(over: Partial<PersonaTask> = {}): PersonaTask {
  return {
    persona: "harness-planner",
    description: "Plan phase 1: Core",
    prompt: "Write the plan for phase 1 to docs/plans/core.md.",
    expects: { result: "planned", artifacts: { plan: "docs/plans/core.md" } },
    projectRoot: dir,
    session: "demo",
    phaseIndex: 0,
    phaseName: "Core",
    ...over,
  };
}

// A killed process whose parent is gone may linger as a zombie when PID 1 does not reap (containers).
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

function script(name: string, body: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, body);
  return `node ${JSON.stringify(file)}`;
}

describe("CommandRunner", () => {
  it("feeds the prompt on stdin, substitutes {persona} and parses the last json block", async () => {
    const cmd = script(
      "agent.mjs",
      `import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
const prompt = readFileSync(0, "utf8");
mkdirSync("docs/plans", { recursive: true });
writeFileSync("docs/plans/core.md", "# Plan\\n### Task 1: do it\\n");
writeFileSync("seen.txt", JSON.stringify({ argv: process.argv.slice(2), prompt, persona: process.env.AUTOPILOT_PERSONA }));
console.log("Thinking...\\n\`\`\`json\\n{\\"kind\\":\\"planned\\",\\"summary\\":\\"draft\\"}\\n\`\`\`");
console.log("Final:\\n\`\`\`json\\n" + JSON.stringify({ kind: "planned", planPath: "docs/plans/core.md", concerns: [] }, null, 2) + "\\n\`\`\`\\nbye");
`,
    );
    const runner = new CommandRunner({ command: `${cmd} --agent {persona}`, env: { PATH: process.env.PATH } });
    const out = await runner.run(task());
    expect(out.result).toEqual({ kind: "planned", planPath: "docs/plans/core.md", concerns: [] });
    expect(readFileSync(path.join(dir, "docs/plans/core.md"), "utf8")).toContain("Task 1");
    const seen = JSON.parse(readFileSync(path.join(dir, "seen.txt"), "utf8"));
    expect(seen.argv).toEqual(["--agent", "harness-planner"]);
    expect(seen.persona).toBe("harness-planner");
    expect(seen.prompt).toContain("Write the plan for phase 1");
    expect(seen.prompt).toContain("plan: docs/plans/core.md");
    expect(seen.prompt).toContain('```json block of kind "planned"');
  });

  it("accepts a bare JSON line and a claude -p --output-format json envelope", async () => {
    const bare = new CommandRunner({ command: `echo 'done.'; echo '{"verdict":"pass"}'` });
    expect(
      (await bare.run(task({ persona: "harness-verifier", expects: { result: "verified", artifacts: {} } }))).result,
    ).toEqual({
      kind: "verified",
      verdict: "pass",
    });
    const envelope = JSON.stringify({
      type: "result",
      subtype: "success",
      result: 'Reviewed.\n```json\n{"kind":"reviewed","findings":[{"severity":"warning","title":"No tests"}]}\n```',
    });
    const wrapped = new CommandRunner({ command: `printf '%s\\n' '${envelope}'` });
    const out = await wrapped.run(
      task({ persona: "harness-code-reviewer", expects: { result: "reviewed", artifacts: {} } }),
    );
    expect(out.result).toEqual({ kind: "reviewed", findings: [{ severity: "warning", title: "No tests" }] });
  });

  it("kills a hanging agent and its children at the time limit", async () => {
    const pidFile = path.join(dir, "child.pid");
    const cmd = script(
      "hang.mjs",
      `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));
console.error("working on it");
setInterval(() => {}, 1000);
`,
    );
    const runner = new CommandRunner({ command: cmd, timeoutSec: 1 });
    // The agent never exits by itself: this returns only because the limit killed it.
    const out = await runner.run(task());
    expect(out.result.kind).toBe("planned");
    expect(out.result.error).toMatch(/timed out after 1s and was killed/);
    expect(out.result.error).toContain("working on it");
    const pid = Number(readFileSync(pidFile, "utf8"));
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(pid)).toBe(false);
  });

  it("turns garbage, invalid JSON, a wrong result and a non-zero exit into error results", async () => {
    const garbage = await new CommandRunner({ command: "echo 'I could not decide.'" }).run(task());
    expect(garbage.result.error).toMatch(/printed no result.*I could not decide/);

    const invalid = await new CommandRunner({ command: "printf '```json\\n{kind: planned,}\\n```\\n'" }).run(task());
    expect(invalid.result.error).toMatch(/not valid JSON/);

    const wrongKind = await new CommandRunner({ command: `echo '{"kind":"fixed","summary":"x"}'` }).run(task());
    expect(wrongKind.result.error).toMatch(/expects a result of kind "planned"/);

    const failed = await new CommandRunner({ command: "echo 'partial' ; echo 'boom: no credentials' >&2; exit 3" }).run(
      task(),
    );
    expect(failed.result.kind).toBe("planned");
    expect(failed.result.error).toMatch(/exited with code 3/);
    expect(failed.result.error).toContain("boom: no credentials");

    const missing = await new CommandRunner({ command: "definitely-not-an-agent-cli-xyz {persona}" }).run(task());
    expect(missing.result.error).toMatch(/exited with code 127.*not found/s);
  });

  it("bounds what it keeps of a flood of output", async () => {
    const cmd = script(
      "flood.mjs",
      `process.stdout.write("noise ".repeat(500000));
process.stdout.write("\\n\`\`\`json\\n{\\"kind\\":\\"planned\\"}\\n\`\`\`\\n");
`,
    );
    const out = await new CommandRunner({ command: cmd, maxStdoutChars: 10_000 }).run(task());
    expect(out.result).toEqual({ kind: "planned" });
  });

  it("takes the template from AUTOPILOT_RUNNER_COMMAND and explains when there is none", async () => {
    expect(() => new CommandRunner({ env: {} })).toThrow(/AUTOPILOT_RUNNER_COMMAND/);
    const runner = new CommandRunner({
      env: { ...process.env, AUTOPILOT_RUNNER_COMMAND: `echo '{"kind":"{result}","summary":"{persona}"}'` },
    });
    const out = await runner.run(
      task({ persona: "harness-task-executor", expects: { result: "fixed", artifacts: {} } }),
    );
    expect(out.result).toEqual({ kind: "fixed", summary: "harness-task-executor" });
  });

  it("kills the agent when the run is aborted", async () => {
    const ac = new AbortController();
    const runner = new CommandRunner({ command: "sleep 30", timeoutSec: 60 });
    setTimeout(() => ac.abort(new Error("stop requested")), 200);
    const started = Date.now();
    await expect(runner.run(task(), ac.signal)).rejects.toThrow(/stop requested/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(existsSync(dir)).toBe(true);
  });
});

describe("extractResult", () => {
  it("prefers the last fenced block over earlier ones and over JSON lines", () => {
    const r = extractResult(
      '{"kind":"a"}\n```json\n{"kind":"b"}\n```\ntext\n```json\n{"kind":"c"}\n```\n{"not":"a result"}x',
    );
    expect(r).toEqual({ ok: true, value: { kind: "c" } });
  });
});
