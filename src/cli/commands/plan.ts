// `autopilot plan FILE [--json]`: the task and checkpoint counts autopilot gates a plan on, and what
// the server's plan check finds in it.
import { countPlan, planProblems, planTasks } from "../../markdown/plan.js";
// Argument parsing (node:util parseArgs) and the file-not-found message are shared with `spec`.
import { parseFileArgs, readTextFile } from "./spec.js";

const USAGE = "usage: autopilot plan FILE [--json]";

export async function run(argv: string[]): Promise<number> {
  const args = parseFileArgs(argv, USAGE);
  if (args === "help") {
    process.stdout.write(
      `${USAGE}\n  counts the tasks and checkpoint tasks of a plan, and lists what the plan check finds\n`,
    );
    return 0;
  }
  const text = await readTextFile(
    args.file,
    "plan_not_found",
    "plan",
    "docs/changes/<topic>/plans/<date>-<phase>-plan.md",
  );
  const counts = countPlan(text);
  const problems = planProblems(text);
  if (args.json) {
    process.stdout.write(
      JSON.stringify({ tasks: counts.tasks, checkpoints: counts.checkpoints, problems }, null, 2) + "\n",
    );
    return 0;
  }
  const tasks = planTasks(text);
  const out = [
    `${args.file}: ${counts.tasks} task${counts.tasks === 1 ? "" : "s"}, ${counts.checkpoints} checkpoint${counts.checkpoints === 1 ? "" : "s"}`,
  ];
  if (tasks.length > 0) {
    out.push("");
    for (const t of tasks)
      out.push(
        `  Task ${t.number}: ${t.name}${t.checkpoint ? `  [checkpoint:${t.checkpoint}]` : ""}${t.commitPoint ? "  [checkpoint:commit]" : ""}`,
      );
  } else if (counts.tasks > 0) {
    out.push("  (no Task headings; the count is the plan's **Tasks:** header)");
  } else {
    out.push('  (no "### Task N" headings and no **Tasks:** N header found)');
  }
  out.push(
    "",
    problems.length
      ? `The plan check finds ${problems.length} problem${problems.length === 1 ? "" : "s"}:`
      : "The plan check finds no problem.",
  );
  for (const p of problems) out.push(`  - ${p}`);
  process.stdout.write(out.join("\n") + "\n");
  return 0;
}
