// The finding ledger of a state file written before it was kept (an older autopilot, or upstream's
// skill): rebuilt from what the file holds, so a resumed session's briefs and reports give each
// finding its fate as the rounds recorded it. What the file does not hold stays unknown: the
// findings of phases already done (their phase-N-review.json files keep them), the commits of
// earlier fix rounds.
import type { AutopilotState, Decision, Finding } from "./schema.js";
import {
  chooseForFix,
  decideFindings,
  findingsIn,
  markForFix,
  raiseFindings,
  roundIds,
  settleFixRound,
  verificationFindings,
  type FindingScope,
  type TrackedFinding,
} from "./findings.js";

/** The final review's stages after a fix round reported (its commit, the validation, the re-review). */
const AFTER_FIX = new Set(["validating", "running", "budgetRunning", "commitFix", "budgetCommitFix"]);

/** States that work on `phases[currentPhase]`, whose `phaseRun` holds that phase's rounds. */
const PHASE_WORK = new Set(["EXECUTE", "VERIFY", "REVIEW", "PHASE_COMPLETE"]);

function lastDecision(decisions: readonly Decision[], name: string, phase: number | null): Decision | undefined {
  return [...decisions].reverse().find((d) => d.decision === name && d.phase === phase);
}

function open(ledger: TrackedFinding[], scope: FindingScope, round?: number): string[] {
  return findingsIn(ledger, scope)
    .filter((e) => e.fate === "open" && (round === undefined || e.seen.includes(round)))
    .map((e) => e.id);
}

function sentIds(
  ledger: TrackedFinding[],
  scope: FindingScope,
  round: number,
  findings: readonly Finding[],
  sent: readonly number[],
): string[] {
  const ids = roundIds(ledger, scope, round, findings);
  return sent.map((k) => ids[k]).filter((id): id is string => id !== undefined);
}

export function deriveFindingLedger(state: AutopilotState): TrackedFinding[] {
  let ledger: TrackedFinding[] = [];
  const run = state.phaseRun;
  if (PHASE_WORK.has(state.currentState)) {
    const phase = state.currentPhase;
    let fixRound = 0;
    // Verification: a failed round followed by another was fixed in between.
    const v: FindingScope = { source: "verification", phase };
    const vr = run.verificationRounds ?? [];
    vr.forEach((r, k) => {
      if (r.verdict !== "fail") return;
      ledger = raiseFindings(ledger, v, k + 1, verificationFindings(r.findings));
      const ids = r.sent ? sentIds(ledger, v, k + 1, verificationFindings(r.findings), r.sent) : open(ledger, v, k + 1);
      if (k + 1 < vr.length) {
        ledger = settleFixRound(markForFix(ledger, ids, ++fixRound), v, fixRound, [], null);
      } else if (run.fix?.source === "verification") {
        ledger = markForFix(ledger, ids, run.fix.round ?? ++fixRound);
      } else if (state.currentState === "VERIFY" && state.stage !== "failed") {
        // The fix round reported; the re-check has not: what it disputed waits for the re-check.
        ledger = settleFixRound(markForFix(ledger, ids, ++fixRound), v, fixRound, run.disputed ?? [], null);
      } else if (run.verification === "skipped") {
        const d = lastDecision(state.decisions, "skipped_verification", phase);
        ledger = decideFindings(ledger, ids, "overridden", "skipped_verification", d?.by);
      }
    });
    // Review: each round's blocking findings were sent back (fixed once a round followed) or overridden.
    const rv: FindingScope = { source: "review", phase };
    const rr = run.reviewRounds ?? [];
    rr.forEach((r, k) => {
      ledger = raiseFindings(ledger, rv, k + 1, r.findings);
      const blocking = chooseForFix(ledger, rv, "blocking").filter((id) =>
        findingsIn(ledger, rv).some((e) => e.id === id && e.seen.includes(k + 1)),
      );
      const sent = r.sent ? sentIds(ledger, rv, k + 1, r.findings, r.sent) : blocking;
      if (r.resolution === "fix") {
        const pending = k + 1 === rr.length && run.fix?.source === "review";
        const n = pending ? (run.fix?.round ?? ++fixRound) : ++fixRound;
        ledger = markForFix(ledger, sent, n);
        // Reported (a later round, or the re-check still to come): what it disputed waits for the re-check.
        if (!pending) ledger = settleFixRound(ledger, rv, n, k + 1 < rr.length ? [] : (run.disputed ?? []), null);
      } else if (r.resolution === "override") {
        const d = lastDecision(state.decisions, "overrode_review", phase);
        ledger = decideFindings(ledger, blocking, "overridden", "overrode_review", d?.by);
      }
    });
  }
  const fr = state.finalReview;
  const f: FindingScope = { source: "final", phase: null };
  const rounds = fr.rounds?.length
    ? fr.rounds
    : fr.findings.length
      ? [{ findings: fr.findings, resolution: fr.status === "overridden" ? ("override" as const) : null }]
      : [];
  rounds.forEach((r, k) => {
    ledger = raiseFindings(ledger, f, k + 1, r.findings);
    const blocking = open(ledger, f, k + 1).filter((id) => ledger.find((e) => e.id === id)?.severity === "blocking");
    if (r.resolution === "fix") {
      ledger = markForFix(
        ledger,
        "sent" in r && r.sent ? sentIds(ledger, f, k + 1, r.findings, r.sent) : blocking,
        k + 1,
      );
      // A later round, or a fix round that reported (its disputes wait for the re-review).
      const reported =
        k + 1 < rounds.length || (state.currentState === "FINAL_REVIEW" && AFTER_FIX.has(state.stage ?? ""));
      if (reported) ledger = settleFixRound(ledger, f, k + 1, k + 1 < rounds.length ? [] : (fr.disputed ?? []), null);
    } else if (r.resolution === "override") {
      const d = lastDecision(state.decisions, "overrode_final_review", null);
      ledger = decideFindings(ledger, blocking, "overridden", "overrode_final_review", d?.by);
    }
  });
  return ledger;
}
