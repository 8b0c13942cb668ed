// Turns a resting state into the dispatch the host must carry out: which persona, a one-line
// description, a short prompt, the result kind expected and the artifacts. Pure: the prompt is a
// function of the saved state. Anything long goes into a brief file the prompt names; the engine
// writes that file (see briefContent) so the host model never copies kilobytes.
import path from "node:path";
import type { AutopilotState } from "../session/schema.js";
import type { DispatchNext, ResultKind } from "../protocol/step.js";
import { stageMetaAt } from "../../machines/stages.js";
import { sessionDirRel } from "../session/paths.js";
import { plansDirFor, planFileName } from "../markdown/plans-folder.js";
import { phaseSlug } from "../effects/scratchpad.js";
import { FINAL_REVIEW_FIX_BUDGET, RIGOR, escalationBrief, scratchpadRule as scratchpadRuleFor } from "../../machines/policy.js";

export interface DispatchFacts {
  /** The phase's section of the spec, for the planner. */
  phaseDescription?: string;
  /** Per-phase review findings, formatted, for the final review. */
  phaseFindings?: string;
  /** `git diff --stat` of startingCommit..HEAD, for reviewers. */
  diffStat?: string;
  /** Relevant learnings, bounded. */
  learnings?: string;
}

const posix = path.posix;

export function briefPath(slug: string, stepId: number): string {
  return posix.join(sessionDirRel(slug), "briefs", `step-${stepId}.md`);
}

export function plannedPlanPath(state: AutopilotState): string {
  const phase = state.phases[state.currentPhase];
  if (phase.planPath) return phase.planPath;
  const date = (state.phaseRun.startedAt ?? state.updatedAt ?? "1970-01-01").slice(0, 10);
  return posix.join(plansDirFor(state.specPath), planFileName(date, phase.name));
}

function scratchpadRule(state: AutopilotState, slug: string): string {
  const dir = posix.join(sessionDirRel(slug), "scratchpad", phaseSlug(state.phases[state.currentPhase]?.name ?? "final"));
  return scratchpadRuleFor(state.rigorLevel, dir);
}

export function retryLevel(state: AutopilotState): number {
  return state.retryBudget.currentTask?.attemptsUsed ?? 0;
}

function reply(kind: ResultKind, shape: string): string {
  return `Finish with one JSON object in a \`\`\`json block: ${shape}. If you cannot do the job: {"kind":"${kind}","error":"why"}.`;
}

interface Planned {
  next: DispatchNext;
  /** The step's rules, in the brief: what the persona must follow beyond the short prompt. */
  rules: string[];
}

/** The dispatch for the current resting state, or null when the state waits on no persona. */
export function dispatchFor(state: AutopilotState, slug: string): DispatchNext | null {
  return planDispatch(state, slug)?.next ?? null;
}

// The prompt stays a few lines (the host model reads it, and copies it into the subagent call);
// every rule goes into the brief file the prompt names, which only the persona reads.
function planDispatch(state: AutopilotState, slug: string): Planned | null {
  // Which job, persona and result kind a stage dispatches is declared on its state node (meta.dispatch).
  const job = stageMetaAt(state.currentState, state.stage)?.dispatch;
  if (!job) return null;
  const phase = state.phases[state.currentPhase];
  const n = state.currentPhase + 1;
  const of = `${n}/${state.phases.length}`;
  const sessionDir = sessionDirRel(slug);
  const handoff = posix.join(sessionDir, "handoff.json");
  const execState = posix.join(sessionDir, "state.json");
  const brief = briefPath(slug, state.stepId);
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
      // One line: the job, and the brief with the paths, the rules and the result to reply with.
      prompt: `${prompt} Read your brief ${brief} first.`,
      expects: { result, artifacts: { ...artifacts, brief } },
    },
    rules: rules.filter(Boolean),
  });

  if (job.job === "plan") {
    const plan = plannedPlanPath(state);
    return make(
      `Plan phase ${n}: ${phase.name}`,
      `${state.phaseRun.revision ? "Revise the plan for" : "Plan"} phase ${of} "${phase.name}".`,
      [
        state.phaseRun.revision ? `This is a revision of the existing plan ${plan}: see "Why the plan is being revised" below.` : "",
        `Write the plan to ${plan}: a "**Tasks:** N" header, one "### Task N: Name" heading per task, and a [checkpoint:human-verify|decision|human-action] marker in the heading of any task where a human must act.`,
        RIGOR[state.rigorLevel].planning,
        scratchpadRule(state, slug),
        `Write ${handoff} with {"fromSkill":"harness-planning","phase":"${phase.name}","planPath":"${plan}","concerns":[...],"summary":"..."}.`,
        reply("planned", `{"kind":"planned","planPath":"${plan}","concerns":["risk or uncertainty", ...],"summary":"..."}`),
      ],
      { plan, handoff },
    );
  }

  if (job.job === "execute") {
    const plan = phase.planPath ?? plannedPlanPath(state);
    const level = retryLevel(state);
    const cur = state.retryBudget.currentTask;
    const fix = state.phaseRun.fix;
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
      fix ? `Fix phase ${n}: ${phase.name}` : level > 0 ? `Retry ${level}/${state.retryBudget.maxAttempts}, phase ${n}: ${phase.name}` : `Execute phase ${n}: ${phase.name}`,
      what,
      [
        fix ? "Fix exactly the findings listed below." : `Carry out the plan ${plan} task by task, in order, from the first task not done.`,
        level > 0 && cur && !fix ? `${escalationBrief(level)} Earlier attempts are listed below.` : "",
        `Keep ${execState} updated after each task.`,
        "Do not commit: the server commits at each passing checkpoint. Stop at every [checkpoint:*] task and report it.",
        scratchpadRule(state, slug),
        reply(
          "executed",
          `{"kind":"executed","outcome":"complete"} or {"kind":"executed","outcome":"checkpoint","checkpoint":{"type":"passed|human-verify|decision|human-action","label":"...","options":[...]}} or {"kind":"executed","outcome":"failed","task":{"number":N,"name":"..."},"error":"...","fixAttempted":"..."}`,
        ),
      ],
      { plan, state: execState, handoff },
    );
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
      [
        "Fix what the hook printed (below), in the files of the commit (listed below); change nothing else.",
        "Do not commit, do not skip the hook (no --no-verify) and do not edit the hook or its configuration: autopilot makes the same commit again, with the hooks, when you report.",
        `${escalationBrief(attempt)} Earlier attempts are listed below.`,
        reply("fixed", `{"kind":"fixed","summary":"what you changed"}`),
      ],
      {},
    );
  }

  if (job.job === "verify") {
    return make(
      `Verify phase ${n}: ${phase.name}`,
      `Verify phase ${of} "${phase.name}".`,
      [
        `Verify the phase against its plan ${phase.planPath ?? "(none recorded: use the spec)"} and the spec.`,
        RIGOR[state.rigorLevel].verifying,
        reply("verified", `{"kind":"verified","verdict":"pass|fail","findings":["what failed and where", ...]}`),
      ],
      { plan: phase.planPath ?? undefined },
    );
  }

  const reviewShape = `{"kind":"reviewed","findings":[{"severity":"blocking|warning|note","file":"...","line":N,"title":"...","rationale":"..."}]}`;
  if (job.job === "review") {
    return make(
      `Review phase ${n}: ${phase.name}`,
      `Review phase ${of} "${phase.name}".`,
      [
        `Review the changes of this phase against its plan ${phase.planPath ?? "(none recorded)"}; the diff scope is below.`,
        "Report findings with severity blocking, warning or note.",
        reply("reviewed", reviewShape),
      ],
      {},
    );
  }

  if (job.job === "finalReview") {
    return make(
      "Final review: cross-phase coherence check",
      "Final review: the FULL diff of the session, not just the last phase.",
      [
        `Review the full diff (git diff ${state.startingCommit ?? "<startingCommit>"}..HEAD).`,
        "The per-phase findings below were found and addressed during the phases: do not assume they are resolved, verify. Focus on cross-phase coherence: naming consistency, duplicated utilities, architectural drift.",
        reply("reviewed", reviewShape),
      ],
      {},
    );
  }

  if (job.job === "finalFix") {
    return make(
      "Fix final review findings",
      `Fix the blocking findings of the final review (round ${state.finalReview.retryCount} of ${FINAL_REVIEW_FIX_BUDGET}).`,
      [
        "One task per finding (listed below).",
        "Do not commit: the server commits after the fixes.",
        `Write ${handoff} when done.`,
        reply("fixed", `{"kind":"fixed","summary":"what was fixed"}`),
      ],
      { handoff },
    );
  }
  return null;
}

/** The brief file's content: everything the persona needs that is too long for the prompt. */
export function briefContent(state: AutopilotState, slug: string, facts: DispatchFacts): string {
  const phase = state.phases[state.currentPhase];
  const planned = planDispatch(state, slug);
  // The files this step reads or writes, one per line: the prompt names only this brief.
  const files = planned?.next.expects.artifacts ?? {};
  const out: string[] = [`# Brief for step ${state.stepId} (${state.currentState})`, ""];
  out.push(`- Spec: ${state.specPath}`, `- Session: ${slug} (${sessionDirRel(slug)})`, `- Rigor: ${state.rigorLevel}`);
  if (state.currentState !== "FINAL_REVIEW" && phase) {
    out.push(`- Phase ${state.currentPhase + 1} of ${state.phases.length}: ${phase.name} (complexity ${phase.complexity}${phase.complexityOverride ? `, reviewed as ${phase.complexityOverride}` : ""})`);
    const plan = files.plan ?? phase.planPath;
    if (plan) out.push(`- Plan: ${plan}${state.currentState === "PLAN" ? " (write it)" : ""}`);
  }
  if (files.handoff && (state.currentState === "PLAN" || state.stage === "fixing")) out.push(`- Handoff: ${files.handoff} (write it)`);
  if (files.state) out.push(`- Execution state: ${files.state} (keep it updated)`);
  if (state.startingCommit) out.push(`- Starting commit: ${state.startingCommit}`);
  out.push("");
  if (planned) out.push("## How to do this step", "", ...planned.rules.map((r) => `- ${r}`), "");
  if (state.currentState === "PLAN") {
    if (state.phaseRun.revision) out.push("## Why the plan is being revised", "", state.phaseRun.revision, "");
    out.push("## The phase in the spec", "", facts.phaseDescription?.trim() || "(The spec gives no description beyond the heading; read the spec.)", "");
  }
  if (state.stage === "commitFix" && state.phaseRun.rejectedCommit) return [...out, ...rejectedCommitBrief(state), ...learningsOf(facts)].join("\n");
  if (state.currentState === "EXECUTE") {
    const cur = state.retryBudget.currentTask;
    if (cur && cur.attempts.length) {
      out.push(`## Retry ${cur.attemptsUsed} of ${state.retryBudget.maxAttempts}: task ${cur.number ?? "?"} (${cur.name})`, "");
      out.push(escalationBrief(cur.attemptsUsed), "");
      for (const a of cur.attempts)
        out.push(`- Attempt ${a.attempt} (${a.timestamp}): ${a.fixAttempted ? `tried: ${a.fixAttempted}; ` : ""}error: ${a.error}`);
      out.push("");
    }
    if (state.phaseRun.fix) {
      out.push(`## ${state.phaseRun.fix.source === "review" ? "Blocking review findings" : "Verification failures"} to fix`, "");
      for (const f of state.phaseRun.fix.findings) out.push(`- ${f}`);
      out.push("");
    }
    if (state.phaseRun.checkpointAnswer) out.push("## Human checkpoint answer", "", state.phaseRun.checkpointAnswer, "");
    if (state.phaseRun.checkpointsPassed.length)
      out.push("## Checkpoints already passed (committed)", "", ...state.phaseRun.checkpointsPassed.map((c) => `- ${c}`), "");
  }
  if (state.currentState === "VERIFY" && state.phaseRun.lastValidation)
    out.push("## Last validation run", "", state.phaseRun.lastValidation.summary, "");
  if (state.currentState === "REVIEW" || state.currentState === "FINAL_REVIEW") {
    if (facts.diffStat) out.push(`## Diff ${state.startingCommit ?? ""}..HEAD`, "", "```", facts.diffStat.trim(), "```", "");
  }
  if (state.currentState === "FINAL_REVIEW") {
    if (state.stage === "fixing") {
      out.push("## Blocking findings to fix", "");
      for (const f of state.finalReview.findings.filter((x) => x.severity === "blocking"))
        out.push(`- ${f.title}${f.file ? ` (${f.file}${f.line ? `:${f.line}` : ""})` : ""}${f.rationale ? ` — ${f.rationale}` : ""}`);
      out.push("");
    } else {
      out.push("## Per-phase review findings", "", facts.phaseFindings?.trim() || "(none recorded)", "");
      if (state.phaseRun.lastValidation)
        out.push("## Validation after the last fix round", "", state.phaseRun.lastValidation.summary, "");
    }
  }
  out.push(...learningsOf(facts));
  return out.join("\n");
}

function learningsOf(facts: DispatchFacts): string[] {
  return facts.learnings?.trim() ? ["## Learnings", "", facts.learnings.trim(), ""] : [];
}

/** A fence that the text cannot close: longer than any run of backticks in it. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(longest + 1);
}

/** The brief's context for the executor fixing what a hook reported: the commit, the output, earlier attempts. */
function rejectedCommitBrief(state: AutopilotState): string[] {
  const held = state.phaseRun.rejectedCommit!;
  const fence = fenceFor(held.output);
  const out = [
    `## The ${held.hook} hook rejected the commit`,
    "",
    `Commit: ${held.label}`,
    "",
    "Files in the commit:",
    ...(held.paths.length ? held.paths.map((p) => `- ${p}`) : ["- (not recorded)"]),
    "",
    `### What the hook printed (attempt ${held.attempts.length} of ${state.retryBudget.maxAttempts})`,
    "",
    `${fence}text`,
    held.output,
    fence,
    "",
  ];
  const earlier = held.attempts.slice(0, -1);
  if (earlier.length) {
    out.push("### Earlier attempts", "");
    for (const a of earlier) out.push(`- Attempt ${a.attempt} (${a.timestamp}): ${a.error.split("\n").find((l) => l.trim())?.trim() ?? ""}`);
    out.push("");
  }
  return out;
}
