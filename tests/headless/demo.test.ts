// `autopilot demo` through the built CLI: no configuration, no network, the current directory
// untouched, every state, a retry, a policy-approved pause, commits and DONE.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, cli } from "./_cli.js";
import { RETRY_BUDGET } from "../../src/rules/policy.js";

let cwd: string;
let repoDir: string | undefined;
beforeAll(async () => {
  assertBuilt();
  cwd = await mkdtemp(path.join(tmpdir(), "autopilot-demo-cwd-"));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
  if (repoDir?.includes("autopilot-demo-")) await rm(repoDir, { recursive: true, force: true });
});

describe("autopilot demo", () => {
  it("runs the bundled spec to DONE and shows the whole story", async () => {
    // No git identity and no global config: the demo must bring its own.
    const res = await cli(["demo"], { cwd, env: { GIT_CONFIG_GLOBAL: "/dev/null", HOME: cwd, ANTHROPIC_API_KEY: "" } });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    const out = res.stdout;
    repoDir = /^Repository: (.+)$/m.exec(out)?.[1];
    expect(repoDir).toBeTruthy();
    expect(out.split("\n")[0]).toContain("personas are simulated by the scripted runner");
    for (const state of [
      "INIT",
      "ASSESS",
      "PLAN",
      "APPROVE_PLAN",
      "EXECUTE",
      "VERIFY",
      "REVIEW",
      "PHASE_COMPLETE",
      "FINAL_REVIEW",
      "DONE",
    ]) {
      expect(out, state).toMatch(new RegExp(`\\] .*\\b${state}\\b`));
    }
    // The first plan leaves out a verification step: the plan check sends it back once, and the
    // planner's second plan passes.
    expect(out).toMatch(
      /The plan check found 1 problem in the plan; it goes back to the planner \(send-back 1 of \d\):\n\s+- Task 1 \(Counting Core step 1\) has no verification step/,
    );
    expect(out.match(/The plan check found/g)).toHaveLength(1);
    // The second plan passed the check: the auto-approve report is the skill's, with no line for it.
    expect(out).toMatch(
      /Auto-approved Phase 1: Counting Core\n\s+Review mode: auto\n\s+Complexity: low \(no override\)\n/,
    );
    expect(out).not.toContain("Plan check: passed");
    // Nothing the next line or the next Step says again: the start, the final review's coming.
    expect(out).not.toContain("Starting Phase 1.");
    expect(out).not.toContain("the final review of the whole change is next");
    expect(out).toMatch(
      /APPROVE_PLAN · ask: Approve this plan[\s\S]*Planner concerns: 1 concern\(s\) \(triggered\)[\s\S]*→ "yes" by policy: --yes policy: approve plans/,
    );
    expect(out).toContain(`(Retry 1/${RETRY_BUDGET}, phase 2: File Reading and Totals)`);
    expect(out).toContain(`(Retry 2/${RETRY_BUDGET}, phase 2: File Reading and Totals)`);
    expect(out).toContain('→ "fix" by policy');
    expect(out).toMatch(/DONE in [\d.]+s · 3 phases completed/);
    expect(out).toMatch(/Decision log[\s\S]*APPROVE_PLAN\s+approved_plan \(yes\)\s+policy\s+plannerConcerns/);
    expect(out).toMatch(/git log --oneline:\n(\s+[0-9a-f]{7,} .*\n)+/);
    expect(out).toMatch(/Committed [0-9a-f]{7} Add Counting Core up to step 2/);
    expect(out).toMatch(/Committed [0-9a-f]{7} Fix unchecked input reaches the parser/);
    // The current directory is untouched.
    expect(await readdir(cwd)).toEqual([]);
    expect(repoDir!.startsWith(path.resolve(cwd))).toBe(false);
  });

  it("takes no arguments", async () => {
    const res = await cli(["demo", "--bogus"], { cwd });
    expect(res.code).toBe(2);
  });
});
