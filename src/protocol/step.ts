// The Step envelope and the persona result: the MCP contract documented in docs/mcp.md.
import { z } from "zod";
import { StateName, Complexity, RigorLevel, CheckpointType, PersonaName, ResultKind } from "../vocabulary.js";

export { PERSONAS, PersonaName, ResultKind } from "../vocabulary.js";

const StepPhase = z.object({
  index: z.number().int(),
  number: z.number().int(),
  name: z.string(),
  complexity: Complexity,
  complexityOverride: Complexity.nullable(),
  total: z.number().int(),
});
type StepPhase = z.infer<typeof StepPhase>;

/** One task of a parallel wave: its own executor, prompt, brief and worktree (docs/mcp.md). */
export const WaveDispatch = z.object({
  task: z.string(),
  name: z.string(),
  description: z.string(),
  prompt: z.string(),
  /** The task's git worktree, relative to the project: the only place its executor works. */
  worktree: z.string(),
  brief: z.string(),
  /**
   * The step that started this entry's executor, when it runs already (another task's report came
   * in since): report it as it returns; start it again only if its executor is gone.
   */
  startedAt: z.number().int().optional(),
  /** The model this entry's executor runs on, in the client's terms (as `next.model`). */
  model: z.string().optional(),
});
export type WaveDispatch = z.infer<typeof WaveDispatch>;

export const DispatchNext = z.object({
  kind: z.literal("dispatch"),
  persona: PersonaName,
  description: z.string(),
  prompt: z.string(),
  /**
   * The model to run the persona on, in the client's terms ("opus" for Claude Code's Agent call,
   * a Codex model for spawn_agent, the API's id headless). Absent: the agent's own (its file's
   * `model:`, or the host's), which is the persona's tier already.
   */
  model: z.string().optional(),
  /**
   * A parallel wave: run one `persona` per entry at the same time, each with its own prompt, and
   * report each with its `task` (absent: one dispatch, as always).
   */
  tasks: z.array(WaveDispatch).optional(),
  expects: z.object({
    result: ResultKind,
    artifacts: z.object({
      plan: z.string().optional(),
      handoff: z.string().optional(),
      state: z.string().optional(),
      brief: z.string().optional(),
    }),
  }),
});
export const AskNext = z.object({
  kind: z.literal("ask"),
  /**
   * Which question this is (an entry of machines/questions.ts: "approvePlan", "budget", ...): the
   * same name whatever the wording, so a client or script can tell the questions apart.
   */
  name: z.string(),
  question: z.string(),
  options: z.array(z.string()),
  context: z.string().optional(),
  /**
   * `--human-gates`: the options only a person may choose (through the client's form or
   * `autopilot approve` in a terminal); autopilot_decide from the host is refused for them.
   */
  humanOnly: z.array(z.string()).optional(),
});
const WaitNext = z.object({
  kind: z.literal("wait"),
  reason: z.string(),
  resumeWith: z.string(),
});
const DoneNext = z.object({
  kind: z.literal("done"),
  summary: z.record(z.string(), z.unknown()),
});
export const Next = z.discriminatedUnion("kind", [DispatchNext, AskNext, WaitNext, DoneNext]);
export type Next = z.infer<typeof Next>;
export type DispatchNext = z.infer<typeof DispatchNext>;
export type AskNext = z.infer<typeof AskNext>;

export const Step = z.object({
  session: z.string(),
  stepId: z.number().int(),
  state: StateName,
  phase: StepPhase.nullable(),
  rigor: RigorLevel,
  reviewPlans: z.boolean(),
  report: z.string().optional(),
  next: Next,
  /**
   * One line saying what the host does with `next` and which tool to call after. An addition to
   * the protocol for clients that show the model structuredContent instead of the text rendering.
   */
  todo: z.string().optional(),
});
export type Step = z.infer<typeof Step>;

// ---- results a host reports after a dispatch ----
const SeverityWord = z.enum(["blocking", "warning", "note", "critical", "important", "suggestion"]);
const ReportedFinding = z.object({
  severity: SeverityWord,
  file: z.string().optional(),
  line: z.number().int().optional(),
  title: z.string(),
  rationale: z.string().optional(),
  /** The concrete input or sequence that triggers it: a blocking finding needs one (and a file and a line). */
  scenario: z.string().optional(),
});

const withError = { error: z.string().optional() };

/** Commands run and what they showed ("npm test: 14 passed"), as a persona reports them. */
const Evidence = z.array(z.string());

/** What the person asked (their words in the brief) that the persona did not do, each with why: the next report tells them. */
const NotDone = z.array(z.object({ asked: z.string(), why: z.string() }));
/**
 * The commit message the persona proposes for the work it leaves (a subject line, then optionally a
 * blank line and a body), as a developer writes their own: autopilot fits it to the repository's
 * convention (src/effects/commit-message.ts).
 */
const CommitMessage = z.string().max(4000);

export const PlannedResult = z.object({
  kind: z.literal("planned"),
  planPath: z.string().optional(),
  /** Unknowns a person must settle before the plan runs (each pauses the plan for review). */
  concerns: z.array(z.string()).optional(),
  /** What the planner assumed where the spec is silent (recorded and shown; no pause). */
  assumptions: z.array(z.string()).optional(),
  /** Unknowns that can wait for a later phase (recorded and shown; no pause). */
  deferred: z.array(z.string()).optional(),
  summary: z.string().optional(),
  notDone: NotDone.optional(),
  ...withError,
});
export const ExecutedResult = z.object({
  kind: z.literal("executed"),
  outcome: z.enum(["complete", "checkpoint", "failed", "plan_defect"]).optional(),
  checkpoint: z
    .object({
      type: CheckpointType,
      label: z.string(),
      options: z.array(z.string()).optional(),
      details: z.string().optional(),
    })
    .optional(),
  task: z.object({ number: z.number().int().nullable().optional(), name: z.string() }).optional(),
  error: z.string().optional(),
  fixAttempted: z.string().optional(),
  /** plan_defect: what is wrong in the plan at `task`, and the evidence. */
  defect: z.string().optional(),
  summary: z.string().optional(),
  evidence: Evidence.optional(),
  /** What later phases should know (kept in the session's learnings). */
  learnings: z.array(z.string()).optional(),
  notDone: NotDone.optional(),
  commitMessage: CommitMessage.optional(),
});
export const VerifiedResult = z.object({
  kind: z.literal("verified"),
  verdict: z.enum(["pass", "fail"]).optional(),
  findings: z.array(z.string()).optional(),
  evidence: Evidence.optional(),
  ...withError,
});
export const ReviewedResult = z.object({
  kind: z.literal("reviewed"),
  findings: z.array(ReportedFinding).optional(),
  ...withError,
});
export const FixedResult = z.object({
  kind: z.literal("fixed"),
  summary: z.string().optional(),
  /** Findings the fixer did not change because it holds they are wrong, each with its evidence. */
  disputed: z.array(z.object({ finding: z.string(), evidence: z.string() })).optional(),
  evidence: Evidence.optional(),
  learnings: z.array(z.string()).optional(),
  notDone: NotDone.optional(),
  commitMessage: CommitMessage.optional(),
  ...withError,
});
export const PersonaResult = z.discriminatedUnion("kind", [
  PlannedResult,
  ExecutedResult,
  VerifiedResult,
  ReviewedResult,
  FixedResult,
]);
export type PersonaResult = z.infer<typeof PersonaResult>;
