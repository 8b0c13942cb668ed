// Every finding of the session, once, with its fate: the state file's `findingLedger`.
//
// A verification, a phase review and the final review each report findings by round; a re-check
// reports again what it still finds. Counted per round, one warning became three; told per round,
// a fixed warning read "recorded, not addressed". The ledger keeps one entry per finding, with an id
// the briefs and gates show, the rounds that reported it, and its fate:
//  - `open`: nobody has dealt with it yet (or a re-check raised it again after a fix or a dispute);
//  - `fixed`: a fix round said it fixed it; `commit` is that round's commit once made;
//  - `disputed`: the fixer held it wrong and gave `evidence`; the next check judges it;
//  - `overridden`: a decision let it stand (`decision`, `by`);
//  - `deferred`: a person chose to leave it for later (`decision`, `by`).
// Every text that shows a finding (briefs, the Step's report, summary.md, the phase review file,
// the decision log, the PR text) words its fate with `fateWords`, so they cannot disagree.
// Pure: the machine's actions change the ledger with the functions below; the effect performer
// adds a fix round's commit once it is made (`recordFixCommit`).
import { z } from "zod";
import { DecisionBy, Severity, type Finding } from "../vocabulary.js";

const FINDING_FATES = ["open", "fixed", "disputed", "overridden", "deferred"] as const;
export const FindingFate = z.enum(FINDING_FATES);
export type FindingFate = z.infer<typeof FindingFate>;

/** Which check raised it: a phase's verification or review, or the final review of the whole change. */
export const FindingSource = z.enum(["verification", "review", "final"]);
export type FindingSource = z.infer<typeof FindingSource>;

export const TrackedFinding = z.looseObject({
  /** Stable within the session: `p1-r1-2` (phase 1, review round 1, its 2nd finding), `p2-v1-1`, `final-r1-1`. */
  id: z.string(),
  source: FindingSource,
  /** 0-based phase index; null for the final review. */
  phase: z.number().int().nullable(),
  /** The round of its check that first reported it (1-based). */
  round: z.number().int().positive(),
  severity: Severity,
  title: z.string(),
  file: z.string().optional(),
  line: z.number().int().optional(),
  rationale: z.string().optional(),
  scenario: z.string().optional(),
  /** Every round of its check that reported it, in order (the first is `round`). */
  seen: z.array(z.number().int().positive()),
  fate: FindingFate,
  /** The last fix round asked to fix it (counted per phase; the final review's own rounds for its findings). */
  fixRound: z.number().int().positive().optional(),
  /** fixed: the id of the commit effect of that fix round, and the commit's sha once it is made. */
  commitEffect: z.string().optional(),
  commit: z.string().optional(),
  /** fixed: the fix round's commit found nothing to commit. */
  committed: z.boolean().optional(),
  /** disputed: the fixer's evidence. */
  evidence: z.string().optional(),
  /** overridden, deferred (or fixed by hand): the decision (`overrode_review`, `fixed_manually`, ...) and who gave it. */
  decision: z.string().optional(),
  by: DecisionBy.optional(),
  /** open: the round that raised it again after it was fixed or disputed. */
  reraised: z.number().int().positive().optional(),
});
export type TrackedFinding = z.infer<typeof TrackedFinding>;

export const FindingLedger = z.array(TrackedFinding);
export type FindingLedger = TrackedFinding[];

/** The findings of one check: a phase's verification or review, or the final review (phase null). */
export interface FindingScope {
  source: FindingSource;
  phase: number | null;
}

function inScope(e: TrackedFinding, scope: FindingScope): boolean {
  return e.source === scope.source && (scope.source === "final" || e.phase === scope.phase);
}

function findingId(scope: FindingScope, round: number, k: number): string {
  if (scope.source === "final") return `final-r${round}-${k}`;
  return `p${(scope.phase ?? 0) + 1}-${scope.source === "verification" ? "v" : "r"}${round}-${k}`;
}

function flat(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** What makes two reports the same finding: its place and title (a re-check may change the severity). */
function sameKey(f: { file?: string; title: string }): string {
  return `${(f.file ?? "").trim()}|${flat(f.title).toLowerCase()}`;
}

/**
 * A check's round reported `findings`: each one an earlier round of the same check reported is
 * that entry again (its `seen` gains the round; fixed or disputed, it is open again), the others
 * are new entries.
 */
export function raiseFindings(
  ledger: readonly TrackedFinding[],
  scope: FindingScope,
  round: number,
  findings: readonly Finding[],
): TrackedFinding[] {
  const out = [...ledger];
  findings.forEach((f, k) => {
    const key = sameKey(f);
    const i = out.findIndex((e) => inScope(e, scope) && !e.seen.includes(round) && sameKey(e) === key);
    if (i >= 0) {
      const e = out[i];
      const back = e.fate === "fixed" || e.fate === "disputed";
      out[i] = {
        ...e,
        severity: f.severity,
        seen: [...e.seen, round],
        ...(back ? { fate: "open" as const, reraised: round } : {}),
      };
      return;
    }
    out.push({
      id: findingId(scope, round, k + 1),
      source: scope.source,
      phase: scope.source === "final" ? null : scope.phase,
      round,
      severity: f.severity,
      title: f.title,
      ...(f.file ? { file: f.file } : {}),
      ...(typeof f.line === "number" ? { line: f.line } : {}),
      ...(f.rationale ? { rationale: f.rationale } : {}),
      ...(f.scenario ? { scenario: f.scenario } : {}),
      seen: [round],
      fate: "open",
    });
  });
  return out;
}

/** Verification findings are lines of text; each is a finding a phase cannot pass with. */
export function verificationFindings(lines: readonly string[]): Finding[] {
  return lines.map((title) => ({ severity: "blocking" as const, title }));
}

/** The ids of a round's findings, in the round's order (what `raiseFindings` made of them). */
export function roundIds(
  ledger: readonly TrackedFinding[],
  scope: FindingScope,
  round: number,
  findings: readonly { file?: string; title: string }[],
): (string | undefined)[] {
  const used = new Set<string>();
  return findings.map((f) => {
    const e = ledger.find(
      (x) => inScope(x, scope) && x.seen.includes(round) && !used.has(x.id) && sameKey(x) === sameKey(f),
    );
    if (e) used.add(e.id);
    return e?.id;
  });
}

/** Which open findings a fix round takes: the blocking ones, those and the warnings, all, or a chosen list of ids. */
export type FixChoice = "blocking" | "blocking+warnings" | "all" | readonly string[];

export function chooseForFix(ledger: readonly TrackedFinding[], scope: FindingScope, choice: FixChoice): string[] {
  const open = ledger.filter((e) => inScope(e, scope) && e.fate === "open");
  if (typeof choice !== "string") return open.filter((e) => choice.includes(e.id)).map((e) => e.id);
  const keep =
    choice === "all"
      ? () => true
      : choice === "blocking"
        ? (e: TrackedFinding) => e.severity === "blocking"
        : (e: TrackedFinding) => e.severity !== "note";
  return open.filter(keep).map((e) => e.id);
}

/** The findings `ids` go to fix round `fixRound`. */
export function markForFix(
  ledger: readonly TrackedFinding[],
  ids: readonly string[],
  fixRound: number,
): TrackedFinding[] {
  return ledger.map((e) => {
    if (!ids.includes(e.id)) return e;
    const { reraised: _r, commit: _c, commitEffect: _e, committed: _k, evidence: _v, ...rest } = e;
    return { ...rest, fixRound };
  });
}

/** Whether the fixer's dispute names this finding: by its id, else by its title. */
function disputes(text: string, e: TrackedFinding): boolean {
  if (new RegExp(`(^|[^\\w-])${e.id}($|[^\\w-])`).test(text)) return true;
  const t = flat(text).toLowerCase();
  const title = flat(e.title).toLowerCase();
  return title.length > 0 && (t.includes(title) || (t.length >= 12 && title.includes(t)));
}

/**
 * Fix round `fixRound` reported: what it was asked to fix is fixed by the commit `commitEffect`
 * owes, except what it disputed (with the evidence). A dispute naming an id goes to that finding
 * alone; one naming none is matched by title.
 */
export function settleFixRound(
  ledger: readonly TrackedFinding[],
  scope: FindingScope,
  fixRound: number,
  disputed: readonly { finding: string; evidence: string }[],
  commitEffect: string | null,
): TrackedFinding[] {
  return ledger.map((e) => {
    if (!inScope(e, scope) || e.fixRound !== fixRound || e.fate !== "open") return e;
    const d = disputed.find((x) => disputes(x.finding, e));
    if (d) return { ...e, fate: "disputed" as const, evidence: d.evidence };
    return { ...e, fate: "fixed" as const, ...(commitEffect ? { commitEffect } : {}) };
  });
}

/** A decision let the findings `ids` stand (`overridden`), left them for later (`deferred`), or said they were fixed by hand. */
export function decideFindings(
  ledger: readonly TrackedFinding[],
  ids: readonly string[],
  fate: "overridden" | "deferred" | "fixed",
  decision: string,
  by: DecisionBy | undefined,
): TrackedFinding[] {
  return ledger.map((e) => (ids.includes(e.id) ? { ...e, fate, decision, ...(by ? { by } : {}) } : e));
}

/** The commit effect `effectId` was made as `sha` (or found nothing to commit: null). */
export function recordFixCommit(
  ledger: readonly TrackedFinding[] | undefined,
  effectId: string,
  sha: string | null,
): TrackedFinding[] | undefined {
  if (!ledger?.some((e) => e.commitEffect === effectId && e.commit === undefined)) return ledger as TrackedFinding[];
  return ledger.map((e) =>
    e.commitEffect === effectId && e.commit === undefined
      ? sha
        ? { ...e, commit: sha }
        : { ...e, committed: false }
      : e,
  );
}

// ---- words: one wording of a fate for every text --------------------------------------------------

const BY_WORDS: Record<DecisionBy, string> = {
  elicited: "the user (in the client's form)",
  terminal: "a person at a terminal",
  host: "the host model",
  relayed: "the user (relayed by the host model)",
  piped: "piped input",
  policy: "the --yes policy",
  auto: "autopilot",
  human: "a person or the host model",
};

function byWords(by: DecisionBy | undefined): string {
  return by ? BY_WORDS[by] : "a decision";
}

/**
 * The fate in words: "open", "open (sent to fix round 2)", "open (raised again in round 2 after fix
 * round 1)", "fixed in fix round 1 (commit 1a2b3c4)", "disputed in fix round 1: <evidence>",
 * "overridden by the host model", "deferred by the user (in the client's form)". `short` bounds the
 * evidence (for one-line records; briefs give it whole).
 */
export function fateWords(e: TrackedFinding, opts: { short?: boolean } = {}): string {
  const round = e.fixRound ? ` in fix round ${e.fixRound}` : "";
  switch (e.fate) {
    case "open":
      if (e.reraised)
        return `open (raised again in round ${e.reraised}${e.fixRound ? ` after fix round ${e.fixRound}` : ""})`;
      return e.fixRound ? `open (sent to fix round ${e.fixRound})` : "open";
    case "fixed":
      if (e.decision) return `fixed by hand (said by ${byWords(e.by)})`;
      return `fixed${round}${e.commit ? ` (commit ${e.commit.slice(0, 7)})` : e.committed === false ? " (nothing was committed)" : ""}`;
    case "disputed": {
      const ev = flat(e.evidence ?? "");
      return `disputed${round}${ev ? `: ${opts.short && ev.length > 160 ? `${ev.slice(0, 159)}…` : ev}` : ""}`;
    }
    case "overridden":
    case "deferred":
      return `${e.fate} by ${byWords(e.by)}`;
  }
}

/** One line per finding: "[p1-r1-2] warning src/a.ts:3 — Title — open". */
export function trackedLine(e: TrackedFinding, opts: { short?: boolean; why?: boolean } = {}): string {
  const loc = e.file ? ` ${e.file}${e.line !== undefined ? `:${e.line}` : ""}` : "";
  const why = opts.why && e.rationale ? `: ${flat(e.rationale)}` : "";
  const scenario = opts.why && e.scenario ? ` Scenario: ${flat(e.scenario)}` : "";
  return `[${e.id}] ${e.severity}${loc} — ${flat(e.title)}${why}${scenario} — ${fateWords(e, opts)}`;
}

const SEVERITIES = ["blocking", "warning", "note"] as const;

/** Findings of one severity and fate, counted once each: what a notice keeps to word later. */
export const FateGroup = z.looseObject({
  severity: Severity,
  fate: FindingFate,
  count: z.number().int().positive(),
  /** fixed: the fix rounds' commits (short shas). */
  commits: z.array(z.string()).optional(),
  /** overridden, deferred: who decided, in words. */
  by: z.array(z.string()).optional(),
});
export type FateGroup = z.infer<typeof FateGroup>;

export function fateGroups(entries: readonly TrackedFinding[]): FateGroup[] {
  const out: FateGroup[] = [];
  for (const severity of SEVERITIES)
    for (const fate of FINDING_FATES) {
      const group = entries.filter((e) => e.severity === severity && e.fate === fate);
      if (!group.length) continue;
      const commits = [...new Set(group.flatMap((e) => (e.commit ? [e.commit.slice(0, 7)] : [])))];
      const by = fate === "overridden" || fate === "deferred" ? [...new Set(group.map((e) => byWords(e.by)))] : [];
      out.push({
        severity,
        fate,
        count: group.length,
        ...(commits.length ? { commits } : {}),
        ...(by.length ? { by } : {}),
      });
    }
  return out;
}

/** "1 blocking fixed (commit 1a2b3c4), 1 warning open, 1 note open"; "none" for no group. */
export function groupWords(groups: readonly FateGroup[]): string {
  const words = groups.map(
    (g) =>
      `${g.count} ${g.severity} ${g.fate}${g.commits?.length ? ` (commit ${g.commits.join(", ")})` : g.by?.length ? ` by ${g.by.join(", ")}` : ""}`,
  );
  return words.length ? words.join(", ") : "none";
}

/** Findings counted once each, by severity and fate (`groupWords` of `fateGroups`). */
export function fateTally(entries: readonly TrackedFinding[]): string {
  return groupWords(fateGroups(entries));
}

/** The session's findings of one check, in the order they were raised. */
export function findingsIn(ledger: readonly TrackedFinding[] | undefined, scope: FindingScope): TrackedFinding[] {
  return (ledger ?? []).filter((e) => inScope(e, scope));
}
