// The notice that ends a DONE report: the pull request autopilot wrote, and how to finish the branch
// (open the pull request, merge a --worktree session's branch, or keep it), with the exact commands
// for the facts found when the session finished (src/effects/finish.ts finds them). Every word of a
// command is quoted for a POSIX shell where it needs it (a title, a session folder with spaces).
import { z } from "zod";
import { shellWord } from "../protocol/words.js";

const FinishFields = {
  /** The session's name (for `autopilot merge`). */
  session: z.string(),
  /** The pull request's title. */
  title: z.string(),
  /** pr.md, relative to the project root (the commands run there). */
  file: z.string(),
  /** The branch that holds the session's commits. */
  branch: z.string(),
  /** The branch the pull request comes from on the remote: `branch`, or one of its own when `branch` is the one it would go into. */
  head: z.string(),
  /** The branch the pull request goes into (null: the remote's default, as gh picks it). */
  base: z.string().nullable(),
  /** The remote to push to (null: the repository has none). */
  remote: z.string().nullable(),
  /** gh (GitHub's CLI) is on PATH. */
  gh: z.boolean(),
  /** A --worktree session: its branch merges back into `baseBranch` with `autopilot merge`. */
  worktree: z.object({ path: z.string(), baseBranch: z.string() }).optional(),
};
export type FinishFacts = z.infer<z.ZodObject<typeof FinishFields>>;
export const FinishNotice = z.looseObject({ kind: z.literal("finish"), ...FinishFields });

/** A command line for a POSIX shell. */
export function commandLine(argv: readonly string[]): string {
  return argv.map(shellWord).join(" ");
}

/** The argv of the push and of `gh pr create` (the remote named `origin` when there is none yet). */
export function finishArgs(f: FinishFacts): { push: string[]; gh: string[] } {
  const remote = f.remote ?? "origin";
  return {
    push:
      f.head === f.branch ? ["git", "push", "-u", remote, f.branch] : ["git", "push", remote, `${f.branch}:${f.head}`],
    gh: [
      "gh",
      "pr",
      "create",
      "--title",
      f.title,
      "--body-file",
      f.file,
      "--head",
      f.head,
      ...(f.base ? ["--base", f.base] : []),
    ],
  };
}

/**
 * What opens the pull request: a missing remote first, then the push and gh's command, as one line
 * to run when gh is here. Without gh they are not chained (the line would push, then fail): the
 * push, then the pull request opened on the git host, or gh's command once gh is installed.
 */
export function prCommands(f: FinishFacts): string {
  const { push, gh } = finishArgs(f);
  const remote = f.remote ? "" : "no remote yet (`git remote add origin <url>` first); ";
  if (f.gh) return `${remote}${remote ? "then " : ""}\`${commandLine(push)} && ${commandLine(gh)}\``;
  return `${remote}push with \`${commandLine(push)}\`, then open it on your git host, or install gh and run \`${commandLine(gh)}\``;
}

export function renderFinish(n: FinishFacts): string {
  const merge = n.worktree
    ? [
        `  2. merge ${n.branch} into ${n.worktree.baseBranch}: \`autopilot merge ${shellWord(n.session)}\` (a plain merge, never forced; a conflict stops it with nothing changed)`,
      ]
    : [];
  return [
    `Finish the branch as the person chooses (PR text: ${n.file}):`,
    `  1. open the pull request: ${prCommands(n)}`,
    ...merge,
    `  ${merge.length ? 3 : 2}. keep it: the commits stay on ${n.branch}${n.worktree ? ` (worktree ${n.worktree.path})` : ""}.`,
  ].join("\n");
}
