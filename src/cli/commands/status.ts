// `autopilot status [SLUG] [--json]`: the sessions of the current project and where each waits.
// Read-only: it takes no lock and finishes nothing, so it is safe next to a running server.
import { Engine } from "../../engine/engine.js";
import { isBroken, listSessions, sessionDetail, summaryLine } from "../../mcp/sessions.js";
import { UsageError, unknownOption } from "../usage.js";
import { formatCost } from "../../session/usage.js";

export async function run(argv: string[]): Promise<number> {
  let json = false;
  let slug: string | undefined;
  for (const a of argv) {
    if (a === "--json") json = true;
    else if (a.startsWith("-")) throw unknownOption(a, ["json"], "usage: autopilot status [SLUG] [--json]");
    else if (slug) throw new UsageError("one session at a time. Usage: autopilot status [SLUG] [--json]");
    else slug = a;
  }
  const engine = new Engine(process.cwd());
  if (slug) {
    const d = await sessionDetail(engine, slug);
    if (json) {
      process.stdout.write(JSON.stringify(d, null, 2) + "\n");
      return 0;
    }
    const lines = [
      summaryLine(d),
      `spec: ${d.specPath} · rigor ${d.rigor}${d.reviewPlans ? " · --review-plans" : ""}`,
      "phases:",
    ];
    for (const p of d.phases)
      lines.push(
        `  ${p.number}. ${p.name} (${p.complexity}${p.complexityOverride ? ` → ${p.complexityOverride}` : ""}) ${p.status}${p.planPath ? ` · ${p.planPath}` : ""}`,
      );
    lines.push(`decisions: ${d.decisions} · commits: ${d.commits} · final review: ${d.finalReview.status}`);
    lines.push(`cost: ${d.cost}${d.budget ? ` · budget ${d.budget}${d.budgetSpent ? " (spent)" : ""}` : ""}`);
    if (d.usage) {
      for (const [key, t] of Object.entries(d.usage.byPhase))
        lines.push(`  ${key === "final" ? "final review" : `phase ${key}: ${t.name}`}: ${formatCost(t)}`);
      for (const [persona, t] of Object.entries(d.usage.byPersona)) lines.push(`  ${persona}: ${formatCost(t)}`);
    }
    if (d.pendingEffects)
      lines.push(`${d.pendingEffects} effect(s) left by an interrupted call: the next autopilot call finishes them.`);
    process.stdout.write(lines.join("\n") + "\n");
    return 0;
  }
  const sessions = await listSessions(engine);
  if (json) process.stdout.write(JSON.stringify({ sessions }, null, 2) + "\n");
  else if (!sessions.length) process.stdout.write("No autopilot sessions in this project.\n");
  else process.stdout.write(sessions.map(summaryLine).join("\n") + "\n");
  return sessions.some(isBroken) ? 1 : 0;
}
