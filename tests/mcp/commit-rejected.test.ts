// Over MCP, against the built server: a commit the repository refuses is never `internal`. The
// pre-commit hook's complaint is the next Step (the executor's fix, its output in the report); a
// signing failure is a structured `commit_rejected` error with a todo, and the next call after the
// fix makes the commit once. (Plain shell hooks; the real tools: tests/repos, `npm run test:repos`.)
import { describe, expect, it } from "vitest";
import { chmod, writeFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { agreeable, call, openSession, playHost, SCANNER_SLUG, specWith, stepCall } from "../helpers/mcp-client.js";
import { autopilotCommits, git } from "../helpers/git.js";
import { SIDE_BY_SIDE } from "../helpers/timeouts.js";

const SPEC = specWith([{ name: "Core", complexity: "low" }]);

async function hook(root: string, name: string, script: string) {
  const file = path.join(root, ".git/hooks", name);
  await writeFile(file, `#!/bin/sh\n${script}\n`);
  await chmod(file, 0o755);
}

describe.concurrent("a refused commit over MCP", { timeout: SIDE_BY_SIDE }, () => {
  it("the pre-commit hook's complaint is the next Step: the executor's fix, with the hook's output", async ({
    onTestFinished,
  }) => {
    const s = await openSession({ spec: SPEC });
    onTestFinished(() => s.dispose());
    await hook(s.root, "pre-commit", `grep -rn 'console\\.log' src/ && exit 1; exit 0`);
    const runner = new ScriptedRunner({
      phases: { 0: { tasks: 1, files: { "src/core/debug.ts": 'console.log("debug");\nexport const x = 1;\n' } } },
    });
    const seen: string[] = [];
    const final = await playHost(s.srv.client, s.root, await s.start(), runner, agreeable, {
      until: (st) => {
        if (st.next.kind === "dispatch")
          seen.push(`${st.state} ${st.next.persona} ${st.next.expects.result} ${st.report ?? ""}`);
        return false;
      },
    });
    expect(final.state).toBe("DONE");
    const fix = seen.find((x) => x.startsWith("VERIFY harness-task-executor fixed"));
    expect(fix).toContain('src/core/debug.ts:1:console.log("debug");');
    expect((await autopilotCommits(s.root)).map((c) => c.subject)).toEqual(["Add Core"]);
  });

  it("Claude Code's lean Step (no expects): the fix dispatch's result kind is read from its brief, and the session is DONE", async ({
    onTestFinished,
  }) => {
    const s = await openSession({ spec: SPEC, server: { name: "claude-code" } });
    onTestFinished(() => s.dispose());
    await hook(s.root, "pre-commit", `grep -rn 'console\\.log' src/ && exit 1; exit 0`);
    const runner = new ScriptedRunner({
      phases: { 0: { tasks: 1, files: { "src/core/debug.ts": 'console.log("debug");\nexport const x = 1;\n' } } },
    });
    let lean = false;
    const final = await playHost(s.srv.client, s.root, await s.start(), runner, agreeable, {
      until: (st) => {
        // The lean Step has no state either: the prompt says this is the refused commit's fix.
        if (
          st.next.kind === "dispatch" &&
          st.next.persona === "harness-task-executor" &&
          /hook rejected the commit/.test(st.next.prompt)
        )
          lean = !("expects" in st.next) && !("state" in st);
        return false;
      },
    });
    expect(lean).toBe(true);
    expect(final.next.kind).toBe("done");
  });

  it("signing that fails is a structured commit_rejected error with a todo, never internal; after the fix autopilot_next commits once", async ({
    onTestFinished,
  }) => {
    const s = await openSession({ spec: SPEC });
    onTestFinished(() => s.dispose());
    const signer = path.join(s.root, ".git", "failing-gpg");
    await writeFile(signer, '#!/bin/sh\necho "gpg: signing failed: No pinentry" >&2\nexit 2\n');
    await chmod(signer, 0o755);
    await git(s.root, "config", "commit.gpgsign", "true");
    await git(s.root, "config", "gpg.program", signer);
    const runner = new ScriptedRunner({ phases: { 0: { tasks: 1 } } });
    const execute = await playHost(s.srv.client, s.root, await s.start(), runner, agreeable, {
      until: (st) => st.state === "EXECUTE",
    });
    const { result } = await runner.run({
      persona: "harness-task-executor",
      description: "",
      prompt: execute.next.kind === "dispatch" ? execute.next.prompt : "",
      expects: execute.next.kind === "dispatch" ? execute.next.expects : { result: "executed" },
      projectRoot: s.root,
      session: SCANNER_SLUG,
      phaseIndex: 0,
      phaseName: "Core",
    });
    const refused = await call(s.srv.client, "autopilot_report", {
      session: SCANNER_SLUG,
      stepId: execute.stepId,
      result,
    });
    expect(refused.result.isError).toBe(true);
    expect(refused.error?.code).toBe("commit_rejected");
    expect(refused.error?.message).toMatch(
      /Git could not sign autopilot's commit "Phase 1: Core — execution complete"/,
    );
    expect(refused.error?.todo).toMatch(/call autopilot_next \(the commit is made once\)/);
    expect(refused.text).toMatch(/^Error \[commit_rejected\]/);
    const again = await call(s.srv.client, "autopilot_next", { session: SCANNER_SLUG });
    expect(again.error?.code).toBe("commit_rejected");
    await git(s.root, "config", "--unset", "gpg.program");
    await git(s.root, "config", "commit.gpgsign", "false");
    const step = await stepCall(s.srv.client, "autopilot_next", { session: SCANNER_SLUG });
    expect(step.state).toBe("VERIFY");
    expect(step.report).toMatch(/Committed [0-9a-f]{7} Add Core/);
    const final = await playHost(s.srv.client, s.root, step, runner, agreeable);
    expect(final.state).toBe("DONE");
    expect(
      (await git(s.root, "log", "--format=%(trailers:key=Autopilot-Effect,valueonly)"))
        .split("\n")
        .filter((l) => l.trim()),
    ).toHaveLength(1);
  });
});
