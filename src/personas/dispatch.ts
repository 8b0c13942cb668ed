// Turns a resting state into the dispatch the host must carry out (each job's prompt and rules:
// jobs.ts) and the brief file the prompt names. Pure: both are functions of the saved state.
// Anything long goes into the brief, which the engine writes (see briefContent), so the host model
// never copies kilobytes.
import type { AutopilotState } from "../session/schema.js";
import type { DispatchNext, PersonaName } from "../protocol/step.js";
import { stageMetaAt, restsAt } from "../../machines/stages.js";
import { escalationBrief } from "../rules/policy.js";
import { finalFixSection, phaseFixSection, reReviewSection, recheckSection } from "./finding-briefs.js";
import { briefPath, COMMIT_FIELD, fenceFor, reply, resultPath } from "./brief-kit.js";
import { commitChecksSection, hookFixBrief } from "./hook-briefs.js";
import type { CommitChecks } from "../effects/commit-checks.js";
import { briefWords, wordsSection } from "./words.js";
import { phaseStartCommit, planDispatch, plannedPlanPath, taskResultPath } from "./jobs.js";

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
  /** `.harness/config.json`'s "commitMessage" template, for executors: the subject's form. */
  commitTemplate?: string;
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

/** What each placeholder the template uses holds. */
function placeholders(template: string): string {
  const what: Record<string, string> = {
    "{type}": "{type} one word (feat, fix, test, docs, ...)",
    "{summary}": "{summary} what the commit does",
    "{label}": "{label} left for autopilot to fill",
  };
  const used = Object.keys(what).filter((p) => template.includes(p));
  const words = used.map((p) => what[p]);
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words.at(-1)}` : words.join("");
}

/** The team's subject template, when .harness/config.json sets one: the commit message's subject follows it. */
function subjectForm(template: string | undefined): string[] {
  if (!template) return [];
  return [
    "## The commit subject's form",
    "",
    `This repository's commit subjects follow the template \`${template}\` (.harness/config.json "commitMessage"): write your commitMessage's subject in it, with ${placeholders(template)}. A subject that does not fit is reworded into it by autopilot.`,
    "",
  ];
}

/** What the brief's "- Result:" line asks of this persona: only what its tools can do. */
function resultHow(persona: PersonaName, stepId: number): string {
  return RECORDS_WITH_RESULT_TOOL.has(persona)
    ? `record your JSON result with autopilot_result, stepId ${stepId}: it writes this file`
    : "write your JSON result there too";
}

/** The dispatch for the current resting state, or null when the state waits on no persona. */
export function dispatchFor(state: AutopilotState): DispatchNext | null {
  return planDispatch(state)?.next ?? null;
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
  if (restsAt(state, "commitFix") && state.phaseRun.rejectedCommit)
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
    if (restsAt(state, "fixing")) out.push(...finalFixSection(state));
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
  out.push(
    ...commitChecksSection(facts.commitChecks),
    ...subjectForm(facts.commitTemplate),
    ...briefWords(state, job),
    ...learningsOf(facts),
  );
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
    ...subjectForm(facts.commitTemplate),
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
