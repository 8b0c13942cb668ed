// One headless run: take the session's driver lock, start or resume it, drive it with a runner
// and a gate until it is done, waits, or needs an answer nobody can give, then summarise.
// `autopilot run` and `autopilot demo` both come through here.
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { Engine } from "../engine/engine.js";
import { AutopilotError } from "../protocol/errors.js";
import type { Step } from "../protocol/step.js";
import type { PersonaRunner } from "../runners/types.js";
import type { Runs } from "../personas/models.js";
import type { AutopilotState } from "../session/schema.js";
import { shellWord } from "../protocol/words.js";
import { resolveSpecPath, slugFromSpecPath } from "../session/slug.js";
import { sessionDirRel, sessionPaths } from "../session/paths.js";
import { cliWordsHere } from "../install/server-command.js";
import { channelCounts } from "../vocabulary.js";
import { drive, PolicyGate, type Gate } from "./drive.js";
import { acquireDriverLock } from "../session/driver-lock.js";
import { recordRunCommand } from "../session/run-command.js";
import { RunProgress } from "./progress.js";
import { LineReader, NoAnswer, TerminalGate } from "./terminal-gate.js";
import { formatBudget, formatCost } from "../session/usage.js";
import { EXIT_CODES, type EventWriter, type RunOutcome } from "./events.js";
import { finishFacts, openPullRequest } from "../effects/finish.js";
import { commandLine, finishArgs } from "../session/notices-finish.js";

const SIMULATION_BANNER =
  "SIMULATION: personas are simulated by the scripted runner (no model is called; the files, commits and decisions are real).";

export interface HeadlessRunOptions {
  root: string;
  spec: string;
  flags: string[];
  runner: PersonaRunner;
  /** How many of a parallel wave's executors run at once (--jobs; default DEFAULT_JOBS in drive.ts). */
  jobs?: number;
  /** Answer every gate by policy. */
  yes: boolean;
  /** Progress and the summary go here. */
  out: Writable;
  /** `--json`: one event per line (src/headless/events.ts). */
  events?: EventWriter;
  /** Where answers come from when not --yes. */
  input: Readable;
  /** The input is a terminal (prompts are shown; otherwise answers may still come down a pipe). */
  interactive: boolean;
  /** The command that continues this session, for the hints. */
  resumeCommand: string;
  signal?: AbortSignal;
  /** Skip the banner (the caller printed its own). */
  quietBanner?: boolean;
  /** `--pr`: at DONE, push the branch and open the pull request (src/effects/finish.ts). */
  pr?: boolean;
}

export interface HeadlessRunResult {
  /** The exit code of the outcome (EXIT_CODES). */
  code: number;
  slug: string;
  final: Step | null;
  state: AutopilotState | null;
  /** How the run ended. */
  outcome: RunOutcome;
  /** Why the run failed after the session was DONE (`--pr` could not open the pull request). */
  error?: AutopilotError;
}

/** How a run that ended at `final` ended. */
function outcomeOf(final: Step, state: AutopilotState | null, question: boolean, interrupted: boolean): RunOutcome {
  if (interrupted) return "interrupted";
  if (final.next.kind === "done") return "done";
  if (question) return "waiting";
  if (state?.stopped) return state.decisions.at(-1)?.decision === "stopped_budget" ? "budget" : "stopped";
  return "waiting";
}

export async function runHeadless(o: HeadlessRunOptions): Promise<HeadlessRunResult> {
  const root = path.resolve(o.root);
  const { rel } = resolveSpecPath(root, o.spec);
  const slug = slugFromSpecPath(rel);
  const progress = new RunProgress(o.out, { resumed: false, simulated: o.runner.simulated });
  if (o.runner.simulated && !o.quietBanner) progress.write(SIMULATION_BANNER);

  o.events?.setSession(slug);
  const lock = await acquireDriverLock(root, slug, `autopilot run ${rel} (runner ${o.runner.name})`);
  const reader = new LineReader(o.input, o.signal);
  try {
    const engine = new Engine(root, {
      runs: runsOf(o.runner),
      log: (_level, m) => progress.write(`    · ${m}`),
      cli: cliWordsHere(),
    });
    const started = await startWaiting(engine, rel, o.flags, progress);
    progress.resumed(started.resumed);
    // For `autopilot approve`: the way this session goes on after a person answers at a terminal.
    try {
      recordRunCommand(root, slug, o.resumeCommand, new Date());
    } catch {
      // Only the approve command's closing advice reads it; the run does not depend on it.
    }
    progress.write(
      `autopilot run ${rel} · session ${slug} · runner ${o.runner.name}${o.runner.simulated ? " (simulated)" : ""} · gates: ${o.yes ? "--yes policy" : o.interactive ? "terminal" : "stdin"}`,
    );
    for (const n of started.notes) progress.write(`  ${n}`);
    const ev = o.events;
    if (ev) {
      const at = await engine.read(slug).catch(() => null);
      ev.emit({
        event: "start",
        spec: rel,
        runner: o.runner.name,
        simulated: o.runner.simulated,
        resumed: started.resumed,
        budget: at?.budget ? formatBudget(at.budget) : null,
      });
    }
    const phaseOf = (s: Step) =>
      s.phase ? { number: s.phase.number, total: s.phase.total, name: s.phase.name } : null;

    const gate: Gate = o.yes
      ? new PolicyGate(2, async (s) => (await engine.read(s)).decisions)
      : new TerminalGate(reader, o.out, o.interactive);
    let final: Step;
    let question = false;
    let interrupted = false;
    try {
      const r = await drive(
        engine,
        started.step,
        o.runner,
        gate,
        {
          onStep: (s) => {
            progress.step(s);
            if (!ev) return;
            ev.emit({
              event: "transition",
              stepId: s.stepId,
              state: s.state,
              phase: phaseOf(s),
              next: s.next.kind,
              ...(s.report ? { report: s.report } : {}),
            });
            if (s.next.kind === "dispatch")
              ev.emit({
                event: "dispatch",
                stepId: s.stepId,
                state: s.state,
                phase: phaseOf(s),
                persona: s.next.persona,
                description: s.next.description,
              });
          },
          onRunnerLog: (l) => progress.runnerLog(l),
          onUsage: (s, u) => {
            if (ev && s.next.kind === "dispatch")
              ev.emit({ event: "usage", stepId: s.stepId, persona: s.next.persona, usage: u ? { ...u } : null });
          },
          onAnswer: (s, a) => {
            progress.answer(a);
            if (ev && s.next.kind === "ask")
              ev.emit({
                event: "decision",
                stepId: s.stepId,
                state: s.state,
                name: s.next.name,
                question: s.next.question,
                answer: a.answer,
                by: a.by,
                ...(a.rationale ? { rationale: a.rationale } : {}),
              });
          },
        },
        { signal: o.signal, ...(o.jobs ? { jobs: o.jobs } : {}) },
      );
      final = r.final;
      interrupted = !!o.signal?.aborted && final.next.kind !== "done";
    } catch (e) {
      if (o.signal?.aborted) {
        final = await engine.peek(slug);
        interrupted = true;
      } else if (e instanceof NoAnswer) {
        final = e.step;
        question = true;
      } else if (e instanceof AutopilotError && e.code === "human_required" && e.details?.step) {
        // --human-gates: neither the policy nor piped input may pass this gate.
        final = e.details.step;
        question = true;
      } else if (e instanceof AutopilotError && e.code === "stale_step") {
        throw new AutopilotError(
          "busy",
          `The session moved on outside this run (another client answered or reported for it), so this run stopped. Its saved state is intact: see autopilot status, or continue with ${o.resumeCommand}.`,
        );
      } else throw e;
    }
    const lost = lock.compromised();
    if (lost) progress.write(`warning: the driver lock was lost during the run (${lost.message}).`);

    const state = await engine.read(slug).catch(() => null);
    let outcome = outcomeOf(final, state, question, interrupted);
    summarise(progress, root, slug, final, outcome, state, o);
    const error = outcome === "done" && o.pr ? await pullRequest(root, slug, state, progress) : undefined;
    if (error) outcome = "failed";
    const code = EXIT_CODES[outcome];
    ev?.emit({
      event: "outcome",
      outcome,
      exitCode: code,
      reason: error ? error.message : reasonOf(final, outcome),
      state: final.state,
      stepId: final.stepId,
      cost: state ? costOf(state) : null,
      resume: outcome === "done" ? null : o.resumeCommand,
      step: final,
      ...(error ? { error: { code: error.code, message: error.message } } : {}),
    });
    return { code, slug, final, state, outcome, ...(error ? { error } : {}) };
  } finally {
    reader.close();
    await lock.release();
  }
}

/** `--pr` at DONE: the pull request opened (its URL printed), or the error that says what to run. */
async function pullRequest(
  root: string,
  slug: string,
  state: AutopilotState | null,
  p: RunProgress,
): Promise<AutopilotError | undefined> {
  const title = state?.pullRequest?.title;
  try {
    if (!title)
      throw new AutopilotError(
        "pr_not_opened",
        `No pull request was opened: the session recorded no description (no starting commit). The work stays committed.`,
      );
    const facts = await finishFacts(sessionPaths(root, slug), title);
    p.write(`Opening the pull request: ${commandLine(finishArgs(facts).push)}, then gh pr create …`);
    p.write(`Pull request: ${await openPullRequest(root, facts)}`);
    return undefined;
  } catch (e) {
    if (e instanceof AutopilotError) return e;
    throw e;
  }
}

/**
 * Start or resume. A process killed inside a tool call leaves the store's per-call lock behind until
 * it goes stale (10 s); we hold the driver lock, so nobody else should drive, and waiting for it
 * beats failing the resume that naturally follows a crash.
 */
async function startWaiting(engine: Engine, rel: string, flags: string[], progress: RunProgress) {
  const deadline = Date.now() + 15_000;
  let told = false;
  for (;;) {
    try {
      return await engine.start(rel, flags);
    } catch (e) {
      if (!(e instanceof AutopilotError && e.code === "busy") || Date.now() > deadline) throw e;
      if (!told) {
        progress.write(
          "The session's lock is held by another process, or was left by a run that was killed (it clears 10 s after its last refresh): waiting…",
        );
        told = true;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

function costOf(state: AutopilotState) {
  const t = state.usage?.total;
  return {
    display: formatCost(t),
    dispatches: t?.dispatches ?? 0,
    tokens: t?.tokens ?? null,
    costUsd: t?.costUsd ?? null,
  };
}

function reasonOf(final: Step, outcome: RunOutcome): string {
  const n = final.next;
  switch (outcome) {
    case "done":
      return "The session is DONE.";
    case "interrupted":
      return `Interrupted at ${final.state} (step ${final.stepId}); the session is saved.`;
    case "waiting":
      return n.kind === "ask"
        ? `A question needs a human: ${n.question}`
        : n.kind === "wait"
          ? n.reason
          : `Waiting at ${final.state}.`;
    case "budget":
      return final.report?.split("\n").find((l) => /budget/i.test(l)) ?? "Stopped: the session's budget is spent.";
    default:
      return n.kind === "wait" ? n.reason : `Stopped at ${final.state}.`;
  }
}

function summarise(
  p: RunProgress,
  root: string,
  slug: string,
  final: Step,
  outcome: RunOutcome,
  state: AutopilotState | null,
  o: HeadlessRunOptions,
): void {
  const dir = sessionDirRel(slug);
  p.write("");
  if (outcome === "waiting" && final.next.kind === "ask" && final.next.humanOnly?.length && (o.yes || !o.interactive)) {
    p.write(`Stopped at a human gate (${final.state}, step ${final.stepId}): ${final.next.question}`);
    p.write(
      `The session runs with --human-gates: only a person may answer ${final.next.humanOnly.map((a) => `"${a}"`).join(" or ")} here, not the --yes policy or piped input.`,
    );
    p.write(
      `To continue: run \`autopilot approve ${shellWord(slug)}\` (or \`${o.resumeCommand.replace(/\s--yes\b/, "")}\`) in your own terminal and answer.`,
    );
  } else if (outcome === "waiting" && final.next.kind === "ask" && o.yes) {
    p.write(
      `Stopped at a question the --yes policy does not answer (${final.state}, step ${final.stepId}): ${final.next.question}`,
    );
    if (final.next.context) for (const l of final.next.context.split("\n")) p.write(`  ${l}`);
    p.write(
      `To continue: answer it yourself: run \`autopilot approve ${shellWord(slug)}\` (or \`${o.resumeCommand.replace(/\s--yes\b/, "")}\`) in your own terminal. A chat client can answer it too (autopilot_decide).`,
    );
  } else if (outcome === "waiting" && final.next.kind === "ask") {
    p.write(`Stopped at a question (${final.state}, step ${final.stepId}): ${final.next.question}`);
    p.write(`No answer came: the input is not a terminal and it ended. The session is saved at this question.`);
    p.write(
      `To continue: run \`${o.resumeCommand}\` in a terminal and answer, pipe the answer in (\`echo 1 | ${o.resumeCommand}\`),`,
    );
    p.write(`or add --yes to answer by policy. A chat client can answer it too (autopilot_decide).`);
  } else if (outcome === "interrupted") {
    p.write(
      `Interrupted at ${final.state} (step ${final.stepId}). The session is saved; continue with: ${o.resumeCommand}`,
    );
  } else if (outcome === "budget") {
    p.write(
      `Stopped at the budget (${final.state}, step ${final.stepId}): ${state?.budget ? `budget ${formatBudget(state.budget)}, ` : ""}spent ${formatCost(state?.usage?.total)}.`,
    );
    // The command with the budget it was given replaced (one --budget, not two).
    const without = o.resumeCommand.replace(/\s(?:'--budget=[^']*'|--budget=\S+|--budget\s+(?:'[^']*'|\S+))/g, "");
    p.write(`To continue: ${without} --budget <more>   (or answer "raise budget" / "continue once" on a terminal)`);
  } else if (final.next.kind === "wait") {
    p.write(`Waiting (${final.state}, step ${final.stepId}): ${final.next.reason}`);
    p.write(`To continue: ${o.resumeCommand}   (from a chat client: ${final.next.resumeWith})`);
  } else if (final.next.kind === "done") {
    // The DONE totals are numbers and words; anything else reads as "?".
    const s = final.next.summary as Record<string, string | number | undefined>;
    const f = (s.finalFindings ?? {}) as Record<string, number>;
    p.write(
      `DONE in ${p.elapsed()} · ${s.phasesCompleted ?? "?"} phases completed${s.phasesSkipped ? `, ${s.phasesSkipped} skipped` : ""} · ` +
        `${s.tasks ?? "?"} tasks · ${s.retries ?? 0} retries · final review ${s.finalReviewStatus ?? "?"} ` +
        `(${f.blocking ?? 0} blocking, ${f.warning ?? 0} warning, ${f.note ?? 0} note)`,
    );
  }
  if (state) {
    if (state.commits.length) {
      p.write(`Commits (${state.commits.length}):`);
      for (const c of state.commits) p.write(`  ${c.sha.slice(0, 7)} ${c.subject ?? c.label}`);
    } else p.write("Commits: none yet");
    p.write(
      `Decisions: ${state.decisions.length} recorded (${channelCounts(state.decisions)}) in ${dir}/autopilot-state.json`,
    );
  }
  const usage = state?.usage?.total;
  if (usage?.dispatches) {
    p.write(
      `Dispatches: ${usage.dispatches} · cost: ${o.runner.simulated && !usage.reported ? "none (simulated)" : formatCost(usage)} · per phase and persona: autopilot log ${shellWord(slug)}`,
    );
  }
  p.write(`Session files: ${path.join(root, dir)}/`);
}

/**
 * Whose model names a runner takes: the command runner's template gets `{model}`; the API runner
 * and the scripted one (which stands in for it, so a simulated run is priced as an API run would
 * be) the API's ids.
 */
function runsOf(runner: PersonaRunner): Runs {
  if (runner.name === "command") return "command";
  return runner.name === "anthropic" || runner.name === "scripted" ? "anthropic" : "other";
}
