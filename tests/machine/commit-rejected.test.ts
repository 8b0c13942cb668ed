// A commit the repository's hooks refuse, rule by rule: the pre-commit hook's complaint is the
// executor's to fix within the retry budget, with escalating context; past the budget, or when a
// hook refuses the message, the user is asked; the same commit (the same effect id) is owed again
// afterwards, made with --no-verify only when the user chose it; every refusal is recorded.
import { describe, expect, it } from "vitest";

import type { AutopilotState, Effect } from "../../src/session/schema.js";
import { renderStep } from "../../src/engine/step.js";
import { briefContent, dispatchFor } from "../../src/personas/dispatch.js";
import { RETRY_BUDGET } from "../../src/rules/policy.js";
import { blocking, finishPhase, note, plan, planned, send, started, where } from "./helpers.js";

const slug = "changes--scanner--proposal";
const core = { name: "Core Scanner", complexity: "low" as const };
const LINT = 'lint: no console.log\nsrc/core/a.ts:2:console.log("debug");';

/** The commit the last transition owed. */
function owed(s: AutopilotState): Extract<Effect, { type: "commit" }> {
  const c = s.outbox.filter((e) => e.type === "commit").at(-1);
  if (c?.type !== "commit") throw new Error(`no commit owed at ${where(s)}: ${JSON.stringify(s.outbox)}`);
  return c;
}

function refuse(s: AutopilotState, hook = "pre-commit", output = LINT, commit = owed(s)): AutopilotState {
  return send(s, { type: "COMMIT_REJECTED", commit, hook, output, paths: ["src/core/a.ts"] });
}

const report = (s: AutopilotState) => renderStep(s, slug).report ?? "";

function executionComplete(opts: { rigor?: "fast" | "standard" } = {}): AutopilotState {
  const s = planned(started([core], { rigor: opts.rigor }), plan(3));
  return send(s, { type: "EXECUTED", outcome: "complete" });
}

/** lint-staged refusing a commit for prettier, as it prints it: the cause is far from the first line. */
const LINT_STAGED = [
  "[STARTED] Backing up original state...",
  "[COMPLETED] Backed up original state in git stash (5a1b2c3)",
  "[STARTED] Running tasks for staged files...",
  "[STARTED] package.json — 2 files",
  "[STARTED] *.ts — 2 files",
  "[STARTED] prettier --check",
  "[FAILED] prettier --check [FAILED]",
  "[STARTED] Applying modifications from tasks...",
  "[SKIPPED] Skipped because of errors from tasks.",
  "[STARTED] Reverting to original state because of errors...",
  "[COMPLETED] Reverting to original state because of errors...",
  "[STARTED] Cleaning up temporary files...",
  "[COMPLETED] Cleaning up temporary files...",
  "",
  "✖ prettier --check:",
  "Checking formatting...",
  "[warn] src/core/a.ts",
  "[warn] src/core/b.ts",
  "[warn] Code style issues found in 2 files. Run Prettier with --write to fix.",
  "husky - pre-commit script failed (code 1)",
  "",
].join("\n");

describe("the hook-fix job: a brief of its own", () => {
  it("says what was refused (no task failed), the whole output, the files, what to run; the recorded reason is the line that says why", () => {
    let s = executionComplete();
    const commit = owed(s);
    s = refuse(s, "pre-commit", LINT_STAGED, commit);
    const brief = briefContent(s, slug, {
      commitChecks: {
        tools: ["husky", "lint-staged"],
        checks: [
          {
            hook: "pre-commit",
            source: `package.json "lint-staged"`,
            command: "prettier --check",
            glob: "*.ts",
            takesFiles: true,
            rewrites: false,
            readOnly: "prettier --check",
          },
        ],
      },
    });
    expect(brief.split("\n")[0]).toBe(`# Brief for step ${s.stepId}: fix what the pre-commit hook refused`);
    expect(brief).not.toMatch(/\(VERIFY\)|for the failed task only|Earlier attempts are listed below/);
    expect(brief).toContain("No task failed: the work is done and waits to be committed");
    // Every line the hook printed, though the report shows the first 20.
    for (const line of LINT_STAGED.split("\n").filter(Boolean)) expect(brief).toContain(line);
    expect(report(s)).toMatch(/… \(\d+ more lines\)/);
    expect(brief).toContain("## Files in the commit\n\n- src/core/a.ts");
    expect(brief).toContain("## To check before you reply\n\n- `prettier --check src/core/a.ts`");
    expect(brief).toContain("## The repository's commit checks");
    const cause = "prettier --check: [warn] Code style issues found in 2 files. Run Prettier with --write to fix.";
    expect(s.decisions.at(-1)!.note).toContain(cause);
    expect(s.decisions.at(-1)!.note).not.toContain("[STARTED]");
    // The cause is kept as a learning of the session, for every later executor's brief.
    expect(s.outbox).toContainEqual(
      expect.objectContaining({
        type: "appendSessionLearnings",
        args: expect.objectContaining({
          items: [expect.stringContaining(`The repository's pre-commit hook refused a commit: ${cause}`)],
        }),
      }),
    );
    // A second refusal lists the first by its cause, not its first line.
    s = refuse(send(s, { type: "FIXED", summary: "formatted a.ts" }), "pre-commit", LINT_STAGED, commit);
    expect(briefContent(s, slug, {})).toContain(
      `- Attempt 1 (${s.phaseRun.rejectedCommit!.attempts[0].timestamp}): ${cause}`,
    );
  });
});

describe("a commit the pre-commit hook refuses", () => {
  it("goes to the executor as a fix with the hook's output, the same retry budget and escalating context; then the same commit is owed again", () => {
    let s = executionComplete();
    expect(where(s)).toBe("VERIFY.running");
    const commit = owed(s);
    const levels = [
      /Read the hook's whole output below/,
      /refused this commit 1 time before/,
      /last attempt before a person is asked/,
    ];
    for (let attempt = 1; attempt <= RETRY_BUDGET; attempt++) {
      s = refuse(s, "pre-commit", LINT, commit);
      expect(where(s)).toBe("VERIFY.commitFix");
      expect(s.phaseRun.rejectedCommit?.attempts).toHaveLength(attempt);
      expect(s.phaseRun.retriesUsed).toBe(attempt);
      const d = dispatchFor(s)!;
      expect(d.persona).toBe("harness-task-executor");
      expect(d.expects.result).toBe("fixed");
      expect(d.prompt).toMatch(
        new RegExp(
          `pre-commit hook rejected the commit of phase 1/1 "Core Scanner".*attempt ${attempt} of ${RETRY_BUDGET}`,
        ),
      );
      const brief = briefContent(s, slug, {});
      expect(brief).toContain("## What the pre-commit hook printed");
      expect(brief).toContain('src/core/a.ts:2:console.log("debug");');
      expect(brief).toContain("- src/core/a.ts");
      expect(brief).toMatch(levels[attempt - 1]);
      expect(brief).toMatch(/Do not commit, do not skip the hook \(no --no-verify\)/);
      if (attempt > 1) expect(brief).toContain("## Earlier attempts");
      else expect(brief).not.toMatch(/Earlier attempts/);
      expect(report(s)).toContain(`Retry ${attempt}/${RETRY_BUDGET}: the task executor fixes what the hook reports`);
      s = send(s, { type: "FIXED", summary: "removed the debug line" });
      expect(where(s)).toBe("VERIFY.running");
      expect(s.outbox).toEqual([commit]);
    }
    // One refusal past the budget: the user is asked.
    s = refuse(s, "pre-commit", LINT, commit);
    expect(where(s)).toBe("VERIFY.commitBlocked");
    expect(s.phaseRun.retriesUsed).toBe(RETRY_BUDGET);
    const next = renderStep(s, slug).next;
    expect(next.kind).toBe("ask");
    if (next.kind !== "ask") return;
    expect(next.options).toEqual(["fix it yourself and continue", "commit without hooks this once", "stop"]);
    expect(next.question).toMatch(
      new RegExp(
        `pre-commit hook rejected autopilot's commit "Phase 1: Core Scanner — execution complete" ${RETRY_BUDGET + 1} times; the retry budget \\(${RETRY_BUDGET} attempts\\) is spent`,
      ),
    );
    expect(next.context).toContain('src/core/a.ts:2:console.log("debug");');
    // Every refusal is in the decision log, as the machine's own record.
    const refusals = s.decisions.filter((d) => d.decision === "commit_rejected");
    expect(refusals).toHaveLength(RETRY_BUDGET + 1);
    expect(
      refusals.every(
        (d) =>
          d.by === "auto" && /pre-commit hook rejected "Phase 1: Core Scanner — execution complete"/.test(d.note ?? ""),
      ),
    ).toBe(true);
  });

  it.each([
    ["fix it yourself and continue", "fixed_commit_manually", undefined],
    ["commit without hooks this once", "committed_without_hooks", true],
  ])("past the budget, %s owes the same commit again (--no-verify only when chosen)", (answer, decision, noVerify) => {
    let s = executionComplete();
    const commit = owed(s);
    for (let i = 0; i <= RETRY_BUDGET; i++)
      s = i ? refuse(send(s, { type: "FIXED", summary: "tried" }), "pre-commit", LINT, commit) : refuse(s);
    expect(where(s)).toBe("VERIFY.commitBlocked");
    s = send(s, { type: "DECIDE", answer, by: "terminal", rationale: "added the headers" });
    expect(where(s)).toBe("VERIFY.running");
    expect(s.outbox).toHaveLength(1);
    expect(s.outbox[0].id).toBe(commit.id);
    expect(s.outbox[0].args.noVerify).toBe(noVerify);
    expect(s.decisions.at(-1)).toMatchObject({ decision, answer, by: "terminal", rationale: "added the headers" });
  });

  it('with --human-gates, only a person may answer "commit without hooks this once"', () => {
    let s = executionComplete();
    s = { ...s, humanOnlyGates: true };
    s = refuse(s, "commit-msg", "subject may not be empty [subject-empty]");
    const next = renderStep(s, slug).next;
    expect(next.kind === "ask" && next.humanOnly).toEqual(["commit without hooks this once"]);
  });

  it("with --fast, the fixed commit goes on to the project's validation", () => {
    let s = executionComplete({ rigor: "fast" });
    expect(where(s)).toBe("VERIFY.validating");
    s = refuse(s);
    expect(where(s)).toBe("VERIFY.commitFix");
    s = send(s, { type: "FIXED", summary: "done" });
    expect(where(s)).toBe("VERIFY.validating");
  });

  it("an executor that cannot fix it hands the question to the user", () => {
    let s = refuse(executionComplete());
    s = send(s, { type: "PERSONA_FAILED", error: "the hook needs a database I cannot start" });
    expect(where(s)).toBe("VERIFY.commitBlocked");
    expect(report(s)).toContain("the hook needs a database I cannot start");
  });

  it("stop keeps the question: the session resumes at it", () => {
    let s = refuse(executionComplete(), "commit-msg", "x");
    s = send(s, { type: "DECIDE", answer: "stop", by: "host" });
    expect(renderStep(s, slug).next.kind).toBe("wait");
    s = send(s, { type: "RESUME" });
    expect(where(s)).toBe("VERIFY.commitBlocked");
    expect(renderStep(s, slug).next.kind).toBe("ask");
  });
});

describe("a commit refused elsewhere", () => {
  it("a commit-msg hook refuses the message, which the executor cannot change: the user is asked at once, told about commitMessage", () => {
    const s = refuse(executionComplete(), "commit-msg", "✖   subject may not be empty [subject-empty]");
    expect(where(s)).toBe("VERIFY.commitBlocked");
    expect(s.phaseRun.retriesUsed).toBe(0);
    expect(report(s)).toMatch(/refused autopilot's commit message.*"commitMessage" in \.harness\/config\.json/);
    const next = renderStep(s, slug).next;
    expect(next.kind === "ask" && next.question).toMatch(
      /commit-msg hook rejected autopilot's commit .* \(it checks the commit message/,
    );
  });

  it("a checkpoint's commit: fixed in EXECUTE, then the plan goes on from the checkpoint (not as a retry of a task)", () => {
    let s = planned(started([core]), plan(3));
    s = send(s, {
      type: "EXECUTED",
      outcome: "checkpoint",
      checkpoint: { type: "passed", label: "Checkpoint 1: types" },
    });
    const commit = owed(s);
    expect(commit.args.label).toBe("Checkpoint 1: types");
    s = refuse(s);
    expect(where(s)).toBe("EXECUTE.commitFix");
    s = send(s, { type: "FIXED", summary: "ok" });
    expect(where(s)).toBe("EXECUTE.running");
    expect(s.outbox).toEqual([commit]);
    expect(dispatchFor(s)?.prompt).toMatch(
      /^Continue phase 1\/1 "Core Scanner" after checkpoint "Checkpoint 1: types"/,
    );
  });

  it("a final review fix round's commit: fixed in FINAL_REVIEW, then validated as usual", () => {
    let s = finishPhase(planned(started([core]), plan(2)));
    s = send(s, { type: "REVIEWED", findings: [blocking] });
    s = send(s, { type: "DECIDE", answer: "fix", by: "host" });
    s = send(s, { type: "FIXED", summary: "fixed" });
    expect(where(s)).toBe("FINAL_REVIEW.validating");
    s = refuse(s);
    expect(where(s)).toBe("FINAL_REVIEW.commitFix");
    expect(dispatchFor(s)?.prompt).toMatch(/rejected the commit of the final review's fixes/);
    s = send(s, { type: "FIXED", summary: "ok" });
    expect(where(s)).toBe("FINAL_REVIEW.validating");
    expect(s.decisions.find((d) => d.decision === "commit_rejected")?.phase).toBeNull();
    s = send(s, { type: "VALIDATED", passed: true, summary: "ok" });
    s = send(s, { type: "REVIEWED", findings: [note] });
    expect(where(s)).toBe("DONE");
  });

  it("a recovery commit is not retried: the question about the exhausted budget stands, and the refusal is recorded", () => {
    let s = planned(started([core]), plan(3));
    for (let i = 0; i <= RETRY_BUDGET; i++)
      s = send(s, { type: "EXECUTED", outcome: "failed", task: { number: 1, name: "t" }, error: "e" });
    expect(where(s)).toBe("EXECUTE.exhausted");
    const recovery = owed(s);
    expect(recovery.args.recovery).toBe(true);
    s = refuse(s, "pre-commit", "tests failed", recovery);
    expect(where(s)).toBe("EXECUTE.exhausted");
    expect(s.outbox).toEqual([]);
    expect(report(s)).toMatch(/recovery commit is not retried: its work stays uncommitted/);
    expect(s.decisions.at(-1)).toMatchObject({ decision: "commit_rejected", by: "auto" });
  });
});
