// The state file as the upstream harness-autopilot skill keeps it, for the honest baseline.
//
// A host driven by the skill re-reads `.harness/sessions/<slug>/autopilot-state.json` at every
// transition. Our file carries what upstream's does not (usage, pullRequest, notices, commits,
// phaseRun, outbox, userChanges, per-phase times, stepId, ...), so counting ours would inflate the
// baseline. `upstreamStateText` writes the upstream-format file the same session would have at the
// same moment: only the skill's schemaVersion-5 fields, each record in the shape the skill tells
// the host to write, pretty-printed with two spaces as the skill's examples and the real upstream
// files (../shared/corpus/upstream/sessions) are. It is derived from our file, field by field.

type Obj = Record<string, unknown>;

const pick = (o: unknown, keys: readonly string[]): Obj => {
  const out: Obj = {};
  if (!o || typeof o !== "object") return out;
  for (const k of keys) if (k in (o as Obj)) out[k] = (o as Obj)[k];
  return out;
};

/** The top-level fields of the skill's INIT template (schemaVersion 5), in its order. */
export const UPSTREAM_FIELDS = [
  "schemaVersion",
  "sessionDir",
  "specPath",
  "startingCommit",
  "reviewPlans",
  "rigorLevel",
  "currentState",
  "currentPhase",
  "phases",
  "retryBudget",
  "history",
  "decisions",
  "finalReview",
] as const;
const PHASE_FIELDS = ["name", "complexity", "complexityOverride", "planPath", "status"] as const;
/** PHASE_COMPLETE step 2's record. */
const HISTORY_FIELDS = [
  "phase",
  "name",
  "startedAt",
  "completedAt",
  "tasksCompleted",
  "retriesUsed",
  "verificationPassed",
  "reviewFindings",
] as const;
/** APPROVE_PLAN's record (`{phase, decision, timestamp, signals}`) and an override's rationale. */
const DECISION_FIELDS = ["phase", "decision", "timestamp", "signals", "rationale"] as const;
/** The retry bookkeeping EXECUTE's retry logic keeps ("timestamp, error, fix attempted, result"). */
const TASK_FIELDS = ["number", "name", "attemptsUsed", "attempts"] as const;
const ATTEMPT_FIELDS = ["attempt", "timestamp", "error", "fixAttempted", "result"] as const;
/** A reviewer's finding as FINAL_REVIEW stores it (REVIEW writes "severity, file, line, title"). */
const FINDING_FIELDS = ["severity", "file", "line", "title", "status"] as const;

/**
 * The decisions the skill tells the host to record: every plan decision (APPROVE_PLAN, auto or
 * not), a skipped verification, an overridden phase or final review. Our log also records the
 * answers upstream leaves out of the file (continue at PHASE_COMPLETE, the user-changes question,
 * budget and commit questions): those are not counted.
 */
function recordedUpstream(d: Obj): boolean {
  if (d.state === "APPROVE_PLAN") return true;
  return ["skipped_verification", "overrode_review", "overrode_final_review", "skipped_phase"].includes(
    String(d.decision),
  );
}

export function upstreamState(ours: Obj): Obj {
  const out: Obj = {};
  for (const k of UPSTREAM_FIELDS) {
    if (!(k in ours)) continue;
    const v = ours[k];
    if (k === "phases" && Array.isArray(v)) out[k] = v.map((p) => pick(p, PHASE_FIELDS));
    else if (k === "history" && Array.isArray(v)) out[k] = v.map((h) => pick(h, HISTORY_FIELDS));
    else if (k === "decisions" && Array.isArray(v))
      out[k] = v.filter((d) => recordedUpstream(d as Obj)).map((d) => pick(d, DECISION_FIELDS));
    else if (k === "retryBudget" && v && typeof v === "object") {
      const rb = v as Obj;
      const task = rb.currentTask as Obj | null | undefined;
      out[k] = {
        maxAttempts: rb.maxAttempts,
        currentTask: task
          ? {
              ...pick(task, TASK_FIELDS),
              ...(Array.isArray(task.attempts) ? { attempts: task.attempts.map((a) => pick(a, ATTEMPT_FIELDS)) } : {}),
            }
          : null,
      };
    } else if (k === "finalReview" && v && typeof v === "object") {
      const fr = v as Obj;
      out[k] = {
        status: fr.status,
        findings: Array.isArray(fr.findings) ? fr.findings.map((f) => pick(f, FINDING_FIELDS)) : [],
        retryCount: fr.retryCount,
      };
    } else out[k] = v;
  }
  return out;
}

/** The file's text, as the skill's host writes it (JSON, two-space indent, a final newline). */
export function upstreamStateText(oursText: string): string {
  return JSON.stringify(upstreamState(JSON.parse(oursText) as Obj), null, 2) + "\n";
}
