// The decision log as one self-contained HTML page: inline CSS, inline SVG, no script, no network
// (a Content-Security-Policy says so to the browser too). Every piece of text that came from a
// spec, a plan, a persona or a person goes through `esc`.
import { renderStateDiagram, stateGraph, type StateGraph } from "./diagram.js";
import { planOutcome, whyOf } from "./markdown.js";
import { checksHtml, finalItemsHtml } from "./html-checks.js";
import { formatDuration, type DecisionLog, type LoggedDecision, type PhaseLog, type SeverityTally } from "./model.js";
import { SIGNAL_DEFS } from "../rules/signals.js";
import { CSS, esc } from "./html-kit.js";
import { modelRuns } from "./html-models.js";

const COUNT_WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
/** A small count in words ("five"), else in digits. */
function countWord(n: number): string {
  return COUNT_WORDS[n] ?? String(n);
}

function when(ts: string | null): string {
  if (!ts) return `<span class="muted">—</span>`;
  const t = Date.parse(ts);
  if (Number.isNaN(t)) return esc(ts);
  const iso = new Date(t).toISOString();
  return `<time datetime="${esc(iso)}">${esc(iso.slice(0, 10))} ${esc(iso.slice(11, 19))}</time>`;
}

function dash(v: string | number | null | undefined): string {
  return v === null || v === undefined || v === "" ? `<span class="muted">—</span>` : esc(v);
}

function sevChips(t: SeverityTally | null): string {
  if (!t) return `<span class="muted">—</span>`;
  return (["blocking", "warning", "note"] as const)
    .map((k) => `<span class="sev sev-${k}${t[k] ? "" : " zero"}" title="${k}">${t[k]} ${k}</span>`)
    .join(" ");
}

function whoChip(d: LoggedDecision): string {
  const warn = d.who === "host" || d.who === "relayed" || d.who === "human" || d.who === "piped";
  return `<span class="who who-${esc(d.who)}" title="${esc(d.whoText)}" data-channel="${esc(d.who)}">${esc(d.who)}${d.whoInferred ? "<small> (inferred)</small>" : ""}</span>${warn ? `<small class="who-note">${esc(d.whoText)}</small>` : ""}`;
}

function phaseName(d: LoggedDecision): string {
  if (d.phase)
    return `${d.phase.number}${d.phase.name ? ` · ${esc(d.phase.name)}` : ""}${d.phaseInferred ? ` <small class="muted">(from text)</small>` : ""}`;
  return d.state === "FINAL_REVIEW" || d.state === "DONE" ? "final review" : `<span class="muted">—</span>`;
}

const OUTCOME_TEXT: Record<PhaseLog["outcome"], string> = {
  complete: "complete",
  overridden: "complete with override",
  skipped: "skipped",
  "in progress": "in progress",
  pending: "pending",
};

function outcomeClass(o: string): string {
  return `o-${o.replace(/\s+/g, "-")}`;
}

// ---- sections ------------------------------------------------------------------------------

function header(log: DecisionLog): string {
  const t = log.totals;
  const status = log.outcome.status;
  const badge =
    status === "done"
      ? log.finalReview.status === "overridden"
        ? "Done (final review overridden)"
        : "Done"
      : status === "stopped"
        ? "Stopped"
        : "In progress";
  const badgeCls =
    status === "done"
      ? log.finalReview.status === "overridden"
        ? "o-overridden"
        : "o-complete"
      : status === "stopped"
        ? "o-stopped"
        : "o-in-progress";
  const stat = (label: string, value: string, sub = "") =>
    `<div class="stat"><dt>${esc(label)}</dt><dd><span class="stat-value">${value}</span>${sub ? `<span class="stat-sub">${sub}</span>` : ""}</dd></div>`;
  return `<header class="masthead">
  <p class="eyebrow">autopilot · decision log</p>
  <div class="title-row">
    <h1>${esc(log.title)}</h1>
    <p class="badge ${badgeCls}">${esc(badge)}</p>
  </div>
  <p class="headline">${esc(log.outcome.headline)}</p>
  <p class="facts"><span>Spec <code>${esc(log.spec)}</code></span><span>Session <code>${esc(log.session)}</code></span><span>Rigor <strong>${esc(log.rigor)}</strong>${log.reviewPlans ? " · --review-plans" : ""}</span>${log.startingCommit ? `<span>From commit <code>${esc(log.startingCommit.slice(0, 12))}</code></span>` : ""}</p>
  <dl class="stats">
    ${stat("Phases", `${t.phases.complete}/${t.phases.total}`, t.phases.skipped ? `${t.phases.skipped} skipped` : "complete")}
    ${stat("Tasks", String(t.tasks))}
    ${stat("Retries", String(t.retries))}
    ${stat(
      "Decisions",
      String(t.decisions.total),
      (["elicited", "terminal", "host", "relayed", "piped", "policy", "auto", "human", "unknown"] as const)
        .filter((k) => t.decisions[k])
        .map((k) => `${t.decisions[k]} ${k}`)
        .join(" · "),
    )}
    ${stat("Overrides", String(t.overrides))}
    ${stat("Commits", String(t.commits.total), t.commits.recovery ? `${t.commits.recovery} recovery` : "")}
    ${stat("Time", esc(formatDuration(t.durationMs)))}
    <div class="stat" data-stat="cost"><dt>Cost</dt><dd><span class="stat-value">${esc(log.cost.display)}</span>${log.cost.why ? `<span class="stat-sub">${esc(log.cost.why)}</span>` : ""}${log.cost.budget ? `<span class="stat-sub">budget ${esc(log.cost.budget.display)}${log.cost.budget.spent ? " · spent" : ""}</span>` : ""}</dd></div>
  </dl>
</header>`;
}

function timeline(log: DecisionLog): string {
  const phases = log.phases;
  // Finished phases are as wide as the time they took (when every finished phase recorded it);
  // unfinished ones, and the final review, get the average width.
  const finished = phases.filter((p) => p.outcome === "complete" || p.outcome === "overridden");
  const timed = finished.length > 0 && finished.every((p) => p.durationMs !== null && p.durationMs > 0);
  const secs = (p: PhaseLog) => Math.max(1, Math.round((p.durationMs ?? 0) / 1000));
  const avg = timed ? Math.max(1, Math.round(finished.reduce((n, p) => n + secs(p), 0) / finished.length)) : 1;
  const weight = (p: PhaseLog) => (timed && finished.includes(p) ? secs(p) : avg);
  const seg = (p: PhaseLog) => {
    const marks: string[] = [];
    if (p.retries)
      marks.push(
        `<span class="mark mark-retry" title="retries used">↻ ${p.retries} ${p.retries === 1 ? "retry" : "retries"}</span>`,
      );
    if (p.reviewOverridden)
      marks.push(
        `<span class="mark mark-override" title="a blocking review was overridden">⚑ review overridden</span>`,
      );
    if (p.verificationSkipped) marks.push(`<span class="mark mark-override">⚑ verification skipped</span>`);
    if (p.overrides.includes("fixed_manually")) marks.push(`<span class="mark mark-override">⚑ fixed by hand</span>`);
    if (p.overrides.includes("committed_without_hooks"))
      marks.push(
        `<span class="mark mark-override" title="a commit was made with --no-verify, at the user's word">⚑ committed without hooks</span>`,
      );
    if (p.complexityOverride)
      marks.push(`<span class="mark">▲ ${esc(p.complexity)} → ${esc(p.complexityOverride)}</span>`);
    if (p.recoveryCommits) marks.push(`<span class="mark mark-override">⛑ ${p.recoveryCommits} recovery</span>`);
    const grow = weight(p);
    const meta = [
      p.durationMs !== null ? formatDuration(p.durationMs) : null,
      p.tasks !== null ? `${p.tasks} task${p.tasks === 1 ? "" : "s"}` : null,
      p.verification ? `verify ${p.verification}` : null,
    ].filter(Boolean);
    return `<li class="seg ${outcomeClass(p.outcome)}" style="flex-grow:${grow}" data-phase="${p.number}">
      <span class="seg-head"><span class="seg-num">Phase ${p.number}</span><span class="seg-state">${esc(p.outcome === "overridden" ? "overridden" : OUTCOME_TEXT[p.outcome])}</span></span>
      <span class="seg-name">${esc(p.name)}</span>
      <span class="seg-meta">${esc(meta.join(" · ") || "not started")}</span>
      ${marks.length ? `<span class="marks">${marks.join("")}</span>` : ""}
    </li>`;
  };
  const fr = log.finalReview;
  const frOutcome =
    fr.status === "passed"
      ? "complete"
      : fr.status === "overridden"
        ? "overridden"
        : fr.status === "failed"
          ? "failed"
          : fr.status === "in_progress"
            ? "in progress"
            : "pending";
  const finalSeg = `<li class="seg seg-final ${outcomeClass(frOutcome)}" style="flex-grow:${avg}" data-phase="final">
      <span class="seg-head"><span class="seg-num">Final review</span><span class="seg-state">${esc(fr.status.replace("_", " "))}</span></span>
      <span class="seg-name">All phases</span>
      <span class="seg-meta">${fr.findings.blocking} blocking · ${fr.findings.warning} warning · ${fr.findings.note} note</span>
      ${fr.fixRounds ? `<span class="marks"><span class="mark mark-retry">↻ ${fr.fixRounds} fix round${fr.fixRounds === 1 ? "" : "s"}</span></span>` : ""}
    </li>`;
  const rows = phases
    .map(
      (p) => `<tr class="${outcomeClass(p.outcome)}">
        <th scope="row">${p.number}. ${esc(p.name)}</th>
        <td>${esc(p.complexity)}${p.complexityOverride ? ` → <strong>${esc(p.complexityOverride)}</strong>` : ""}</td>
        <td><span class="dot"></span>${esc(OUTCOME_TEXT[p.outcome])}</td>
        <td class="num">${dash(p.tasks)}</td>
        <td class="num">${dash(p.retries)}</td>
        <td>${dash(p.verification)}</td>
        <td>${sevChips(p.reviewFindings)}${p.reviewOverridden ? ` <span class="mark mark-override">overridden</span>` : ""}</td>
        <td class="nowrap">${esc(formatDuration(p.durationMs))}</td>
        <td class="num">${p.commits}</td>
        <td class="nowrap cost">${esc(p.cost.display)}</td>
      </tr>`,
    )
    .join("\n");
  const finalRow = `<tr class="final-row">
        <th scope="row">Final review</th><td colspan="8"><span class="muted">${esc(fr.status.replace("_", " "))}</span></td>
        <td class="nowrap cost">${esc(fr.cost.display)}</td>
      </tr>
      <tr class="total-row">
        <th scope="row">Session total</th><td colspan="8"></td>
        <td class="nowrap cost"><strong>${esc(log.cost.display)}</strong></td>
      </tr>`;
  return `<section class="card" aria-labelledby="timeline-h">
  <h2 id="timeline-h">Timeline</h2>
  <p class="hint">${timed ? "A finished phase's width is the time it took; unfinished phases and the final review get the average width." : "Equal blocks: this session did not record how long every phase took."} Colour shows the outcome; ↻ marks retries, ⚑ marks a gate a person or policy overrode.</p>
  <ol class="timeline" aria-label="Phases in order">
    ${phases.map(seg).join("\n")}
    ${finalSeg}
  </ol>
  <ul class="legend" aria-label="Legend">
    <li><span class="swatch o-complete"></span>complete</li>
    <li><span class="swatch o-overridden"></span>complete with override</li>
    <li><span class="swatch o-skipped"></span>skipped</li>
    <li><span class="swatch o-in-progress"></span>in progress</li>
    <li><span class="swatch o-pending"></span>pending</li>
  </ul>
  <div class="scroll">
  <table class="data">
    <caption>Per-phase history</caption>
    <thead><tr><th scope="col">Phase</th><th scope="col">Complexity</th><th scope="col">Outcome</th><th scope="col">Tasks</th><th scope="col">Retries</th><th scope="col">Verification</th><th scope="col">Review findings</th><th scope="col">Time</th><th scope="col">Commits</th><th scope="col">Cost</th></tr></thead>
    <tbody>
${rows}
${finalRow}
    </tbody>
  </table>
  </div>
</section>`;
}

function diagram(log: DecisionLog, graph: StateGraph): string {
  const svg = renderStateDiagram(graph, { current: log.currentState, stage: log.stage });
  return `<section class="card" aria-labelledby="diagram-h">
  <h2 id="diagram-h">State machine</h2>
  <p class="hint">Drawn from the machine definition: ${graph.nodes.length} states and ${graph.edges.length} transitions between them. Solid arrows go forward, dashed arrows go back; a small loop means the state also moves between its own substates (retries, checkpoints, fix rounds). Hover a state or an arrow for its transitions.</p>
  <figure class="diagram">
    <div class="scroll">${svg}</div>
    <figcaption>The session is at <strong class="current-state">${esc(log.currentState)}</strong>${log.stage ? ` (${esc(log.stage)})` : ""}${log.currentPhase ? `, phase ${log.currentPhase.number}${log.currentPhase.name ? `: ${esc(log.currentPhase.name)}` : ""}` : ""}.</figcaption>
  </figure>
</section>`;
}

function gates(log: DecisionLog): string {
  const list = log.decisions.filter((d) => d.plan);
  if (!list.length)
    return `<section class="card" aria-labelledby="gates-h"><h2 id="gates-h">Plan approvals</h2><p class="hint">No plan decision in this session recorded its signals.</p></section>`;
  const card = (d: LoggedDecision) => {
    const p = d.plan!;
    const verdictCls = p.mode === "paused" ? `v-paused v-${p.result}` : `v-${p.mode}`;
    const rows = p.signals
      .map(
        (s) => `<tr class="${s.fired ? "fired" : ""}">
          <th scope="row">${esc(s.label)}<span class="rule">fires when ${esc(s.rule)}</span></th>
          <td>${esc(s.display)}</td>
          <td class="fired-cell">${p.evaluated ? (s.fired ? `<span class="fire">● fired</span>` : `<span class="muted">no</span>`) : `<span class="muted">not evaluated${s.fires ? " (would fire)" : ""}</span>`}</td>
        </tr>`,
      )
      .join("\n");
    return `<article class="gate" aria-labelledby="gate-${d.n}-h">
      <h3 id="gate-${d.n}-h">${d.phase ? `Phase ${d.phase.number}${d.phase.name ? `: ${esc(d.phase.name)}` : ""}` : "Plan"}</h3>
      <p class="verdict ${verdictCls}">${esc(planOutcome(d))}</p>
      <table class="signals">
        <caption class="sr-only">Signals behind decision ${d.n}</caption>
        <thead><tr><th scope="col">Signal</th><th scope="col">Value</th><th scope="col">Fired</th></tr></thead>
        <tbody>
${rows}
        </tbody>
      </table>
      ${p.waves ? `<p class="why"><strong>Waves:</strong> ${esc(p.waves)}</p>` : ""}
      ${d.personWords ? `<p class="why"><strong>The user's words (${esc(d.personWords.by)}):</strong> ${esc(d.personWords.words)}</p>` : ""}
      ${d.rationale && d.rationale.trim() !== d.personWords?.words ? `<p class="why"><strong>Why:</strong> ${esc(d.rationale)}</p>` : ""}
      ${d.note ? `<p class="why"><strong>Note:</strong> ${esc(d.note)}</p>` : ""}
      <p class="meta">Decision #${d.n} · ${esc(d.decision)} · ${whoChip(d)} · ${when(d.timestamp)}</p>
    </article>`;
  };
  return `<section class="card" aria-labelledby="gates-h">
  <h2 id="gates-h">Plan approvals</h2>
  <p class="hint">Each plan is checked against ${countWord(SIGNAL_DEFS.length)} signals. In standard rigor any signal that fires pauses for a person; <code>--fast</code> approves without evaluating them and <code>--thorough</code> always pauses.</p>
  <div class="gates">
${list.map(card).join("\n")}
  </div>
</section>`;
}

function decisionsTable(log: DecisionLog): string {
  const rows = log.decisions
    .map(
      (d) => `<tr class="k-${esc(d.kind)}">
        <td class="num">${d.n}</td>
        <td class="nowrap">${when(d.timestamp)}</td>
        <td>${phaseName(d)}</td>
        <td>${d.state ? `<code>${esc(d.state)}</code>` : `<span class="muted">—</span>`}</td>
        <th scope="row">${esc(d.what)}${d.decision !== "note" && d.what !== d.decision ? `<br><code class="small">${esc(d.decision)}</code>` : ""}</th>
        <td>${whoChip(d)}</td>
        <td>${d.plan ? (d.plan.evaluated ? esc(d.plan.fired.join(", ") || "none") : `<span class="muted">not evaluated</span>`) : `<span class="muted">—</span>`}</td>
        <td>${dash(d.answer)}</td>
        <td class="why-cell">${dash(whyOf(d))}</td>
      </tr>`,
    )
    .join("\n");
  return `<section class="card" aria-labelledby="decisions-h">
  <h2 id="decisions-h">Every decision</h2>
  <p class="hint">Who answered: <span class="who who-elicited">elicited</span> the user in the client's form · <span class="who who-terminal">terminal</span> a person at a terminal · <span class="who who-host">host</span> the host model called autopilot_decide; no person may have seen the question · <span class="who who-relayed">relayed</span> the host model passed on what it says are the user's words (its claim) · <span class="who who-piped">piped</span> piped input · <span class="who who-policy">policy</span> the --yes policy · <span class="who who-auto">auto</span> automatic.</p>
  ${
    log.decisions.length
      ? `<div class="scroll"><table class="data">
    <caption class="sr-only">All decisions in order</caption>
    <thead><tr><th scope="col">#</th><th scope="col">When (UTC)</th><th scope="col">Phase</th><th scope="col">State</th><th scope="col">Decision</th><th scope="col">Who</th><th scope="col">Signals fired</th><th scope="col">Answer</th><th scope="col">Why</th></tr></thead>
    <tbody>
${rows}
    </tbody>
  </table></div>`
      : `<p class="hint">No decisions recorded.</p>`
  }
</section>`;
}

function finalReview(log: DecisionLog): string {
  const fr = log.finalReview;
  const cls =
    fr.status === "passed"
      ? "o-complete"
      : fr.status === "overridden"
        ? "o-overridden"
        : fr.status === "failed"
          ? "o-failed"
          : "o-pending";
  const items = finalItemsHtml(fr.items);
  return `<section class="card" aria-labelledby="final-h">
  <h2 id="final-h">Final review</h2>
  <p class="final-line"><span class="badge small ${cls}">${esc(fr.status.replace("_", " "))}</span> ${sevChips(fr.findings)} <span class="muted">· ${fr.fixRounds} fix round${fr.fixRounds === 1 ? "" : "s"} of at most 3</span></p>
  ${items}
</section>`;
}

function waves(log: DecisionLog): string {
  if (!log.waves.length) return "";
  const cls = (s: string) =>
    s === "merged" || s === "done by hand"
      ? "o-complete"
      : s === "question"
        ? "o-failed"
        : s === "sent back" || s === "plan sent back"
          ? "o-overridden"
          : "o-pending";
  return `<section class="card" aria-labelledby="waves-h">
  <h2 id="waves-h">Parallel waves</h2>
  <p class="hint">Each task's worktree and branch (removed once merged), what became of it, its merge and the validation after it.</p>
  <div class="scroll"><table class="data">
    <caption class="sr-only">Tasks of each parallel wave</caption>
    <thead><tr><th scope="col">Phase</th><th scope="col">Wave</th><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Worktree · branch</th><th scope="col">Merged</th><th scope="col">Validation after merge</th><th scope="col">Sent back</th></tr></thead>
    <tbody>${log.waves
      .flatMap((w) =>
        w.tasks.map(
          (t) =>
            `<tr data-task="${esc(`${w.phase?.number ?? "?"}-${w.number}-${t.task}`)}"><td>${w.phase ? `${w.phase.number}${w.phase.name ? ` · ${esc(w.phase.name)}` : ""}` : "—"}</td><td>${w.number}</td><th scope="row">${esc(t.task)}. ${esc(t.name)}</th><td><span class="badge small ${cls(t.status)}">${esc(t.status)}</span> ${esc(t.statusText === t.status ? "" : t.statusText)}</td><td>${t.attempts}</td><td><code>${esc(t.worktree)}</code><br><code>${esc(t.branch)}</code></td><td>${t.merged ? `<code title="${esc(t.merged)}">${esc(t.mergedShort)}</code>` : `<span class="muted">—</span>`}</td><td>${dash(t.validation)}</td><td>${
              t.sentBack.length || t.unmerged.length
                ? `<ul>${[...t.sentBack.map((b) => `attempt ${b.attempt}: ${b.why} (${b.error})`), ...t.unmerged.map((u) => `kept unmerged: ${u.branch}`)].map((x) => `<li>${esc(x)}</li>`).join("")}</ul>`
                : `<span class="muted">—</span>`
            }</td></tr>`,
        ),
      )
      .join("")}</tbody>
  </table></div>
</section>`;
}

function commits(log: DecisionLog): string {
  return `<section class="card" aria-labelledby="commits-h">
  <h2 id="commits-h">Commits</h2>
  ${
    log.commits.length
      ? `<div class="scroll"><table class="data">
    <caption class="sr-only">Commits autopilot made</caption>
    <thead><tr><th scope="col">SHA</th><th scope="col">Phase</th><th scope="col">Subject</th><th scope="col">Kind</th><th scope="col">When (UTC)</th></tr></thead>
    <tbody>${log.commits
      .map(
        (c) =>
          `<tr${c.recovery ? ` class="recovery"` : ""}><td><code title="${esc(c.sha)}">${esc(c.short)}</code></td><td>${c.phase ? `${c.phase.number}${c.phase.name ? ` · ${esc(c.phase.name)}` : ""}` : "final"}</td><th scope="row">${esc(c.subject)}<span class="rule">${esc(c.label)}</span></th><td>${c.recovery ? `<span class="mark mark-override">recovery</span>` : "checkpoint"}</td><td class="nowrap">${when(c.timestamp)}</td></tr>`,
      )
      .join("")}</tbody>
  </table></div>`
      : `<p class="hint">No commits recorded by autopilot in this session.</p>`
  }
</section>`;
}

export interface HtmlOptions {
  /** The machine graph to draw (default: the autopilot machine's). */
  graph?: StateGraph;
}

export function renderHtml(log: DecisionLog, opts: HtmlOptions = {}): string {
  const graph = opts.graph ?? stateGraph();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="autopilot log">
<title>${esc(`Decision log: ${log.title}`)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
${header(log)}
${timeline(log)}
${diagram(log, graph)}
${gates(log)}
${decisionsTable(log)}
${checksHtml(log)}
${waves(log)}
${finalReview(log)}
${modelRuns(log.cost)}
${commits(log)}
</main>
<footer><p>Generated by <code>autopilot log ${esc(log.session)} --format html</code> from <code>.harness/sessions/${esc(log.session)}/autopilot-state.json</code>${log.updatedAt ? `, last updated ${when(log.updatedAt)} UTC` : ""}. Self-contained: no scripts, no network.</p></footer>
</body>
</html>
`;
}
