// The decision log as Markdown: a report a person reads in a terminal, an editor or a PR comment.
import { formatDuration, type DecisionLog, type LoggedDecision, type PhaseLog, type SeverityTally } from "./model.js";
import { SIGNAL_DEFS } from "../rules/signals.js";
import { checksMarkdown } from "./checks-text.js";

/**
 * Text as itself, with raw HTML made inert the way Markdown allows: a backslash before a `<` that
 * could open a tag (or an autolink) and before an `&` that would read as an entity. A reader of the
 * plain file sees `() => number`, not `() =&gt; number`; a renderer shows the same, and runs nothing.
 * Code spans are left as they are: Markdown shows their text literally, backslashes too.
 */
function mdInline(s: string): string {
  let out = "";
  let last = 0;
  for (const m of s.matchAll(/(`+)(?:[\s\S]*?[^`])?\1(?!`)/g)) {
    out += inert(s.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + inert(s.slice(last));
}

function inert(s: string): string {
  // A backslash of the text's own before either would escape the escape: it is doubled first.
  return s
    .replace(/\\(?=<[A-Za-z/!?]|&#?[A-Za-z0-9]+;)/g, "\\\\")
    .replace(/<(?=[A-Za-z/!?])/g, "\\<")
    .replace(/&(?=#?[A-Za-z0-9]+;)/g, "\\&");
}

/** One table cell: no line breaks, pipes escaped, raw HTML neutralised (renderers would run it). */
function mdCell(s: string | number | boolean | null | undefined): string {
  if (s === null || s === undefined || s === "") return "—";
  return mdInline(String(s).replace(/\r?\n|\r/g, " "))
    .replace(/\|/g, "\\|")
    .trim();
}

/** Inline text outside tables. */
function mdText(s: string): string {
  return mdInline(s);
}

function table(head: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const lines = [`| ${head.join(" | ")} |`, `| ${head.map(() => "---").join(" | ")} |`];
  for (const r of rows) lines.push(`| ${r.map(mdCell).join(" | ")} |`);
  return lines.join("\n");
}

function severities(t: SeverityTally | null): string {
  return t ? `${t.blocking} blocking, ${t.warning} warning, ${t.note} note` : "—";
}

function phaseLabel(d: Pick<LoggedDecision, "phase" | "phaseInferred" | "state">): string {
  if (d.phase)
    return `${d.phase.number}${d.phase.name ? `. ${d.phase.name}` : ""}${d.phaseInferred ? " (from text)" : ""}`;
  return d.state === "FINAL_REVIEW" || d.state === "DONE" ? "final review" : "";
}

function whoLabel(d: LoggedDecision): string {
  if (d.whoInferred) return `${d.who} (inferred)`;
  // Host answers and legacy "human" ones say plainly that no person may have seen the question.
  return d.who === "host" || d.who === "relayed" || d.who === "human" || d.who === "piped"
    ? `${d.who}: ${d.whoText}`
    : d.who;
}

/** "3 decisions (1 elicited, 1 host, 1 auto)": the nonzero channels, in a fixed order. */
function whoCounts(t: DecisionLog["totals"]["decisions"]): string {
  const order = ["elicited", "terminal", "host", "relayed", "piped", "policy", "auto", "human", "unknown"] as const;
  const parts = order.filter((k) => t[k]).map((k) => `${t[k]} ${k}`);
  return `${t.total} decision${t.total === 1 ? "" : "s"}${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

/** The person's words with who brought them: `the user's words (at a terminal): "..."`. */
function saidOf(d: LoggedDecision): string | null {
  return d.personWords ? `the user's words (${d.personWords.by}): "${d.personWords.words}"` : null;
}

/** The Why cell: the person's words, then the rationale when it is not theirs (or a legacy note). */
export function whyOf(d: LoggedDecision): string | null {
  const reason = d.personWords?.words === d.rationale?.trim() ? null : d.rationale;
  const parts = [saidOf(d), reason ?? d.note];
  return parts.filter(Boolean).join(" · ") || null;
}

export function planOutcome(d: LoggedDecision): string {
  if (!d.plan) return "";
  if (d.plan.mode === "fast") return "auto-approved: --fast, signals not evaluated";
  if (d.plan.mode === "auto") return d.plan.fired.length ? "auto-approved" : "auto-approved: no signal fired";
  return `paused → ${d.who} answered "${d.answer ?? "?"}" (${d.plan.result})`;
}

function phaseOutcome(p: PhaseLog): string {
  const extra: string[] = [];
  if (p.reviewOverridden) extra.push("review overridden");
  if (p.verificationSkipped) extra.push("verification skipped");
  if (p.complexityOverride) extra.push(`complexity ${p.complexity} → ${p.complexityOverride}`);
  if (p.recoveryCommits) extra.push(`${p.recoveryCommits} recovery commit(s)`);
  return p.outcome + (extra.length ? ` (${extra.join("; ")})` : "");
}

export function renderMarkdown(log: DecisionLog): string {
  const t = log.totals;
  const out: string[] = [];
  out.push(`# Decision log: ${mdText(log.title)}`, "", `Spec: ${mdText(log.spec)}`, "");
  out.push(`**${mdText(log.outcome.headline)}**`, "");
  out.push(
    table(
      ["Session", "Rigor", "Review plans", "State", "Starting commit", "Time"],
      [
        [
          log.session,
          log.rigor,
          log.reviewPlans ? "yes" : "no",
          log.currentState + (log.stage ? ` (${log.stage})` : ""),
          log.startingCommit?.slice(0, 12) ?? null,
          formatDuration(t.durationMs),
        ],
      ],
    ),
    "",
  );
  out.push(
    `${t.phases.complete}/${t.phases.total} phases complete${t.phases.skipped ? `, ${t.phases.skipped} skipped` : ""} · ${t.tasks} tasks · ${t.retries} ${t.retries === 1 ? "retry" : "retries"} · ` +
      `${whoCounts(t.decisions)} · ` +
      `${t.overrides} override${t.overrides === 1 ? "" : "s"} · ${t.commits.total} commits${t.commits.recovery ? ` (${t.commits.recovery} recovery)` : ""}`,
    "",
    `Cost: ${mdText(log.cost.display)}${log.cost.why ? ` (${mdText(log.cost.why)})` : ""}${log.cost.budget ? ` · budget ${mdText(log.cost.budget.display)}${log.cost.budget.spent ? " (spent)" : ""}` : ""}`,
    "",
  );

  out.push("## Decisions", "");
  if (log.decisions.length)
    out.push(
      "Who: `elicited` the user in the client's form · `terminal` a person at a terminal · `host` the host model called autopilot_decide (no person may have seen the question) · `relayed` the host model passed on what it says are the user's words (its claim) · `piped` piped input · `policy` the --yes policy · `auto` automatic.",
      "",
    );
  if (!log.decisions.length) out.push("No decisions recorded.", "");
  else
    out.push(
      table(
        ["#", "When", "Phase", "State", "Decision", "Who", "Signals fired", "Answer", "Why"],
        log.decisions.map((d) => [
          d.n,
          d.timestamp,
          phaseLabel(d),
          d.state,
          d.what,
          whoLabel(d),
          d.plan ? (d.plan.evaluated ? d.plan.fired.join(", ") || "none" : "not evaluated (--fast)") : null,
          d.answer,
          whyOf(d),
        ]),
      ),
      "",
    );

  const gates = log.decisions.filter((d) => d.plan);
  if (gates.length) {
    out.push("## Plan approvals: the signals behind each", "");
    out.push(
      "A signal marked ✱ fired. In standard rigor any fired signal pauses for a person; `--fast` skips the evaluation and `--thorough` always pauses.",
      "",
    );
    out.push(
      table(
        ["#", "Phase", ...SIGNAL_DEFS.map((s) => s.column), "Outcome"],
        gates.map((d) => {
          const s = Object.fromEntries(d.plan!.signals.map((r) => [r.name, r]));
          const v = (name: string) => `${s[name].display}${s[name].fired ? " ✱" : ""}`;
          return [d.n, phaseLabel(d), ...SIGNAL_DEFS.map((def) => v(def.name)), planOutcome(d)];
        }),
      ),
      "",
    );
    const waved = gates.filter((d) => d.plan!.waves);
    if (waved.length) {
      out.push("Waves (parallel session):", "");
      for (const d of waved) out.push(`- #${d.n} ${phaseLabel(d)}: ${d.plan!.waves}`);
      out.push("");
    }
  }

  out.push("## Phases", "");
  out.push(
    table(
      [
        "#",
        "Phase",
        "Complexity",
        "Outcome",
        "Tasks",
        "Retries",
        "Verification",
        "Review findings",
        "Time",
        "Commits",
        "Cost",
      ],
      log.phases.map((p) => [
        p.number,
        p.name,
        p.complexityOverride ? `${p.complexity} → ${p.complexityOverride}` : p.complexity,
        phaseOutcome(p),
        p.tasks,
        p.retries,
        p.verification,
        severities(p.reviewFindings),
        formatDuration(p.durationMs),
        p.commits,
        p.cost.display,
      ]),
    ),
    "",
  );

  out.push(...checksMarkdown(log, table));

  if (log.waves.length) {
    out.push("## Parallel waves", "");
    out.push(
      "Each task of each wave: where it worked (its worktree and branch, removed once merged), what became of it, the commit its merge made the session's head, and the validation after that merge.",
      "",
    );
    out.push(
      table(
        [
          "Phase",
          "Wave",
          "Task",
          "Status",
          "Attempts",
          "Worktree",
          "Branch",
          "Merged",
          "Validation after merge",
          "Sent back",
        ],
        log.waves.flatMap((w) =>
          w.tasks.map((t) => [
            w.phase ? `${w.phase.number}. ${w.phase.name ?? ""}` : null,
            w.number,
            `${t.task}. ${t.name}`,
            t.statusText,
            t.attempts,
            t.worktree,
            t.branch,
            t.mergedShort,
            t.validation,
            [
              ...t.sentBack.map((b) => `attempt ${b.attempt}: ${b.why} (${b.error})`),
              ...t.unmerged.map((u) => `kept unmerged: ${u.branch}`),
            ].join("; ") || null,
          ]),
        ),
      ),
      "",
    );
  }

  const fr = log.finalReview;
  out.push("## Final review", "");
  out.push(
    `Status: **${fr.status}** · ${severities(fr.findings)} · ${fr.fixRounds} fix round${fr.fixRounds === 1 ? "" : "s"} · cost ${mdText(fr.cost.display)}`,
    "",
  );
  if (fr.items.length)
    out.push(
      table(
        ["ID", "Severity", "Finding", "Where", "Why", "Fate"],
        fr.items.map((f) => [
          f.id,
          f.severity,
          f.title,
          f.file ? `${f.file}${f.line !== null ? `:${f.line}` : ""}` : null,
          f.rationale,
          f.fate,
        ]),
      ),
      "",
    );

  if (log.cost.runs.length) {
    out.push("## Models", "");
    out.push(
      `Which model ran each persona dispatch, and why. By model: ${Object.entries(log.cost.byModel)
        .map(([m, c]) => `${mdText(m)} ${mdText(c.display)}`)
        .join(" · ")}.`,
      "",
      table(
        ["Step", "Phase", "Persona", "Model", "Tier", "Why", "Cost"],
        log.cost.runs.map((r) => [
          r.stepId,
          r.phase,
          `${r.persona}${r.task ? ` (task ${r.task})` : ""}`,
          r.model ?? "(the client's)",
          `${r.tier ?? "?"}${r.escalated ? " ↑" : ""}`,
          r.why,
          r.cost,
        ]),
      ),
      "",
    );
  }

  out.push("## Commits", "");
  if (!log.commits.length) out.push("No commits recorded by autopilot.", "");
  else
    out.push(
      table(
        ["SHA", "Phase", "Subject", "Step", "Recovery", "When"],
        log.commits.map((c) => [
          c.short,
          c.phase ? `${c.phase.number}. ${c.phase.name ?? ""}` : "final",
          c.subject,
          c.label,
          c.recovery ? "yes" : "no",
          c.timestamp,
        ]),
      ),
      "",
    );
  return out.join("\n");
}
