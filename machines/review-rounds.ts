// Verification and review rounds as a phase keeps them, their review file, and the phase's record
// for its summary line.
import type { AutopilotState, Decision, Effect, ReviewRound, VerificationRound } from "../src/session/schema.js";
import { channelPhrase } from "../src/vocabulary.js";
import { fateTally, findingsIn } from "../src/session/findings.js";
import { countBySeverity } from "./reports.js";
import { FINAL_REVIEW_FIX_BUDGET } from "../src/rules/policy.js";
import type { AutopilotEvent } from "./events.js";
import { effect } from "./effect.js";

/** The final review's fix budget (the policy's); kept under this name for readers of the machine. */
export const MAX_FINAL_REVIEW_FIXES = FINAL_REVIEW_FIX_BUDGET;

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
