// The notices of a finished session (src/session/notices.ts holds the union and every other
// message): the DONE report and what autopilot leaves under .harness/. Same rules as there: the
// facts as they were when the session finished, worded only when a Step is made.
import { z } from "zod";
import { SeverityCounts } from "../vocabulary.js";
import { shellWord } from "../protocol/words.js";

export function counted(c: SeverityCounts): string {
  return `${c.blocking} blocking, ${c.warning} warning, ${c.note} note`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export const DoneNotice = z.looseObject({
  kind: z.literal("done"),
  phasesCompleted: z.number().int(),
  phasesSkipped: z.number().int(),
  tasks: z.number().int(),
  retries: z.number().int(),
  finalReviewStatus: z.string(),
  finalFindings: SeverityCounts,
  overriddenReviews: z.number().int(),
  /** The final review's findings as the user must see them (absent in earlier notices). */
  findings: z
    .array(
      z.looseObject({
        severity: z.string(),
        title: z.string(),
        file: z.string().optional(),
        line: z.number().optional(),
        rationale: z.string().optional(),
        /** Its fate in words (src/session/findings.ts), absent in earlier notices. */
        fate: z.string().optional(),
      }),
    )
    .optional(),
  /** Blocking findings the final review's fix rounds resolved. */
  fixedBlocking: z.number().int().optional(),
});

export const HarnessFilesNotice = z.looseObject({
  kind: z.literal("harnessFiles"),
  /** Paths under .harness/ worth committing (learnings, failures) that git shows as changed. */
  commit: z.array(z.string()),
  /** Whether .harness/sessions/ is already ignored by git. */
  sessionsIgnored: z.boolean(),
  /** A parallel session's worktrees kept unmerged (a stopped attempt's work), still on disk. */
  kept: z.array(z.object({ worktree: z.string(), branch: z.string() })).optional(),
  /** The session's name, for the decision log's command (absent in earlier notices). */
  session: z.string().optional(),
  /** How the person runs autopilot's CLI there (`npx -y autopilot-mcp@<version>`); absent: `autopilot`. */
  cli: z.array(z.string()).optional(),
});

export function renderDone(n: z.infer<typeof DoneNotice>): string {
  return [
    "All phases complete.",
    `Total: ${n.phasesCompleted} phases${n.phasesSkipped ? ` (+${n.phasesSkipped} skipped)` : ""}, ${n.tasks} tasks, ${n.retries} ${n.retries === 1 ? "retry" : "retries"}`,
    `Final review: ${n.finalReviewStatus} (${counted(n.finalFindings)})${n.fixedBlocking ? `; ${plural(n.fixedBlocking, "blocking finding")} fixed before it passed` : ""}`,
    ...(n.findings ?? []).map(
      (f) =>
        `  - ${f.severity}${f.file ? ` ${f.file}${f.line ? `:${f.line}` : ""}` : ""} — ${f.title}${f.rationale ? `: ${f.rationale}` : ""}${f.fate ? ` — ${f.fate}` : ""}`,
    ),
    ...(n.findings?.length
      ? [
          n.finalReviewStatus === "overridden"
            ? "These findings were not fixed (the blocking ones were overridden by a decision): pr.md lists them as known issues; fix them before you ship."
            : "Not fixed: pr.md lists them as known issues.",
        ]
      : []),
    ...(n.overriddenReviews ? [`Overridden reviews: ${n.overriddenReviews}`] : []),
  ].join("\n");
}

export function renderHarnessFiles(n: z.infer<typeof HarnessFilesNotice>): string {
  return [
    "Under .harness/:",
    ...(n.commit.length ? [`  - commit ${n.commit.join(" and ")} if your team keeps what later runs learn`] : []),
    n.sessionsIgnored
      ? "  - sessions/ (working state) is ignored by git already."
      : "  - sessions/ is working state: add the line `.harness/sessions/` to .gitignore.",
    ...(n.kept?.length
      ? [
          "  - kept for you, unmerged (a stopped attempt's work: look at it, then `git worktree remove --force <folder>` and `git branch -D <branch>`):",
          ...n.kept.map((k) => `    ${k.worktree} (branch ${k.branch})`),
        ]
      : []),
    ...(n.session
      ? [
          `Decision log: \`${(n.cli ?? ["autopilot"]).map(shellWord).join(" ")} log ${shellWord(n.session)}\` (\`--format html\` for a page).`,
        ]
      : []),
  ].join("\n");
}
