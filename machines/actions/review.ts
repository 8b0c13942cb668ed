// The actions of VERIFY, REVIEW, PHASE_COMPLETE, FINAL_REVIEW and DONE: verification rounds, review
// rounds and their fixes, the phase's records, the final review, the session's close.
// Pure, as the machine: each only changes context or appends an effect to the outbox.
import { namingFixed } from "../commit-args.js";
import { assertEvent } from "xstate";
import type { AutopilotState, Effect, EffectBody } from "../../src/session/schema.js";
import { emptyPhaseRun } from "../../src/session/schema.js";
import { channelCounts } from "../../src/vocabulary.js";
import { countBySeverity, doneNotice, phaseSummaryNotice } from "../reports.js";
import { RIGOR } from "../../src/rules/policy.js";
import { incompleteBlocking } from "../blocking.js";
import { effect } from "../effect.js";
import {
  gatesAnswered,
  verificationRound,
  resolveLastRound,
  writeReviewEffect,
  phaseRecord,
  MAX_FINAL_REVIEW_FIXES,
} from "../review-rounds.js";
import { act } from "./act.js";
import { finalRecord, phaseLine } from "./records.js";
import { verificationFindings } from "../../src/session/findings.js";
import { decide, isBlocking, raise, scopeOf, sendToFix, sentChoice, settleFix } from "../fates.js";
import { fixLines, gateIds, sentIndices } from "../fix-choice.js";

export const reviewActions = {
  // VERIFY --------------------------------------------------------------------------------
  verificationPass: act(({ context, event }) => ({
    phaseRun: {
      ...context.phaseRun,
      verification: "pass" as const,
      verificationFindings: [],
      verificationRounds: [...(context.phaseRun.verificationRounds ?? []), verificationRound(event, "pass")],
      disputed: [],
    },
    notices: [...context.notices, { kind: "verificationPassed" }],
  })),
  verificationFail: act(({ context, event }) => {
    const findings = event.type === "VERIFIED" ? event.findings : event.type === "VALIDATED" ? [event.summary] : [];
    const round = (context.phaseRun.verificationRounds ?? []).length + 1;
    return {
      ...raise(context, scopeOf(context, "verification"), round, verificationFindings(findings)),
      phaseRun: {
        ...context.phaseRun,
        verification: "fail" as const,
        verificationFindings: findings,
        // The first result is kept: a re-check adds a round, it never replaces one.
        verificationRounds: [...(context.phaseRun.verificationRounds ?? []), verificationRound(event, "fail")],
        disputed: [],
      },
      notices: [...context.notices, { kind: "verificationFailed", findings: [...findings] }],
    };
  }),
  storeValidation: act(({ context, event }) => {
    assertEvent(event, "VALIDATED");
    return { phaseRun: { ...context.phaseRun, lastValidation: { passed: event.passed, summary: event.summary } } };
  }),
  fixVerification: act(({ context, event }) => {
    assertEvent(event, "DECIDE");
    const round = (context.phaseRun.fixRounds ?? 0) + 1;
    const scope = scopeOf(context, "verification");
    const findings = context.phaseRun.verificationFindings;
    // "fix": every failure; "fix these": the ones the person named, recorded on the round.
    const sent =
      event.answer === "fix these"
        ? sentIndices(event.answer, findings, event, gateIds(context, "verification"))
        : undefined;
    const rounds = [...(context.phaseRun.verificationRounds ?? [])];
    if (sent && rounds.length) rounds[rounds.length - 1] = { ...rounds[rounds.length - 1], sent };
    const last = rounds.at(-1);
    const choice = sentChoice(context, scope, rounds.length, verificationFindings(last?.findings ?? []), last?.sent);
    const { findingLedger, ids } = sendToFix(context, scope, choice, round);
    return {
      findingLedger,
      phaseRun: {
        ...context.phaseRun,
        fix: {
          source: "verification" as const,
          findings: sent ? fixLines(findings, sent) : [...findings],
          round,
          ids,
        },
        fixRounds: round,
        verificationRounds: rounds,
      },
      retryBudget: { ...context.retryBudget, currentTask: null },
    };
  }),
  skipVerification: act(({ context, event }) => ({
    ...decide(
      context,
      scopeOf(context, "verification"),
      () => true,
      "overridden",
      "skipped_verification",
      event.type === "DECIDE" ? event.by : undefined,
    ),
    phaseRun: { ...context.phaseRun, verification: "skipped" as const },
  })),
  // REVIEW --------------------------------------------------------------------------------
  storeReview: act(({ context, event }) => {
    assertEvent(event, "REVIEWED");
    const rounds = [...(context.phaseRun.reviewRounds ?? []), { findings: event.findings, resolution: null }];
    const ledger = raise(context, scopeOf(context, "review"), rounds.length, event.findings);
    return {
      ...ledger,
      phaseRun: {
        ...context.phaseRun,
        reviewFindings: event.findings,
        reviewRounds: rounds,
        reviewProblems: [],
        disputed: [],
      },
      outbox: [...context.outbox, writeReviewEffect(context, rounds)],
      notices: [
        ...context.notices,
        {
          kind: "review",
          counts: countBySeverity(event.findings),
          ...(rounds.length > 1 ? { round: rounds.length } : {}),
        },
      ],
    };
  }),
  /** The review check: blocking findings without a file, a line or a scenario go back to the reviewer. */
  sendReviewBack: act(({ context, event }) => {
    assertEvent(event, "REVIEWED");
    const problems = incompleteBlocking(event.findings);
    return {
      phaseRun: {
        ...context.phaseRun,
        reviewChecks: (context.phaseRun.reviewChecks ?? 0) + 1,
        reviewProblems: problems,
      },
      notices: [...context.notices, { kind: "reviewSentBack", problems, final: false }],
    };
  }),
  fixReview: act(({ context, event }) => {
    assertEvent(event, "DECIDE");
    const findings = context.phaseRun.reviewFindings;
    const sent = sentIndices(event.answer, findings, event, gateIds(context, "review"));
    const rounds = resolveLastRound(context.phaseRun.reviewRounds, "fix", sent);
    const round = (context.phaseRun.fixRounds ?? 0) + 1;
    const scope = scopeOf(context, "review");
    const last = rounds.at(-1);
    const choice = sentChoice(context, scope, rounds.length, last?.findings ?? [], last?.sent);
    const sentToFix = sendToFix(context, scope, choice, round);
    const { ids } = sentToFix;
    // "fix these": the warnings the person did not name are left for later by them, not re-raised.
    const left =
      event.answer === "fix these"
        ? decide(
            { ...context, findingLedger: sentToFix.findingLedger },
            scope,
            (e) => e.severity === "warning" && !ids.includes(e.id),
            "deferred",
            "left_warnings",
            event.by,
          ).findingLedger
        : undefined;
    return {
      findingLedger: left ?? sentToFix.findingLedger,
      phaseRun: {
        ...context.phaseRun,
        fix: {
          source: "review" as const,
          findings: fixLines(findings, sent),
          round,
          ids,
        },
        fixRounds: round,
        reviewRounds: rounds,
      },
      outbox: rounds.length ? [...context.outbox, writeReviewEffect(context, rounds)] : context.outbox,
      retryBudget: { ...context.retryBudget, currentTask: null },
    };
  }),
  /** "move on" at a review's warnings: the person left them for later. */
  deferWarnings: act(({ context, event }) => {
    assertEvent(event, "DECIDE");
    const warning = (e: { severity: string }) => e.severity === "warning";
    return decide(context, scopeOf(context, "review"), warning, "deferred", "left_warnings", event.by);
  }),
  overrideReview: act(({ context, event }) => {
    const rounds = resolveLastRound(context.phaseRun.reviewRounds, "override");
    const by = event.type === "DECIDE" ? event.by : undefined;
    return {
      ...decide(context, scopeOf(context, "review"), isBlocking, "overridden", "overrode_review", by),
      phaseRun: { ...context.phaseRun, reviewOverridden: true, reviewRounds: rounds },
      outbox: rounds.length ? [...context.outbox, writeReviewEffect(context, rounds)] : context.outbox,
    };
  }),
  // PHASE_COMPLETE --------------------------------------------------------------------------
  completePhase: act(({ context, event }) => {
    const now = event.now;
    const i = context.currentPhase;
    const phase = context.phases[i];
    const skipped = phase.status === "skipped";
    const run = context.phaseRun;
    // What the reviewer found is the first round; re-reviews after a fix are counted beside it.
    const reviewRounds = run.reviewRounds ?? [];
    const counts = countBySeverity(reviewRounds[0]?.findings ?? run.reviewFindings);
    const verificationFailures = (run.verificationRounds ?? []).filter((r) => r.verdict === "fail").length;
    const phases = context.phases.map((p, j) =>
      j === i ? { ...p, status: skipped ? ("skipped" as const) : ("complete" as const), completedAt: now } : p,
    );
    const next: AutopilotState = { ...context, phases };
    const tested = {
      executor: [...(run.evidence ?? [])],
      verification: [...((run.verificationRounds ?? []).at(-1)?.evidence ?? [])],
    };
    const entry = {
      phase: i,
      name: phase.name,
      ...(run.startedAt ? { startedAt: run.startedAt } : {}),
      completedAt: now,
      tasksCompleted: skipped ? 0 : (run.taskCount ?? 0),
      retriesUsed: run.retriesUsed,
      verificationPassed: run.verification === "pass",
      verification: skipped ? "skipped" : (run.verification ?? "not run"),
      reviewFindings: counts,
      ...(verificationFailures ? { verificationFailures } : {}),
      ...(run.fixRounds ? { fixRounds: run.fixRounds } : {}),
      ...(reviewRounds.length > 1 ? { reviewRounds: reviewRounds.map((r) => countBySeverity(r.findings)) } : {}),
      checkRounds: {
        verification: (run.verificationRounds ?? []).map((r) => r.verdict),
        review: reviewRounds.map((r) => r.resolution),
      },
      ...(skipped ? { skipped: true } : {}),
      ...(run.reviewOverridden ? { reviewOverridden: true } : {}),
      ...(run.assumptions?.length ? { assumptions: [...run.assumptions] } : {}),
      ...(tested.executor.length || tested.verification.length ? { tested } : {}),
    };
    const effects: Effect[] = [];
    const withOutbox = (e: Effect) => {
      effects.push(e);
      next.outbox = [...context.outbox, ...effects];
    };
    next.outbox = context.outbox;
    // The review file again, with each finding's fate as the phase leaves it.
    if (reviewRounds.length) withOutbox(writeReviewEffect(next, reviewRounds));
    if (RIGOR[context.rigorLevel].scratchpad !== "none")
      withOutbox(effect(next, { type: "clearScratchpad", args: { phase: phase.name } }));
    withOutbox(effect(next, { type: "syncRoadmap", args: {} }));
    const nextPhase = context.phases[i + 1];
    withOutbox(
      effect(next, {
        type: "writeSummary",
        args: {
          lastActive: now,
          phase: `${i + 1} of ${context.phases.length}`,
          status: skipped
            ? `Phase ${i + 1} skipped.`
            : `Phase ${i + 1} complete. ${run.taskCount ?? 0}/${run.taskCount ?? 0} tasks.`,
          plan: phase.planPath,
          keyContext: `${phase.name}: ${skipped ? "skipped by decision" : phaseRecord(context)}.${gatesAnswered(context.decisions.filter((d) => d.phase === i))}`,
          nextStep: nextPhase ? `Continue to Phase ${i + 2}: ${nextPhase.name}` : "Final review, then DONE",
        },
      }),
    );
    const summaryState: AutopilotState = { ...next, history: [...context.history, entry] };
    return {
      phases,
      history: summaryState.history,
      outbox: next.outbox,
      consecutiveExhausted: run.exhausted ? context.consecutiveExhausted : 0,
      notices: [...context.notices, phaseSummaryNotice(summaryState, i)],
    };
  }),
  advancePhase: act(({ context, event }) => ({
    currentPhase: context.currentPhase + 1,
    retryBudget: { ...context.retryBudget, currentTask: null },
    phaseRun: emptyPhaseRun(event.now),
    awaitingInteractivePlan: false,
  })),
  // FINAL_REVIEW -----------------------------------------------------------------------------
  startFinalReview: act(({ context }) => ({
    finalReview: { ...context.finalReview, status: "in_progress" as const },
  })),
  storeFinalFindings: act(({ context, event }) => {
    assertEvent(event, "REVIEWED");
    const rounds = [...(context.finalReview.rounds ?? []), { findings: event.findings, resolution: null }];
    return {
      ...raise(context, scopeOf(context, "final"), rounds.length, event.findings),
      finalReview: { ...context.finalReview, findings: event.findings, rounds, problems: [], disputed: [] },
      notices: [
        ...context.notices,
        {
          kind: "finalReview",
          counts: countBySeverity(event.findings),
          ...(rounds.length > 1 ? { round: rounds.length } : {}),
        },
      ],
    };
  }),
  sendFinalReviewBack: act(({ context, event }) => {
    assertEvent(event, "REVIEWED");
    const problems = incompleteBlocking(event.findings);
    return {
      finalReview: { ...context.finalReview, checks: (context.finalReview.checks ?? 0) + 1, problems },
      notices: [...context.notices, { kind: "reviewSentBack", problems, final: true }],
    };
  }),
  resolveFinalRound: act(({ context, event }, params: { resolution: "fix" | "override" }) => {
    assertEvent(event, "DECIDE");
    const sent =
      params.resolution === "fix"
        ? sentIndices(event.answer, context.finalReview.findings, event, gateIds(context, "final"))
        : undefined;
    return {
      ...(params.resolution === "override"
        ? decide(context, scopeOf(context, "final"), isBlocking, "overridden", "overrode_final_review", event.by)
        : {}),
      finalReview: {
        ...context.finalReview,
        rounds: resolveLastRound(context.finalReview.rounds, params.resolution, sent),
      },
    };
  }),
  finalReviewPassed: act(({ context }) => ({
    finalReview: { ...context.finalReview, status: "passed" as const },
  })),
  countFinalFix: act(({ context }) => {
    const round = context.finalReview.retryCount + 1;
    const scope = scopeOf(context, "final");
    const rounds = context.finalReview.rounds ?? [];
    const last = rounds.at(-1);
    const choice = sentChoice(context, scope, rounds.length, last?.findings ?? [], last?.sent);
    const { findingLedger } = sendToFix(context, scope, choice, round);
    return { findingLedger, finalReview: { ...context.finalReview, retryCount: round } };
  }),
  finalFixesExhausted: act(({ context, event }) => {
    const now = event.now;
    const blocking = context.finalReview.findings.filter((f) => f.severity === "blocking");
    return {
      finalReview: { ...context.finalReview, retryCount: context.finalReview.retryCount + 1 },
      outbox: [
        ...context.outbox,
        effect(context, {
          type: "appendFailure",
          args: {
            date: now.slice(0, 10),
            skill: "harness-autopilot",
            type: "final-review",
            text: `Final review still has ${blocking.length} blocking finding(s) after ${MAX_FINAL_REVIEW_FIXES} fix rounds: ${blocking.map((f) => f.title).join("; ")}`,
          },
        }),
      ],
      notices: [...context.notices, { kind: "finalFixesExhausted", rounds: MAX_FINAL_REVIEW_FIXES }],
    };
  }),
  commitFinalFix: act(({ context, event }) => {
    const disputed = event.type === "FIXED" ? [...(event.disputed ?? [])] : [];
    const commit = effect(context, {
      type: "commit",
      args: {
        label: `Final review fixes (round ${context.finalReview.retryCount})`,
        recovery: false,
        phase: null,
        kind: "fix",
        topic: "the final review",
        ...(event.type === "FIXED" && event.commitMessage?.trim() ? { message: event.commitMessage.trim() } : {}),
      },
    });
    const settled = settleFix(context, scopeOf(context, "final"), context.finalReview.retryCount, disputed, commit.id);
    return {
      ...settled,
      finalReview: { ...context.finalReview, disputed },
      notices: disputed.length ? [...context.notices, { kind: "fixDisputed" as const, disputed }] : context.notices,
      outbox: [...context.outbox, namingFixed(commit, settled.findingLedger)],
    };
  }),
  /** The person fixes the final review's blocking findings by hand after the fix rounds ran out. */
  finalFixedByHand: act(({ context, event }) => ({
    ...decide(
      context,
      scopeOf(context, "final"),
      isBlocking,
      "fixed",
      "fixed_manually",
      event.type === "DECIDE" ? event.by : undefined,
    ),
  })),
  overrideFinalReview: act(({ context }) => ({
    finalReview: { ...context.finalReview, status: "overridden" as const },
  })),
  // DONE ----------------------------------------------------------------------------------------
  finish: act(({ context, event }) => {
    const next: AutopilotState = { ...context, outbox: context.outbox };
    const add = (body: EffectBody) => {
      next.outbox = [...next.outbox, effect(next, body)];
    };
    add({ type: "writeFinalHandoff", args: {} });
    add({ type: "appendLearnings", args: {} });
    add({ type: "roadmapDone", args: {} });
    const fr = context.finalReview;
    const record = context.history.map((h) => phaseLine(context, h)).join("");
    add({
      type: "writeSummary",
      args: {
        lastActive: event.now,
        status: `DONE. ${context.phases.filter((p) => p.status === "complete").length} phases, ${context.history.reduce((n, h) => n + (h.tasksCompleted ?? 0), 0)} tasks complete.`,
        keyContext: `Autopilot carried ${context.specPath} through ${context.phases.length} phases; final review ${fr.status} (${finalRecord(context)}).${record} Decisions: ${channelCounts(context.decisions)}.`,
        nextStep:
          "All phases complete. Open the pull request (its description is pr.md in this folder) or close the session. Commit .harness/learnings.md (and .harness/failures.md, if any) if your team keeps them.",
        ignoreAdvice: true,
      },
    });
    add({ type: "closeExecutionState", args: {} });
    add({ type: "reportHarnessFiles", args: {} });
    return { outbox: next.outbox, notices: [...context.notices, doneNotice(context)] };
  }),
};
