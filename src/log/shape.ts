// The decision log's shape: what each of its renderers (Markdown, JSON, HTML, the demo's table) reads.
// Built by buildDecisionLog (model.ts); every field the state file could not supply is null.
import type { SignalName } from "../rules/signals.js";
import type { DecisionKind } from "../../machines/decisions.js";
import type { WaveLog } from "./waves.js";
import type { CostCell, SessionCost } from "./cost.js";
import type { FinalItem, CheckRoundLog, FindingLog } from "./checks.js";
import type { PersonWords } from "./person-words.js";

/** 2: `who` is the channel an answer came through (elicited, terminal, host, ...), with `whoText`. */
export const DECISION_LOG_VERSION = 2;

/**
 * The channel a decision came through (the state file's `by`): `elicited`, `terminal`, `host`,
 * `relayed` (the host passing on the user's words), `piped`, `policy`, `auto`; `human` as earlier versions wrote it (a person or the host model, not
 * told apart); `unknown` when the file did not record it.
 */
export type Who = "elicited" | "terminal" | "host" | "relayed" | "piped" | "policy" | "auto" | "human" | "unknown";
export const WHO: readonly Who[] = [
  "elicited",
  "terminal",
  "host",
  "relayed",
  "piped",
  "policy",
  "auto",
  "human",
  "unknown",
];

export interface SeverityTally {
  blocking: number;
  warning: number;
  note: number;
}

export interface PhaseRef {
  /** 0-based, as stored in the state file. */
  index: number;
  /** 1-based, as people count phases. */
  number: number;
  /** null when the index names no phase of the spec (an upstream file out of step with its spec). */
  name: string | null;
}

export interface SignalRow {
  name: SignalName;
  label: string;
  /** The recorded value: boolean, complexity, null, list of concerns or a task count. */
  value: boolean | string | number | string[] | null;
  /** The value as a short text. */
  display: string;
  /** When the signal fires, in words. */
  rule: string;
  /** Whether the value meets the rule (computed from the recorded value). */
  fires: boolean;
  /** Whether the signal counted for this decision: false for all in fast mode (not evaluated). */
  fired: boolean;
}

export type PlanMode = "auto" | "fast" | "paused";

export interface PlanGate {
  /** auto: no signal fired; fast: --fast skips evaluation; paused: a person or policy answered. */
  mode: PlanMode;
  /** What happened to the plan. */
  result: "approved" | "revised" | "skipped" | "other";
  /** false in fast mode: the signals were recorded but did not decide anything. */
  evaluated: boolean;
  signals: SignalRow[];
  /** Names of the signals that fired (the recorded list, else computed from the values). */
  fired: string[];
  /** A parallel session's waves for the plan, in words ("Tasks 1, 2, 3 → 4"); null: a serial session. */
  waves: string | null;
}

export interface LoggedDecision {
  /** 1-based position in the session's decisions. */
  n: number;
  /** The machine's decision name (`auto_approved_plan`, `overrode_review`, ...; `note` for legacy text). */
  decision: string;
  /** The decision in words. */
  what: string;
  kind: DecisionKind;
  timestamp: string | null;
  who: Who;
  /** Who answered, in words ("answered by the host model; no person may have seen it"). */
  whoText: string;
  /** true: a person answered (elicited, terminal); false: nobody did, or no person for sure; null: not known. */
  byPerson: boolean | null;
  /** true when the file did not record `by` and `who` was read from the decision's name. */
  whoInferred: boolean;
  /** The machine state the decision was taken in, when recorded. */
  state: string | null;
  phase: PhaseRef | null;
  /** true when the phase was read from the text of a legacy decision ("Phase 2 plan approved"). */
  phaseInferred: boolean;
  /** Present on plan decisions that carry a signal snapshot. */
  plan: PlanGate | null;
  answer: string | null;
  rationale: string | null;
  /** The user's own words as the host relayed them (`by: "relayed"`; the host's claim). */
  userWords: string | null;
  /** What a person said with the decision (src/log/person-words.ts); null: no person's words. */
  personWords: PersonWords | null;
  note: string | null;
}

export type PhaseOutcome = "complete" | "overridden" | "skipped" | "in progress" | "pending";

export interface PhaseLog extends PhaseRef {
  name: string;
  complexity: string;
  complexityOverride: string | null;
  status: string;
  planPath: string | null;
  outcome: PhaseOutcome;
  tasks: number | null;
  retries: number | null;
  /** pass | fail | skipped | not run, or null when the file does not say. */
  verification: string | null;
  reviewFindings: SeverityTally | null;
  reviewOverridden: boolean;
  verificationSkipped: boolean;
  startedAt: string | null;
  completedAt: string | null;
  durationMs: number | null;
  /** Decision numbers (`n`) taken in this phase. */
  decisions: number[];
  /** Decisions that overrode a gate in this phase (overrode_review, skipped_verification, ...). */
  overrides: string[];
  commits: number;
  recoveryCommits: number;
  /** What this phase's persona runs spent. */
  cost: CostCell;
}

export interface FinalReviewLog {
  status: string;
  findings: SeverityTally;
  /** Every finding of the final review once with its id and fate; without the ledger, the last round's (id, fate null). */
  items: FinalItem[];
  /** Fix rounds run (the machine allows at most 3). */
  fixRounds: number;
  /** Decision numbers taken during the final review. */
  decisions: number[];
  cost: CostCell;
}

export interface CommitLog {
  sha: string;
  short: string;
  /** As it was made (autopilot's label in files that did not record it). */
  subject: string;
  label: string;
  recovery: boolean;
  phase: PhaseRef | null;
  timestamp: string | null;
}

export interface Totals {
  phases: { total: number; complete: number; skipped: number; pending: number };
  tasks: number;
  retries: number;
  decisions: { total: number } & Record<Who, number>;
  plans: { auto: number; fast: number; paused: number };
  overrides: number;
  commits: { total: number; recovery: number };
  reviewFindings: SeverityTally;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
}

export interface DecisionLog {
  logVersion: typeof DECISION_LOG_VERSION;
  session: string;
  /** A title for people: the PR title the session wrote, else the spec's folder or file name. */
  title: string;
  spec: string;
  rigor: string;
  reviewPlans: boolean;
  currentState: string;
  stage: string | null;
  currentPhase: PhaseRef | null;
  stopped: boolean;
  startingCommit: string | null;
  updatedAt: string | null;
  outcome: { status: "done" | "stopped" | "in progress"; headline: string };
  decisions: LoggedDecision[];
  phases: PhaseLog[];
  finalReview: FinalReviewLog;
  commits: CommitLog[];
  /** A parallel session's waves, each task's worktree, merge and validation (empty: a serial session). */
  waves: WaveLog[];
  /** Every verification and review round, of every phase and of the final review, with the findings it reported. */
  checks: CheckRoundLog[];
  /** Every finding of the session once, with its fate (empty for a state from before the finding ledger). */
  findings: FindingLog[];
  totals: Totals;
  /** What the session spent: the total, per persona and model, each run's model and why, and the budget. */
  cost: SessionCost;
}
