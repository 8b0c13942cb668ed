// Pure helpers of the machine's guards and actions (and of the Step renderer, which reads some).
import type {
  AutopilotState,
  Complexity,
  Decision,
  Effect,
  EffectBody,
  Finding,
  Notice,
  Phase,
  ReviewRound,
  VerificationRound,
} from "../session/schema.js";
import { channelPhrase } from "../vocabulary.js";
import { fateTally, findingsIn } from "../session/findings.js";
import { countBySeverity } from "./reports.js";
import { firedSignals, signalsFor } from "../rules/signals.js";
import { FINAL_REVIEW_FIX_BUDGET } from "../rules/policy.js";
import { FIXABLE_HOOK, type AutopilotEvent } from "./events.js";

/** The final review's fix budget (the policy's); kept under this name for readers of the machine. */
export const MAX_FINAL_REVIEW_FIXES = FINAL_REVIEW_FIX_BUDGET;

export function effectiveComplexity(phase: Phase): Complexity {
  return phase.complexityOverride ?? phase.complexity;
}

/**
 * The skill's planning override: a phase annotated low whose plan is bigger than expected is
 * reviewed as medium (>10 tasks or >3 checkpoints) or high (>20 or >6). Only ever raises.
 */
export function complexityOverrideFor(
  specComplexity: Complexity,
  taskCount: number,
  checkpointCount: number,
): Complexity | null {
  if (specComplexity !== "low") return null;
  if (taskCount > 20 || checkpointCount > 6) return "high";
  if (taskCount > 10 || checkpointCount > 3) return "medium";
  return null;
}

export function hasBlocking(findings: Finding[]): boolean {
  return findings.some((f) => f.severity === "blocking");
}

/**
 * The review check: each blocking finding must name a file, a line and the concrete scenario that
 * triggers it. What is missing, one line per finding (empty: the review passes the check).
 */
export function incompleteBlocking(findings: Finding[]): string[] {
  const out: string[] = [];
  for (const f of findings) {
    if (f.severity !== "blocking") continue;
    const missing = [
      !f.file?.trim() && "file",
      f.line === undefined && "line",
      !f.scenario?.trim() && "scenario",
    ].filter(Boolean);
    if (missing.length) out.push(`"${f.title}" has no ${missing.join(", ").replace(/, ([^,]*)$/, " or $1")}`);
  }
  return out;
}

/** A blocking finding as the fixer and the question read it: title, place, why, how it triggers. */
export function findingLine(f: Finding): string {
  return `${f.title}${f.file ? ` (${f.file}${f.line ? `:${f.line}` : ""})` : ""}${f.rationale ? ` — ${f.rationale}` : ""}${f.scenario ? ` Scenario: ${f.scenario}` : ""}`;
}

export function phaseLabel(state: AutopilotState): string {
  const phase = state.phases[state.currentPhase];
  return `Phase ${state.currentPhase + 1}: ${phase?.name ?? "?"}`;
}

/** An effect the machine owes (its types and args: src/session/effects.ts), with its id. */
export function effect(state: AutopilotState, body: EffectBody): Effect {
  // stepId is bumped by the engine before each event, so ids are unique within the session and
  // stable if the same transition is replayed from the saved outbox.
  const n = state.outbox.filter((e) => e.type === body.type).length;
  return { id: `s${state.stepId}-${body.type}${n ? `-${n}` : ""}`, ...body };
}

/** How many times the repository's hooks have refused this commit already (0 for a new one). */
export function refusalsOf(context: AutopilotState, commit: Effect): number {
  const held = context.phaseRun.rejectedCommit;
  return held && held.effect.id === commit.id ? held.attempts.length : 0;
}

/** A refused commit goes to the executor: the pre-commit hook refused it, and retries are left. */
export function goesToExecutor(context: AutopilotState, event: { commit: Effect; hook: string }): boolean {
  return event.hook === FIXABLE_HOOK && refusalsOf(context, event.commit) < context.retryBudget.maxAttempts;
}

export function sameTaskAs(
  cur: { number: number | null; name: string },
  task: { number?: number | null; name: string } | undefined,
): boolean {
  if (!task) return true; // a failure that names no task is the same task again
  if (cur.number !== null && task.number !== undefined && task.number !== null) return cur.number === task.number;
  return cur.name === task.name;
}

const RANK: Record<Complexity, number> = { low: 0, medium: 1, high: 2 };
export function higherComplexity(a: Complexity | null, b: Complexity | null): Complexity | null {
  if (a === null) return b;
  if (b === null) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

/** A parallel session's waves, recorded with the plan decision. */
export function planWaves(context: AutopilotState): Pick<Decision, "waves"> {
  return context.phaseRun.waves ? { waves: context.phaseRun.waves } : {};
}

/**
 * A revised plan's waves once an executor's plan defect sent the plan back mid-phase: the tasks
 * already merged are left out, and the rest go on in waves (each task in its own worktree) even
 * when too few remain to run at once, so none runs in the checkout over merged work.
 */
export function wavesWithout<W extends { parallel: boolean; waves: string[][]; reason: string } | null>(
  plan: W,
  merged: readonly string[] | undefined,
): W {
  if (!plan || merged === undefined) return plan;
  const done = new Set(merged);
  const waves = plan.waves.map((w) => w.filter((t) => !done.has(t))).filter((w) => w.length);
  const reason = merged.length
    ? `${plan.reason}; tasks ${merged.join(", ")} are merged already, the rest go on in waves`
    : plan.reason;
  return { ...plan, parallel: true, waves, reason };
}

export function planHash(context: AutopilotState): Pick<Decision, "planSha256"> {
  const h = context.phaseRun.planSha256;
  return h ? { planSha256: h } : {};
}

/** The plan gate's lines for the current phase: signals read, which fired, and what follows. */
/** The plan gate's report, with the signals as read now. */
export function gateNotice(context: AutopilotState, mode: "fast" | "auto" | "pause"): Notice {
  const signals = signalsFor(context);
  return {
    kind: "planGate",
    phaseNumber: context.currentPhase + 1,
    phaseName: context.phases[context.currentPhase].name,
    signals,
    fired: mode === "pause" ? firedSignals(signals) : [],
    rigor: context.rigorLevel,
    mode,
    checkpointCount: context.phaseRun.checkpointCount ?? 0,
    ...(context.phaseRun.assumptions?.length ? { assumptions: [...context.phaseRun.assumptions] } : {}),
    ...(context.phaseRun.deferred?.length ? { deferred: [...context.phaseRun.deferred] } : {}),
    ...(context.phaseRun.waves ? { waves: context.phaseRun.waves } : {}),
  };
}

/** "Phase 2: Name", as a notice's fields. */
export function phaseNamed(context: AutopilotState): { phaseNumber: number; phaseName: string | null } {
  return { phaseNumber: context.currentPhase + 1, phaseName: context.phases[context.currentPhase]?.name ?? null };
}

export function planSignals(context: AutopilotState): Pick<Decision, "signals" | "fired"> {
  const signals = signalsFor(context);
  return { signals, fired: firedSignals(signals) };
}

/** " Gates: approved_plan "yes" (answered by the host model; no person may have seen it)." */
export function gatesAnswered(decisions: Decision[]): string {
  const asked = decisions.filter((d) => d.by !== "auto" && d.answer !== undefined);
  if (!asked.length) return "";
  return ` Gates: ${asked.map((d) => `${d.decision} "${d.answer}" (${channelPhrase(d.by)})`).join("; ")}.`;
}

/** A verification as the phase keeps it (the first is never overwritten by a re-check). */
export function verificationRound(event: AutopilotEvent, verdict: "pass" | "fail"): VerificationRound {
  if (event.type === "VERIFIED")
    return {
      verdict,
      findings: [...event.findings],
      ...(event.evidence?.length ? { evidence: [...event.evidence] } : {}),
    };
  if (event.type === "VALIDATED")
    return { verdict, findings: verdict === "fail" ? [event.summary] : [], evidence: [event.summary] };
  return { verdict, findings: [] };
}

/** The review rounds with the last one resolved as `resolution` (a fix: with the findings the person sent to it). */
export function resolveLastRound(
  rounds: ReviewRound[] | undefined,
  resolution: "fix" | "override",
  sent?: number[],
): ReviewRound[] {
  const all = [...(rounds ?? [])];
  if (all.length) all[all.length - 1] = { ...all[all.length - 1], resolution, ...(sent ? { sent } : {}) };
  return all;
}

/** The phase's review file: every round, so a re-review never overwrites what was found first. */
export function writeReviewEffect(context: AutopilotState, rounds: ReviewRound[]): Effect {
  return effect(context, {
    type: "writeReview",
    args: {
      phase: context.currentPhase,
      name: context.phases[context.currentPhase]?.name,
      findings: rounds.at(-1)?.findings ?? [],
      rounds: rounds.map((r) => ({ findings: r.findings, resolution: r.resolution })),
    },
  });
}

/**
 * The phase's record for its summary line: what verification and review found, each finding once
 * with its fate (counts per round only for a state from before the ledger).
 */
export function phaseRecord(state: AutopilotState): string {
  const run = state.phaseRun;
  const scope = (source: "verification" | "review") =>
    findingsIn(state.findingLedger, { source, phase: state.currentPhase });
  const parts: string[] = [];
  const vr = run.verificationRounds ?? [];
  const failed = vr.filter((r) => r.verdict === "fail");
  const vf = scope("verification");
  parts.push(
    failed.length
      ? `verification failed ${failed.length === 1 ? "once" : `${failed.length} times`}, then ${run.verification ?? "not run"} (${
          vf.length
            ? `its findings: ${fateTally(vf)}`
            : failed
                .map((r) => r.findings.join("; "))
                .join(" | ")
                .slice(0, 300)
        })`
      : `verification ${run.verification ?? "not run"}`,
  );
  const rr = run.reviewRounds ?? [];
  const rf = scope("review");
  if (rf.length) {
    parts.push(`review${rr.length > 1 ? ` (${rr.length} rounds)` : ""}: ${fateTally(rf)}`);
  } else if (rr.length <= 1) {
    const c = countBySeverity(rr[0]?.findings ?? run.reviewFindings);
    parts.push(
      `review ${c.blocking} blocking / ${c.warning} warning / ${c.note} note${rr[0]?.resolution === "override" ? " (overridden)" : ""}`,
    );
  } else {
    parts.push(
      `review ${rr
        .map((r, k) => {
          const c = countBySeverity(r.findings);
          return `round ${k + 1}: ${c.blocking} blocking / ${c.warning} warning / ${c.note} note${r.resolution === "fix" ? " (blocking sent back for a fix)" : r.resolution === "override" ? " (overridden)" : ""}`;
        })
        .join(", ")}`,
    );
  }
  return parts.join(", ");
}
