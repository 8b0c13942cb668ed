// What the user is told with a Step, as data: one discriminated union on `kind`, each with the facts its text
// needs, captured when the transition (or the effect) happened so the text cannot drift from what was true then.
// The machine and the effect performer record notices in the state file's `notices`; `renderNotice` turns them
// into text when a Step is made (src/engine/step.ts), and every front end shows that Step's `report`. Every
// message's wording lives here, except the gate report's line per signal (src/rules/signals.ts
// `planGateReport`) and the notices about the person's own words (src/session/notices-words.ts).
//
// A new message is one entry in `Notice` and one case in `renderNotice` (the compiler asks for it). Notices
// already saved in state files must keep loading: the objects stay loose, and a field added later is optional.
import { z } from "zod";
import { RigorLevel, SeverityCounts } from "../vocabulary.js";
import { planGateReport, Signals } from "../rules/signals.js";
import { escalationStep } from "../rules/policy.js";
import { WavePlan } from "./wave-plan.js";
import { FateGroup, groupWords } from "./findings.js";
import { WORDS_NOTICES, renderWordsNotice } from "./notices-words.js";
import { FinishNotice, renderFinish } from "./notices-finish.js";
import { counted, DoneNotice, HarnessFilesNotice, plural, renderDone, renderHarnessFiles } from "./notices-done.js";

function notice<K extends string, S extends z.ZodRawShape>(kind: K, shape: S) {
  return z.looseObject({ kind: z.literal(kind), ...shape });
}

/** A notice: one message for the user, as the facts it tells. */
export const Notice = z.discriminatedUnion("kind", [
  /** Plain text: a report an earlier engine saved as prose (state files before notices). */
  notice("text", { text: z.string() }),
  // INIT ----------------------------------------------------------------------------------------
  notice("specRead", {
    phaseCount: z.number().int(),
    /** The first phases only (at most 5): the report reaches the host model. */
    phases: z.array(z.looseObject({ name: z.string(), complexity: z.string() })),
    rigorLevel: z.string(),
    reviewPlans: z.boolean(),
    sessionDir: z.string(),
  }),
  notice("userChanges", { count: z.number().int() }),
  notice("resumed", {
    state: z.string(),
    phaseNumber: z.number().int(),
    phaseName: z.string().nullable(),
    /** Where the session stands and what was decided, one line each (absent in earlier notices). */
    soFar: z.array(z.string()).optional(),
  }),
  notice("stopped", { state: z.string() }),
  // ASSESS / PLAN -------------------------------------------------------------------------------
  notice("interactivePlanning", { phaseNumber: z.number().int(), phaseName: z.string().nullable() }),
  notice("assessed", {
    phaseNumber: z.number().int(),
    phaseName: z.string().nullable(),
    complexity: z.string(),
    /** The plan will be put to the user whatever the signals say (--review-plans, --thorough). */
    reviewed: z.boolean().optional(),
  }),
  notice("planSentBack", { problems: z.array(z.string()), attempt: z.number().int(), max: z.number().int() }),
  notice("planLarger", { override: z.enum(["medium", "high"]), taskCount: z.number().int() }),
  // APPROVE_PLAN ----------------------------------------------------------------------------------
  notice("planGate", {
    mode: z.enum(["auto", "fast", "pause"]),
    phaseNumber: z.number().int(),
    phaseName: z.string(),
    signals: Signals,
    fired: z.array(z.string()),
    rigor: RigorLevel,
    checkpointCount: z.number().int(),
    assumptions: z.array(z.string()).optional(),
    deferred: z.array(z.string()).optional(),
    /** A parallel session's waves for this plan (absent in serial sessions). */
    waves: WavePlan.optional(),
  }),
  notice("planChanged", {
    planPath: z.string().nullable(),
    /** Whether the approval question was still open when the plan changed. */
    whileAsking: z.boolean(),
    from: z.string().nullable(),
    to: z.string().nullable(),
  }),
  // EXECUTE ---------------------------------------------------------------------------------------
  notice("checkpointPassed", { label: z.string() }),
  // A parallel session's wave: its worktrees, then what the merge queue did per task.
  notice("waveOpened", {
    wave: z.number().int(),
    waves: z.number().int(),
    tasks: z.array(z.looseObject({ task: z.string(), worktree: z.string(), attempt: z.number().int() })),
  }),
  notice("waveTask", {
    task: z.string(),
    name: z.string(),
    what: z.enum(["merged", "failed", "conflict", "validation", "outside", "exhausted"]),
    detail: z.string(),
    attempt: z.number().int().optional(),
    maxAttempts: z.number().int().optional(),
    /** merged: the session's head after the merge. */
    sha: z.string().optional(),
  }),
  notice("checkpointReached", { type: z.string(), label: z.string(), details: z.string().nullable() }),
  notice("planDefect", {
    taskNumber: z.number().nullable(),
    taskName: z.string(),
    defect: z.string(),
    committed: z.boolean().optional(),
    /** In a parallel wave: the wave's tasks merged before the plan went back, and those whose work is kept unmerged. */
    wave: z.looseObject({ merged: z.array(z.string()), kept: z.array(z.string()) }).optional(),
  }),
  notice("fixDisputed", { disputed: z.array(z.looseObject({ finding: z.string(), evidence: z.string() })) }),
  notice("taskFailed", {
    taskNumber: z.number().nullable(),
    taskName: z.string(),
    error: z.string(),
    attempt: z.number().int(),
    maxAttempts: z.number().int(),
  }),
  notice("budgetExhausted", {
    taskNumber: z.number().nullable(),
    taskName: z.string(),
    attempts: z.array(
      z.looseObject({ attempt: z.number().int(), fixAttempted: z.string().optional(), error: z.string() }),
    ),
    error: z.string(),
    /** Two phases in a row exhausted their budget. */
    repeated: z.boolean(),
  }),
  /** The repository's hooks refused a commit; `next` says what happens to it. */
  notice("commitRejected", {
    hook: z.string(),
    label: z.string(),
    output: z.string(),
    attempt: z.number().int(),
    maxAttempts: z.number().int(),
    /**
     * `executor`: the task executor fixes what the hook reported, then the commit is made again;
     * `ask`: the retry budget is spent, the user is asked; `askMessage`: a hook refused the message
     * itself (nothing for the executor to fix), the user is asked; `recovery`: a recovery commit,
     * not retried (its work stays in the working tree).
     */
    next: z.enum(["executor", "ask", "askMessage", "recovery"]),
  }),
  // VERIFY / REVIEW ---------------------------------------------------------------------------------
  notice("verificationPassed", {}),
  notice("verificationFailed", { findings: z.array(z.string()) }),
  notice("review", { counts: SeverityCounts, round: z.number().int().optional() }),
  notice("reviewSentBack", { problems: z.array(z.string()), final: z.boolean() }),
  // PHASE_COMPLETE ----------------------------------------------------------------------------------
  notice("phaseSummary", {
    phaseNumber: z.number().int(),
    name: z.string(),
    skipped: z.boolean(),
    tasks: z.number().int(),
    retries: z.number().int(),
    verification: z.string(),
    counts: SeverityCounts,
    reviewOverridden: z.boolean(),
    next: z.looseObject({ phaseNumber: z.number().int(), name: z.string(), complexity: z.string() }).nullable(),
    /** Failed verifications before the pass, and fix rounds (absent in earlier notices). */
    verificationFailures: z.number().int().optional(),
    fixRounds: z.number().int().optional(),
    /** Review rounds after the first (re-reviews after a fix). */
    reReviews: z.number().int().optional(),
    /** The phase's review findings, each once, by severity and fate (absent in earlier notices). */
    reviewFates: z.array(FateGroup).optional(),
  }),
  // FINAL_REVIEW / DONE -----------------------------------------------------------------------------
  notice("finalReview", { counts: SeverityCounts, round: z.number().int().optional() }),
  notice("finalFixesExhausted", { rounds: z.number().int() }),
  DoneNotice,
  notice("personaFailed", { error: z.string() }),
  // Budget (the budget question's answers) -----------------------------------------------------------
  notice("budgetAnswered", {
    answer: z.enum(["raised", "continueOnce", "stopped"]),
    /** The budget as shown ("$1.00"), before the answer. */
    budget: z.string(),
    /** The raised budget as shown, when raised. */
    raised: z.string().optional(),
    spent: z.string(),
  }),
  // Effects (src/engine/perform.ts) ------------------------------------------------------------------
  notice("commitSkipped", { label: z.string() }),
  notice("committed", {
    label: z.string(),
    sha: z.string(),
    /** The commit's subject (absent in earlier notices). */ subject: z.string().optional(),
  }),
  notice("leftOut", {
    /** The first entries (at most 10). */
    entries: z.array(z.looseObject({ path: z.string(), why: z.string() })),
    total: z.number().int(),
  }),
  notice("userChangesCommitted", { count: z.number().int(), sha: z.string(), message: z.string() }),
  notice("userChangesAlreadyCommitted", {}),
  notice("prTitle", { title: z.string(), file: z.string().optional() }),
  FinishNotice,
  notice("learningsPromoted", {
    promoted: z.number().int(),
    kept: z.number().int(),
    /** Where the run's own entry was appended (absent in earlier notices, which said nothing of it). */
    summaryTo: z.string().optional(),
    /** Learnings held back in the session: why the session's later work contradicts each. */
    held: z.array(z.string()).optional(),
  }),
  notice("learningsKept", { count: z.number().int(), file: z.string() }),
  HarnessFilesNotice,
  notice("learningsPrune", { count: z.number().int(), threshold: z.number().int() }),
  ...WORDS_NOTICES,
]);
export type Notice = z.infer<typeof Notice>;
type NoticeKind = Notice["kind"];

/** The notice of one kind. */
export type NoticeOf<K extends NoticeKind> = Extract<Notice, { kind: K }>;

/** How many of a list `leftOut` keeps (the rest are counted). */
export const LEFT_OUT_SHOWN = 10;

/** How many lines of a hook's output the report shows (the executor's brief has all of it). */
const REPORT_OUTPUT_LINES = 20;

/** The first 5 phases a `specRead` notice lists. */
export const SPEC_PHASES_SHOWN = 5;

/** The text of one notice: every message's wording, in one place. */
export function renderNotice(n: Notice): string {
  switch (n.kind) {
    case "text":
      return n.text;
    case "specRead":
      return [
        `Read spec — found ${plural(n.phaseCount, "phase")}:`,
        ...n.phases.map((p, i) => `  Phase ${i + 1}: ${p.name} (complexity: ${p.complexity})`),
        ...(n.phaseCount > n.phases.length
          ? [`  … and ${n.phaseCount - n.phases.length} more (autopilot_status lists them)`]
          : []),
        `Rigor level: ${n.rigorLevel}${n.reviewPlans ? " · --review-plans" : ""}`,
      ].join("\n");
    case "userChanges":
      return `The working tree has ${plural(n.count, "uncommitted change")} autopilot did not make (staged, unstaged or untracked). autopilot commits only its own work, so it asks first.`;
    case "resumed":
      return n.state === "DONE"
        ? "This session is DONE."
        : [
            `Resuming autopilot from state ${n.state}, phase ${n.phaseNumber}: ${n.phaseName ?? "?"}.`,
            ...(n.soFar ?? []),
          ].join("\n");
    case "stopped":
      return `Stopped at ${n.state}. The session is saved; resume it with autopilot_start (or \`autopilot run\`).`;
    case "interactivePlanning":
      return (
        `Phase ${n.phaseNumber}: ${n.phaseName ?? "?"} — complexity: high. This phase requires interactive planning: run the ` +
        `harness-planning skill with the user for this phase, then resume autopilot to continue.`
      );
    case "assessed":
      return `Phase ${n.phaseNumber}: ${n.phaseName ?? "?"} — complexity: ${n.complexity}. ${n.reviewed ? "Planning it now; the plan comes to you for approval before any of it runs." : "Auto-planning."}`;
    case "planSentBack":
      return [
        `The plan check found ${plural(n.problems.length, "problem")} in the plan; it goes back to the planner (send-back ${n.attempt} of ${n.max}):`,
        ...n.problems.map((p) => `  - ${p}`),
      ].join("\n");
    case "planLarger":
      return n.override === "high"
        ? "This phase is significantly larger than expected. Consider breaking it down."
        : `Planning produced ${n.taskCount} tasks — more than expected for low complexity. Reviewing with extra scrutiny.`;
    case "planGate":
      return planGateReport({ ...n, fired: n.fired as Parameters<typeof planGateReport>[0]["fired"] });
    case "planChanged": {
      const short = (h: string | null) => (h ? h.slice(0, 12) : "missing");
      const when = n.whileAsking ? "while the approval question was open" : "after it was approved";
      return `The plan ${n.planPath ?? ""} changed ${when} (sha256 ${short(n.from)} → ${short(n.to)}). The approval was for the earlier plan: the changed plan goes through the plan gate again, and none of it runs until it is approved.`;
    }
    case "checkpointPassed":
      return `Checkpoint passed: ${n.label}`;
    case "waveOpened":
      return `Wave ${n.wave + 1} of ${n.waves}: ${n.tasks.map((t) => `Task ${t.task}${t.attempt > 1 ? ` (attempt ${t.attempt})` : ""} in ${t.worktree}`).join("; ")}.`;
    case "waveTask": {
      const who = `Task ${n.task} (${n.name})`;
      const retry = n.attempt ? ` It runs again (attempt ${n.attempt} of ${n.maxAttempts ?? n.attempt})` : "";
      switch (n.what) {
        case "merged":
          return `${who} merged (${(n.sha ?? "").slice(0, 7)}); validation after it: ${n.detail.trim().replace(/\.+$/, "") || "passed"}.`;
        case "failed":
          return `${who} failed: ${n.detail}.${retry} in its worktree, its work kept.`;
        case "conflict":
          return `${who} conflicts with the work merged before it: ${n.detail}.${retry}, alone, from the merged result; its conflicting attempt is kept on its branch.`;
        case "validation":
          return `${who}: ${n.detail}. Its work stays merged.${retry}, alone, to repair it on the merged result.`;
        case "outside":
          return `${who} changed files outside its Files/Owns: ${n.detail}. Nothing of it was merged; a person decides.`;
        case "exhausted":
          return `${who}: its retry budget is spent (${n.detail}). Nothing of it was merged; a person decides.`;
      }
      return who;
    }
    case "checkpointReached":
      return `Checkpoint reached (${n.type}): ${n.label}${n.details ? `\n${n.details}` : ""}`;
    case "planDefect":
      if (n.wave) {
        const list = (ts: string[]) => `task${ts.length === 1 ? "" : "s"} ${ts.join(", ")}`;
        const merged = n.wave.merged.length ? `the wave's ${list(n.wave.merged)} merged` : "nothing of the wave merged";
        const kept = n.wave.kept.length
          ? `; nothing of ${list(n.wave.kept)} merged, ${n.wave.kept.length === 1 ? "its" : "their"} work (if any) kept on ${n.wave.kept.length === 1 ? "its branch" : "their branches"}`
          : "";
        return `Task ${n.taskNumber ?? "?"}: ${n.taskName} — the executor reports a defect in the plan: ${n.defect}\nThe plan goes back to the planner with this (${merged}${kept}); the revised plan's tasks not merged yet run next.`;
      }
      return `Task ${n.taskNumber ?? "?"}: ${n.taskName} — the executor reports a defect in the plan: ${n.defect}\nThe plan goes back to the planner with this${n.committed === false ? "" : "; the work done before it is kept in a commit"}.`;
    case "fixDisputed":
      return [
        `The fixer disputes ${plural(n.disputed.length, "finding")} (the next check judges the evidence):`,
        ...n.disputed.map((d) => `  - ${d.finding} — evidence: ${d.evidence}`),
      ].join("\n");
    case "taskFailed":
      return `Task ${n.taskNumber ?? "?"}: ${n.taskName} — FAILED\nError: ${n.error}\nRetry ${n.attempt}/${n.maxAttempts}: ${escalationStep(n.attempt).report}`;
    case "budgetExhausted":
      return [
        `Task ${n.taskNumber ?? "?"}: ${n.taskName} — FAILED (budget exhausted)`,
        ...n.attempts.map((a) => `Attempt ${a.attempt}: ${a.fixAttempted ? `${a.fixAttempted} → ` : ""}${a.error}`),
        `Final error: ${n.error}`,
        "Passing work was kept in a recovery commit. Recorded in .harness/failures.md.",
        ...(n.repeated
          ? [
              "Two phases in a row have exhausted their retry budget: review the spec for systemic issues before continuing.",
            ]
          : []),
      ].join("\n");
    case "commitRejected": {
      const shown = n.output.split("\n");
      const output = (
        shown.length > REPORT_OUTPUT_LINES
          ? [...shown.slice(0, REPORT_OUTPUT_LINES), `… (${shown.length - REPORT_OUTPUT_LINES} more lines)`]
          : shown
      ).map((l) => `  ${l}`);
      const head = `Commit "${n.label}" rejected by the ${n.hook} hook${n.next === "recovery" ? "" : ` (attempt ${n.attempt})`}${n.next === "ask" || n.next === "askMessage" ? "." : ":"}`;
      const tail =
        n.next === "executor"
          ? `Retry ${n.attempt}/${n.maxAttempts}: the task executor fixes what the hook reports (${escalationStep(n.attempt).report.replace(/\.$/, "")}); then the same commit is made again, with the hooks.`
          : n.next === "ask"
            ? `The retry budget (${n.maxAttempts} attempts) is spent: the commit waits for you.`
            : n.next === "askMessage"
              ? `The hook refused autopilot's commit message, which the executor cannot change: set "commitMessage" in .harness/config.json to a template of the subject your hook accepts (the question below says how), then answer "fix it yourself and continue".`
              : "A recovery commit is not retried: its work stays uncommitted in the working tree (the next commit includes it, or review it yourself).";
      // At a question the output is in the question's context: the report does not repeat it.
      return [head, ...(n.next === "ask" || n.next === "askMessage" ? [] : output), tail].join("\n");
    }
    case "verificationPassed":
      return "Verification: pass";
    case "verificationFailed":
      return ["Verification failed:", ...n.findings.map((f) => `- ${f}`)].join("\n");
    case "review":
      return `${n.round && n.round > 1 ? `Re-review (round ${n.round})` : "Review"}: ${counted(n.counts)}`;
    case "reviewSentBack":
      return [
        `The ${n.final ? "final " : ""}review goes back to the reviewer: a blocking finding needs a file, a line and a scenario that triggers it.`,
        ...n.problems.map((p) => `  - ${p}`),
      ].join("\n");
    case "phaseSummary": {
      const lines = [`Phase ${n.phaseNumber}: ${n.name} — ${n.skipped ? "SKIPPED" : "COMPLETE"}`];
      if (!n.skipped) {
        const vf = n.verificationFailures ?? 0;
        const verification = vf
          ? `${n.verification} (after ${plural(vf, "failed verification")} and a fix)`
          : n.verification;
        // Each finding once, with its fate; a notice from before fates were kept says only its counts.
        const review = n.reviewFates?.length ? groupWords(n.reviewFates) : counted(n.counts);
        const rounds = n.reReviews ? ` (${n.reReviews + 1} rounds)` : n.reviewOverridden ? " (overridden)" : "";
        lines.push(
          `Tasks: ${n.tasks}/${n.tasks} | Retries: ${n.retries} | Verification: ${verification} | Review: ${review}${rounds}`,
        );
      }
      // After the last phase the next Step is the final review's, which says so itself.
      if (n.next) lines.push(`Next: Phase ${n.next.phaseNumber}: ${n.next.name} (complexity: ${n.next.complexity}).`);
      return lines.join("\n");
    }
    case "finalReview":
      return `Final review${n.round && n.round > 1 ? ` (round ${n.round}, after a fix)` : ""}: ${counted(n.counts)}.`;
    case "finalFixesExhausted":
      return `Final review: blocking findings remain after ${n.rounds} fix rounds. Recorded in .harness/failures.md.`;
    case "done":
      return renderDone(n);
    case "personaFailed":
      return `The persona could not finish this step: ${n.error}`;
    case "budgetAnswered":
      return n.answer === "raised"
        ? `Budget raised from ${n.budget} to ${n.raised ?? "?"} (spent: ${n.spent}).`
        : n.answer === "continueOnce"
          ? `Over budget (${n.budget}; spent: ${n.spent}): one more persona run, then the session asks again.`
          : `Stopped: the budget (${n.budget}) is spent (${n.spent}). The session is saved; resume it with a larger --budget.`;
    case "commitSkipped":
      return `${n.label} — nothing to commit (skipped)`;
    case "committed":
      return n.subject
        ? `Committed ${n.sha.slice(0, 7)} ${n.subject}`
        : `${n.label} — committed (${n.sha.slice(0, 7)})`;
    case "leftOut":
      return [
        `Left out of autopilot's commit (not its own work; commit it yourself if it belongs):`,
        ...n.entries.map((l) => `  ${l.path} — ${l.why}`),
        ...(n.total > n.entries.length ? [`  … and ${n.total - n.entries.length} more`] : []),
      ].join("\n");
    case "userChangesCommitted":
      return `Committed your ${plural(n.count, "earlier change")} as ${n.sha.slice(0, 7)} "${n.message}", at your request. The session starts from that commit.`;
    case "userChangesAlreadyCommitted":
      return "Your earlier changes were already committed; nothing to commit.";
    case "prTitle":
      return n.file
        ? `Pull request: "${n.title}"; its description (what changed and why, how it was tested, what is left open) is ${n.file}.`
        : `Suggested PR title: ${n.title}`;
    case "finish":
      return renderFinish(n);
    case "learningsPromoted":
      return n.summaryTo
        ? `Learnings: added this run's entry to ${n.summaryTo}${n.promoted ? `; moved ${plural(n.promoted, "learning")} of this session there` : ""}${n.kept ? ` (${n.kept} session-specific kept in the session)` : ""}${n.held?.length ? `; ${plural(n.held.length, "learning")} held back in the session, contradicted by its later work (${n.held.join("; ")})` : ""}.`
        : `Promoted ${n.promoted} learnings to global, ${n.kept} session-specific entries kept in session.`;
    case "learningsKept":
      return `Kept ${plural(n.count, "learning")} for later phases in ${n.file}.`;
    case "harnessFiles":
      return renderHarnessFiles(n);
    case "learningsPrune":
      return `Global learnings.md has ${n.count} entries (threshold: ${n.threshold}). Run \`harness learnings prune\` to analyze patterns and archive old entries.`;
    default:
      // The notices about the person's words (their wording: src/session/notices-words.ts); a kind
      // handled nowhere fails to compile here.
      return renderWordsNotice(n);
  }
}

/**
 * Notices an effect records: each is a line under the one before it (a commit's line, then what it
 * left out), where the machine's notices are paragraphs.
 */
const LINE_KINDS: ReadonlySet<NoticeKind> = new Set<NoticeKind>([
  "commitSkipped",
  "committed",
  "leftOut",
  "userChangesCommitted",
  "userChangesAlreadyCommitted",
  "prTitle",
  "finish",
  "learningsPromoted",
  "learningsKept",
  "learningsPrune",
]);

/**
 * A review's line that a later summary of the same report says again: the phase summary's
 * "Review: <counts>" (as upstream's PHASE_COMPLETE shows it, without a line before) and the done
 * report's "Final review: <status> (<counts>)".
 */
function restated(n: Notice, later: readonly Notice[]): boolean {
  const same = (a: SeverityCounts, b: SeverityCounts) =>
    a.blocking === b.blocking && a.warning === b.warning && a.note === b.note;
  if (n.kind === "review" && !n.round)
    return later.some((m) => m.kind === "phaseSummary" && !m.skipped && same(m.counts, n.counts));
  if (n.kind === "finalReview" && !n.round)
    return later.some((m) => m.kind === "done" && same(m.finalFindings, n.counts));
  // "added this run's entry to .harness/learnings.md" and nothing more, before the list of
  // .harness/ files worth committing that names that file.
  if (n.kind === "learningsPromoted" && n.summaryTo && !n.promoted && !n.kept && !n.held?.length)
    return later.some((m) => m.kind === "harnessFiles" && m.commit.includes(n.summaryTo!));
  return false;
}

/** The report a Step shows: the notices in the order they were recorded, or null when there are none. */
export function renderNotices(notices: readonly Notice[]): string | null {
  let out: string | null = null;
  for (const [i, n] of notices.entries()) {
    if (restated(n, notices.slice(i + 1))) continue;
    const text = renderNotice(n);
    out = out === null ? text : `${out}${LINE_KINDS.has(n.kind) ? "\n" : "\n\n"}${text}`;
  }
  return out;
}
