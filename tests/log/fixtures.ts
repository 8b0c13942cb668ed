// State files for the decision-log tests, derived from a real finished session so they keep the
// engine's exact shape: a hostile one (markup in every user-supplied string) and one caught
// mid-phase.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { AutopilotState } from "../../src/session/schema.js";

/** Markup that must come out as text: a script, an image that would fetch, an attribute breakout. */
export const HOSTILE_NAME = `<script>document.title="pwned"</script><img src="http://127.0.0.1:9/x.png" onerror="document.title='pwned'"> Rule "Engine" & | pipes`;
export const HOSTILE_RATIONALE = `</td></tr></table><script>alert(1)</script> it's <b>fine</b>`;

export function hostileState(state: AutopilotState): AutopilotState {
  const s = structuredClone(state);
  s.phases[1].name = HOSTILE_NAME;
  for (const h of s.history) if (h.phase === 1) h.name = HOSTILE_NAME;
  for (const d of s.decisions) if (d.rationale) d.rationale = HOSTILE_RATIONALE;
  const withSignals = s.decisions.find((d) => d.signals?.plannerConcerns.length);
  if (withSignals?.signals) withSignals.signals.plannerConcerns = [`<iframe src="https://example.com/"></iframe>`];
  s.finalReview.findings = [
    { severity: "warning", title: `<svg onload="alert(1)">`, file: `src/<x>.ts`, line: 3, rationale: "a | b" },
  ];
  s.commits[0].label = `<a href="javascript:alert(1)">click</a>`;
  s.specPath = `docs/changes/<script>x</script>/proposal.md`;
  return s;
}

/** The same session as it stood during Phase 2's execution, one retry in. */
export function midPhaseState(state: AutopilotState): AutopilotState {
  const s = structuredClone(state);
  s.currentState = "EXECUTE";
  s.stage = "running";
  s.currentPhase = 1;
  s.history = s.history.filter((h) => h.phase === 0);
  s.decisions = s.decisions.filter((d) => d.phase === 0 || (d.phase === 1 && d.state === "APPROVE_PLAN"));
  s.phases = s.phases.map((p, i) => (i === 0 ? p : { ...p, status: "pending" as const, completedAt: undefined }));
  delete s.phases[1].completedAt;
  delete s.phases[2].completedAt;
  delete s.phases[2].startedAt;
  s.phases[2].planPath = null;
  s.commits = s.commits.filter((c) => c.phase === 0);
  s.finalReview = { status: "pending", findings: [], retryCount: 0 };
  s.phaseRun = {
    ...s.phaseRun,
    startedAt: s.phases[1].startedAt ?? null,
    taskCount: 5,
    retriesUsed: 1,
    verification: null,
    reviewFindings: [],
    reviewOverridden: false,
  };
  delete (s as Record<string, unknown>).pullRequest;
  return s;
}

/** Write a state file where the store looks for it; returns the project root. */
export async function writeSession(root: string, slug: string, state: unknown): Promise<string> {
  const dir = path.join(root, ".harness/sessions", slug);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "autopilot-state.json"), JSON.stringify(state, null, 2) + "\n");
  return root;
}
