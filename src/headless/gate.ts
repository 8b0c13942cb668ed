// What answers a headless run's questions: a gate. The driver asks one (src/headless/drive.ts);
// the terminal (terminal-gate.ts) and the --yes policy (PolicyGate in drive.ts) are gates.
import type { AskNext, Step } from "../protocol/step.js";
import type { DecisionChannel } from "../session/schema.js";

export interface GateAnswer {
  answer: string;
  rationale?: string;
  by: DecisionChannel;
}

export interface Gate {
  answer(step: Step, ask: AskNext): Promise<GateAnswer>;
}

/** The run must stop at this question: there is nobody to answer it. */
export class NoAnswer extends Error {
  constructor(readonly step: Step) {
    super("no answer: the input ended");
    this.name = "NoAnswer";
  }
}
