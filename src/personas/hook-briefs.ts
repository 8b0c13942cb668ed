// The repository's commit checks in an executor's brief, and the brief of the job that fixes what
// a hook refused. That job is its own: no task failed and no plan step is being retried; a commit
// waits while the executor fixes what the hook printed (all of it: the host's report may shorten
// the output, this brief never does), in the commit's files, and runs the hook's checks to see.
import type { AutopilotState } from "../session/schema.js";
import { readOnlyRuns, type CommitChecks } from "../effects/commit-checks.js";
import { hookCause } from "../../machines/hook-cause.js";
import { shellWord } from "../protocol/words.js";
import { fenceFor, reply, resultPath } from "./brief-kit.js";

/** "`prettier --check`" over the commit's files, in the words of a brief. */
function code(s: string): string {
  return `\`${s.replace(/`/g, "'")}\``;
}

/**
 * "## The repository's commit checks": what its hooks run when autopilot commits, and which of them
 * to run (read-only) over the files you changed before you reply.
 */
export function commitChecksSection(checks: CommitChecks | null | undefined): string[] {
  if (!checks?.checks.length) return [];
  const lines = checks.checks.map((c) => {
    if (c.script !== undefined)
      return c.hook === "commit-msg"
        ? `- ${c.hook} (${c.source}): the script ${code(c.command)}, below — it checks the commit message: your commitMessage must pass it (write it to a file and run ${code(`sh ${shellWord(c.command)} <that file>`)})`
        : `- ${c.hook} (${c.source}): the script ${code(c.command)}, below — it runs over the files autopilot stages, which are the files you changed: check them the same way (what it runs, run; what it looks for, look for)`;
    const where = c.glob ? ` on ${code(c.glob)} files` : "";
    const what = /\bcommitlint\b/.test(c.command)
      ? "checks the commit message, which autopilot writes: nothing for you to do"
      : c.rewrites
        ? `rewrites the files it gets; its rewrite is committed${c.readOnly ? `. Run ${code(c.readOnly)} over your files: what it still reports refuses the commit` : ""}`
        : c.readOnly
          ? `run ${code(c.readOnly)}${c.takesFiles ? " over your files" : ""}`
          : c.source === ".pre-commit-config.yaml"
            ? "a pre-commit framework hook"
            : "run by the hook";
    return `- ${c.hook} (${c.source}): ${code(c.command)}${where} — ${what}`;
  });
  const framework = checks.tools.includes("pre-commit")
    ? [
        "",
        "The pre-commit framework's hooks run in their own environments: run `pre-commit run --files <the files you changed>` to see what they report (its fixers may rewrite those files).",
      ]
    : [];
  const scripts = checks.checks.flatMap((c) => {
    if (c.script === undefined) return [];
    const fence = fenceFor(c.script);
    return ["", `${c.hook} (${code(c.command)}):`, "", `${fence}sh`, c.script.trimEnd(), fence];
  });
  return [
    "## The repository's commit checks",
    "",
    `autopilot commits your work through the repository's own hooks (${checks.tools.join(", ")}); it never skips them, and a commit they refuse comes back to you. Before you reply, run the checks below over the files you changed and fix what they report.`,
    "",
    ...lines,
    ...scripts,
    ...framework,
    "",
  ];
}

/** What each attempt at a hook's complaint adds: the first reads the output, later ones widen the look. */
function escalation(attempt: number, max: number): string {
  if (attempt <= 1) return "Read the hook's whole output below and fix what it reports.";
  if (attempt < max)
    return `The hook has refused this commit ${attempt - 1} time${attempt === 2 ? "" : "s"} before (earlier attempts below): read its whole output again, open the files and the configuration it names, and run its checks yourself until they pass.`;
  return "This is the last attempt before a person is asked: run every check the hook runs over the commit's files and make each pass; if you cannot, say exactly why in your summary.";
}

/** The commands that show what the hook will say about the commit's files. */
function toCheck(paths: readonly string[], checks: CommitChecks | null | undefined, hook: string): string[] {
  const mine: CommitChecks = {
    tools: checks?.tools ?? [],
    checks: (checks?.checks ?? []).filter((c) => c.hook === hook),
  };
  const runs = [
    ...readOnlyRuns(mine, paths, shellWord),
    ...mine.checks.filter((c) => c.readOnly && !c.takesFiles).map((c) => c.readOnly!),
  ].map((r) => `- ${code(r)}`);
  if (checks?.tools.includes("pre-commit"))
    runs.push(`- ${code(`pre-commit run --files ${paths.map(shellWord).join(" ")}`)}`);
  return runs.length
    ? runs
    : [
        `- the commands the ${hook} hook runs (the output above names them), over the commit's files; the repository's validation commands too`,
      ];
}

/** The whole brief of the job that fixes what a hook refused (the stage `commitFix`). */
export function hookFixBrief(
  state: AutopilotState,
  slug: string,
  facts: { learnings?: string; commitChecks?: CommitChecks | null },
): string {
  const held = state.phaseRun.rejectedCommit!;
  const max = state.retryBudget.maxAttempts;
  const attempt = Math.max(1, held.attempts.length);
  const fence = fenceFor(held.output);
  const phase = state.phases[state.currentPhase];
  const earlier = held.attempts.slice(0, -1);
  const out = [
    `# Brief for step ${state.stepId}: fix what the ${held.hook} hook refused`,
    "",
    `- Job: the repository's ${held.hook} hook refused autopilot's commit "${held.label}". No task failed: the work is done and waits to be committed; make the hook accept it.`,
    `- Spec: ${state.specPath}`,
    `- Session: ${slug} (${state.sessionDir})`,
    ...(state.currentState !== "FINAL_REVIEW" && phase
      ? [`- Phase ${state.currentPhase + 1} of ${state.phases.length}: ${phase.name}`]
      : ["- The final review's fixes"]),
    `- Attempt: ${attempt} of ${max} (then a person is asked)`,
    `- Result: ${resultPath(state, state.stepId)} (write your JSON result there too)`,
    "",
    "## How to do this step",
    "",
    `- ${escalation(attempt, max)}`,
    "- Fix it in the files of the commit (listed below); change nothing else.",
    "- Do not commit, do not skip the hook (no --no-verify) and do not edit the hook or its configuration: autopilot makes the same commit again, with the hooks, when you report.",
    `- ${reply("fixed", `{"kind":"fixed","summary":"what you changed, and why the hook will accept it","evidence":["<command>: <what it showed>"],"learnings":["<what later executors should know about this repository's checks>"]}`)}`,
    "",
    `## What the ${held.hook} hook printed (attempt ${attempt}, whole)`,
    "",
    `${fence}text`,
    held.output,
    fence,
    "",
    "## Files in the commit",
    "",
    ...(held.paths.length ? held.paths.map((p) => `- ${p}`) : ["- (not recorded)"]),
    "",
    "## To check before you reply",
    "",
    ...toCheck(held.paths, facts.commitChecks, held.hook),
    "",
  ];
  if (earlier.length)
    out.push(
      "## Earlier attempts",
      "",
      ...earlier.map((a) => `- Attempt ${a.attempt} (${a.timestamp}): ${hookCause(a.error)}`),
      "",
    );
  out.push(...commitChecksSection(facts.commitChecks));
  if (facts.learnings?.trim()) out.push("## Learnings", "", facts.learnings.trim(), "");
  return out.join("\n");
}
