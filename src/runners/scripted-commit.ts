// The commit message a scripted persona proposes, as a model reading its brief would write it: only
// when the brief's reply asks for `commitMessage`, in the convention the brief tells it to look for
// (a commitlint config, or how `git log --oneline -10` is written), saying what the simulated work
// did. Nothing here knows how autopilot fits the message afterwards.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { PersonaResult } from "../protocol/step.js";
import type { PersonaTask } from "./types.js";
import { commitlintConfig } from "../effects/commit-message.js";
import { kebab } from "../markdown/plans-folder.js";

const execFileP = promisify(execFile);

async function conventional(root: string): Promise<boolean> {
  if (await commitlintConfig(root)) return true;
  const log = await execFileP("git", ["log", "--oneline", "-10", "--format=%s"], { cwd: root }).then(
    (r) => r.stdout,
    () => "",
  );
  const subjects = log.split("\n").filter((l) => l.trim());
  return subjects.length > 0 && subjects.filter((s) => /^[a-z]+(\([^)]*\))?!?: /.test(s)).length * 2 >= subjects.length;
}

/**
 * The first finding a fix brief lists, as its title: "- [p1-r1-1] blocking src/a.ts:1 — <title>: <why>
 * Scenario: ..." (or, in a brief written before findings had ids, "- <title> (src/a.ts:1) — <why>").
 * The scripted findings' titles end with "(simulated)", which says where a title ends.
 */
function firstFinding(brief: string): string | null {
  const item = /^## [^\n]*to fix[^\n]*\n\n- (.+)$/m.exec(brief)?.[1];
  if (!item) return null;
  const text = /^\[[^\]]+\] \w+(?: \S+)? — (.+)$/.exec(item)?.[1] ?? item.replace(/\s+\([^()]*:\d+\).*$/, "");
  const simulated = text.indexOf(" (simulated)");
  return (
    simulated >= 0 ? text.slice(0, simulated) : text.replace(/ Scenario: .*$/, "").replace(/\s+—\s.*$/, "")
  ).trim();
}

/** What the simulated work did, in a few words, or null when the result leaves nothing to commit. */
function whatChanged(task: PersonaTask, brief: string, r: PersonaResult): { fix: boolean; words: string } | null {
  const phase = task.phaseName ?? "the change";
  if (r.kind === "fixed") return { fix: true, words: firstFinding(brief) ?? `the findings on ${phase}` };
  if (r.kind !== "executed") return null;
  if (r.outcome === "complete") return { fix: false, words: r.task ? `add ${r.task.name}` : `add ${phase}` };
  if (r.outcome === "checkpoint" && r.checkpoint?.type === "passed")
    return { fix: false, words: `add ${phase} up to step ${r.task?.number ?? "?"}` };
  if (r.outcome === "plan_defect") return { fix: false, words: `add ${phase} up to the plan's defect` };
  return null;
}

/** `result` with the commit message the brief asks for (unchanged when it asks for none). */
export async function withCommitMessage(
  task: PersonaTask,
  brief: string,
  result: PersonaResult,
): Promise<PersonaResult> {
  if (!brief.includes('"commitMessage"') || (result.kind !== "executed" && result.kind !== "fixed")) return result;
  const what = whatChanged(task, brief, result);
  if (!what) return result;
  const raw = what.words.replace(/\s*\(simulated\)$/, "");
  const words = raw[0].toLowerCase() + raw.slice(1);
  const subject = (await conventional(task.projectRoot))
    ? `${what.fix ? "fix" : "feat"}${task.phaseName ? `(${kebab(task.phaseName)})` : ""}: ${words}`
    : what.fix
      ? `Fix ${words}`
      : words[0].toUpperCase() + words.slice(1);
  return { ...result, commitMessage: `${subject}\n\nSimulated by autopilot's scripted runner.` };
}
