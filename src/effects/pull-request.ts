// The pull request autopilot suggests when a session is DONE: its title and body.
import { commitsSince, sanitizeLabel, type CommitSummary } from "./git.js";

export type PrPhase = string | { name: string; status?: string | null };
/** A gate answered during the session, for the PR's "Decisions" section. */
export interface PrDecision {
  phase: number | null;
  decision: string;
  answer?: string;
  /** "answered by the host model; no person may have seen it" */
  who: string;
}

/** The PR title and body suggested at DONE, from the commits since `startingCommit`. */
export async function prTitleAndBody(
  root: string,
  startingCommit: string,
  opts: {
    specTitle?: string | null;
    phases?: PrPhase[];
    cost?: { total: string; lines: string[] };
    decisions?: PrDecision[];
    /** autopilot's commits (the session's `commits`): told apart by sha, whatever their subjects' convention. */
    own?: { sha: string; label: string; recovery: boolean }[];
  } = {},
): Promise<{ title: string; body: string }> {
  const commits = await commitsSince(root, startingCommit);
  const own = new Map((opts.own ?? []).map((c) => [c.sha, c]));
  const isOwn = (c: CommitSummary) => own.has(c.sha) || c.subject.startsWith("[autopilot]");
  const labelOf = (c: CommitSummary) =>
    own.get(c.sha)?.label ?? c.subject.replace(/^\[autopilot\](\[recovery\])?\s*/, "");
  let title = sanitizeLabel(opts.specTitle ?? "");
  if (!opts.specTitle || !opts.specTitle.trim()) {
    const firstUsers = commits.find((c) => !isOwn(c));
    title = firstUsers?.subject ?? (commits[0] ? labelOf(commits[0]) : "Autopilot changes");
  }
  if (title.length > 72) title = title.slice(0, 71) + "…";

  const lines: string[] = ["## Summary", ""];
  const phases = opts.phases ?? [];
  const specName = opts.specTitle?.trim();
  lines.push(
    `${specName ? `Implements ${specName}` : "Autopilot run"}: ${phases.length} phase${phases.length === 1 ? "" : "s"}, ${commits.length} commit${commits.length === 1 ? "" : "s"}.`,
  );
  if (phases.length) {
    lines.push("", "## Phases", "");
    phases.forEach((p, i) => {
      const name = typeof p === "string" ? p : p.name;
      const status = typeof p === "string" ? null : p.status;
      lines.push(`- Phase ${i + 1}: ${name}${status ? ` (${status})` : ""}`);
    });
  }
  if (opts.cost) {
    lines.push("", "## Cost", "", `Persona runs: ${opts.cost.total}.`);
    if (opts.cost.lines.length) lines.push("", ...opts.cost.lines.map((l) => `- ${l}`));
  }
  const decided = opts.decisions ?? [];
  if (decided.length) {
    lines.push("", "## Decisions", "", "Who answered each gate:", "");
    for (const d of decided)
      lines.push(
        `- ${d.phase === null ? "Final review" : `Phase ${d.phase + 1}`}: \`${sanitizeLabel(d.decision)}\`${d.answer ? ` "${sanitizeLabel(d.answer)}"` : ""} — ${d.who}`,
      );
  }
  const recovery = commits.filter((c) => own.get(c.sha)?.recovery ?? c.subject.startsWith("[autopilot][recovery]"));
  if (recovery.length) {
    lines.push("", "## Recovery commits", "", "These preserve work committed when a task's retry budget ran out:", "");
    for (const c of recovery) lines.push(`- ${c.sha.slice(0, 7)} ${labelOf(c)}`);
  }
  lines.push("", "## Commits", "");
  if (!commits.length) lines.push("- (no commits since the starting commit)");
  for (const c of commits) lines.push(`- ${c.sha.slice(0, 7)} ${c.subject}`);
  return { title, body: lines.join("\n") + "\n" };
}
