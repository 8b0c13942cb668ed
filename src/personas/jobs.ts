// The dispatch of each persona job a resting stage declares (meta.dispatch in
// machines/autopilot.machine.ts): which persona, a one-line description, a short prompt, the
// result kind expected, the artifacts, and the rules its brief carries. One function per job, in a
// record over the jobs, so a job the machine declares without its dispatch here does not compile.
// Pure: a function of the saved state. The prompt stays a few lines (the host model reads it, and
// copies it into the subagent call); every rule goes into the brief file the prompt names, which
// only the persona reads. The brief holds what is particular to this step (paths, ranges, budgets,
// findings, the exact reply); the persona's own file holds its method, once.
import path from "node:path";
import type { AutopilotState } from "../session/schema.js";
import type { DispatchNext, PersonaName, ResultKind } from "../protocol/step.js";
import { stageMetaAt } from "../../machines/stages.js";
import type { DispatchJob } from "../../machines/autopilot.machine.js";
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
import { briefPath, COMMIT_FIELD, FIX_COMMIT_FIELD, reply } from "./brief-kit.js";

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

/** The commit a phase's work starts from: recorded at ASSESS; the session's for older files. */
export function phaseStartCommit(state: AutopilotState): string | null {
  return state.phaseRun.startCommit ?? state.startingCommit ?? null;
}

export interface Planned {
  next: DispatchNext;
  /** The step's rules, in the brief: what the persona must follow beyond the short prompt. */
  rules: string[];
}

/** What every job's dispatch is made from: the state, and the names its texts share. */
interface Frame {
  state: AutopilotState;
  phase: AutopilotState["phases"][number];
  /** The phase's number (from 1) and "n/total". */
  n: number;
  of: string;
  handoff: string;
  /** The executor's state file. */
  execState: string;
  persona: PersonaName;
  result: ResultKind;
  /** How often a persona's malformed work may come back to it. */
  sendBacks: number;
  /** The dispatch of a job whose prompt names its brief. */
  make: (
    description: string,
    prompt: string,
    rules: string[],
    artifacts: DispatchNext["expects"]["artifacts"],
  ) => Planned;
}

const JOBS: { readonly [J in DispatchJob]: (f: Frame) => Planned } = {
  plan: planJob,
  execute: executeJob,
  executeTask: waveTasksJob,
  commitFix: hookFixJob,
  fix: fixJob,
  verify: verifyJob,
  review: reviewJob,
  finalReview: finalReviewJob,
  finalFix: finalFixJob,
};

/** The dispatch for the current resting state, with its brief's rules; null when it waits on no persona. */
export function planDispatch(state: AutopilotState): Planned | null {
  // Which job, persona and result kind a stage dispatches is declared on its state node (meta.dispatch).
  const job = stageMetaAt(state.currentState, state.stage)?.dispatch;
  if (!job) return null;
  const n = state.currentPhase + 1;
  const brief = briefPath(state, state.stepId);
  const { persona, result } = job;
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
  return JOBS[job.job]({
    state,
    phase: state.phases[state.currentPhase],
    n,
    of: `${n}/${state.phases.length}`,
    handoff: posix.join(state.sessionDir, "handoff.json"),
    execState: posix.join(state.sessionDir, "state.json"),
    persona,
    result,
    sendBacks: sendBacksAllowed(state.retryBudget.maxAttempts),
    make,
  });
}

const FIXED_SHAPE = `{"kind":"fixed","summary":"what you changed, finding by finding","evidence":["<command>: <what it showed>"],"disputed":[{"finding":"<the id of a finding you did not change, e.g. p1-r1-2>","evidence":"<why it is wrong: output, file:line>"}],"learnings":["<what later phases should know>"],${FIX_COMMIT_FIELD}} (disputed and learnings may be empty)`;
const REVIEW_SHAPE = `{"kind":"reviewed","findings":[{"severity":"blocking|warning|note","file":"...","line":N,"title":"...","rationale":"why it matters and the fix","scenario":"the input or sequence that triggers it"}]} (an empty list is a valid review)`;

/** A blocking finding must be one a fixer can act on. */
function blockingRule(sendBacks: number): string {
  return `A blocking finding needs a file, a line and a scenario (the input or sequence that triggers it); a review with one that lacks them comes back to you (at most ${sendBacks} time${sendBacks === 1 ? "" : "s"}).`;
}

/** The planner writes (or revises) the phase's plan. */
function planJob({ state, phase, n, of, handoff, sendBacks, make }: Frame): Planned {
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
      `Before the plan runs the server checks it: a task with no files, no verification step, a placeholder (TBD, "as needed", "etc."), a scratchpad file named (the plan is committed; the scratchpad is deleted when the phase ends: write what a task needs into the plan) or more than ${TASK_SIZE.maxFiles} files or ${TASK_SIZE.maxSteps} steps comes back to you with the list (at most ${sendBacks} time${sendBacks === 1 ? "" : "s"}; then a person judges the plan).`,
      RIGOR[state.rigorLevel].planning,
      phase.complexity === "medium"
        ? "Medium complexity: plan it with extra scrutiny (each task small, its files and its verification exact, every unknown in concerns)."
        : "",
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

/** The executor carries out the phase's plan (or a retry of its task, or a fix saved by an earlier version). */
function executeJob({ state, phase, n, of, handoff, execState, make }: Frame): Planned {
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

/** A parallel wave: one executor per task, each in its own worktree (or the report of those already running). */
function waveTasksJob({ state, phase, n, of, persona, result }: Frame): Planned {
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

/** The executor fixes what the repository's hook refused; its brief is its own (src/personas/hook-briefs.ts). */
function hookFixJob({ state, phase, n, of, make }: Frame): Planned {
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

/** The executor fixes the findings a phase's fix round was sent. */
function fixJob({ state, phase, n, of, make }: Frame): Planned {
  const fix = state.phaseRun.fix;
  return make(
    `Fix phase ${n}: ${phase.name}`,
    `Fix the ${fix?.source ?? "review"} findings of phase ${of} "${phase.name}"${fix?.round ? ` (fix round ${fix.round})` : ""}.`,
    [
      `Fix exactly the findings listed below (those sent to this fix round), and what the person asks below if anything, where they point (this phase's plan: ${phase.planPath ?? "(none recorded)"}; a finding may name a file an earlier phase wrote); change nothing else. A finding you hold is wrong: leave it, and dispute it with evidence.`,
      "Run the project's whole validation (typecheck, lint, tests) before you reply; the server then verifies and reviews the phase again.",
      "Do not commit: the server commits the fix round.",
      reply("fixed", FIXED_SHAPE),
      whatFollows(state.rigorLevel, "fix"),
    ],
    { plan: phase.planPath ?? undefined },
  );
}

/** The verifier checks the phase against its plan and the spec. */
function verifyJob({ state, phase, n, of, make }: Frame): Planned {
  const start = phaseStartCommit(state);
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

/** The code reviewer reviews the phase's changes. */
function reviewJob({ state, phase, n, of, sendBacks, make }: Frame): Planned {
  const start = phaseStartCommit(state);
  return make(
    `Review phase ${n}: ${phase.name}`,
    `Review phase ${of} "${phase.name}".`,
    [
      `Review this phase's changes: git diff ${start ?? "<the phase start commit>"}..HEAD (earlier phases are not in scope), against its plan ${phase.planPath ?? "(none recorded)"} and the spec.`,
      blockingRule(sendBacks),
      reply("reviewed", REVIEW_SHAPE),
      whatFollows(state.rigorLevel, "review"),
    ],
    {},
  );
}

/** The code reviewer reviews the whole session's change. */
function finalReviewJob({ state, sendBacks, make }: Frame): Planned {
  return make(
    "Final review: cross-phase coherence check",
    "Final review of the whole session.",
    [
      `Review the whole change: git diff ${state.startingCommit ?? "<startingCommit>"}..HEAD (every phase).`,
      "The per-phase findings below say what became of each: fixed (in which fix round and commit: check that the fix holds), disputed (with the fixer's evidence), overridden or deferred (by whom), or open; re-raise what still matters. Then look for what shows only across phases: interfaces that disagree, duplicated helpers, docs that contradict each other, a later phase breaking an earlier one.",
      blockingRule(sendBacks),
      reply("reviewed", REVIEW_SHAPE),
      whatFollows(state.rigorLevel, "finalReview"),
    ],
    {},
  );
}

/** The executor fixes the final review's findings. */
function finalFixJob({ state, make }: Frame): Planned {
  return make(
    "Fix final review findings",
    `Fix the final review's findings listed in the brief (fix round ${state.finalReview.retryCount} of ${FINAL_REVIEW_FIX_BUDGET}).`,
    [
      "Fix exactly the findings listed below, and what the person asks below if anything; change nothing else. A finding you hold is wrong: leave it, and dispute it with evidence.",
      "Run the project's whole validation before you reply; the server runs it too, then the final review runs again.",
      "Do not commit: the server commits after the fixes.",
      reply("fixed", FIXED_SHAPE),
      whatFollows(state.rigorLevel, "finalFix"),
    ],
    {},
  );
}
