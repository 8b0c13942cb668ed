// How a headless run gets a persona's work done. A runner receives the same dispatch a host model
// would (persona, description, prompt, expected result and artifacts) and returns the result the
// host would report with `autopilot_report`.
import type { PersonaName, PersonaResult, ResultKind } from "../protocol/step.js";
import type { UsageReport } from "../session/usage.js";

export interface PersonaTask {
  persona: PersonaName;
  description: string;
  prompt: string;
  /** The model the Step names for this runner (`next.model`, in its terms); absent: the runner's own. */
  model?: string;
  expects: {
    result: ResultKind;
    /** Absent in the lean Step Claude Code gets; the prompt names the same paths. */
    artifacts?: { plan?: string; handoff?: string; state?: string; brief?: string };
  };
  /** Absolute path of the project the persona works in; every file access stays inside it. */
  projectRoot: string;
  /**
   * A parallel wave's task: `projectRoot` is the task's worktree, whose session folder is a link out
   * of it that confined tools refuse to follow; the brief's text is given here instead.
   */
  brief?: { path: string; text: string };
  /** Session slug. */
  session: string;
  /** 0-based index of the phase being worked on, or null for the final review. */
  phaseIndex: number | null;
  phaseName: string | null;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface RunnerOutcome {
  result: PersonaResult;
  /** What the run cost, as far as the runner knows; recorded with the report in the state's ledger. */
  usage?: UsageReport;
  /** Short human-readable notes of what the runner did (printed by `autopilot run`). */
  log?: string[];
}

export interface PersonaRunner {
  readonly name: string;
  /** True when the runner only simulates personas (the demo): printed wherever it reports. */
  readonly simulated: boolean;
  run(task: PersonaTask, signal?: AbortSignal): Promise<RunnerOutcome>;
}
