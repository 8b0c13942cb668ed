// The migration's rules for what a session has recorded (src/session/migrate.ts runs them): its
// history, its decisions and its final review, in whatever shape real files give them (strings,
// `{what, why}`, the other severity words). Each says in `notes` what it changed and keeps what it
// replaced beside it (`original<Field>`).
import { DecisionBy, Signals, normalizeSeverity } from "./schema.js";
import {
  BOOL,
  COUNTS,
  INT,
  STR,
  STRINGS,
  asInt,
  fit,
  has,
  isRec,
  keepOriginal,
  looksLikeDate,
  nonEmptyString,
  type Notes,
  type Rec,
} from "./migrate-kit.js";
import { normalizeStateName } from "./migrate-position.js";

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
