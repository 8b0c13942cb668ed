// Facts a dispatch brief needs from disk: the phase's text in the spec, the per-phase review
// findings, the diff so far, relevant learnings. Each is bounded; a missing source is left out.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { AutopilotState } from "../session/schema.js";
import type { DispatchFacts } from "../personas/dispatch.js";
import { phaseStartCommit } from "../personas/jobs.js";
import { parseSpec } from "../markdown/spec.js";
import { diffStat } from "../effects/git-history.js";
import { formatFindingsForPrompt, readPhaseReviews } from "../effects/reviews.js";
import { readLearnings } from "../effects/learnings.js";
import { detectCommitChecks } from "../effects/commit-checks.js";
import type { ProjectConfig } from "../session/config.js";
import { stageMetaAt } from "../../machines/stages.js";
import type { DispatchFact } from "../../machines/autopilot.machine.js";
import type { SessionPaths } from "../session/paths.js";

const MAX_DIFFSTAT = 6000;

/** The facts the dispatching stage asks for (its state node's `meta.dispatch.facts`); none elsewhere. */
export async function gatherDispatchFacts(
  ws: SessionPaths,
  state: AutopilotState,
  /** The project's config as this call read it (read once per call). */
  config: () => Promise<ProjectConfig>,
): Promise<DispatchFacts> {
  const root = ws.projectRoot;
  const facts: DispatchFacts = {};
  const wanted = new Set<DispatchFact>(stageMetaAt(state.currentState, state.stage)?.dispatch?.facts ?? []);
  if (wanted.has("phaseDescription")) {
    try {
      const spec = parseSpec(await readFile(path.join(root, state.specPath), "utf8"));
      const name = state.phases[state.currentPhase]?.name;
      const match = spec.phases.find((p) => p.name === name) ?? spec.phases[state.currentPhase];
      if (match) facts.phaseDescription = match.description;
    } catch {
      // The spec may have moved or changed since INIT; the planner is told to read it instead.
    }
  }
  // A phase review sees its phase's range; the final review (and its fixes) the session's.
  const base = state.currentState === "FINAL_REVIEW" ? state.startingCommit : phaseStartCommit(state);
  if (wanted.has("diffStat") && base) {
    try {
      const stat = await diffStat(root, base);
      facts.diffStat = stat.length > MAX_DIFFSTAT ? `${stat.slice(0, MAX_DIFFSTAT)}\n… (truncated)` : stat;
    } catch {
      // Not fatal: the reviewer can run git itself.
    }
  }
  if (wanted.has("phaseFindings")) {
    const reviews = await readPhaseReviews(ws, { phaseCount: state.phases.length }).catch(() => []);
    facts.phaseFindings = formatFindingsForPrompt(reviews, { phaseNames: state.phases.map((p) => p.name) });
  }
  if (wanted.has("commitChecks")) {
    facts.commitChecks = await detectCommitChecks(root).catch(() => null);
    const template = (await config().catch(() => null))?.commitMessage;
    if (template) facts.commitTemplate = template;
  }
  if (wanted.has("learnings")) {
    const l = await readLearnings(ws, { max: 10, maxChars: 3000 }).catch(() => null);
    if (l && l.entries.length) facts.learnings = l.entries.map((e) => `- (${e.source}) ${e.text}`).join("\n");
  }
  return facts;
}
