// The shared vocabulary: the words every layer uses (states, rigor, complexity, findings and their
// severities, checkpoint kinds, decision channels and their phrases, personas and their results).
// The ground floor: it imports nothing of ours, so the state schema, the statechart, the signal
// registry, the notices and the protocol can all use it without importing one another
// (tests/architecture/layers.test.ts holds src/ to no circle).
import { z } from "zod";

/** The skill's ten states, persisted as `currentState`. */
export const STATE_NAMES = [
  "INIT",
  "ASSESS",
  "PLAN",
  "APPROVE_PLAN",
  "EXECUTE",
  "VERIFY",
  "REVIEW",
  "PHASE_COMPLETE",
  "FINAL_REVIEW",
  "DONE",
] as const;
export const StateName = z.enum(STATE_NAMES);
export type StateName = z.infer<typeof StateName>;

/** `--fast`, standard, `--thorough` (what each changes: RIGOR in src/rules/policy.ts). */
export const RigorLevel = z.enum(["fast", "standard", "thorough"]);
export type RigorLevel = z.infer<typeof RigorLevel>;

/** A phase's complexity, as the spec annotates it (`<!-- complexity: low|medium|high -->`). */
export const Complexity = z.enum(["low", "medium", "high"]);
export type Complexity = z.infer<typeof Complexity>;

/** Severity in our canonical vocabulary; `critical|important|suggestion` are mapped on read (normalizeSeverity). */
export const Severity = z.enum(["blocking", "warning", "note"]);
export type Severity = z.infer<typeof Severity>;

/** A review finding. */
export const Finding = z.looseObject({
  severity: Severity,
  title: z.string(),
  file: z.string().optional(),
  line: z.number().int().optional(),
  rationale: z.string().optional(),
  /** The concrete input or sequence that triggers the problem (required of a blocking finding). */
  scenario: z.string().optional(),
});
export type Finding = z.infer<typeof Finding>;

/** Findings counted by severity. */
export const SeverityCounts = z.looseObject({
  blocking: z.number().int().nonnegative(),
  warning: z.number().int().nonnegative(),
  note: z.number().int().nonnegative(),
});
export type SeverityCounts = z.infer<typeof SeverityCounts>;

/** A plan task's `[checkpoint:<kind>]` marker: where a person must look, decide or act. */
const CHECKPOINT_KINDS = ["human-verify", "decision", "human-action"] as const;
export type CheckpointKind = (typeof CHECKPOINT_KINDS)[number];
/** What an executor reports at a checkpoint: one of the kinds, or `passed` (nothing for a person to do). */
export const CheckpointType = z.enum([...CHECKPOINT_KINDS, "passed"]);
export type CheckpointType = z.infer<typeof CheckpointType>;

/** The persona subagents, by the names their files and the clients' agents carry. */
export const PERSONAS = [
  "harness-planner",
  "harness-task-executor",
  "harness-verifier",
  "harness-code-reviewer",
] as const;
export const PersonaName = z.enum(PERSONAS);
export type PersonaName = z.infer<typeof PersonaName>;

/** The kind of result each persona job reports. */
export const ResultKind = z.enum(["planned", "executed", "verified", "reviewed", "fixed"]);
export type ResultKind = z.infer<typeof ResultKind>;

/**
 * Who answered a decision: the channel it came through.
 *  - `elicited`: the user answered the MCP client's own form (elicitation);
 *  - `terminal`: a person typed it at an interactive terminal (`autopilot run`, `autopilot approve`);
 *  - `host`: the host model called `autopilot_decide`; the server cannot know whether a person was asked;
 *  - `relayed`: the host model called `autopilot_decide` saying it passes on the user's words (given in
 *    `userWords`): recorded as the host's claim, never as a person's answer;
 *  - `piped`: `autopilot run` read it from piped input (a script or a person; not a terminal);
 *  - `policy`: `autopilot run --yes`;
 *  - `auto`: the machine decided (no signal fired, `--fast`).
 */
export const DECISION_CHANNELS = ["elicited", "terminal", "host", "relayed", "piped", "policy", "auto"] as const;
export const DecisionChannel = z.enum(DECISION_CHANNELS);
export type DecisionChannel = z.infer<typeof DecisionChannel>;
/** True when the channel means a person answered (what `--human-gates` accepts). */
export function isHumanChannel(by: unknown): boolean {
  return by === "elicited" || by === "terminal";
}

/**
 * `by` as read from a file: a channel, or `human`, which earlier versions (and hand-written files)
 * recorded for every answer that was not automatic or policy, whether a person or the host model
 * gave it. It is still read and shown as such; it is never written any more.
 */
export const DecisionBy = z.enum([...DECISION_CHANNELS, "human"]);
export type DecisionBy = z.infer<typeof DecisionBy>;

/**
 * Who answered a decision, in words: one place for the phrases the decision log, the session
 * summary, the PR text and the headless summary use, so they never disagree.
 */
const CHANNEL_PHRASES: Record<DecisionBy, string> = {
  elicited: "answered by the user in the client's form",
  terminal: "answered by a person at a terminal",
  host: "answered by the host model; no person may have seen it",
  relayed: "relayed by the host model as the user's words (its claim; no person answered autopilot directly)",
  piped: "read from piped input to autopilot run (a script or a person; not a terminal)",
  policy: "answered by the --yes policy",
  auto: "decided automatically",
  human: 'recorded as "human" by an earlier version, which did not tell a person from the host model',
};

export function channelPhrase(by: unknown): string {
  return typeof by === "string" && by in CHANNEL_PHRASES
    ? CHANNEL_PHRASES[by as DecisionBy]
    : "who answered was not recorded";
}

/** "2 by the user in the client's form, 1 by the host model (no person may have seen it), 3 automatic". */
export function channelCounts(decisions: readonly { by?: unknown }[]): string {
  const order: [DecisionBy | "unknown", string][] = [
    ["elicited", "in the client's form"],
    ["terminal", "at a terminal"],
    ["host", "by the host model (no person may have seen it)"],
    ["relayed", "relayed by the host model as the user's words"],
    ["piped", "from piped input"],
    ["policy", "by the --yes policy"],
    ["auto", "automatic"],
    ["human", 'recorded as "human" (person or host model, not told apart)'],
    ["unknown", "not recorded"],
  ];
  const n = new Map<string, number>();
  for (const d of decisions) {
    const k = typeof d.by === "string" && d.by in CHANNEL_PHRASES ? d.by : "unknown";
    n.set(k, (n.get(k) ?? 0) + 1);
  }
  const parts = order.filter(([k]) => n.get(k)).map(([k, words]) => `${n.get(k)} ${words}`);
  return parts.length ? parts.join(", ") : "none";
}
