// The host loop, without a chat client: take the Step, do what it says (run the persona through a
// runner, or put the question to a gate), report back, repeat until the session is done or waits.
// The MCP path and this one drive the same engine and write the same files.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Engine } from "../engine/engine.js";
import type { AskNext, DispatchNext, Step } from "../protocol/step.js";
import type { PersonaRunner } from "../runners/types.js";
import type { UsageReport } from "../session/usage.js";
import type { Decision } from "../session/schema.js";
import { NoAnswer, type Gate, type GateAnswer } from "./gate.js";
import { QUESTIONS, isQuestionName, type YesPolicy } from "../../machines/questions.js";

export type { Gate, GateAnswer } from "./gate.js";

export interface DriveEvents {
  onStep?(step: Step): void;
  onRunnerLog?(lines: string[]): void;
  onAnswer?(step: Step, answer: GateAnswer): void;
  onUsage?(step: Step, usage: UsageReport | null): void;
}

export interface DriveResult {
  final: Step;
  steps: number;
}

export async function drive(
  engine: Engine,
  first: Step,
  runner: PersonaRunner,
  gate: Gate,
  events: DriveEvents = {},
  /** `jobs`: how many of a parallel wave's executors run at once (docs/cli.md --jobs; default DEFAULT_JOBS). */
  opts: { maxSteps?: number; signal?: AbortSignal; jobs?: number } = {},
): Promise<DriveResult> {
  let step = first;
  let count = 0;
  const max = opts.maxSteps ?? 2000;
  for (;;) {
    events.onStep?.(step);
    const next = step.next;
    if (next.kind === "done" || next.kind === "wait") return { final: step, steps: count };
    if (opts.signal?.aborted) return { final: step, steps: count };
    if (++count > max) throw new Error(`the run did not finish within ${max} steps`);
    if (next.kind === "dispatch" && next.tasks?.length) {
      step = await runWave(engine, step, next, runner, events, opts.jobs ?? DEFAULT_JOBS, opts.signal);
    } else if (next.kind === "dispatch") {
      const outcome = await runner.run(dispatchTask(await engine.rootFor(step.session), step, next), opts.signal);
      if (outcome.log?.length) events.onRunnerLog?.(outcome.log);
      events.onUsage?.(step, outcome.usage ?? null);
      step = await engine.report(step.session, step.stepId, outcome.result, outcome.usage ?? null);
    } else {
      const a = await gate.answer(step, next);
      // Told after the engine took it: an answer refused (--human-gates) is no decision.
      const asked = step;
      step = await engine.decide(step.session, step.stepId, a.answer, a.rationale, a.by);
      events.onAnswer?.(asked, a);
    }
  }
}

/** How many of a wave's executors `autopilot run` runs at once when --jobs is not given. */
const DEFAULT_JOBS = 3;

/**
 * A parallel wave: its executors run at once, at most `jobs` at a time, each in its task's
 * worktree; each is reported by its task as soon as it returns (one report never waits for
 * another). The Step after the last report is the one the run goes on with.
 */
async function runWave(
  engine: Engine,
  step: Step,
  next: DispatchNext,
  runner: PersonaRunner,
  events: DriveEvents,
  jobs: number,
  signal?: AbortSignal,
): Promise<Step> {
  const root = await engine.rootFor(step.session);
  const queue = [...(next.tasks ?? [])];
  let last: Step = step;
  const worker = async () => {
    for (let t = queue.shift(); t; t = queue.shift()) {
      if (signal?.aborted) return;
      const task = {
        ...dispatchTask(path.join(root, t.worktree), step, next),
        description: t.description,
        prompt: t.prompt,
        model: t.model,
        expects: { result: next.expects.result, artifacts: { ...next.expects.artifacts, brief: t.brief } },
        brief: { path: t.brief, text: await readFile(path.join(root, t.brief), "utf8").catch(() => "") },
      };
      const outcome = await runner.run(task, signal);
      if (outcome.log?.length) events.onRunnerLog?.(outcome.log.map((l) => `task ${t.task}: ${l}`));
      events.onUsage?.(step, outcome.usage ?? null);
      last = await engine.report(step.session, step.stepId, outcome.result, outcome.usage ?? null, t.task);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, queue.length)) }, worker));
  // Interrupted before every task reported: the session's own Step (the tasks still owed).
  return signal?.aborted ? engine.next(step.session) : last;
}

/** `root`: where the persona works (the session's worktree, or the project). */
function dispatchTask(root: string, step: Step, next: DispatchNext) {
  return {
    persona: next.persona,
    description: next.description,
    prompt: next.prompt,
    ...(next.model ? { model: next.model } : {}),
    expects: next.expects,
    projectRoot: root,
    session: step.session,
    phaseIndex: step.state === "FINAL_REVIEW" ? null : (step.phase?.index ?? null),
    phaseName: step.state === "FINAL_REVIEW" ? null : (step.phase?.name ?? null),
  };
}

/**
 * `--yes`: approve plans, continue between phases, confirm checkpoints, fix (a bounded number of
 * times) but never override a blocking finding, and stop when a retry budget is exhausted or the
 * session's spending budget is spent: each question's `yes` rule in machines/questions.ts.
 * Every answer is recorded as a policy decision with the rule that made it.
 */
export class PolicyGate implements Gate {
  private fixes = new Map<string, number>();
  private retries = new Map<string, number>();
  /**
   * `decisions`: the session's recorded decisions. When given, the rounds already spent are counted
   * from them (policy answers of the same state and phase), so a run killed and resumed answers
   * exactly as one that never stopped; without it the gate counts in memory.
   */
  constructor(
    private readonly maxFixRounds = 2,
    private readonly decisions?: (slug: string) => Promise<Decision[]>,
  ) {}

  private async count(map: Map<string, number>, key: string, step: Step, answer: string): Promise<number> {
    if (this.decisions) {
      const phase = step.phase?.index ?? null;
      const past = (await this.decisions(step.session)).filter(
        (d) => d.by === "policy" && d.state === step.state && (d.phase ?? null) === phase && d.answer === answer,
      );
      return past.length + 1;
    }
    const n = (map.get(key) ?? 0) + 1;
    map.set(key, n);
    return n;
  }

  async answer(step: Step, ask: AskNext): Promise<GateAnswer> {
    const by = "policy" as const;
    const first = ask.options.find((o) => o !== "stop") ?? "stop";
    const fallback = { answer: first, by, rationale: `--yes policy: take the first option ("${first}")` };
    // Each question's rule is its `yes` entry in machines/questions.ts.
    if (!isQuestionName(ask.name)) return fallback;
    const rule: YesPolicy = QUESTIONS[ask.name].yes;
    if ("open" in rule) throw new NoAnswer(step);
    if ("prefer" in rule) {
      const pick = rule.prefer.find((p) => ask.options.includes(p.take));
      return pick ? { answer: pick.take, by, rationale: `--yes policy: ${pick.why}` } : fallback;
    }
    if (!("atMost" in rule)) return { answer: rule.take, by, rationale: `--yes policy: ${rule.why}` };
    const max = rule.atMost === "fixRounds" ? this.maxFixRounds : rule.atMost;
    const map = rule.atMost === "fixRounds" ? this.fixes : this.retries;
    const n = await this.count(map, `${step.state}:${step.phase?.index ?? "final"}`, step, rule.take);
    return n <= max
      ? {
          answer: rule.take,
          by,
          rationale: `--yes policy: ${rule.why.replace("{n}", String(n)).replace("{max}", String(max))}`,
        }
      : { answer: "stop", by, rationale: `--yes policy: ${rule.thenWhy}` };
  }
}
