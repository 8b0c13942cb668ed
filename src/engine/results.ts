// What a host reports (a persona's result) becomes a machine event here. The server does not take
// a persona's word for files: it finds the plan itself, checks it exists and counts it.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { AutopilotEvent, PlanFacts } from "../../machines/autopilot.machine.js";
import type { AutopilotState, Finding } from "../session/schema.js";
import { normalizeSeverity } from "../session/schema.js";
import type { PersonaResult } from "../protocol/step.js";
import { AutopilotError } from "../protocol/errors.js";
import { countPlan, planProblems } from "../markdown/plan.js";
import { dependencyProblems, planHeaders } from "../markdown/plan-header.js";
import { computeWaves } from "../markdown/waves.js";
import type { ParallelSettings } from "../session/schema.js";
import { findPlanForPhase } from "../markdown/plans-folder.js";
import { readHandoff } from "../effects/handoff.js";
import type { SessionPaths } from "../session/paths.js";
import { checkPath, confine } from "../session/confine.js";
import { assertParseableMarkdown } from "./limits.js";

function sha256Of(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** sha256 of a plan file's content now; null when it cannot be read. */
export async function planFileSha256(root: string, planPath: string): Promise<string | null> {
  try {
    return sha256Of(await readFile(confine(root, planPath), "utf8"));
  } catch {
    return null;
  }
}

/** Read a plan inside the project and count it; null when the file is not there. */
export async function readPlanFacts(
  root: string,
  planPath: string,
  concerns: string[],
  parallel?: ParallelSettings,
): Promise<PlanFacts | null> {
  const abs = confine(root, planPath);
  let text: string;
  // Links are followed only while they stay inside: a planner could name a link to /etc/passwd
  // inside the project and have the server read (and report on) it.
  let checked;
  try {
    checked = checkPath(root, planPath, { links: true });
  } catch {
    return null;
  }
  if (!checked.ok) {
    if (checked.escape.why === "link")
      throw new AutopilotError(
        "outside_project",
        `The plan ${planPath} links to ${checked.escape.real}, outside the project. Write the plan inside the project.`,
        { path: planPath },
      );
    return null; // a dangling link: no plan there
  }
  try {
    text = await readFile(abs, "utf8");
  } catch {
    return null;
  }
  assertParseableMarkdown(text, `The plan ${planPath}`);
  const counts = countPlan(text);
  return {
    path: planPath,
    taskCount: counts.tasks,
    checkpointCount: counts.checkpoints,
    concerns,
    sha256: sha256Of(text),
    problems: planProblems(text),
    ...(parallel ? planWaves(text, parallel) : {}),
  };
}

/**
 * A parallel session reads the plan's dependency lines: their problems join the plan check's (the
 * plan goes back to the planner, never dispatched), and a sound plan gets its waves.
 */
function planWaves(text: string, parallel: ParallelSettings): Pick<PlanFacts, "problems" | "waves"> {
  const headers = planHeaders(text);
  const problems = [...planProblems(text), ...dependencyProblems(headers)];
  return { problems, waves: problems.length ? null : computeWaves(headers, parallel.minIndependent) };
}

/**
 * Find the current phase's plan: the path reported, then the handoff's, then the plans folder by
 * phase name, then the path the dispatch asked for.
 */
export async function locatePlan(
  ws: SessionPaths,
  state: AutopilotState,
  reported: string | undefined,
  expected: string | undefined,
): Promise<{ facts: PlanFacts | null; tried: string[] }> {
  const phase = state.phases[state.currentPhase];
  const root = ws.projectRoot;
  const handoff = await readHandoff(ws).catch(() => null);
  const tried: string[] = [];
  // A handoff left by an earlier phase's planner must not pass for this phase's plan.
  const otherPlans = new Set(state.phases.filter((_, i) => i !== state.currentPhase).map((p) => p.planPath));
  const handoffPhase = typeof handoff?.phase === "string" ? handoff.phase.trim().toLowerCase() : null;
  const namesOtherPhase = state.phases.some(
    (p, i) => i !== state.currentPhase && handoffPhase !== null && p.name.toLowerCase() === handoffPhase,
  );
  const handoffIsOurs = !namesOtherPhase && !(handoff?.planPath && otherPlans.has(handoff.planPath));
  const fromHandoff = handoff?.planPath && handoffIsOurs && !otherPlans.has(handoff.planPath) ? handoff.planPath : null;
  const candidates: (string | null | undefined)[] = [reported, fromHandoff];
  candidates.push(await findPlanForPhase(root, state.specPath, phase.name));
  candidates.push(expected);
  const concerns = handoffIsOurs ? (handoff?.concerns ?? []) : [];
  for (const c of candidates) {
    if (!c || tried.includes(c)) continue;
    tried.push(c);
    const facts = await readPlanFacts(root, c, concerns, state.parallel);
    if (facts) return { facts, tried };
  }
  return { facts: null, tried };
}

function normalizeFindings(
  findings: { severity: string; title: string; file?: string; line?: number; rationale?: string; scenario?: string }[],
): Finding[] {
  return findings.map((f) => {
    const severity = normalizeSeverity(f.severity) ?? "note";
    const out: Finding = { severity, title: f.title };
    if (f.file) out.file = f.file;
    if (typeof f.line === "number") out.line = f.line;
    if (f.rationale) out.rationale = f.rationale;
    if (f.scenario?.trim()) out.scenario = f.scenario;
    if (severity !== f.severity) (out as Record<string, unknown>).originalSeverity = f.severity;
    return out;
  });
}

export async function resultToEvent(
  ws: SessionPaths,
  state: AutopilotState,
  result: PersonaResult,
  expectedPlan: string | undefined,
  now: string,
): Promise<AutopilotEvent> {
  const hasOutcome = result.kind === "executed" && result.outcome !== undefined;
  // The person's words it did not carry out: on every event of a persona that acts on them.
  const reply = "notDone" in result && result.notDone?.length ? { notDone: result.notDone } : {};
  // An error of only whitespace says nothing: it is read as no error, not as a persona failure.
  const error = result.error?.trim() || undefined;
  if (error && !hasOutcome) return { type: "PERSONA_FAILED", error, now };
  switch (result.kind) {
    case "planned": {
      const { facts, tried } = await locatePlan(ws, state, result.planPath, expectedPlan);
      if (!facts)
        throw new AutopilotError(
          "bad_result",
          `No plan file found for phase ${state.currentPhase + 1} (looked at: ${tried.join(", ") || "nothing"}). Write the plan file, then report again with its planPath.`,
        );
      if (result.concerns) facts.concerns = result.concerns;
      if (result.assumptions?.length) facts.assumptions = result.assumptions;
      if (result.deferred?.length) facts.deferred = result.deferred;
      return { type: "PLANNED", plan: facts, ...(result.summary ? { summary: result.summary } : {}), ...reply, now };
    }
    case "executed": {
      const outcome = result.outcome!;
      const extra = {
        ...(result.evidence?.length ? { evidence: result.evidence } : {}),
        ...(result.learnings?.length ? { learnings: result.learnings } : {}),
        ...reply,
        ...(result.commitMessage?.trim() ? { commitMessage: result.commitMessage } : {}),
      };
      const task = result.task ? { task: { number: result.task.number ?? null, name: result.task.name } } : {};
      if (outcome === "checkpoint") {
        if (!result.checkpoint)
          throw new AutopilotError(
            "bad_result",
            'outcome "checkpoint" needs checkpoint: {type, label}. Report again with it.',
          );
        return { type: "EXECUTED", outcome, checkpoint: result.checkpoint, ...task, ...extra, now };
      }
      if (outcome === "plan_defect") {
        const defect = result.defect?.trim() || error;
        if (!defect)
          throw new AutopilotError(
            "bad_result",
            'outcome "plan_defect" needs defect: what is wrong in the plan at that task, with the evidence. Report again with it.',
          );
        return {
          type: "EXECUTED",
          outcome,
          task: result.task
            ? { number: result.task.number ?? null, name: result.task.name }
            : { number: null, name: "unnamed task" },
          defect,
          error: defect,
          ...extra,
          now,
        };
      }
      if (outcome === "failed") {
        return {
          type: "EXECUTED",
          outcome,
          task: result.task
            ? { number: result.task.number ?? null, name: result.task.name }
            : { number: null, name: "unnamed task" },
          error: error ?? "the executor reported a failure without an error message",
          ...(result.fixAttempted ? { fixAttempted: result.fixAttempted } : {}),
          ...extra,
          now,
        };
      }
      return { type: "EXECUTED", outcome, ...(result.summary ? { summary: result.summary } : {}), ...extra, now };
    }
    case "verified":
      if (!result.verdict)
        throw new AutopilotError("bad_result", 'A "verified" result needs verdict "pass" or "fail".');
      return {
        type: "VERIFIED",
        verdict: result.verdict,
        findings: result.findings ?? [],
        ...(result.evidence?.length ? { evidence: result.evidence } : {}),
        now,
      };
    case "reviewed":
      return { type: "REVIEWED", findings: normalizeFindings(result.findings ?? []), now };
    case "fixed":
      return {
        type: "FIXED",
        summary: result.summary ?? "",
        ...(result.disputed?.length ? { disputed: result.disputed } : {}),
        ...(result.evidence?.length ? { evidence: result.evidence } : {}),
        ...(result.learnings?.length ? { learnings: result.learnings } : {}),
        ...reply,
        ...(result.commitMessage?.trim() ? { commitMessage: result.commitMessage } : {}),
        now,
      };
  }
}
