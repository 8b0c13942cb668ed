// The upstream plans: what planners actually wrote. Skipped, visibly, where the shared corpus
// is not checked out next to the project.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { countPlan } from "../../src/markdown/plan.js";
import { corpus, corpusPresent, warnIfCorpusMissing } from "./helpers.js";

warnIfCorpusMissing("plan corpus tests");

const plansDir = path.join(corpus, "upstream/plans");
const files = corpusPresent
  ? readdirSync(plansDir)
      .filter((f) => f.endsWith(".md"))
      .sort()
  : [];
const texts = new Map<string, string>();
const read = (f: string) => texts.get(f) ?? texts.set(f, readFileSync(path.join(plansDir, f), "utf8")).get(f)!;
const headerOf = (text: string) => {
  const m = /\*\*Tasks:?\*\*:?\s*(\d+)/.exec(text);
  return m ? Number(m[1]) : null;
};

// Plans whose `**Tasks:** N` header does not equal what is counted, and why. Every other plan
// with a header must count exactly N.
const DISAGREE: Record<string, { header: number; tasks: number; why: string }> = {
  "hermes-phase-0-gateway-api__2026-05-14-phase-2-versioned-api-plan.md": {
    header: 14,
    tasks: 15,
    why: "`### Task 3.5` (the human-verify checkpoint) was inserted after the header was written; it is a task",
  },
};

// Hand-checked counts for every plan, so a change in either count is seen. Notes on the
// less obvious ones:
// - event-sourced-state-model: 2 checkpoints (Tasks 11 and 13); Task 14's "Depends on: Task 11,
//   `[checkpoint:decision]`" names another task's checkpoint; the Skeleton's markers come
//   before the first task.
// - hermes-phase-0-gateway-api: 3 (Tasks 3.5, 7, 13), as its own summary says ("3 checkpoints
//   requested"); the overview's "[checkpoint:human-verify after Task 3]" comes before Task 1.
// - integration-phase: 1 (Task 4); its other 8 markers are in the quoted SKILL.md template,
//   inside fenced code or under a `## Session State` heading outside every task.
// - fix-roadmap-fleet-verify-contract: 7 tasks written as `### T1 — ...` headings, no header.
// - release-docker-workflow-call: no Task headings; 4 from its header.
// - orchestrator-session-recording: an agent transcript saved as a plan: no tasks at all.
const EXPECTED: Record<string, [tasks: number, checkpoints: number]> = {
  "activate-skill-proposal-pipeline__2026-08-07-docs-and-honesty-plan.md": [5, 1],
  "agent-workflow-acceleration__2026-03-22-phase2-interaction-schema-plan.md": [7, 1],
  "anti-rationalization-standard__2026-04-07-anti-rationalization-phase1-plan.md": [4, 1],
  "audit-harness-strength__2026-06-23-phase3-cli-command.md": [4, 0],
  "business-knowledge-foundation__2026-04-23-phase-4-knowledge-pipeline-diagrams-plan.md": [7, 0],
  "central-telemetry__2026-04-10-central-telemetry-phase3-plan.md": [7, 0],
  "cli-self-update__2026-03-17-cli-self-update.md": [3, 0],
  "conflict-prediction__2026-03-23-conflict-predictor-core-plan.md": [3, 1],
  "constraint-sharing__2026-03-25-constraint-sharing-uninstall-plan.md": [6, 1],
  "dashboard-chat-panel__2026-04-15-dashboard-chat-polish-parity-plan.md": [11, 0],
  "design-system-skills__2026-03-19-design-system-phase6-integration-plan.md": [8, 0],
  "documentation-gaps__2026-05-15-documentation-gaps-plan.md": [6, 0],
  "event-sourced-state-model__2026-06-27-phase4-lane-machine-plan.md": [16, 2],
  "fix-roadmap-fleet-verify-contract__2026-08-15-fix-roadmap-fleet-verify-contract-plan.md": [7, 0],
  "granular-task-routing__2026-05-25-phase-2-config-validator-plan.md": [9, 1],
  "graph-context-system__2026-03-18-graph-mcp-integration-plan.md": [9, 1],
  "harness-dashboard-v1.1__2026-04-06-dashboard-v1.1-phase6-blast-radius-visualization-plan.md": [5, 1],
  "hermes-phase-0-gateway-api__2026-05-14-phase-2-versioned-api-plan.md": [15, 3],
  "i18n-localization-skills__2026-03-20-i18n-process-skill-plan.md": [3, 0],
  "integration-phase__2026-04-27-integration-phase-spec-plan-schema-plan.md": [4, 1],
  "knowledge-domain-classifier__2026-05-03-phase1-shared-helper-plan.md": [5, 1],
  "local-backend-full-workflow__2026-07-15-local-backend-full-workflow-phase2-plan.md": [12, 1],
  "local-model-lifecycle-manager__2026-07-07-phase4-resolver-integration-plan.md": [7, 1],
  "mcp-response-compaction__2026-04-10-phase1-compaction-foundation-plan.md": [6, 1],
  "multi-language-templates__2026-03-27-phase1-engine-foundation-plan.md": [8, 0],
  "natural-language-graph-queries__2026-03-23-nlq-response-formatter-plan.md": [3, 0],
  "orchestrator-session-recording__2026-04-23-orchestrator-session-af3554b3-plan.md": [0, 0],
  "per-subagent-token-attribution-in-burn__2026-08-10-per-subagent-token-attribution-plan.md": [14, 2],
  "predictive-architecture-failure__2026-04-04-predictive-failure-phase3-spec-impact-estimator-plan.md": [7, 1],
  "release-docker-workflow-call__2026-08-09-release-docker-workflow-call-plan.md": [4, 0],
  "roadmap-auto-triage__2026-07-14-phase-1-scoping-probe-plan.md": [7, 1],
  "roadmap-shard-store__2026-06-27-roadmap-shard-store-phase5-auto-done-reconciler-plan.md": [9, 3],
  "runtime-enforcement-extensions__2026-03-30-phase1-security-rule-categories-plan.md": [8, 1],
  "security-skill-deepening__2026-03-31-fp-verification-gate-plan.md": [4, 0],
  "skill-provider-freshness__2026-08-05-install-ask-and-run-plan.md": [4, 0],
  "spec-plan-soundness-review__2026-03-20-plan-mode-autofix-plan.md": [3, 1],
  "standardize-parallel-execution__2026-07-07-phase-4-docs-and-adrs-plan.md": [7, 1],
  "ulid-identity-sessions-worktrees__2026-08-08-phase1-core-ulid-identity-store-plan.md": [6, 0],
  "unified-project-roadmap__2026-03-21-roadmap-remaining-commands-plan.md": [4, 0],
  "visual-advanced-pipeline__2026-04-23-visual-advanced-pipeline-plan.md": [10, 0],
};

describe.skipIf(!corpusPresent)("upstream plans", () => {
  it("has the 40 plans the corpus README describes, all with hand-checked counts", () => {
    expect(files).toHaveLength(40);
    expect(Object.keys(EXPECTED).sort()).toEqual(files);
  });

  it.each(files.filter((f) => headerOf(read(f)) !== null && !(f in DISAGREE)))(
    "%s: the task count equals the plan's own **Tasks:** header",
    (f) => {
      expect(countPlan(read(f)).tasks).toBe(headerOf(read(f)));
    },
  );

  it.each(Object.entries(DISAGREE))("%s: disagrees with its header for a known reason", (f, d) => {
    expect(headerOf(read(f))).toBe(d.header);
    expect(countPlan(read(f)).tasks).toBe(d.tasks);
  });

  it.each(files)("%s: tasks and checkpoints match the hand count", (f) => {
    const [tasks, checkpoints] = EXPECTED[f];
    expect(countPlan(read(f))).toEqual({ tasks, checkpoints });
  });
});
