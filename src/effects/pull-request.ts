// The pull request autopilot writes when a session is DONE: a description a reviewer can act on,
// from what the session recorded. The title says what the change does (the spec's heading of four
// words or more, else its summary, else its name and phases); the body says what changed and why
// per phase (the commits' subjects and the reasons their authors gave), what the planner assumed
// and who answered each gate, how it was tested (what the executor ran, what verification checked,
// the final review), the findings left open with their fate, and the cost or why it is unknown.
import type { AutopilotState, HistoryEntry } from "../session/schema.js";
import { fateTally, fateWords, findingsIn, type TrackedFinding } from "../session/findings.js";
import { costUnknownWhy, formatCost } from "../session/usage.js";
import { channelPhrase } from "../vocabulary.js";
import { DECISIONS, isDecisionName } from "../../machines/decisions.js";
import { firstSentence } from "../markdown/spec-overview.js";
import { sanitizeLabel } from "./git.js";
import { commitsSince, type CommitSummary } from "./git-history.js";

const TITLE_MAX = 72;
/** A line of evidence says what ran and what it showed; a longer one is cut (the output is not the PR's). */
const LINE_MAX = 200;
const OPENING_MAX = 800;

export interface PrSpec {
  /** The spec's `# heading`. */
  title: string | null;
  /** Its summary (src/markdown/spec-overview.ts). */
  overview: string | null;
}

/** One line, at most `max` characters, cut at a word. */
function clipped(s: string, max: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  if (one.length <= max) return one;
  const cut = one.slice(0, max - 1);
  const word = cut.lastIndexOf(" ");
  return `${(word > max / 2 ? cut.slice(0, word) : cut).replace(/[\s,;:—-]+$/, "")}…`;
}

/**
 * What the change does, within 72 characters: the summary's first sentence (or its first clause
 * when that says enough), else the spec's name with its phases, else the longest of them cut at a word.
 */
export function prTitle(spec: PrSpec, phases: readonly string[]): string {
  // A heading of four words or more already says what the change is ("Tally: words and a command
  // line"); the overview's first sentence may describe the code as it was ("Tally counts lines today").
  const heading = spec.title?.trim() ? sanitizeLabel(spec.title) : null;
  if (heading && heading.length <= TITLE_MAX && heading.split(/\s+/).length >= 4) return heading;
  const sentence = spec.overview ? sanitizeLabel(firstSentence(spec.overview)) : null;
  if (sentence && sentence.length <= TITLE_MAX) return sentence;
  const clause = sentence?.split(/[,;:—]\s/)[0]?.trim();
  if (clause && clause.length <= TITLE_MAX && clause.split(" ").length >= 5) return clause;
  const name = spec.title?.trim() ? sanitizeLabel(spec.title) : null;
  const named = name && phases.length ? `${name}: ${phases.map(sanitizeLabel).join(", ")}` : name;
  if (named && named.length <= TITLE_MAX) return named;
  return clipped(named ?? sentence ?? "Autopilot changes", TITLE_MAX);
}

/** What a commit's author said about why: its body without the trailer block at its end. */
function reasonOf(body: string): string {
  const paragraphs = body.trim().split(/\n\s*\n/);
  const last = paragraphs.at(-1) ?? "";
  if (last && last.split("\n").every((l) => /^[A-Za-z][\w-]*: /.test(l))) paragraphs.pop();
  return paragraphs.join("\n\n").trim();
}

/** Where a gate was answered: its phase, the final review, or the session's start (no phase yet). */
function gateOf(d: AutopilotState["decisions"][number]): string {
  if (d.phase !== null) return `Phase ${d.phase + 1}`;
  if (d.state === undefined) return "Session";
  return d.state === "FINAL_REVIEW" || d.state === "DONE" ? "Final review" : "Before the first phase";
}

function bullet(text: string): string {
  return `- ${text.replace(/\n/g, "\n  ")}`;
}

function commitItem(c: CommitSummary, note = ""): string {
  const reason = reasonOf(c.body);
  return bullet(`${c.subject} (${c.sha.slice(0, 7)})${note}${reason ? `\n${reason}` : ""}`);
}

/**
 * One line per finding left open. The same finding raised again by a later review (same title,
 * file and line: a phase's note the final review repeats) is one line naming both reviews, with the
 * later one's severity and fate.
 */
function openFindingLines(open: readonly TrackedFinding[]): string[] {
  const same = new Map<string, TrackedFinding[]>();
  for (const e of open) {
    const key = [sanitizeLabel(e.title).toLowerCase(), e.file ?? "", e.line ?? ""].join("\0");
    same.set(key, [...(same.get(key) ?? []), e]);
  }
  return [...same.values()].map((all) => {
    const e = all.at(-1)!;
    const where = all
      .map((x) => `${x.source === "final" ? "final review" : `phase ${(x.phase ?? 0) + 1} ${x.source}`}, ${x.id}`)
      .join("; ");
    const loc = e.file ? ` ${e.file}${e.line !== undefined ? `:${e.line}` : ""}` : "";
    return `${e.severity}${loc} — ${sanitizeLabel(e.title)} (${where}): ${fateWords(e, { short: true })}`;
  });
}

/** "verification passed after 1 failed round (its findings: 1 fixed); review: 1 blocking fixed (commit …)". */
function checkedLine(state: AutopilotState, h: HistoryEntry, i: number): string {
  const v = findingsIn(state.findingLedger, { source: "verification", phase: i });
  const r = findingsIn(state.findingLedger, { source: "review", phase: i });
  const failed = h.checkRounds?.verification.filter((x) => x === "fail").length ?? h.verificationFailures ?? 0;
  const kept = (h as { verification?: unknown }).verification;
  const verdict = h.verificationPassed ? "passed" : typeof kept === "string" ? kept : "not run";
  const tally = v.length ? ` (its findings: ${fateTally(v)})` : "";
  const after = failed ? ` after ${failed} failed round${failed === 1 ? "" : "s"}${tally}` : "";
  return `verification ${verdict}${after}; review: ${r.length ? fateTally(r) : "no findings"}`;
}

/** The pull request's title and body, from the state and the commits since its starting commit. */
function pullRequestText(
  state: AutopilotState,
  spec: PrSpec,
  commits: readonly CommitSummary[],
): { title: string; body: string } {
  const phases = state.phases;
  const title = prTitle(
    spec,
    phases.filter((p) => p.status !== "skipped").map((p) => p.name),
  );
  const own = new Map(state.commits.map((c) => [c.sha, c]));
  const isOwn = (c: CommitSummary) =>
    own.has(c.sha) || c.subject.startsWith("[autopilot]") || /^Autopilot(-Effect)?: /m.test(c.body);
  const finished = (i: number) => state.history.filter((h) => h.phase === i).at(-1);
  const out: string[] = [];
  if (spec.overview) out.push(clipped(spec.overview, OPENING_MAX), "");

  out.push("## What changed", "");
  phases.forEach((p, i) => {
    out.push(`### Phase ${i + 1}: ${sanitizeLabel(p.name)}`, "");
    if (p.status === "skipped") out.push("Skipped by a decision: nothing of it is in this change.");
    const mine = commits.filter((c) => own.get(c.sha)?.phase === i);
    if (!mine.length && p.status !== "skipped") out.push("No commit.");
    for (const c of mine)
      out.push(commitItem(c, own.get(c.sha)?.recovery ? " (unfinished work, kept when its task stopped)" : ""));
    out.push("");
  });
  const finalFixes = commits.filter((c) => own.has(c.sha) && own.get(c.sha)?.phase === null);
  if (finalFixes.length) out.push("### Fixes from the final review", "", ...finalFixes.map((c) => commitItem(c)), "");
  const theirs = commits.filter((c) => !isOwn(c));
  if (theirs.length)
    out.push("### Commits made during the session by others", "", ...theirs.map((c) => commitItem(c)), "");

  const assumed = phases.flatMap((_, i) => (finished(i)?.assumptions ?? []).map((a) => `Phase ${i + 1}: ${a}`));
  const decided = state.decisions.filter((d) => d.decision !== "note");
  if (assumed.length || decided.length) out.push("## Assumptions and decisions", "");
  if (assumed.length)
    out.push(
      "Where the spec was silent, the planner assumed:",
      "",
      ...assumed.map((a) => bullet(sanitizeLabel(a))),
      "",
    );
  if (decided.length) {
    out.push("Who answered each gate:", "");
    for (const d of decided)
      out.push(
        `- ${gateOf(d)}: ${isDecisionName(d.decision) ? DECISIONS[d.decision].label : `\`${sanitizeLabel(d.decision)}\``}${d.answer ? ` "${sanitizeLabel(d.answer)}"` : ""} — ${channelPhrase(d.by)}`,
      );
    out.push("");
  }

  out.push("## How it was tested", "");
  phases.forEach((p, i) => {
    const h = finished(i);
    if (!h || p.status === "skipped") return;
    out.push(`- Phase ${i + 1}: ${checkedLine(state, h, i)}.`);
    for (const line of h.tested?.executor ?? []) out.push(`  - the executor ran: ${clipped(line, LINE_MAX)}`);
    for (const line of h.tested?.verification ?? []) out.push(`  - verification checked: ${clipped(line, LINE_MAX)}`);
  });
  const finalFound = findingsIn(state.findingLedger, { source: "final", phase: null });
  out.push(
    `- Final review of the whole change: ${state.finalReview.status}${finalFound.length ? ` (${fateTally(finalFound)})` : ", no findings"}.`,
  );
  const validation = state.phaseRun.lastValidation;
  if (validation)
    out.push(
      `  - validation after its last fix round: ${validation.passed ? "pass" : "fail"}: ${clipped(validation.summary, LINE_MAX)}`,
    );
  out.push("");

  const open = (state.findingLedger ?? []).filter((e) => e.fate !== "fixed");
  out.push("## Findings left open", "");
  out.push(...(open.length ? openFindingLines(open).map(bullet) : ["None: every finding was fixed."]), "");

  const total = state.usage?.total;
  const why = costUnknownWhy(total);
  out.push("## Cost", "", why ? `Cost unknown: ${why}.` : `Persona runs: ${formatCost(total)}.`);
  const byPhase = Object.entries(state.usage?.byPhase ?? {});
  if (!why && byPhase.length)
    out.push(
      "",
      ...byPhase.map(([k, t]) => `- ${k === "final" ? "Final review" : `Phase ${k}: ${t.name}`}: ${formatCost(t)}`),
    );

  out.push("", "## Commits", "");
  if (!commits.length) out.push("- (no commits since the starting commit)");
  for (const c of commits) out.push(`- ${c.sha.slice(0, 7)} ${c.subject}`);
  return { title, body: out.join("\n") + "\n" };
}

/** The pull request, from the commits since the session's starting commit. */
export async function prTitleAndBody(
  root: string,
  startingCommit: string,
  state: AutopilotState,
  spec: PrSpec,
): Promise<{ title: string; body: string }> {
  return pullRequestText(state, spec, await commitsSince(root, startingCommit));
}
