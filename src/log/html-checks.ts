// The decision log's HTML for the checks: every verification and review round with the findings it
// reported, every finding once with its fate, and the final review's findings with theirs.
import type { DecisionLog, FinalReviewLog } from "./model.js";
import { esc } from "./html-kit.js";
import { checkName, roundFindings, roundResult, whereOf } from "./checks-text.js";

const DASH = `<span class="muted">—</span>`;

function cell(v: string | number | null | undefined): string {
  return v === null || v === undefined || v === "" ? DASH : esc(v);
}

function code(v: string | null): string {
  return v ? `<code>${esc(v)}</code>` : DASH;
}

function sev(s: string): string {
  return `<span class="sev sev-${esc(s)}">${esc(s)}</span>`;
}

export function checksHtml(log: DecisionLog): string {
  if (!log.checks.length && !log.findings.length) return "";
  const rounds = log.checks
    .map(
      (r) =>
        `<tr><td>${cell(r.phase ? `${r.phase.number}. ${r.phase.name ?? ""}` : "final")}</td><th scope="row">${esc(checkName(r))} ${r.round}</th><td>${esc(roundResult(r))}</td><td>${esc(roundFindings(r, log.findings))}</td></tr>`,
    )
    .join("\n");
  const findings = log.findings
    .map(
      (f) =>
        `<tr class="fate-${esc(f.fate)}"><td><code>${esc(f.id)}</code></td><td>${sev(f.severity)}</td><th scope="row">${esc(f.title)}</th><td>${code(whereOf(f))}</td><td>${esc(f.seenIn.join(", "))}</td><td>${esc(f.fateText)}</td></tr>`,
    )
    .join("\n");
  return `<section class="card" aria-labelledby="checks-h">
  <h2 id="checks-h">Checks and findings</h2>
  <p class="hint">Every verification and review round, and every finding once with its fate: open, fixed (by which fix round and commit), disputed (with the fixer's evidence), overridden or deferred (by whom).</p>
  <div class="scroll"><table class="data">
    <caption class="sr-only">Every check round</caption>
    <thead><tr><th scope="col">Phase</th><th scope="col">Round</th><th scope="col">Result</th><th scope="col">Findings reported</th></tr></thead>
    <tbody>
${rounds}
    </tbody>
  </table></div>
  ${
    log.findings.length
      ? `<div class="scroll"><table class="data">
    <caption class="sr-only">Every finding and its fate</caption>
    <thead><tr><th scope="col">ID</th><th scope="col">Severity</th><th scope="col">Finding</th><th scope="col">Where</th><th scope="col">Rounds</th><th scope="col">Fate</th></tr></thead>
    <tbody>
${findings}
    </tbody>
  </table></div>`
      : ""
  }
</section>`;
}

export function finalItemsHtml(items: FinalReviewLog["items"]): string {
  if (!items.length) return `<p class="hint">No findings recorded.</p>`;
  return `<div class="scroll"><table class="data">
      <caption class="sr-only">Final review findings</caption>
      <thead><tr><th scope="col">Severity</th><th scope="col">Finding</th><th scope="col">Where</th><th scope="col">Why</th><th scope="col">Fate</th></tr></thead>
      <tbody>${items
        .map(
          (f) =>
            `<tr><td>${sev(f.severity)}</td><th scope="row">${f.id ? `<code>${esc(f.id)}</code> ` : ""}${esc(f.title)}</th><td>${code(whereOf(f))}</td><td>${cell(f.rationale)}</td><td>${cell(f.fate)}</td></tr>`,
        )
        .join("")}</tbody></table></div>`;
}
