// One headless run: take the session's driver lock, start or resume it, drive it with a runner
// and a gate until it is done, waits, or needs an answer nobody can give, then summarise.
// `autopilot run` and `autopilot demo` both come through here.
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { Engine } from "../engine/engine.js";
import { AutopilotError } from "../protocol/errors.js";
import type { Step } from "../protocol/step.js";
import type { PersonaRunner } from "../runners/types.js";
import type { AutopilotState } from "../session/schema.js";
import { resolveSpecPath, slugFromSpecPath } from "../session/slug.js";
import { sessionDirRel } from "../session/paths.js";
import { drive, PolicyGate, type Gate } from "./drive.js";
import { acquireDriverLock } from "./driver-lock.js";
import { Progress } from "./progress.js";
import { LineReader, NoAnswer, TerminalGate } from "./terminal-gate.js";
import { formatCost } from "../session/usage.js";

export const SIMULATION_BANNER =
  "SIMULATION: personas are simulated by the scripted runner (no model is called; the files, commits and decisions are real).";

export interface HeadlessRunOptions {
  root: string;
  spec: string;
  flags: string[];
  runner: PersonaRunner;
  /** Answer every gate by policy. */
  yes: boolean;
  /** Progress and the summary go here. */
  out: Writable;
  /** With json, the final Step is written here (and nothing else). */
  json?: Writable;
  /** Where answers come from when not --yes. */
  input: Readable;
  /** The input is a terminal (prompts are shown; otherwise answers may still come down a pipe). */
  interactive: boolean;
  /** The command that continues this session, for the hints. */
  resumeCommand: string;
  signal?: AbortSignal;
  /** Skip the banner (the caller printed its own). */
  quietBanner?: boolean;
}

export interface HeadlessRunResult {
  code: number;
  slug: string;
  final: Step | null;
  state: AutopilotState | null;
  /** How the run ended. */
  outcome: "done" | "wait" | "question" | "interrupted";
}

export async function runHeadless(o: HeadlessRunOptions): Promise<HeadlessRunResult> {
  const root = path.resolve(o.root);
  const { rel } = resolveSpecPath(root, o.spec);
  const slug = slugFromSpecPath(rel);
  const progress = new Progress(o.out, { resumed: false, simulated: o.runner.simulated });
  if (o.runner.simulated && !o.quietBanner) progress.write(SIMULATION_BANNER);

  const lock = await acquireDriverLock(root, slug, `autopilot run ${rel} (runner ${o.runner.name})`);
  const reader = new LineReader(o.input, o.signal);
  try {
    const engine = new Engine(root, { log: (_level, m) => progress.write(`    · ${m}`) });
    const started = await startWaiting(engine, rel, o.flags, progress);
    progress.resumed(started.resumed);
    progress.write(
      `autopilot run ${rel} · session ${slug} · runner ${o.runner.name}${o.runner.simulated ? " (simulated)" : ""} · gates: ${o.yes ? "--yes policy" : o.interactive ? "terminal" : "stdin"}`,
    );
    for (const n of started.notes) progress.write(`  ${n}`);

    const gate: Gate = o.yes
      ? new PolicyGate(2, async (s) => (await engine.read(s)).decisions)
      : new TerminalGate(reader, o.out, o.interactive);
    let final: Step;
    let outcome: HeadlessRunResult["outcome"];
    try {
      const r = await drive(
        engine,
        started.step,
        o.runner,
        gate,
        {
          onStep: (s) => progress.step(s),
          onRunnerLog: (l) => progress.runnerLog(l),
          onAnswer: (_s, a) => progress.answer(a),
        },
        { signal: o.signal },
      );
      final = r.final;
      outcome = o.signal?.aborted ? "interrupted" : final.next.kind === "done" ? "done" : "wait";
    } catch (e) {
      if (o.signal?.aborted) {
        final = await engine.peek(slug);
        outcome = "interrupted";
      } else if (e instanceof NoAnswer) {
        final = e.step;
        outcome = "question";
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
    await summarise(progress, root, slug, final, outcome, state, o);
    if (o.json) o.json.write(JSON.stringify(final, null, 2) + "\n");
    return { code: outcome === "interrupted" ? 130 : 0, slug, final, state, outcome };
  } finally {
    reader.close();
    await lock.release();
  }
}

/**
 * Start or resume. A process killed inside a tool call leaves the store's per-call lock behind until
 * it goes stale (10 s); we hold the driver lock, so nobody else should drive, and waiting for it
 * beats failing the resume that naturally follows a crash.
 */
async function startWaiting(engine: Engine, rel: string, flags: string[], progress: Progress) {
  const deadline = Date.now() + 15_000;
  let told = false;
  for (;;) {
    try {
      return await engine.start(rel, flags);
    } catch (e) {
      if (!(e instanceof AutopilotError && e.code === "busy") || Date.now() > deadline) throw e;
      if (!told) {
        progress.write("The session's lock is held by another process, or was left by a run that was killed (it clears 10 s after its last refresh): waiting…");
        told = true;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function summarise(
  p: Progress,
  root: string,
  slug: string,
  final: Step,
  outcome: HeadlessRunResult["outcome"],
  state: AutopilotState | null,
  o: HeadlessRunOptions,
): Promise<void> {
  const dir = sessionDirRel(slug);
  p.write("");
  if (outcome === "question" && final.next.kind === "ask") {
    p.write(`Stopped at a question (${final.state}, step ${final.stepId}): ${final.next.question}`);
    p.write(`No answer came: the input is not a terminal and it ended. The session is saved at this question.`);
    p.write(`To continue: run \`${o.resumeCommand}\` in a terminal and answer, pipe the answer in (\`echo 1 | ${o.resumeCommand}\`),`);
    p.write(`or add --yes to answer by policy. A chat client can answer it too (autopilot_decide).`);
  } else if (outcome === "interrupted") {
    p.write(`Interrupted at ${final.state} (step ${final.stepId}). The session is saved; continue with: ${o.resumeCommand}`);
  } else if (final.next.kind === "wait") {
    p.write(`Waiting (${final.state}, step ${final.stepId}): ${final.next.reason}`);
    p.write(`To continue: ${o.resumeCommand}   (from a chat client: ${final.next.resumeWith})`);
  } else if (final.next.kind === "done") {
    const s = final.next.summary as Record<string, unknown>;
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
      for (const c of state.commits) p.write(`  ${c.sha.slice(0, 7)} ${c.recovery ? "[autopilot][recovery]" : "[autopilot]"} ${c.label}`);
    } else p.write("Commits: none yet");
    const by = (w: string) => state.decisions.filter((d) => (d.by ?? "") === w).length;
    p.write(
      `Decisions: ${state.decisions.length} recorded (${by("human")} by a human, ${by("policy")} by policy, ${by("auto")} automatic) in ${dir}/autopilot-state.json`,
    );
  }
  const usage = state?.usage?.total;
  if (usage?.dispatches) {
    p.write(
      `Dispatches: ${usage.dispatches} · cost: ${o.runner.simulated && !usage.reported ? "none (simulated)" : formatCost(usage)} · per phase and persona: autopilot log ${slug}`,
    );
  }
  p.write(`Session files: ${path.join(root, dir)}/`);
}
