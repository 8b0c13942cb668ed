// What every brief shares: where a step's brief and result files are, the exact reply it asks for
// (with the commit message a persona proposes for its work: the result's `commitMessage`, which the
// server commits with, fitted to the repository's convention by src/effects/commit-message.ts), and
// a code fence its quoted text cannot close.
import path from "node:path";
import type { AutopilotState } from "../session/schema.js";
import type { ResultKind } from "../protocol/step.js";

const posix = path.posix;

/** The brief of step `stepId`, in the session's folder (the state's `sessionDir`, which the store sets to where the file is). */
export function briefPath(state: Pick<AutopilotState, "sessionDir">, stepId: number): string {
  return posix.join(state.sessionDir, "briefs", `step-${stepId}.md`);
}

/**
 * Where the persona of a dispatch writes its JSON result (the brief names it): autopilot_report
 * without a `result` reads it from here, so a host need not copy the result into its call.
 */
export function resultPath(state: Pick<AutopilotState, "sessionDir">, stepId: number): string {
  return posix.join(state.sessionDir, "results", `step-${stepId}.json`);
}

/** The field in a reply's JSON shape. */
export const COMMIT_FIELD = `"commitMessage":"<subject: what changed>\\n\\n<why (optional)>"`;
/** The field in a fix round's reply. */
export const FIX_COMMIT_FIELD = `"commitMessage":"<subject: what it fixed>\\n\\n<why (optional)>"`;

/** The rule, said once in a brief whose reply carries the field. */
const COMMIT_RULE =
  '"commitMessage" is the commit message you would write for this work in this repository: a subject line that says what changed, in its convention (Conventional Commits such as "feat(parser): accept quoted fields" when it has a commitlint config or its `git log --oneline -10` is written so, else the style of that log), then optionally a blank line and a short body saying why. A fix names what it fixed ("fix(parser): reject an empty file name"). The server makes the commit with it.';

/** The brief's last rule: the exact reply (`shape`), and the commit message rule when the shape asks for one. */
export function reply(kind: ResultKind, shape: string): string {
  // Worded like each persona's final-message rule: the hand-back tool when the client gives one.
  return `Finish with one JSON object (through your client's hand-back tool when it gives you one, else in a \`\`\`json block at the end of your final message): ${shape}. If you cannot do the job: {"kind":"${kind}","error":"why"}.${shape.includes('"commitMessage"') ? ` ${COMMIT_RULE}` : ""}`;
}

/** A fence that the text cannot close: longer than any run of backticks in it. */
export function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(longest + 1);
}
