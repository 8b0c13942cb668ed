// Progress of a headless run: one line per transition (elapsed time, phase, state, what happens
// next), the Step's report indented under it, the runner's notes, the answers given at gates.
import type { Writable } from "node:stream";
import type { Step } from "../protocol/step.js";
import type { GateAnswer } from "./gate.js";

export class RunProgress {
  private readonly t0 = Date.now();
  private lastPhase: number | null | undefined = undefined;
  private first = true;
  constructor(
    private readonly out: Writable,
    private readonly opts: { resumed: boolean; simulated: boolean },
  ) {}

  /** A resumed session did not just pass through INIT. */
  resumed(yes: boolean): void {
    this.opts.resumed = yes;
  }

  write(line = ""): void {
    this.out.write(line + "\n");
  }

  elapsed(): string {
    return `${((Date.now() - this.t0) / 1000).toFixed(1)}s`;
  }

  /** The states a Step's call passed through on its way here, as far as the machine guarantees. */
  private path(step: Step): string {
    const phaseIdx = step.phase?.index ?? null;
    const newPhase = phaseIdx !== null && phaseIdx !== this.lastPhase;
    const states: string[] = [];
    // A fresh start runs INIT; every phase begins in ASSESS, which decides between planning,
    // approval of an existing plan, or waiting for an interactive plan.
    if (this.first && !this.opts.resumed) states.push("INIT");
    if (newPhase && !(this.first && this.opts.resumed) && ["PLAN", "APPROVE_PLAN"].includes(step.state))
      states.push("ASSESS");
    states.push(step.state);
    return states.join(" → ");
  }

  step(step: Step): void {
    const parts: string[] = [`[+${this.elapsed()}]`];
    if (step.phase) parts.push(`phase ${step.phase.number}/${step.phase.total} ${step.phase.name} ·`);
    parts.push(this.path(step));
    const n = step.next;
    let what: string;
    if (n.kind === "dispatch") what = `dispatch ${n.persona} (${n.description})${n.model ? ` on ${n.model}` : ""}`;
    else if (n.kind === "ask") what = `ask: ${n.question}`;
    else if (n.kind === "wait") what = "waiting";
    else what = "done";
    this.write(`${parts.join(" ")} · ${what}`);
    if (step.report) for (const l of step.report.split("\n")) this.write(l.trim() ? `    ${l}` : "");
    this.first = false;
    this.lastPhase = step.phase?.index ?? this.lastPhase;
  }

  runnerLog(lines: string[]): void {
    for (const l of lines) this.write(`    │ ${l}`);
  }

  answer(a: GateAnswer): void {
    const who =
      a.by === "policy"
        ? "by policy"
        : a.by === "auto"
          ? "automatically"
          : a.by === "piped"
            ? "from the input"
            : "by you";
    this.write(`    → "${a.answer}" ${who}${a.rationale ? `: ${a.rationale}` : ""}`);
  }
}
