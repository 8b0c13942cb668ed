// The tolerant normaliser's field rules (src/session/migrate.ts runs them, in order, over a whole
// file): each reads one upstream field in whatever shape real files give it, says in `notes` what it
// changed, keeps what it replaced beside it (`original<Field>`), and refuses with `corrupt_state`
// what it cannot read safely.
import { z } from "zod";
import { AutopilotError } from "../protocol/errors.js";
import {
  Complexity,
  CurrentTask,
  DecisionBy,
  STATE_NAMES,
  Signals,
  normalizeSeverity,
  type PhaseStatus,
  type StateName,
} from "./schema.js";
import { RETRY_BUDGET } from "../machine/policy.js";

export type Rec = Record<string, unknown>;

export function corrupt(reason: string): never {
  throw new AutopilotError("corrupt_state", reason);
}

export function isRec(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function has(o: Rec, k: string): boolean {
  return Object.hasOwn(o, k) && o[k] !== undefined;
}

// Assignment through `o[k] = v` would treat a "__proto__" key from a file as the prototype.
export function put(o: Rec, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

export function cap(k: string): string {
  return k.charAt(0).toUpperCase() + k.slice(1);
}

/** Collects notes; repeated messages (one per phase, per finding) are folded into one line with a count. */
export class Notes {
  private readonly counts = new Map<string, number>();
  add(message: string): void {
    this.counts.set(message, (this.counts.get(message) ?? 0) + 1);
  }
  list(): string[] {
    return [...this.counts].map(([m, n]) => (n > 1 ? `${m} (${n} times)` : m));
  }
}

/** Keep a value we are about to replace, beside it, so a person can see what the file said. */
export function keepOriginal(o: Rec, key: string, value: unknown): void {
  const name = `original${cap(key)}`;
  // The first migration's record is the one that matters; a later one would overwrite it with our own value.
  if (!Object.hasOwn(o, name)) put(o, name, value);
}

// Built once: a zod schema is costly to construct, and fit() runs for every field of every
// decision and history entry (at 5,000 decisions, building them inline cost ~80 ms per read).
const STR = z.string();
const INT = z.number().int();
const BOOL = z.boolean();
const STRINGS = z.array(STR);
const COUNTS = z.record(z.string(), z.number());
const COMPLEXITY_OR_NULL = Complexity.nullable();

/** An optional field that does not fit its schema moves aside rather than failing the whole file. */
export function fit(o: Rec, key: string, schema: z.ZodType, notes: Notes, where: string): void {
  if (!has(o, key)) return;
  if (schema.safeParse(o[key]).success) return;
  keepOriginal(o, key, o[key]);
  delete o[key];
  notes.add(`${where}: "${key}" had an unexpected value; kept as "original${cap(key)}"`);
}

export function asInt(v: unknown): number | null {
  if (typeof v === "number" && Number.isInteger(v)) return v;
  if (typeof v === "string" && /^\s*-?\d+\s*$/.test(v)) return Number.parseInt(v, 10);
  return null;
}

export function nonEmptyString(v: unknown): v is string {
  return typeof v === "string" && v.trim() !== "";
}

function looksLikeDate(v: unknown): v is string {
  return typeof v === "string" && /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v.slice(0, 10)));
}

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

// ---- history -------------------------------------------------------------------------------

const SHA = /^[0-9a-f]{7,40}$/i;
const isSha = (v: unknown): v is string => typeof v === "string" && SHA.test(v) && /[a-f]/i.test(v);

/**
 * The skill backfills `startingCommit` from "the earliest commit in history", but history entries
 * name commits under different keys (`commit`, `sha`, `commits: [...]`). Only keys that say
 * commit/sha/rev count: a phase name like "deadbeef" must not become a starting commit.
 */
export function earliestHistoryCommit(history: unknown): string | null {
  if (!Array.isArray(history)) return null;
  const search = (v: unknown, keyed: boolean, depth: number): string | null => {
    if (keyed && isSha(v)) return v;
    if (depth > 2) return null;
    if (Array.isArray(v)) {
      for (const x of v) {
        const hit = search(x, keyed, depth + 1);
        if (hit) return hit;
      }
    } else if (isRec(v)) {
      for (const [k, x] of Object.entries(v)) {
        const hit = search(x, keyed || /commit|sha|rev/i.test(k), depth + 1);
        if (hit) return hit;
      }
    }
    return null;
  };
  for (const entry of history) {
    const hit = search(entry, false, 0);
    if (hit) return hit;
  }
  return null;
}

export function normalizeHistory(raw: unknown, top: Rec, notes: Notes): Rec[] {
  if (raw === undefined || raw === null) {
    notes.add(`history missing; started an empty one`);
    return [];
  }
  if (!Array.isArray(raw)) {
    keepOriginal(top, "history", raw);
    notes.add(`history was not a list; started an empty one (kept as "originalHistory")`);
    return [];
  }
  return raw.map((item) => {
    let h: Rec;
    if (isRec(item)) {
      h = { ...item };
    } else {
      notes.add(
        `history: an entry that was not an object was wrapped as { phase: null, ${typeof item === "string" ? "note" : "value"} }`,
      );
      return typeof item === "string" ? { phase: null, note: item } : { phase: null, value: item };
    }
    if (!has(h, "phase")) {
      h.phase = null;
      notes.add(`history: entries without a phase number kept with phase: null`);
    } else {
      const n = asInt(h.phase);
      if (n === null || typeof h.phase !== "number") {
        if (h.phase !== null) {
          keepOriginal(h, "phase", h.phase);
          notes.add(`history: a phase that was not a number was read as ${n ?? "null"}`);
        }
        h.phase = n;
      }
    }
    fit(h, "name", STR, notes, "history");
    fit(h, "startedAt", STR, notes, "history");
    fit(h, "completedAt", STR, notes, "history");
    fit(h, "tasksCompleted", INT, notes, "history");
    fit(h, "retriesUsed", INT, notes, "history");
    fit(h, "verificationPassed", BOOL, notes, "history");
    fit(h, "reviewFindings", COUNTS, notes, "history");
    return h;
  });
}

// ---- decisions -----------------------------------------------------------------------------

export function normalizeDecisions(raw: unknown, top: Rec, notes: Notes): Rec[] {
  if (raw === undefined || raw === null) {
    notes.add(`decisions missing; backfilled as []`);
    return [];
  }
  if (!Array.isArray(raw)) {
    keepOriginal(top, "decisions", raw);
    notes.add(`decisions was not a list; started an empty one (kept as "originalDecisions")`);
    return [];
  }
  return raw.map((item) => {
    if (typeof item === "string") {
      notes.add(`decisions: a plain-string decision became { decision: "note", note }`);
      return { phase: null, decision: "note", timestamp: null, note: item };
    }
    if (!isRec(item)) {
      notes.add(`decisions: a decision that was neither text nor an object was kept as { decision: "note", value }`);
      return { phase: null, decision: "note", timestamp: null, value: item };
    }
    const d: Rec = { ...item };
    const shape: string[] = [];
    if (!has(d, "phase")) {
      d.phase = null;
    } else if (d.phase !== null && typeof d.phase !== "number") {
      keepOriginal(d, "phase", d.phase);
      d.phase = asInt(d.phase);
      shape.push("phase");
    } else if (typeof d.phase === "number" && !Number.isInteger(d.phase)) {
      keepOriginal(d, "phase", d.phase);
      d.phase = null;
      shape.push("phase");
    }
    if (!nonEmptyString(d.decision)) {
      if (has(d, "decision")) keepOriginal(d, "decision", d.decision);
      const from = ["what", "action", "choice", "answer", "summary", "title"].find((k) => nonEmptyString(d[k]));
      d.decision = from ? d[from] : "note";
      shape.push(from ? `decision from "${from}"` : `decision "note"`);
    }
    if (!has(d, "timestamp") || d.timestamp === null) {
      // `at` is a date in some files and a state name in others ({at: "APPROVE_PLAN"}).
      const from = ["date", "at", "time", "when"].find((k) => looksLikeDate(d[k]));
      d.timestamp = from ? d[from] : null;
      if (from) shape.push(`timestamp from "${from}"`);
    } else if (typeof d.timestamp !== "string") {
      keepOriginal(d, "timestamp", d.timestamp);
      d.timestamp = null;
      shape.push("timestamp");
    }
    if (!has(d, "state") && normalizeStateName(d.at)) {
      d.state = normalizeStateName(d.at);
      shape.push(`state from "at"`);
    }
    if (!has(d, "note")) {
      const from = ["why", "context"].find((k) => nonEmptyString(d[k]));
      if (from) {
        d.note = d[from];
        shape.push(`note from "${from}"`);
      }
    }
    if (typeof d.by === "string" && DecisionBy.safeParse(d.by.toLowerCase()).success && d.by !== d.by.toLowerCase()) {
      d.by = d.by.toLowerCase();
    }
    fit(d, "signals", Signals, notes, "decisions");
    fit(d, "fired", STRINGS, notes, "decisions");
    fit(d, "state", STR, notes, "decisions");
    fit(d, "answer", STR, notes, "decisions");
    fit(d, "by", DecisionBy, notes, "decisions");
    fit(d, "rationale", STR, notes, "decisions");
    fit(d, "note", STR, notes, "decisions");
    if (shape.length > 0) {
      const keys = Object.keys(item).sort().join(", ");
      notes.add(`decisions: {${keys}} read as a Decision (${shape.join("; ")}); original fields kept`);
    }
    return d;
  });
}

// ---- final review --------------------------------------------------------------------------

const FINAL_REVIEW_WORDS: Record<string, string> = {
  pending: "pending",
  notstarted: "pending",
  todo: "pending",
  inprogress: "in_progress",
  running: "in_progress",
  reviewing: "in_progress",
  started: "in_progress",
  passed: "passed",
  pass: "passed",
  complete: "passed",
  completed: "passed",
  done: "passed",
  approved: "passed",
  clean: "passed",
  success: "passed",
  overridden: "overridden",
  override: "overridden",
  accepted: "overridden",
  failed: "failed",
  fail: "failed",
  blocked: "failed",
};

function defaultFinalReview(): Rec {
  return { status: "pending", findings: [], retryCount: 0 };
}

// Long prose makes a poor title; the full text stays in its own field.
function firstLine(text: string): string {
  const line =
    text
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l !== "") ?? text.trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function normalizeFinding(item: unknown, notes: Notes): Rec {
  if (typeof item === "string") {
    notes.add(`finalReview: a finding given as text became { severity: "note", title }`);
    return { severity: "note", title: item.trim() === "" ? "(untitled finding)" : item };
  }
  if (!isRec(item)) {
    notes.add(`finalReview: a finding that was neither text nor an object was kept as { severity: "note", value }`);
    return { severity: "note", title: JSON.stringify(item) ?? String(item), value: item };
  }
  const f: Rec = { ...item };
  const sev = normalizeSeverity(f.severity);
  if (sev === null) {
    if (has(f, "severity")) keepOriginal(f, "severity", f.severity);
    f.severity = "note";
    notes.add(
      `finalReview: a finding with ${has(item, "severity") ? `unknown severity ${JSON.stringify(item.severity)}` : "no severity"} kept as a note`,
    );
  } else if (sev !== f.severity) {
    keepOriginal(f, "severity", f.severity);
    notes.add(`finalReview: severity ${JSON.stringify(f.severity)} read as "${sev}" (kept as "originalSeverity")`);
    f.severity = sev;
  }
  if (!nonEmptyString(f.title)) {
    if (has(f, "title")) keepOriginal(f, "title", f.title);
    const from = ["summary", "message", "description", "text", "finding", "issue", "detail", "rationale", "name"].find(
      (k) => nonEmptyString(f[k]),
    );
    f.title = from ? firstLine(f[from] as string) : "(untitled finding)";
    notes.add(
      `finalReview: a finding without a title got one from ${from ? `"${from}"` : 'nowhere ("(untitled finding)")'}`,
    );
  }
  if (has(f, "line") && !(typeof f.line === "number" && Number.isInteger(f.line))) {
    const n = asInt(f.line);
    keepOriginal(f, "line", f.line);
    if (n === null) delete f.line;
    else f.line = n;
    notes.add(
      `finalReview: a finding's line that was not a whole number was ${n === null ? 'moved to "originalLine"' : `read as ${n}`}`,
    );
  }
  fit(f, "file", STR, notes, "finalReview");
  fit(f, "rationale", STR, notes, "finalReview");
  return f;
}

export function normalizeFinalReview(raw: unknown, top: Rec, notes: Notes): Rec {
  if (raw === undefined || raw === null) {
    notes.add(`finalReview missing; set to { status: "pending", findings: [], retryCount: 0 }`);
    return defaultFinalReview();
  }
  if (!isRec(raw)) {
    keepOriginal(top, "finalReview", raw);
    notes.add(`finalReview was not an object; reset to pending (kept as "originalFinalReview")`);
    return defaultFinalReview();
  }
  const fr: Rec = { ...raw };
  const word =
    typeof fr.status === "string"
      ? FINAL_REVIEW_WORDS[
          fr.status
            .trim()
            .toLowerCase()
            .replace(/[\s_-]+/g, "")
        ]
      : undefined;
  if (!word) {
    if (has(fr, "status")) keepOriginal(fr, "status", fr.status);
    notes.add(`finalReview.status ${JSON.stringify(fr.status)} unknown; read as "pending"`);
    fr.status = "pending";
  } else if (word !== fr.status) {
    keepOriginal(fr, "status", fr.status);
    notes.add(`finalReview.status ${JSON.stringify(fr.status)} read as "${word}"`);
    fr.status = word;
  }
  if (!has(fr, "findings")) {
    fr.findings = [];
  } else if (!Array.isArray(fr.findings)) {
    keepOriginal(fr, "findings", fr.findings);
    fr.findings = [];
    notes.add(`finalReview.findings was not a list; emptied (kept as "originalFindings")`);
  } else {
    fr.findings = fr.findings.map((f) => normalizeFinding(f, notes));
  }
  const rc = asInt(fr.retryCount);
  if (rc === null || rc < 0) {
    if (has(fr, "retryCount")) keepOriginal(fr, "retryCount", fr.retryCount);
    fr.retryCount = 0;
    if (has(raw, "retryCount")) notes.add(`finalReview.retryCount invalid; set to 0`);
  } else {
    fr.retryCount = rc;
  }
  return fr;
}
