// The host loop, without a chat client: take the Step, do what it says (run the persona through a
// runner, or put the question to a gate), report back, repeat until the session is done or waits.
// The MCP path and this one drive the same engine and write the same files.
import type { Engine } from "../engine/engine.js";
import type { AskNext, DispatchNext, Step } from "../protocol/step.js";
import type { PersonaRunner } from "../runners/types.js";
import type { UsageReport } from "../session/usage.js";
import type { Decision } from "../session/schema.js";
import { NoAnswer, type Gate, type GateAnswer } from "./gate.js";
import { ANSWERS } from "../machine/autopilot.machine.js";

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
  opts: { maxSteps?: number; signal?: AbortSignal } = {},
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
    if (next.kind === "dispatch") {
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

/** `root`: where the persona works (the session's worktree, or the project). */
function dispatchTask(root: string, step: Step, next: DispatchNext) {
  return {
    persona: next.persona,
    description: next.description,
    prompt: next.prompt,
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
 * session's spending budget is spent. Every answer
 * is recorded as a policy decision with the rule that made it.
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
    const has = (o: string) => ask.options.includes(o);
    const by = "policy" as const;
    const key = `${step.state}:${step.phase?.index ?? "final"}`;
    if (has("retry")) {
      const n = await this.count(this.retries, key, step, "retry");
      return n <= 1
        ? { answer: "retry", by, rationale: "--yes policy: retry a failed persona step once" }
        : { answer: "stop", by, rationale: "--yes policy: the persona failed twice; a human should look" };
    }
    // Never commit the user's own work on a policy's say-so.
    if (has("leave them out")) return { answer: "leave them out", by, rationale: "--yes policy: keep changes autopilot did not make out of its commits" };
    // The budget gate: --yes never spends more than it was given.
    if (has("continue once") && has("raise budget"))
      return { answer: "stop", by, rationale: "--yes policy: the budget is spent; a human decides whether to spend more" };
    // A commit the repository's hooks keep refusing: only a person can fix it or waive the hooks,
    // so the question stays open (the run ends waiting for a human) rather than answered.
    if (ANSWERS.commitRejected.every(has)) throw new NoAnswer(step);
    if (step.state === "APPROVE_PLAN" && has("yes")) return { answer: "yes", by, rationale: "--yes policy: approve plans" };
    if (step.state === "APPROVE_PLAN" && has("done")) return { answer: "done", by, rationale: "--yes policy: re-present the plan" };
    if (step.state === "PHASE_COMPLETE") return { answer: "yes", by, rationale: "--yes policy: continue to the next phase" };
    if (has("fix manually and continue")) return { answer: "stop", by, rationale: "--yes policy: an exhausted budget needs a human" };
    if (has("confirm")) return { answer: "confirm", by, rationale: "--yes policy: confirm human-verify checkpoints" };
    if (has("done") && step.state === "EXECUTE") return { answer: "done", by, rationale: "--yes policy: human-action checkpoints are assumed done" };
    if (has("fix")) {
      const n = await this.count(this.fixes, key, step, "fix");
      return n <= this.maxFixRounds
        ? { answer: "fix", by, rationale: `--yes policy: fix (round ${n} of ${this.maxFixRounds}); never override a blocking finding` }
        : { answer: "stop", by, rationale: "--yes policy: fixes did not resolve the findings; a human should decide" };
    }
    const first = ask.options.find((o) => o !== "stop") ?? "stop";
    return { answer: first, by, rationale: `--yes policy: take the first option ("${first}")` };
  }
}
