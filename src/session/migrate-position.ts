// The migration's rules for where a session stands (src/session/migrate.ts runs them): its state's
// name in whatever words a file uses, its phases (their numbers, statuses and plans), the current
// phase, and the retry budget with the task in progress. Each says in `notes` what it changed,
// keeps what it replaced beside it (`original<Field>`), and refuses with `corrupt_state` what it
// cannot read safely: a guess here would resume the wrong phase.
import { Complexity, CurrentTask, STATE_NAMES, type PhaseStatus, type StateName } from "./schema.js";
import { RETRY_BUDGET } from "../rules/policy.js";
import {
  COMPLEXITY_OR_NULL,
  STR,
  asInt,
  corrupt,
  fit,
  has,
  isRec,
  keepOriginal,
  nonEmptyString,
  type Notes,
  type Rec,
} from "./migrate-kit.js";

// ---- currentState ----------------------------------------------------------------------------

const STATE_ALIASES: Record<string, StateName> = {
  COMPLETE: "DONE",
  COMPLETED: "DONE",
  FINISHED: "DONE",
  PLANNING: "PLAN",
  APPROVE: "APPROVE_PLAN",
  APPROVAL: "APPROVE_PLAN",
  PLANAPPROVAL: "APPROVE_PLAN",
  EXECUTING: "EXECUTE",
  EXECUTION: "EXECUTE",
  VERIFYING: "VERIFY",
  VERIFICATION: "VERIFY",
  REVIEWING: "REVIEW",
  CODEREVIEW: "REVIEW",
  FINALREVIEWING: "FINAL_REVIEW",
  // Upstream's newer skill added two states without changing schemaVersion 5. Neither has a
  // counterpart here, so each is read as the nearest of the ten (see NEWER_UPSTREAM_STATES).
  INTEGRATE: "VERIFY",
  INTEGRATION: "VERIFY",
  OUTCOMEEVAL: "FINAL_REVIEW",
};

/**
 * What a session paused in one of upstream's newer states does here, in words for the user.
 * INTEGRATE (between VERIFY and REVIEW, run by the harness-verifier persona) → VERIFY: the phase
 * is verified again, then reviewed. OUTCOME_EVAL (between FINAL_REVIEW and DONE) → FINAL_REVIEW:
 * the final review runs once more, then DONE writes the handoff, learnings and PR text. Mapping
 * forward instead would skip a check, or (for DONE) end the session without its final files.
 */
export const NEWER_UPSTREAM_STATES: Record<string, string> = {
  INTEGRATE:
    "upstream's INTEGRATE step (an integration check by the verifier) is not one of autopilot's states: the phase is verified again, then reviewed; phase-N-integration.json is kept as it is",
  INTEGRATION:
    "upstream's INTEGRATE step (an integration check by the verifier) is not one of autopilot's states: the phase is verified again, then reviewed; phase-N-integration.json is kept as it is",
  OUTCOMEEVAL:
    "upstream's OUTCOME_EVAL step is not one of autopilot's states: the final review runs once more, then the session finishes (handoff, learnings, PR text)",
};

/** `COMPLETE`, `done`, `Final Review`, `approve-plan`, ... onto the ten state names; null if none fits. */
export function normalizeStateName(v: unknown): StateName | null {
  if (typeof v !== "string") return null;
  // Compare with separators and case removed, so every spelling of a two-word name matches.
  const key = v
    .trim()
    .toUpperCase()
    .replace(/[\s_-]+/g, "");
  for (const name of STATE_NAMES) if (name.replace(/_/g, "") === key) return name;
  return STATE_ALIASES[key] ?? null;
}

// ---- phases --------------------------------------------------------------------------------

const PHASE_STATUS_WORDS: Record<string, PhaseStatus> = {
  pending: "pending",
  inprogress: "pending",
  active: "pending",
  current: "pending",
  running: "pending",
  started: "pending",
  todo: "pending",
  notstarted: "pending",
  planned: "pending",
  planning: "pending",
  executing: "pending",
  verifying: "pending",
  reviewing: "pending",
  blocked: "pending",
  waiting: "pending",
  queued: "pending",
  open: "pending",
  complete: "complete",
  completed: "complete",
  phasecomplete: "complete",
  done: "complete",
  finished: "complete",
  passed: "complete",
  success: "complete",
  succeeded: "complete",
  skipped: "skipped",
  skip: "skipped",
  cancelled: "skipped",
  canceled: "skipped",
};

function normalizePhaseStatus(v: unknown): PhaseStatus | null {
  if (typeof v !== "string") return null;
  return (
    PHASE_STATUS_WORDS[
      v
        .trim()
        .toLowerCase()
        .replace(/[\s_-]+/g, "")
    ] ?? null
  );
}

/** The number a phase carries in `n`, `index` or `number`, if any: our evidence for 0- or 1-based files. */
function phaseNumber(p: Rec): number | null {
  for (const k of ["n", "index", "number"]) if (has(p, k)) return asInt(p[k]);
  return null;
}

interface PhaseDraft {
  rec: Rec;
  /** Normalised status, or null when the file had none (filled in once currentPhase is known). */
  status: PhaseStatus | null;
}

export function normalizePhases(raw: unknown, topPlanPath: unknown, notes: Notes): PhaseDraft[] {
  if (raw === undefined || raw === null) corrupt('the state file has no "phases" list, so there is nothing to resume');
  if (!Array.isArray(raw)) corrupt(`"phases" is ${typeof raw}, not a list of phases`);
  return raw
    .map((item, i): PhaseDraft => {
      const where = `phases[${i}]`;
      let p: Rec;
      if (typeof item === "string") {
        p = { name: item };
        notes.add(`${where}: a phase given as a plain string became { name }`);
      } else if (isRec(item)) {
        p = { ...item };
      } else {
        corrupt(`${where} is ${item === null ? "null" : typeof item}, not a phase object`);
      }
      if (!nonEmptyString(p.name)) {
        const alt = [p.title, p.label, p.phase].find(nonEmptyString);
        if (has(p, "name")) keepOriginal(p, "name", p.name);
        p.name = alt ?? `Phase ${i + 1}`;
        notes.add(`${where}: no phase name; used "${p.name as string}"`);
      }
      if (!Complexity.safeParse(p.complexity).success) {
        const lower = typeof p.complexity === "string" ? p.complexity.trim().toLowerCase() : undefined;
        if (lower && Complexity.safeParse(lower).success) {
          p.complexity = lower;
        } else {
          if (has(p, "complexity")) keepOriginal(p, "complexity", p.complexity);
          p.complexity = "medium";
          notes.add(`phases: missing or unknown complexity read as "medium" (the skill's default)`);
        }
      }
      if (!has(p, "complexityOverride")) {
        p.complexityOverride = null;
      } else if (!COMPLEXITY_OR_NULL.safeParse(p.complexityOverride).success) {
        keepOriginal(p, "complexityOverride", p.complexityOverride);
        p.complexityOverride = null;
        notes.add(`phases: unknown complexityOverride cleared (kept as "originalComplexityOverride")`);
      }
      if (!has(p, "planPath")) {
        p.planPath = null;
      } else if (typeof p.planPath !== "string" && p.planPath !== null) {
        keepOriginal(p, "planPath", p.planPath);
        p.planPath = null;
        notes.add(`phases: a planPath that was not a string was cleared (kept as "originalPlanPath")`);
      }
      fit(p, "startedAt", STR, notes, "phases");
      fit(p, "completedAt", STR, notes, "phases");
      let status: PhaseStatus | null = null;
      if (has(p, "status")) {
        status = normalizePhaseStatus(p.status);
        if (status === null) {
          notes.add(
            `phases: unknown phase status ${JSON.stringify(p.status)} read as "pending" (kept as "originalStatus")`,
          );
          status = "pending";
        } else if (status !== p.status) {
          notes.add(`phases: status ${JSON.stringify(p.status)} read as "${status}"`);
        }
        if (status !== p.status) keepOriginal(p, "status", p.status);
      }
      return { rec: p, status };
    })
    .map((d, _i, all) => {
      // A single-phase file that names its plan at the top level (a shape seen in hand-written
      // files): that plan can only belong to the one phase.
      if (all.length === 1 && d.rec.planPath === null && nonEmptyString(topPlanPath)) {
        d.rec.planPath = topPlanPath;
        notes.add(`phases[0]: planPath taken from the top-level "planPath"`);
      }
      return d;
    });
}

/**
 * Upstream `currentPhase` is a 0-based index, but hand-written files count from 1. A wrong guess
 * resumes the wrong phase, so we convert only on evidence, strongest first:
 *  1. the phases carry their own numbers (`n`, `index` or `number`): numbering from 1 means the file
 *     counts from 1, from 0 means it does not (nothing else is consulted);
 *  2. `currentPhase === phases.length` in a state that is still working on a phase: only a 1-based
 *     file can point there (in DONE an engine may legitimately have stepped past the end, and the
 *     value is clamped to the last phase either way);
 *  3. the phase just before `currentPhase` is still pending (not skipped) while every phase before
 *     it is done, and `currentPhase` itself is not done: a 0-based writer never leaves an unfinished
 *     phase behind the current one, a 1-based writer always does.
 * None of this applies to a file this server wrote (it carries our `stepId`): we count from 0, and
 * re-reading our own output must not shift the phase again, since the `n` fields that gave the
 * evidence are still there.
 */
export function resolveCurrentPhase(
  raw: unknown,
  phases: PhaseDraft[],
  state: StateName,
  notes: Notes,
  top: Rec,
  ours: boolean,
): number {
  const n = phases.length;
  let cp = asInt(raw);
  if (cp === null) {
    const firstOpen = phases.findIndex((d) => d.status === "pending" || d.status === null);
    cp = state === "DONE" || firstOpen < 0 ? Math.max(0, n - 1) : firstOpen;
    if (raw !== undefined && raw !== null) keepOriginal(top, "currentPhase", raw);
    notes.add(`currentPhase missing or not a number; inferred ${cp} from the phase statuses`);
    return cp;
  }
  if (typeof raw === "string") notes.add(`currentPhase was the string ${JSON.stringify(raw)}; read as ${cp}`);
  const original = cp;
  let oneBased: string | null = null;
  const numbers = phases.map((d) => phaseNumber(d.rec));
  if (ours) {
    // written by us: 0-based by construction
  } else if (n > 0 && numbers[0] !== null) {
    if (numbers[0] === 1) oneBased = "its phases are numbered from 1";
  } else if (n > 0 && cp === n && state !== "DONE" && state !== "FINAL_REVIEW") {
    oneBased = `currentPhase (${cp}) equals the number of phases in state ${state}`;
  } else if (n > 0 && cp >= 1 && cp <= n && state !== "DONE" && state !== "FINAL_REVIEW") {
    const prev = phases[cp - 1];
    const before = phases.slice(0, cp - 1);
    const here = phases[cp];
    if (
      prev.status === "pending" &&
      before.every((d) => d.status === "complete" || d.status === "skipped") &&
      (here === undefined || here.status !== "complete")
    ) {
      oneBased = `phase ${cp - 1} ("${prev.rec.name as string}") is still pending while every phase before it is done`;
    }
  }
  if (oneBased && cp >= 1) {
    cp -= 1;
    notes.add(`currentPhase read as 1-based because ${oneBased}: ${original} → ${cp} (0-based)`);
  }
  if (cp < 0) {
    notes.add(`currentPhase ${cp} is negative; read as 0`);
    cp = 0;
  }
  if (n === 0 && cp !== 0) {
    notes.add(`currentPhase ${cp} with no phases; read as 0`);
    cp = 0;
  } else if (n > 0 && cp >= n) {
    const firstOpen = phases.findIndex((d) => d.status === "pending");
    const to = state === "DONE" || state === "FINAL_REVIEW" || firstOpen < 0 ? n - 1 : firstOpen;
    notes.add(`currentPhase ${cp} is past the last phase (${n - 1}); read as ${to}`);
    cp = to;
  }
  if (cp !== original) keepOriginal(top, "currentPhase", raw);
  return cp;
}

// ---- retry budget --------------------------------------------------------------------------

const DEFAULT_MAX_ATTEMPTS = RETRY_BUDGET;

export function normalizeRetryBudget(raw: unknown, top: Rec, notes: Notes): Rec {
  const fresh = (): Rec => ({ maxAttempts: DEFAULT_MAX_ATTEMPTS, currentTask: null });
  if (raw === undefined || raw === null) {
    notes.add(`retryBudget missing; set to { maxAttempts: ${DEFAULT_MAX_ATTEMPTS}, currentTask: null }`);
    return fresh();
  }
  const asNumber = asInt(raw);
  if (asNumber !== null) {
    if (asNumber > 0) {
      notes.add(`retryBudget ${JSON.stringify(raw)} read as { maxAttempts: ${asNumber}, currentTask: null }`);
      return { maxAttempts: asNumber, currentTask: null };
    }
    keepOriginal(top, "retryBudget", raw);
    notes.add(
      `retryBudget ${JSON.stringify(raw)} is not a positive number; used the default (kept as "originalRetryBudget")`,
    );
    return fresh();
  }
  if (!isRec(raw)) {
    keepOriginal(top, "retryBudget", raw);
    notes.add(`retryBudget was not an object; used the default (kept as "originalRetryBudget")`);
    return fresh();
  }
  const rb: Rec = { ...raw };
  const max = asInt(rb.maxAttempts);
  if (max === null || max <= 0) {
    if (has(rb, "maxAttempts")) keepOriginal(rb, "maxAttempts", rb.maxAttempts);
    rb.maxAttempts = DEFAULT_MAX_ATTEMPTS;
    notes.add(`retryBudget.maxAttempts missing or invalid; set to ${DEFAULT_MAX_ATTEMPTS}`);
  } else {
    rb.maxAttempts = max;
  }
  if (!has(rb, "currentTask")) {
    rb.currentTask = null;
  } else if (rb.currentTask !== null) {
    const task = isRec(rb.currentTask) ? { ...rb.currentTask } : null;
    if (task) {
      const attempts = Array.isArray(task.attempts) ? task.attempts : [];
      if (!has(task, "attempts")) task.attempts = [];
      if (!has(task, "attemptsUsed")) task.attemptsUsed = attempts.length;
      if (!has(task, "number")) task.number = null;
      if (!has(task, "name")) task.name = typeof task.number === "number" ? `Task ${task.number}` : "(unnamed task)";
    }
    if (task && CurrentTask.safeParse(task).success) {
      rb.currentTask = task;
    } else {
      keepOriginal(rb, "currentTask", rb.currentTask);
      rb.currentTask = null;
      notes.add(`retryBudget.currentTask could not be read; cleared (kept as "originalCurrentTask")`);
    }
  }
  return rb;
}
