// Read any autopilot-state.json our users have on disk and return a valid schemaVersion 5 state.
//
// Two jobs, in this order:
//  1. the skill's own migration of schemaVersion 1-4 (INIT step 3), rule for rule;
//  2. a tolerant normaliser for what real files contain (see ../shared/corpus/upstream beside the project, and tests/fixtures/state): hand-edited and
//     agent-written files use other words (`COMPLETE`, `in-progress`, `PHASE_COMPLETE`), other
//     shapes (numeric `retryBudget`, string decisions, `{what, why}` decisions), 1-based phase
//     numbers, the other severity vocabulary.
// Rules that hold throughout: nothing is dropped (a value we must replace is kept beside it as
// `original<Field>`, unknown fields are carried through), every change is reported in `notes`, and
// anything we cannot interpret safely is a `corrupt_state` error rather than a guess that would
// resume the wrong phase.

import {
  AutopilotState,
  CheckRounds,
  CURRENT_SCHEMA_VERSION,
  PullRequest,
  ParallelSettings,
  WavePlan,
  WaveLedger,
  WaveLog,
  PhaseRun,
  STATE_NAMES,
  emptyPhaseRun,
  engineDefaults,
  type StateName,
} from "./schema.js";
import { sessionDirRel } from "./paths.js";
import { slugFromSpecPath } from "./slug.js";
import { Budget, UsageLedger, budgetSpent } from "./usage.js";
import { FindingLedger } from "./findings.js";
import { deriveFindingLedger } from "./findings-derive.js";
import {
  type Rec,
  corrupt,
  isRec,
  has,
  put,
  cap,
  Notes,
  keepOriginal,
  fit,
  asInt,
  nonEmptyString,
} from "./migrate-kit.js";
import {
  NEWER_UPSTREAM_STATES,
  normalizePhases,
  normalizeRetryBudget,
  normalizeStateName,
  resolveCurrentPhase,
} from "./migrate-position.js";
import {
  earliestHistoryCommit,
  normalizeDecisions,
  normalizeFinalReview,
  normalizeHistory,
} from "./migrate-records.js";

/**
 * The dispatching stages whose spent budget's question the engine asked before the machine had a
 * stage for it (files written then rest there); each has its `budget<Stage>` stage now. A fact
 * about those files, so a fixed list: stages added since never held the engine's question
 * (tests/machine/budget.test.ts holds each to a stage of the machine).
 */
export const BUDGET_QUESTION_HELD: Readonly<Partial<Record<StateName, readonly string[]>>> = {
  PLAN: ["planning"],
  EXECUTE: ["running", "fixing", "commitFix"],
  VERIFY: ["running", "commitFix"],
  REVIEW: ["running"],
  FINAL_REVIEW: ["running", "fixing", "commitFix"],
};

export interface MigrateOptions {
  /** Current HEAD, used as `startingCommit` for pre-v3 files whose history names no commit. */
  head?: string | null;
  /** Where the file actually lives (`.harness/sessions/<slug>`, relative): wins over the file's own claim. */
  sessionDir?: string;
  /** Fallback when the file names no spec. */
  specPath?: string;
}

export interface MigrateResult {
  state: AutopilotState;
  notes: string[];
  /** The file's schemaVersion as read; null when it had none (read as version 1). */
  fromVersion: number | null;
}

const UPSTREAM_ORDER = [
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
const ENGINE_KEYS = Object.keys(engineDefaults()) as (keyof ReturnType<typeof engineDefaults>)[];

/**
 * The fields in the order the reader below gives them: the skill's, then the file's own extra
 * fields in their order, then ours. The same state, as a new object (the values are shared).
 */
export function inStateOrder(state: AutopilotState): AutopilotState {
  const s = state as unknown as Rec;
  const entries: [string, unknown][] = [
    ...UPSTREAM_ORDER.filter((k) => Object.hasOwn(s, k)).map((k): [string, unknown] => [k, s[k]]),
    ...Object.entries(s).filter(
      ([k]) => !(UPSTREAM_ORDER as readonly string[]).includes(k) && !(ENGINE_KEYS as string[]).includes(k),
    ),
    ...ENGINE_KEYS.filter((k) => Object.hasOwn(s, k)).map((k): [string, unknown] => [k, s[k]]),
  ];
  return Object.fromEntries(entries) as unknown as AutopilotState;
}

// ---- the whole file ------------------------------------------------------------------------

function readVersion(raw: Rec, notes: Notes): { version: number; fromVersion: number | null } {
  if (!has(raw, "schemaVersion")) {
    notes.add(`no schemaVersion: read as version 1 (the pre-session singleton format)`);
    return { version: 1, fromVersion: null };
  }
  const v = asInt(raw.schemaVersion);
  if (v === null) corrupt(`schemaVersion ${JSON.stringify(raw.schemaVersion)} is not a version number`);
  if (v > CURRENT_SCHEMA_VERSION) {
    corrupt(
      `schemaVersion ${v} was written by a newer autopilot (this one reads up to ${CURRENT_SCHEMA_VERSION}); upgrade autopilot to resume this session`,
    );
  }
  if (v < 1) corrupt(`schemaVersion ${v} is not a version autopilot ever wrote (1 to ${CURRENT_SCHEMA_VERSION})`);
  if (typeof raw.schemaVersion === "string")
    notes.add(`schemaVersion was the string ${JSON.stringify(raw.schemaVersion)}`);
  return { version: v, fromVersion: v };
}

function cleanDir(d: string): string {
  return d.replace(/\\/g, "/").replace(/\/+$/, "");
}

function resolveSessionDir(raw: Rec, specPath: string, opts: MigrateOptions, notes: Notes, top: Rec): string {
  const cleaned = nonEmptyString(raw.sessionDir) ? cleanDir(raw.sessionDir) : "";
  const claimed = cleaned !== "" ? cleaned : null;
  if (claimed === null && has(raw, "sessionDir")) keepOriginal(top, "sessionDir", raw.sessionDir);
  if (opts.sessionDir) {
    const actual = cleanDir(opts.sessionDir);
    if (claimed !== null && claimed !== actual) {
      keepOriginal(top, "sessionDir", raw.sessionDir);
      notes.add(`sessionDir said ${JSON.stringify(raw.sessionDir)} but the file lives in ${actual}; using ${actual}`);
    } else if (claimed === null) {
      notes.add(`sessionDir missing; set to ${actual}, where the file lives`);
    }
    return actual;
  }
  if (claimed !== null) {
    if (claimed !== raw.sessionDir) notes.add(`sessionDir ${JSON.stringify(raw.sessionDir)} written as ${claimed}`);
    return claimed;
  }
  // Some hand-written files name their slug instead of the directory.
  if (nonEmptyString(raw.sessionSlug)) {
    try {
      const d = sessionDirRel(raw.sessionSlug);
      notes.add(`sessionDir missing; derived ${d} from sessionSlug`);
      return d;
    } catch {
      // not a usable folder name: fall back to the spec path, as the skill would
    }
  }
  // A spec path written on Windows names the same spec; the slug rule only knows "/".
  const slug = slugFromSpecPath(specPath.replace(/\\/g, "/"));
  let d: string;
  try {
    d = sessionDirRel(slug);
  } catch {
    corrupt(`no sessionDir, and the specPath ${JSON.stringify(specPath)} gives no usable session name`);
  }
  notes.add(`sessionDir missing; derived ${d} from the spec path`);
  return d;
}

/** States that work on `phases[currentPhase]`: INIT has none yet, FINAL_REVIEW and DONE are past them. */
const PHASE_STATES: ReadonlySet<StateName> = new Set([
  "ASSESS",
  "PLAN",
  "APPROVE_PLAN",
  "EXECUTE",
  "VERIFY",
  "REVIEW",
  "PHASE_COMPLETE",
]);

export function migrateState(raw: unknown, opts: MigrateOptions = {}): MigrateResult {
  if (!isRec(raw)) {
    corrupt(
      `the state file holds ${Array.isArray(raw) ? "a list" : raw === null ? "null" : `a ${typeof raw}`}, not a state object`,
    );
  }
  let s: Rec;
  try {
    // Our own copy: callers keep the object they passed, and everything below may edit freely.
    s = JSON.parse(JSON.stringify(raw)) as Rec;
  } catch (e) {
    corrupt(`the state is not plain JSON data (${(e as Error).message})`);
  }
  const notes = new Notes();
  const { version, fromVersion } = readVersion(s, notes);

  const specPath = nonEmptyString(s.specPath) ? s.specPath : opts.specPath;
  if (!nonEmptyString(specPath)) corrupt(`the state file names no specPath, so the session cannot be tied to a spec`);
  if (!nonEmptyString(s.specPath)) {
    if (has(s, "specPath")) keepOriginal(s, "specPath", s.specPath);
    notes.add(`specPath missing; set to ${specPath}`);
  }

  const state = normalizeStateName(s.currentState);
  if (state === null) {
    corrupt(
      has(s, "currentState")
        ? `currentState ${JSON.stringify(s.currentState)} is not an autopilot state (one of ${STATE_NAMES.join(", ")})`
        : `the state file has no currentState`,
    );
  }
  if (state !== s.currentState) {
    keepOriginal(s, "currentState", s.currentState);
    const why =
      NEWER_UPSTREAM_STATES[
        String(s.currentState)
          .trim()
          .toUpperCase()
          .replace(/[\s_-]+/g, "")
      ];
    notes.add(`currentState ${JSON.stringify(s.currentState)} read as "${state}"${why ? `: ${why}` : ""}`);
  }

  const top: Rec = s;

  // -- the skill's migration, INIT step 3 --
  let startingCommit: string | null;
  if (has(s, "startingCommit") && (typeof s.startingCommit === "string" || s.startingCommit === null)) {
    startingCommit = s.startingCommit;
  } else {
    if (has(s, "startingCommit")) keepOriginal(top, "startingCommit", s.startingCommit);
    const fromHistory = earliestHistoryCommit(s.history);
    startingCommit = fromHistory ?? opts.head ?? null;
    notes.add(
      `startingCommit backfilled ${
        fromHistory
          ? `from the earliest commit in history (${fromHistory})`
          : opts.head
            ? `with the current HEAD (${opts.head})`
            : "as null (no commit in history and HEAD unknown)"
      }`,
    );
  }

  let reviewPlans = s.reviewPlans;
  if (typeof reviewPlans !== "boolean") {
    if (reviewPlans === "true" || reviewPlans === "false") {
      notes.add(`reviewPlans was the string ${JSON.stringify(reviewPlans)}`);
      reviewPlans = reviewPlans === "true";
    } else {
      if (has(s, "reviewPlans")) keepOriginal(top, "reviewPlans", s.reviewPlans);
      notes.add(
        version < 4
          ? `reviewPlans backfilled as false (schemaVersion < 4)`
          : `reviewPlans missing or invalid; set to false`,
      );
      reviewPlans = false;
    }
  }

  let rigorLevel = typeof s.rigorLevel === "string" ? s.rigorLevel.trim().toLowerCase() : undefined;
  if (rigorLevel !== "fast" && rigorLevel !== "standard" && rigorLevel !== "thorough") {
    if (has(s, "rigorLevel")) keepOriginal(top, "rigorLevel", s.rigorLevel);
    notes.add(
      version < 5
        ? `rigorLevel backfilled as "standard" (schemaVersion < 5)`
        : `rigorLevel missing or unknown; set to "standard"`,
    );
    rigorLevel = "standard";
  } else if (rigorLevel !== s.rigorLevel) {
    notes.add(`rigorLevel ${JSON.stringify(s.rigorLevel)} read as "${rigorLevel}"`);
  }

  if (fromVersion !== CURRENT_SCHEMA_VERSION) {
    notes.add(`migrated from schemaVersion ${fromVersion ?? "(none)"} to ${CURRENT_SCHEMA_VERSION}`);
  }

  // -- tolerant normalisation --
  const sessionDir = resolveSessionDir(s, specPath, opts, notes, top);
  const drafts = normalizePhases(s.phases, s.planPath, notes);
  const ours = typeof s.stepId === "number" && Number.isInteger(s.stepId) && s.stepId >= 0;
  const currentPhase = resolveCurrentPhase(s.currentPhase, drafts, state, notes, top, ours);
  // Every state between ASSESS and PHASE_COMPLETE works on phases[currentPhase]. A file without it
  // (a hand edit such as {"currentState": "PLAN", "phases": []}) has no phase to resume: refused
  // here, rather than a guess or a TypeError in the engine.
  if (PHASE_STATES.has(state) && (currentPhase < 0 || currentPhase >= drafts.length))
    corrupt(
      drafts.length === 0
        ? `currentState ${state} works on a phase, but the file lists no phases`
        : `currentPhase ${currentPhase} is not one of the ${drafts.length} phases`,
    );
  let inferred = 0;
  const phases = drafts.map((d, i) => {
    if (d.status === null) {
      d.status = state === "DONE" || i < currentPhase ? "complete" : "pending";
      inferred++;
    }
    d.rec.status = d.status;
    return d.rec;
  });
  if (inferred > 0)
    notes.add(`phases: ${inferred} phase(s) without a status got one from currentPhase and currentState`);

  const retryBudget = normalizeRetryBudget(s.retryBudget, top, notes);
  const history = normalizeHistory(s.history, top, notes);
  for (const h of history) fit(h, "checkRounds", CheckRounds, notes, "history");
  const decisions = normalizeDecisions(s.decisions, top, notes);
  const finalReview = normalizeFinalReview(s.finalReview, top, notes);

  // Declared optional fields (usage ledger, budget, suggested PR): a value that does not fit moves aside.
  fit(s, "usage", UsageLedger, notes, "state");
  fit(s, "budget", Budget, notes, "state");
  fit(s, "pullRequest", PullRequest, notes, "state");
  fit(s, "parallel", ParallelSettings, notes, "state");
  fit(s, "waveLog", WaveLog, notes, "state");

  // Before notices (structured, rendered when a Step is made), the engine saved the Step's text as
  // prose in `report`: it becomes one plain-text notice, so nothing the user was to see is lost.
  if (has(s, "report") && !has(s, "notices")) {
    const prose = s.report;
    delete s.report;
    if (typeof prose === "string" && prose !== "") {
      s.notices = [{ kind: "text", text: prose }];
      notes.add(`report: the saved report became a plain-text notice`);
    } else {
      s.notices = [];
      if (prose !== null && prose !== "") {
        keepOriginal(top, "report", prose);
        notes.add(`report: an unexpected value; kept as "originalReport"`);
      }
    }
  }

  const engine: Rec = {};
  const added: string[] = [];
  const defaults = engineDefaults();
  for (const k of ENGINE_KEYS) {
    const fallback = defaults[k];
    if (!has(s, k)) {
      added.push(k);
      put(engine, k, fallback);
      continue;
    }
    let value = s[k];
    // A partial phaseRun (older engine builds) keeps what it has and gains the rest.
    if (k === "phaseRun" && isRec(value)) {
      value = { ...emptyPhaseRun(), ...value };
      // A parallel session's waves that do not read move aside; the rest of the phase's data stays.
      fit(value as Rec, "waves", WavePlan.nullable(), notes, "phaseRun");
      fit(value as Rec, "waveRun", WaveLedger.nullable(), notes, "phaseRun");
    }
    const ok = (k === "phaseRun" ? PhaseRun : AutopilotState.shape[k]).safeParse(value).success;
    if (ok) {
      put(engine, k, value);
    } else {
      keepOriginal(top, k, s[k]);
      notes.add(`engine field "${k}" was invalid; reset to its default (kept as "original${cap(k)}")`);
      put(engine, k, fallback);
    }
  }
  // A fix round saved by an earlier version rests in EXECUTE.running; fix dispatches now have their
  // own stage, which replies "fixed" like the final review's.
  if (state === "EXECUTE" && engine.stage === "running" && isRec(engine.phaseRun) && isRec(engine.phaseRun.fix)) {
    engine.stage = "fixing";
    notes.add(`stage: the fix round in progress moved to EXECUTE.fixing (its persona replies "fixed")`);
  }
  // A spent budget's question was the engine's before it was the machine's: a file that saved it
  // rests in the dispatching stage it held. The question has its own stage before each one now.
  const budget = Budget.safeParse(s.budget);
  const usage = UsageLedger.safeParse(s.usage);
  const budgetStage = typeof engine.stage === "string" ? `budget${cap(engine.stage)}` : null;
  if (
    budgetStage &&
    budget.success &&
    budget.data.continueOnceAt !== engine.stepId &&
    budgetSpent(budget.data, usage.success ? usage.data : undefined) &&
    BUDGET_QUESTION_HELD[state]?.includes(engine.stage as string)
  ) {
    notes.add(
      `stage: the spent budget's question before ${state}.${engine.stage as string} is now its own stage, ${state}.${budgetStage}`,
    );
    engine.stage = budgetStage;
  }
  if (added.length > 0 && added.length < ENGINE_KEYS.length)
    notes.add(`engine fields added with defaults: ${added.join(", ")}`);
  else if (added.length > 0) notes.add(`engine fields added with defaults (an upstream file)`);

  const known: Rec = {
    schemaVersion: CURRENT_SCHEMA_VERSION,
    sessionDir,
    specPath,
    startingCommit,
    reviewPlans,
    rigorLevel,
    currentState: state,
    currentPhase,
    phases,
    retryBudget,
    history,
    decisions,
    finalReview,
  };
  // Known fields in the skill's order, then the file's own extra fields in their order, then ours:
  // people diff these files.
  const entries: [string, unknown][] = [
    ...UPSTREAM_ORDER.map((k): [string, unknown] => [k, known[k]]),
    ...Object.entries(s).filter(([k]) => !Object.hasOwn(known, k) && !(ENGINE_KEYS as string[]).includes(k)),
    ...Object.entries(engine),
  ];
  const out = Object.fromEntries(entries);
  ledgerOf(out, notes);
  const check = AutopilotState.safeParse(out);
  if (!check.success) {
    const issue = check.error.issues[0];
    corrupt(`after migration the state is still invalid at ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  return { state: out as AutopilotState, notes: notes.list(), fromVersion };
}

/**
 * The finding ledger: kept as it is when it reads; a file without one (written before it) or whose
 * value does not read (moved aside as `originalFindingLedger`) gets it from the rounds it records.
 */
function ledgerOf(out: Rec, notes: Notes): void {
  if (has(out, "findingLedger") && FindingLedger.safeParse(out.findingLedger).success) return;
  const invalid = has(out, "findingLedger");
  if (invalid) {
    keepOriginal(out, "findingLedger", out.findingLedger);
    delete out.findingLedger;
  }
  // Only a file that records a round has findings to rebuild (a parse per read costs, at every call).
  const run = isRec(out.phaseRun) ? out.phaseRun : {};
  const fr = isRec(out.finalReview) ? out.finalReview : {};
  const rounds = [run.verificationRounds, run.reviewRounds, fr.rounds, fr.findings].some(
    (x) => Array.isArray(x) && x.length,
  );
  const parsed = rounds ? AutopilotState.safeParse(out) : null;
  const derived = parsed?.success ? deriveFindingLedger(parsed.data) : [];
  if (derived.length) out.findingLedger = derived;
  if (invalid || derived.length)
    notes.add(
      `findingLedger ${invalid ? 'did not read (kept as "originalFindingLedger"); ' : ""}${derived.length ? `rebuilt from the recorded rounds (${derived.length} finding${derived.length === 1 ? "" : "s"})` : "left empty"}`,
    );
}
