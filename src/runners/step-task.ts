// A dispatch Step read as a persona reads it: the brief its prompt names, the files the brief's
// header names, the result kind and the phase (a lean Step, as Claude Code gets it, carries no
// \`expects\` or \`phase\`: the prompt and the brief say them). For the scripted runner and the tests'
// and bench's hosts.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { PersonaTask } from "./types.js";
import type { DispatchNext, PersonaName, ResultKind, Step } from "../protocol/step.js";

/** The brief at `rel` (from the project root), or "" when there is none. */
function readBriefSync(root: string, rel: string | undefined): string {
  if (!rel) return "";
  try {
    return readFileSync(path.resolve(root, rel), "utf8");
  } catch {
    return "";
  }
}

/** A file the brief's header names: "- Plan: <path>", "- Handoff: <path> (write it)". */
export function briefFile(brief: string, label: "Plan" | "Handoff" | "Execution state" | "Result"): string | undefined {
  return new RegExp(`^- ${label}: (\\S+)`, "m").exec(brief)?.[1];
}

/**
 * A dispatch's job in a few words, from its prompt (a lean Step carries no `description`): the
 * sentence before "Brief:", e.g. `Plan phase 1/3 "Core"`.
 */
function descriptionFromPrompt(prompt: string): string {
  const line = prompt.trim().split("\n").at(-1) ?? "";
  return line.replace(/\s*Brief: \S+\s*$/, "").replace(/\.$/, "");
}

/** The brief a dispatch prompt names ("Brief: <path>"). */
export function briefFromPrompt(prompt: string): string | undefined {
  return /\bBrief: (\S+)/.exec(prompt)?.[1];
}

/**
 * The result kind a dispatch asks for, from its state and persona (a lean Step carries no
 * `expects`; the persona reads the kind in its brief).
 */
function resultOf(state: Step["state"], persona: PersonaName, prompt = ""): ResultKind | null {
  switch (state) {
    case "PLAN":
      return "planned";
    case "EXECUTE":
      // A fix round ("Fix the verification findings of phase ...") replies "fixed".
      // (or a commit the repository's hook refused: "The repository's pre-commit hook rejected ...").
      return /^\s*(?:Work in [^\n]*\n)?(?:Fix the |The repository's \S+ hook rejected)/.test(prompt)
        ? "fixed"
        : "executed";
    case "VERIFY":
      // The executor in VERIFY fixes a commit the repository's hook refused.
      return persona === "harness-task-executor" ? "fixed" : "verified";
    case "REVIEW":
      return "reviewed";
    case "FINAL_REVIEW":
      return persona === "harness-task-executor" ? "fixed" : "reviewed";
    default:
      return null;
  }
}

/**
 * The persona task of a dispatch Step, whole or lean (Claude Code's carries no `phase` or
 * `expects`: the prompt names the phase, the result kind and the brief).
 */
export function taskOfStep(root: string, step: Step): PersonaTask {
  if (step.next.kind !== "dispatch") throw new Error(`not a dispatch step: ${step.next.kind}`);
  const next = step.next as Omit<DispatchNext, "expects" | "description"> &
    Partial<Pick<DispatchNext, "expects" | "description">>;
  // A lean Step carries no `state` or `expects`: the brief the prompt names says the result kind,
  // as the persona reads it there; a final review's prompt says so.
  const brief = next.expects ? "" : readBriefSync(root, briefFromPrompt(next.prompt));
  const final = step.state ? step.state === "FINAL_REVIEW" : /^\s*(?:Work in [^\n]*\n)?Final review/.test(next.prompt);
  const result =
    next.expects?.result ??
    (step.state
      ? resultOf(step.state, next.persona, next.prompt)
      : (/Finish with one JSON object[^{]*\{"kind":"(\w+)"/.exec(brief)?.[1] as ResultKind | undefined));
  if (!result) throw new Error(`a dispatch (${step.state ?? "lean Step"}) names no result kind in its brief`);
  return {
    persona: next.persona,
    description: next.description ?? descriptionFromPrompt(next.prompt),
    prompt: next.prompt,
    expects: next.expects ?? { result },
    projectRoot: root,
    session: step.session,
    phaseIndex: final ? null : (step.phase?.index ?? phaseFromPrompt(next.prompt)?.index ?? null),
    phaseName: final ? null : (step.phase?.name ?? phaseFromPrompt(next.prompt)?.name ?? null),
  };
}

/**
 * The phase a dispatch prompt names ("... phase 2/3 \"Name\" ..."): a Step as Claude Code gets it
 * carries no `phase` field (src/mcp/render.ts leanStep), and the prompt says it anyway.
 */
function phaseFromPrompt(prompt: string): { index: number; name: string } | null {
  const m = /phase (\d+)\/\d+ "([^"]+)"/.exec(prompt);
  return m ? { index: Number(m[1]) - 1, name: m[2] } : null;
}
