// Turns a resting state into the dispatch the host must carry out: which persona, a one-line
// description, a short prompt, the result kind expected and the artifacts. Pure: the prompt is a
// function of the saved state. Anything long goes into a brief file the prompt names; the engine
// writes that file (see briefContent) so the host model never copies kilobytes.
import path from "node:path";
import type { AutopilotState } from "../session/schema.js";
import type { DispatchNext, PersonaName } from "../protocol/step.js";
import { stageMetaAt } from "../../machines/stages.js";
import { plansDirFor, planFileName } from "../markdown/plans-folder.js";
import { phaseSlug } from "../effects/scratchpad.js";
import {
  FINAL_REVIEW_FIX_BUDGET,
  RIGOR,
  TASK_SIZE,
  escalationBrief,
  scratchpadRule as scratchpadRuleFor,
  sendBacksAllowed,
  whatFollows,
} from "../rules/policy.js";
import { finalFixSection, phaseFixSection, reReviewSection, recheckSection } from "./finding-briefs.js";
import { briefPath, COMMIT_FIELD, fenceFor, FIX_COMMIT_FIELD, reply, resultPath } from "./brief-kit.js";
import { commitChecksSection, hookFixBrief } from "./hook-briefs.js";
import type { CommitChecks } from "../effects/commit-checks.js";
import { briefWords, wordsSection } from "./words.js";

export { briefPath, resultPath };

export interface DispatchFacts {
  /** The phase's section of the spec, for the planner. */
  phaseDescription?: string;
  /** Per-phase review findings, formatted, for the final review. */
  phaseFindings?: string;
  /** `git diff --stat` of startingCommit..HEAD, for reviewers. */
  diffStat?: string;
  /** Relevant learnings, bounded. */
  learnings?: string;
  /** The repository's commit checks (what its hooks run), for executors. */
  commitChecks?: CommitChecks | null;
}

const posix = path.posix;

/** Where one task of a parallel wave writes its JSON result (its brief names it), by the step that dispatched it. */
export function taskResultPath(state: Pick<AutopilotState, "sessionDir">, stepId: number, task: string): string {
  return posix.join(state.sessionDir, "results", `step-${stepId}-task-${task.replace(/[^A-Za-z0-9._-]+/g, "-")}.json`);
}

/** The brief of one task of a parallel wave at step `stepId`. */
function taskBriefPath(state: Pick<AutopilotState, "sessionDir">, stepId: number, task: string): string {
  return posix.join(state.sessionDir, "briefs", `step-${stepId}-task-${task.replace(/[^A-Za-z0-9._-]+/g, "-")}.md`);
}

/** The tasks of the wave an executor should work on now (running, not yet reported), in plan order. */
export function waveTasksToRun(state: AutopilotState): NonNullable<AutopilotState["phaseRun"]["waveRun"]>["tasks"] {
  return (state.phaseRun.waveRun?.tasks ?? []).filter((t) => t.status === "running" && !t.reported);
}

/**
 * The personas that record their result with the `autopilot_result` tool: they have no tool that
 * writes files (personas/*.md `tools:` Read, Bash and autopilot_result). The others (Write, Edit, and
 * no autopilot tool) write the result file themselves. tests/install/texts.test.ts holds the
 * persona files, their briefs and this set to one account.
 */
export const RECORDS_WITH_RESULT_TOOL: ReadonlySet<PersonaName> = new Set<PersonaName>([
  "harness-verifier",
  "harness-code-reviewer",
]);

/** What the brief's "- Result:" line asks of this persona: only what its tools can do. */
function resultHow(persona: PersonaName, stepId: number): string {
  return RECORDS_WITH_RESULT_TOOL.has(persona)
    ? `record your JSON result with autopilot_result, stepId ${stepId}: it writes this file`
    : "write your JSON result there too";
}

export function plannedPlanPath(state: AutopilotState): string {
  const phase = state.phases[state.currentPhase];
  if (phase.planPath) return phase.planPath;
  const date = (state.phaseRun.startedAt ?? state.updatedAt ?? "1970-01-01").slice(0, 10);
  return posix.join(plansDirFor(state.specPath), planFileName(date, phase.name));
}

function scratchpadRule(state: AutopilotState): string {
  const dir = posix.join(state.sessionDir, "scratchpad", phaseSlug(state.phases[state.currentPhase]?.name ?? "final"));
  return scratchpadRuleFor(state.rigorLevel, dir);
}

function retryLevel(state: AutopilotState): number {
  return state.retryBudget.currentTask?.attemptsUsed ?? 0;
}

interface Planned {
  next: DispatchNext;
  /** The step's rules, in the brief: what the persona must follow beyond the short prompt. */
  rules: string[];
}

/** The dispatch for the current resting state, or null when the state waits on no persona. */
export function dispatchFor(state: AutopilotState): DispatchNext | null {
  return planDispatch(state)?.next ?? null;
}

// The prompt stays a few lines (the host model reads it, and copies it into the subagent call);
// every rule goes into the brief file the prompt names, which only the persona reads. The brief
// holds what is particular to this step (paths, ranges, budgets, findings, the exact reply); the
// persona's own file holds its method, once.
function planDispatch(state: AutopilotState): Planned | null {
  // Which job, persona and result kind a stage dispatches is declared on its state node (meta.dispatch).
  const job = stageMetaAt(state.currentState, state.stage)?.dispatch;
  if (!job) return null;
  const phase = state.phases[state.currentPhase];
  const n = state.currentPhase + 1;
  const of = `${n}/${state.phases.length}`;
  const sessionDir = state.sessionDir;
  const handoff = posix.join(sessionDir, "handoff.json");
  const execState = posix.join(sessionDir, "state.json");
  const brief = briefPath(state, state.stepId);
  const { persona, result } = job;
  const sendBacks = sendBacksAllowed(state.retryBudget.maxAttempts);
  const blockingRule = `A blocking finding needs a file, a line and a scenario (the input or sequence that triggers it); a review with one that lacks them comes back to you (at most ${sendBacks} time${sendBacks === 1 ? "" : "s"}).`;
  const make = (
    description: string,
    prompt: string,
    rules: string[],
    artifacts: DispatchNext["expects"]["artifacts"],
  ): Planned => ({
    next: {
      kind: "dispatch",
      persona,
      description,
      // One line: the job, and the brief with the paths, the rules and the result to reply with (the
      // persona's own file says to read it first).
      prompt: `${prompt} Brief: ${brief}`,
      expects: { result, artifacts: { ...artifacts, brief } },
    },
    rules: rules.filter(Boolean),
  });
  const fixedShape = `{"kind":"fixed","summary":"what you changed, finding by finding","evidence":["<command>: <what it showed>"],"disputed":[{"finding":"<the id of a finding you did not change, e.g. p1-r1-2>","evidence":"<why it is wrong: output, file:line>"}],"learnings":["<what later phases should know>"],${FIX_COMMIT_FIELD}} (disputed and learnings may be empty)`;

  if (job.job === "plan") {
    const plan = plannedPlanPath(state);
    return make(
      `Plan phase ${n}: ${phase.name}`,
      `${state.phaseRun.revision ? "Revise the plan for" : "Plan"} phase ${of} "${phase.name}".`,
      [
        state.phaseRun.revision
          ? `This is a revision of the plan ${plan}: see "Why the plan goes back to you" below.`
          : "",
        `Write the plan to ${plan}: "**Tasks:** N", then per task a "### Task N: Name" heading, a "**Files:**" line, numbered steps and a "**Verify:**" line; [checkpoint:human-verify], [checkpoint:decision] or [checkpoint:human-action] in the heading of a task where a person acts, [checkpoint:commit] in the heading of a task after which the work so far is committed.`,
        state.parallel
          ? `This session runs independent tasks at the same time: under each task heading write "**Depends on:** Task N, Task M | **Files:** <path>, <path> | **Owns:** <glob>" ("**Depends on:** none" for a task that needs no other; **Owns** optional, for folders the task alone may change). Tasks that share a file never run together; a task without a Depends on line waits for the one before it; a dependency on a task the plan does not have, or a circle, sends the plan back.`
          : "",
        `Before the plan runs the server checks it: a task with no files, no verification step, a placeholder (TBD, "as needed", "etc.") or more than ${TASK_SIZE.maxFiles} files or ${TASK_SIZE.maxSteps} steps comes back to you with the list (at most ${sendBacks} time${sendBacks === 1 ? "" : "s"}; then a person judges the plan).`,
        RIGOR[state.rigorLevel].planning,
        scratchpadRule(state),
        `Write ${handoff} (replace the file) with {"fromSkill":"harness-planning","phase":"${phase.name}","summary":"...","planPath":"${plan}","taskCount":N,"checkpointCount":N,"concerns":[...],"assumptions":[...],"deferred":[...]}.`,
        reply(
          "planned",
          `{"kind":"planned","planPath":"${plan}","summary":"...","concerns":["<an unknown a person must settle before this runs>"],"assumptions":["<what you assumed where the spec is silent>"],"deferred":["<an unknown that can wait>"]} (each list may be empty)`,
        ),
        whatFollows(state.rigorLevel, "plan"),
      ],
      { plan, handoff },
    );
  }

  if (job.job === "execute") {
    const plan = phase.planPath ?? plannedPlanPath(state);
    const level = retryLevel(state);
    const cur = state.retryBudget.currentTask;
    const fix = state.phaseRun.fix;
    // A fix saved by an earlier version rests here (EXECUTE.running) and still replies "executed".
    const what = fix
      ? `Fix the ${fix.source} findings of phase ${of} "${phase.name}".`
      : level > 0 && cur
        ? `Retry ${level}/${state.retryBudget.maxAttempts} of task ${cur.number ?? "?"} (${cur.name}) of phase ${of} "${phase.name}".`
        : state.phaseRun.checkpointAnswer
          ? `Resume phase ${of} "${phase.name}" after the human checkpoint.`
          : state.phaseRun.checkpointsPassed.length
            ? `Continue phase ${of} "${phase.name}" after checkpoint "${state.phaseRun.checkpointsPassed.at(-1)}".`
            : `Execute phase ${of} "${phase.name}".`;
    return make(
      fix
        ? `Fix phase ${n}: ${phase.name}`
        : level > 0
          ? `Retry ${level}/${state.retryBudget.maxAttempts}, phase ${n}: ${phase.name}`
          : `Execute phase ${n}: ${phase.name}`,
      what,
      [
        fix
          ? "Fix exactly the findings listed below."
          : `Carry out the plan ${plan} task by task, in order, from the task "Start at" names above.`,
        level > 0 && cur && !fix ? `${escalationBrief(level)} Earlier attempts are listed below.` : "",
        `Keep ${execState} updated after each task; its progress is this phase's only (the server empties it when a phase starts).`,
        `Do not commit: the server commits. Stop and reply at the first of: a task with [checkpoint:commit] done and green (checkpoint "passed"), a task with [checkpoint:human-verify|decision|human-action] (that type), every task done (complete), a task you cannot make pass (failed), a step that is wrong or unclear in the plan (plan_defect: the plan goes back to the planner, not to a retry).`,
        scratchpadRule(state),
        reply(
          "executed",
          `{"kind":"executed","outcome":"complete","summary":"...","evidence":["<command>: <what it showed>"],"learnings":[...],${COMMIT_FIELD}} or {"kind":"executed","outcome":"checkpoint","task":{"number":N,"name":"..."},"checkpoint":{"type":"passed|human-verify|decision|human-action","label":"...","details":"...","options":[...]},"evidence":[...],${COMMIT_FIELD} (with "passed")} or {"kind":"executed","outcome":"failed","task":{"number":N,"name":"..."},"error":"...","fixAttempted":"..."} or {"kind":"executed","outcome":"plan_defect","task":{"number":N,"name":"..."},"defect":"<what is wrong in the plan, with the evidence>",${COMMIT_FIELD} (for the tasks done before it)}`,
        ),
        whatFollows(state.rigorLevel, fix ? "fix" : "execute"),
      ],
      { plan, state: execState, handoff },
    );
  }

  if (job.job === "executeTask") {
    const plan = phase.planPath ?? plannedPlanPath(state);
    const run = state.phaseRun.waveRun;
    const total = state.phaseRun.waves?.waves.length ?? 1;
    const w = (run?.wave ?? 0) + 1;
    const tasks = waveTasksToRun(state).map((t) => {
      const since = t.dispatchedAt ?? state.stepId;
      const tb = taskBriefPath(state, since, t.task);
      return {
        task: t.task,
        name: t.name,
        description: `Task ${t.task}${t.attempt > 1 ? ` (attempt ${t.attempt})` : ""}, phase ${n}: ${t.name}`,
        prompt: `Do task ${t.task} ("${t.name}") of phase ${of} "${phase.name}", alone, in the git worktree ${t.worktree.path} (work only there). Read your brief ${tb} first.`,
        worktree: t.worktree.path,
        brief: tb,
        // Started by an earlier Step (another task reported since): running, only its report is owed.
        ...(since < state.stepId ? { startedAt: since } : {}),
      };
    });
    const list = `task${tasks.length === 1 ? "" : "s"} ${tasks.map((t) => t.task).join(", ")}`;
    const running = tasks.length > 0 && tasks.every((t) => t.startedAt !== undefined);
    return {
      next: {
        kind: "dispatch",
        persona,
        description: running
          ? `Wave ${w}/${total}, phase ${n}: ${phase.name} (${list} running)`
          : `Execute wave ${w}/${total}, phase ${n}: ${phase.name} (${list})`,
        prompt: running
          ? tasks.length === 1
            ? `The executor of ${list} (wave ${w}/${total} of phase ${of} "${phase.name}") has run since step ${tasks[0].startedAt}: report it with autopilot_report and its "task" when it returns (start it again only if its executor is gone, as after a restart).`
            : `The executors of ${list} (wave ${w}/${total} of phase ${of} "${phase.name}") have run since step ${tasks[0].startedAt}: report each with autopilot_report and its "task" as it returns (start one again only if its executor is gone, as after a restart).`
          : `Run ${tasks.length === 1 ? "this task's executor" : `these ${tasks.length} task executors at the same time`} (wave ${w}/${total} of phase ${of} "${phase.name}"): one ${persona} per entry of next.tasks, with that entry's prompt. Report each with autopilot_report and its "task".`,
        tasks,
        expects: { result, artifacts: { plan } },
      },
      rules: [],
    };
  }

  if (job.job === "commitFix") {
    const held = state.phaseRun.rejectedCommit;
    const hook = held?.hook ?? "pre-commit";
    const attempt = Math.max(1, held?.attempts.length ?? 1);
    const max = state.retryBudget.maxAttempts;
    const final = state.currentState === "FINAL_REVIEW";
    return make(
      `Fix the ${hook} hook's complaint ${attempt}/${max}, ${final ? "final review fixes" : `phase ${n}: ${phase.name}`}`,
      `The repository's ${hook} hook rejected the commit of ${final ? "the final review's fixes" : `phase ${of} "${phase.name}"`}: fix what it reports (attempt ${attempt} of ${max}).`,
      // Its brief is its own (src/personas/hook-briefs.ts).
      [],
      {},
    );
  }

  if (job.job === "fix") {
    const fix = state.phaseRun.fix;
    return make(
      `Fix phase ${n}: ${phase.name}`,
      `Fix the ${fix?.source ?? "review"} findings of phase ${of} "${phase.name}"${fix?.round ? ` (fix round ${fix.round})` : ""}.`,
      [
        `Fix exactly the findings listed below (those sent to this fix round), and what the person asks below if anything, in the code of this phase (its plan: ${phase.planPath ?? "(none recorded)"}); change nothing else. A finding you hold is wrong: leave it, and dispute it with evidence.`,
        "Run the project's whole validation (typecheck, lint, tests) before you reply; the server then verifies and reviews the phase again.",
        "Do not commit: the server commits the fix round.",
        reply("fixed", fixedShape),
        whatFollows(state.rigorLevel, "fix"),
      ],
      { plan: phase.planPath ?? undefined },
    );
  }

  const start = phaseStartCommit(state);
  if (job.job === "verify") {
    return make(
      `Verify phase ${n}: ${phase.name}`,
      `Verify phase ${of} "${phase.name}".`,
      [
        `Verify the phase against its plan ${phase.planPath ?? "(none recorded: use the spec)"} and the spec; its changes are git diff ${start ?? "<the phase start commit>"}..HEAD.`,
        "Run every check yourself, now: an earlier run, the executor's word or a previous verification is not evidence.",
        RIGOR[state.rigorLevel].verifying,
        reply(
          "verified",
          `{"kind":"verified","verdict":"pass|fail","findings":["<where>: <what is missing or wrong>", ...],"evidence":["<command>: <what it showed>", "<criterion>: <file:line and test that prove it>", ...]}`,
        ),
        whatFollows(state.rigorLevel, "verify"),
      ],
      { plan: phase.planPath ?? undefined },
    );
  }

  const reviewShape = `{"kind":"reviewed","findings":[{"severity":"blocking|warning|note","file":"...","line":N,"title":"...","rationale":"why it matters and the fix","scenario":"the input or sequence that triggers it"}]} (an empty list is a valid review)`;
  if (job.job === "review") {
    return make(
      `Review phase ${n}: ${phase.name}`,
      `Review phase ${of} "${phase.name}".`,
      [
        `Review this phase's changes: git diff ${start ?? "<the phase start commit>"}..HEAD (earlier phases are not in scope), against its plan ${phase.planPath ?? "(none recorded)"} and the spec.`,
        blockingRule,
        reply("reviewed", reviewShape),
        whatFollows(state.rigorLevel, "review"),
      ],
      {},
    );
  }

  if (job.job === "finalReview") {
    return make(
      "Final review: cross-phase coherence check",
      "Final review of the whole session.",
      [
        `Review the whole change: git diff ${state.startingCommit ?? "<startingCommit>"}..HEAD (every phase).`,
        "The per-phase findings below say what became of each: fixed (in which fix round and commit: check that the fix holds), disputed (with the fixer's evidence), overridden or deferred (by whom), or open; re-raise what still matters. Then look for what shows only across phases: interfaces that disagree, duplicated helpers, docs that contradict each other, a later phase breaking an earlier one.",
        blockingRule,
        reply("reviewed", reviewShape),
        whatFollows(state.rigorLevel, "finalReview"),
      ],
      {},
    );
  }

  if (job.job === "finalFix") {
    return make(
      "Fix final review findings",
      `Fix the final review's findings listed in the brief (fix round ${state.finalReview.retryCount} of ${FINAL_REVIEW_FIX_BUDGET}).`,
      [
        "Fix exactly the findings listed below, and what the person asks below if anything; change nothing else. A finding you hold is wrong: leave it, and dispute it with evidence.",
        "Run the project's whole validation before you reply; the server runs it too, then the final review runs again.",
        "Do not commit: the server commits after the fixes.",
        reply("fixed", fixedShape),
        whatFollows(state.rigorLevel, "finalFix"),
      ],
      {},
    );
  }
  return null;
}

/** The commit a phase's work starts from: recorded at ASSESS; the session's for older files. */
export function phaseStartCommit(state: AutopilotState): string | null {
  return state.phaseRun.startCommit ?? state.startingCommit ?? null;
}

/** The brief's "Start at" line for the executor. */
function startAt(state: AutopilotState, execState: string): string {
  const t = state.phaseRun.nextTask;
  if (!t)
    return `- Start at: the first task of this phase that ${execState} does not mark complete (task 1 when it marks none)`;
  const cp = state.phaseRun.checkpointAnswer;
  if (cp) return `- Start at: Task ${t} (its human step is answered, below: finish the task, then go on)`;
  const done =
    t === 2
      ? "task 1 is done and committed: do not redo it"
      : `tasks 1–${t - 1} are done and committed: do not redo them`;
  return `- Start at: Task ${t}${t > 1 ? ` (${done})` : ""}`;
}

/** The brief file's content: everything the persona needs that is too long for the prompt. */
export function briefContent(state: AutopilotState, slug: string, facts: DispatchFacts): string {
  // Fixing what a hook refused is a job of its own, with a brief of its own.
  if (state.stage === "commitFix" && state.phaseRun.rejectedCommit)
    return [hookFixBrief(state, slug, facts), ...wordsSection(state, "acts")].join("\n");
  const phase = state.phases[state.currentPhase];
  const planned = planDispatch(state);
  const job = stageMetaAt(state.currentState, state.stage)?.dispatch?.job;
  // The files this step reads or writes, one per line: the prompt names only this brief.
  const files = planned?.next.expects.artifacts ?? {};
  const out: string[] = [`# Brief for step ${state.stepId} (${state.currentState})`, ""];
  out.push(`- Spec: ${state.specPath}`, `- Session: ${slug} (${state.sessionDir})`, `- Rigor: ${state.rigorLevel}`);
  if (state.currentState !== "FINAL_REVIEW" && phase) {
    out.push(
      `- Phase ${state.currentPhase + 1} of ${state.phases.length}: ${phase.name} (complexity ${phase.complexity}${phase.complexityOverride ? `, reviewed as ${phase.complexityOverride}` : ""})`,
    );
    const plan = files.plan ?? phase.planPath;
    if (plan) out.push(`- Plan: ${plan}${state.currentState === "PLAN" ? " (write it)" : ""}`);
  }
  if (files.handoff && state.currentState === "PLAN") out.push(`- Handoff: ${files.handoff} (write it)`);
  if (files.state) {
    out.push(
      `- Execution state: ${files.state} (keep it updated${phase ? `; its "autopilotPhase" is ${JSON.stringify(phase.name)}` : ""})`,
    );
    if (job === "execute" && !state.phaseRun.fix) out.push(startAt(state, files.state));
  }
  if (state.currentState === "FINAL_REVIEW") {
    if (state.startingCommit)
      out.push(
        `- Session start commit: ${state.startingCommit} (the whole change: git diff ${state.startingCommit}..HEAD)`,
      );
  } else if (state.currentState !== "PLAN") {
    const start = phaseStartCommit(state);
    if (start) out.push(`- Phase start commit: ${start} (this phase's changes: git diff ${start}..HEAD)`);
  }
  if (planned)
    out.push(`- Result: ${resultPath(state, state.stepId)} (${resultHow(planned.next.persona, state.stepId)})`);
  out.push("");
  if (planned) out.push("## How to do this step", "", ...planned.rules.map((r) => `- ${r}`), "");
  if (state.currentState === "PLAN") {
    if (state.phaseRun.revision) out.push("## Why the plan goes back to you", "", state.phaseRun.revision, "");
    out.push(
      "## The phase in the spec",
      "",
      facts.phaseDescription?.trim() || "(The spec gives no description beyond the heading; read the spec.)",
      "",
    );
  }
  if (state.currentState === "EXECUTE") {
    const cur = state.retryBudget.currentTask;
    if (cur && cur.attempts.length) {
      out.push(
        `## Retry ${cur.attemptsUsed} of ${state.retryBudget.maxAttempts}: task ${cur.number ?? "?"} (${cur.name})`,
        "",
      );
      out.push(escalationBrief(cur.attemptsUsed), "");
      for (const a of cur.attempts)
        out.push(
          `- Attempt ${a.attempt} (${a.timestamp}): ${a.fixAttempted ? `tried: ${a.fixAttempted}; ` : ""}error: ${a.error}`,
        );
      out.push("");
    }
    out.push(...phaseFixSection(state));
    if (state.phaseRun.checkpointAnswer)
      out.push("## Human checkpoint answer", "", state.phaseRun.checkpointAnswer, "");
    if (state.phaseRun.checkpointsPassed.length)
      out.push(
        "## Checkpoints already passed (committed)",
        "",
        ...state.phaseRun.checkpointsPassed.map((c) => `- ${c}`),
        "",
      );
  }
  if (state.currentState === "VERIFY") {
    out.push(...recheckSection(state));
    if (!state.findingLedger?.length) disputedSection(out, state.phaseRun.disputed);
    if (state.phaseRun.evidence?.length)
      out.push(
        "## What the executor says it ran (a claim to check, not evidence)",
        "",
        ...state.phaseRun.evidence.map((e) => `- ${e}`),
        "",
      );
  }
  if (state.currentState === "REVIEW") {
    out.push(...reReviewSection(state, { source: "review", phase: state.currentPhase }));
    if (!state.findingLedger?.length) disputedSection(out, state.phaseRun.disputed);
    sentBackSection(out, state.phaseRun.reviewProblems);
    if (facts.diffStat)
      out.push(`## Diff ${phaseStartCommit(state) ?? ""}..HEAD`, "", "```", facts.diffStat.trim(), "```", "");
  }
  if (state.currentState === "FINAL_REVIEW") {
    const fr = state.finalReview;
    if (state.stage === "fixing") out.push(...finalFixSection(state));
    else {
      if (facts.diffStat)
        out.push(`## Diff ${state.startingCommit ?? ""}..HEAD`, "", "```", facts.diffStat.trim(), "```", "");
      out.push(...reReviewSection(state, { source: "final", phase: null }));
      if (!state.findingLedger?.length) disputedSection(out, fr.disputed);
      sentBackSection(out, fr.problems);
      out.push(
        "## Per-phase review findings (whole, with what became of each)",
        "",
        facts.phaseFindings?.trim() || "(none recorded)",
        "",
      );
      if (state.phaseRun.lastValidation)
        out.push("## Validation after the last fix round", "", state.phaseRun.lastValidation.summary, "");
    }
  }
  out.push(...commitChecksSection(facts.commitChecks), ...briefWords(state, job), ...learningsOf(facts));
  return out.join("\n");
}

/**
 * The brief of one task of a parallel wave: its worktree as the only place to work, its one task
 * and what it may change, what went wrong before, and the reply.
 */
export function taskBriefContent(state: AutopilotState, slug: string, task: string, facts: DispatchFacts): string {
  const phase = state.phases[state.currentPhase];
  const t = state.phaseRun.waveRun?.tasks.find((x) => x.task === task);
  if (!t || !phase) return "";
  const plan = phase.planPath ?? plannedPlanPath(state);
  const may = [...t.scope.files, ...t.scope.owns];
  const out: string[] = [
    `# Brief for task ${t.task} (step ${t.dispatchedAt ?? state.stepId}, EXECUTE, a parallel wave)`,
    "",
  ];
  out.push(
    `- Spec: ${state.specPath}`,
    `- Session: ${slug} (${state.sessionDir})`,
    `- Rigor: ${state.rigorLevel}`,
    `- Phase ${state.currentPhase + 1} of ${state.phases.length}: ${phase.name}`,
    `- Plan: ${plan}`,
    `- Task: ${t.task} (${t.name})`,
    `- Worktree: ${t.worktree.path} (branch ${t.worktree.branch}, made from ${t.worktree.base.slice(0, 12)})`,
    `- Files it may change: ${may.join(", ") || "(none named)"}`,
    `- Result: ${taskResultPath(state, t.dispatchedAt ?? state.stepId, t.task)} (in the project's checkout, not in the worktree: write your JSON result there too)`,
    `- Attempt: ${t.attempt}${t.attempt > (t.budgetFrom ?? 1) ? ` (retry ${t.attempt - (t.budgetFrom ?? 1)} of ${state.retryBudget.maxAttempts - 1})` : ""}`,
    "",
    "## How to do this step",
    "",
    `- Do task ${t.task} of the plan, and only it${(state.phaseRun.waveRun?.tasks.filter((x) => x.status === "running").length ?? 0) > 1 ? ": other executors do the other tasks at the same time, each in its own worktree" : ""}.`,
    "- Keep no execution state file (state.json): autopilot records each task of a wave itself.",
    `- Work only in the git worktree ${t.worktree.path}: every path of the plan is relative to it. Do not touch the project's own checkout or another task's worktree, and do not switch branches.`,
    `- Change only ${may.join(", ") || "the files the task names"}: work outside them stops the task for a person and is not merged.`,
    "- Run the task's Verify step in the worktree. A worktree holds only what git tracks: no installed dependencies (node_modules and the like). Where a check needs them, say so in your evidence; autopilot runs the project's validation on the merged result after your work is merged.",
    "- Do not commit: autopilot commits your work in the worktree and merges it onto the session's branch in task order.",
    "- A step of your task that is wrong or unclear in the plan (not your code): reply plan_defect. The plan goes back to the planner once the wave's other tasks have reported (their finished work is merged); your worktree is kept, unmerged.",
    reply(
      "executed",
      `{"kind":"executed","task":{"number":${/^\d+$/.test(t.task) ? t.task : JSON.stringify(t.task)},"name":${JSON.stringify(t.name)}},"outcome":"complete","summary":"...","evidence":["<command>: <what it showed>"],"learnings":[...],${COMMIT_FIELD}} or {"kind":"executed","task":{...},"outcome":"failed","error":"...","fixAttempted":"..."} or {"kind":"executed","task":{...},"outcome":"plan_defect","defect":"<what is wrong in the plan, with the evidence>"}`,
    ),
    "",
  );
  if (t.checkpointAnswer)
    out.push(
      "## Human checkpoint answer",
      "",
      t.checkpointAnswer,
      "",
      "Go on with the task from its checkpoint, in the same worktree (your earlier work is there).",
      "",
    );
  if (t.error)
    out.push(
      "## What went wrong before",
      "",
      t.error,
      "",
      t.attempt > (t.budgetFrom ?? 1) ? escalationBrief(t.attempt - (t.budgetFrom ?? 1)) : "",
      "",
    );
  if (t.error && t.validationOutput) {
    // What the validation printed after this task's merge: the failing lines, not only "exited 1".
    const fence = fenceFor(t.validationOutput);
    out.push(
      "### What the failing validation printed (the end of each failed command's output)",
      "",
      `${fence}text`,
      t.validationOutput,
      fence,
      "",
    );
  }
  out.push(
    ...commitChecksSection(facts.commitChecks),
    ...wordsSection(state, "acts", { shown: [t.checkpointAnswer ?? ""] }),
    ...learningsOf(facts),
  );
  return out.join("\n");
}

function learningsOf(facts: DispatchFacts): string[] {
  return facts.learnings?.trim() ? ["## Learnings", "", facts.learnings.trim(), ""] : [];
}

function disputedSection(out: string[], disputed: readonly { finding: string; evidence: string }[] | undefined): void {
  if (!disputed?.length) return;
  out.push(
    "## Findings the fixer disputes (judge the evidence; keep the finding if it does not hold)",
    "",
    ...disputed.map((d) => `- ${d.finding} — evidence: ${d.evidence}`),
    "",
  );
}

function sentBackSection(out: string[], problems: readonly string[] | undefined): void {
  if (!problems?.length) return;
  out.push(
    "## Your last review came back",
    "",
    "The server's check refused it: every blocking finding needs a file, a line and a scenario. Complete these (or lower the severity if you cannot name a scenario):",
    "",
    ...problems.map((p) => `- ${p}`),
    "",
  );
}
