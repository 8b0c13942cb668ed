// The HTML decision log's models section: which model ran each persona dispatch, and why (the
// state's ledger through ./cost.ts).
import type { SessionCost } from "./cost.js";
import { esc } from "./html-kit.js";

export function modelRuns(cost: SessionCost): string {
  if (!cost.runs.length) return "";
  const byModel = Object.entries(cost.byModel)
    .map(([m, c]) => `<code>${esc(m)}</code> ${esc(c.display)}`)
    .join(" · ");
  return `
<section class="card" aria-labelledby="models-h">
  <h2 id="models-h">Models</h2>
  <p class="hint">Which model ran each persona dispatch, and why (↑: one tier up, the last attempt of work that failed). By model: ${byModel}.</p>
  <div class="scroll"><table class="data">
    <caption class="sr-only">The model of each persona dispatch</caption>
    <thead><tr><th scope="col">Step</th><th scope="col">Phase</th><th scope="col">Persona</th><th scope="col">Model</th><th scope="col">Tier</th><th scope="col">Why</th><th scope="col">Cost</th></tr></thead>
    <tbody>${cost.runs
      .map(
        (r) =>
          `<tr${r.escalated ? ` class="escalated"` : ""}><td class="num">${r.stepId}</td><td>${esc(r.phase)}</td><th scope="row">${esc(r.persona)}${r.task ? ` (task ${esc(r.task)})` : ""}</th><td>${r.model ? `<code>${esc(r.model)}</code>` : `<span class="muted">the client's</span>`}</td><td>${esc(r.tier ?? "?")}${r.escalated ? " ↑" : ""}</td><td>${esc(r.why)}</td><td class="nowrap cost">${esc(r.cost)}</td></tr>`,
      )
      .join("")}</tbody>
  </table></div>
</section>`;
}
