// What a persona is told and what it must hand back, shared by the runners that talk to a model or
// an agent CLI: the persona's system prompt (the body of personas/<name>.md), a description of the
// expected result kind, and the check a reported result has to pass before the machine sees it.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { matter } from "../markdown/front-matter.js";
import { z } from "zod";
import {
  ExecutedResult,
  FixedResult,
  PlannedResult,
  ReviewedResult,
  VerifiedResult,
  type PersonaName,
  type PersonaResult,
  type ResultKind,
} from "../protocol/step.js";
import { formatIssues } from "./tool-kit.js";

const RESULT_SCHEMAS: Record<ResultKind, z.ZodType> = {
  planned: PlannedResult,
  executed: ExecutedResult,
  verified: VerifiedResult,
  reviewed: ReviewedResult,
  fixed: FixedResult,
};

const ROLES: Record<PersonaName, string> = {
  "harness-planner":
    "You are the harness planner. You turn one phase of an approved spec into an executable plan: numbered tasks " +
    "(`### Task N: name` headings), each small enough to do and check on its own, with the files it touches and how " +
    "to verify it. Mark tasks that need a human with [checkpoint:human-verify], [checkpoint:decision] or " +
    "[checkpoint:human-action]. Write the plan to the file the brief names. Do not implement anything.",
  "harness-task-executor":
    "You are the harness task executor. You carry out the tasks of the plan the brief names, one at a time and in " +
    "order, changing only what each task needs, and check each against its verification step. Stop at a checkpoint " +
    "task and report it; stop at a task you cannot complete and report it as failed.",
  "harness-verifier":
    "You are the harness verifier. You check, without changing code, that the phase's work does what the plan and " +
    "the spec say: run the project's checks and tests and read the changed code. Default to fail when evidence is missing.",
  "harness-code-reviewer":
    "You are the harness code reviewer. You review the changes the brief names for correctness, safety and fit " +
    "with the codebase, without changing code, and report findings with a severity: blocking for what must be " +
    "fixed before moving on, warning for what should be fixed, note for the rest.",
};

/** What the result of each kind carries, in words a model (or a person writing an agent) can follow. */
export const RESULT_FIELDS: Record<ResultKind, string> = {
  planned:
    '{"kind":"planned","planPath":"<path of the plan you wrote>","summary":"<one paragraph>","concerns":["<an unknown a person must settle>"],"assumptions":["<what you assumed>"],"deferred":["<what can wait>"]}',
  executed:
    '{"kind":"executed","outcome":"complete","evidence":["<command>: <result>"]} when every task is done; ' +
    '{"kind":"executed","outcome":"checkpoint","task":{"number":N,"name":"<task>"},"checkpoint":{"type":"passed|human-verify|decision|human-action","label":"<commit subject, or what the human must do>"}} at a checkpoint; ' +
    '{"kind":"executed","outcome":"failed","task":{"number":N,"name":"<task>"},"error":"<what went wrong>","fixAttempted":"<what you tried>"} when a task fails; ' +
    '{"kind":"executed","outcome":"plan_defect","task":{"number":N,"name":"<task>"},"defect":"<what is wrong in the plan, with the evidence>"} when the plan is wrong or unclear',
  verified:
    '{"kind":"verified","verdict":"pass|fail","findings":["<where>: <what>"],"evidence":["<command>: <what it showed>"]}',
  reviewed:
    '{"kind":"reviewed","findings":[{"severity":"blocking|warning|note","file":"<path>","line":N,"title":"<short>","rationale":"<why>","scenario":"<the input that triggers it; required for blocking>"}]} (findings may be empty)',
  fixed:
    '{"kind":"fixed","summary":"<what you fixed>","disputed":[{"finding":"<one you hold is wrong>","evidence":"<why>"}]}',
};

function personasDirs(extra?: string, bundled = true): string[] {
  const dirs: string[] = [];
  if (extra) dirs.push(extra);
  if (!bundled) return dirs;
  // The bundled personas/ folder sits at the package root: two levels above src/runners when run
  // from source, three above dist/src/runners when built.
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    dirs.push(path.join(dir, "personas"));
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return dirs;
}

export interface PersonaPromptOptions {
  /** A folder searched before the bundled personas/ (e.g. a project's own persona files). */
  personasDir?: string;
  /** Also search the package's bundled personas/ (default true). */
  bundled?: boolean;
}

/**
 * The persona's system prompt: the body of personas/<persona>.md (front matter dropped), or a short
 * built-in stand-in when the file is absent, so a runner still works from a partial install.
 */
export function loadPersonaPrompt(persona: PersonaName, kind: ResultKind, opts: PersonaPromptOptions = {}): string {
  for (const dir of personasDirs(opts.personasDir, opts.bundled)) {
    const file = path.join(dir, `${persona}.md`);
    if (!existsSync(file)) continue;
    const body = matter(readFileSync(file, "utf8")).content.trim();
    if (body) return body;
  }
  const role = ROLES[persona] ?? `You are the ${persona} persona.`;
  return `${role}\n\nWhen you are done, return a result of kind "${kind}": ${RESULT_FIELDS[kind]}. If you cannot do the job at all, return {"kind":"${kind}","error":"<why>"}.`;
}

export type ResultCheck = { ok: true; result: PersonaResult } | { ok: false; message: string };

/**
 * Checks a reported result against the expected kind: the protocol's schema, plus the field each
 * kind is for (a verified result without a verdict tells the machine nothing).
 */
export function checkResult(kind: ResultKind, input: unknown): ResultCheck {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { ok: false, message: `The result must be a JSON object of kind "${kind}": ${RESULT_FIELDS[kind]}` };
  }
  const obj = { ...(input as Record<string, unknown>) };
  if (obj.kind === undefined) obj.kind = kind;
  if (obj.kind !== kind) {
    return {
      ok: false,
      message: `This dispatch expects a result of kind "${kind}", not "${String(obj.kind)}": ${RESULT_FIELDS[kind]}`,
    };
  }
  const parsed = RESULT_SCHEMAS[kind].safeParse(obj);
  if (!parsed.success) {
    return {
      ok: false,
      message: `The result is not valid: ${formatIssues(parsed.error)}. Expected: ${RESULT_FIELDS[kind]}`,
    };
  }
  const r = parsed.data as PersonaResult;
  if (!r.error) {
    const missing =
      r.kind === "executed" && !r.outcome
        ? "outcome"
        : r.kind === "executed" && r.outcome === "checkpoint" && !r.checkpoint
          ? "checkpoint (type and label)"
          : r.kind === "executed" && r.outcome === "plan_defect" && !r.defect?.trim()
            ? "defect (what is wrong in the plan, with the evidence)"
            : r.kind === "verified" && !r.verdict
              ? "verdict"
              : r.kind === "reviewed" && !r.findings
                ? "findings (an empty list if there are none)"
                : r.kind === "fixed" && !r.summary
                  ? "summary"
                  : null;
    if (missing) {
      return { ok: false, message: `The result lacks ${missing}. Expected: ${RESULT_FIELDS[kind]}` };
    }
  }
  return { ok: true, result: r };
}

/** The JSON schema of a result kind, as a tool input schema. */
export function resultInputSchema(kind: ResultKind): { type: "object"; [k: string]: unknown } {
  const json = z.toJSONSchema(RESULT_SCHEMAS[kind]) as Record<string, unknown>;
  delete json.$schema;
  return json as { type: "object" };
}

/** The dispatch as the persona reads it: what to do, where the artifacts are, what to return. */
export function taskPrompt(task: {
  description: string;
  prompt: string;
  expects: { result: ResultKind; artifacts?: Record<string, string | undefined> };
  brief?: { path: string; text: string };
}): string {
  const artifacts = Object.entries(task.expects.artifacts ?? {})
    .filter(([, v]) => v)
    .map(([k, v]) => `- ${k}: ${v}`);
  return [
    `# ${task.description}`,
    "",
    task.prompt.trim(),
    ...(artifacts.length ? ["", "Artifacts (paths relative to the project root):", ...artifacts] : []),
    ...(task.brief ? ["", `Your brief (${task.brief.path}), as it is on disk:`, "", task.brief.text.trim()] : []),
  ].join("\n");
}
