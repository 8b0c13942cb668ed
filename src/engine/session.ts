// The session engine: the one flow every call on a session takes, given the session's handle (its
// name checked once and its paths, src/session/paths.ts `SessionRef`) by the router (engine.ts):
// lock the session → read and migrate → rebuild the machine state → apply the event → save the
// new state with the effects it owes (the outbox) → perform them → clear them → gather facts the
// machine waits for (probes) → render the Step from the saved state. A crash anywhere leaves the
// old state, or the new state plus an outbox the next call finishes. One instance serves one call
// (the project config it reads is read once for it).
import { restsAt } from "../../machines/stages.js";
import { readFile, rename, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import type { AutopilotEvent } from "../../machines/autopilot.machine.js";
import type { AutopilotState, DecisionChannel } from "../session/schema.js";
import { initState } from "../session/schema.js";
import { PersonaResult as PersonaResultSchema, type PersonaResult, type Step } from "../protocol/step.js";
import { AutopilotError } from "../protocol/errors.js";
import { SessionStore, type LockOptions } from "../session/store.js";
import type { SessionRef } from "../session/paths.js";
import { parseSpec } from "../markdown/spec.js";
import { assertGitReady, CommitRejected, gitRunner, headCommit } from "../effects/git.js";
import { isClientConfig, takeBaseline, writeBaseline } from "../effects/ownership.js";
import type { WorktreePointer } from "../effects/worktree.js";
import { readHandoff } from "../effects/handoff.js";
import { runValidation } from "../effects/validation.js";
import { writeTextAtomic } from "../effects/fsutil.js";
import { writeScratchpad } from "../effects/scratchpad.js";
import { accepts, apply, probeFor, type Probe } from "./machine-state.js";
import { planSearchText, renderStep } from "./step.js";
import { checkedAnswer, isNote, noted } from "./answers.js";
import { formatBudget, parseUsage } from "../session/usage.js";
import type { ProjectConfig } from "../session/config.js";
import { locatePlan, planFileSha256, readPlanFacts, resultToEvent } from "./results.js";
import { performEffect } from "./perform.js";
import { briefContent, briefPath, resultPath, taskBriefContent } from "../personas/dispatch.js";
import { plannedPlanPath } from "../personas/jobs.js";
import { mergeWave, openWave } from "./wave.js";
import { readResultFile } from "./result-file.js";
import { ensureBaseline } from "./baseline.js";
import { noteHandOver, takePersonEdits } from "./person-edits.js";
import { gatherDispatchFacts } from "./facts.js";
import { recordRun } from "./runs.js";
import { withModel, type Runs } from "../personas/models.js";
// Reliability testing hook (docs/reliability.md): a no-op unless AUTOPILOT_FAULT is set.
import { faultPoint } from "./faults.js";
import { assertParseableMarkdown } from "./limits.js";
import {
  commitRejectedError,
  failedAfterRecording,
  staleStepMessage,
  unknownSessionMessage,
} from "./session-errors.js";
import type { startArgs } from "./flags.js";
import { PARALLEL_MIN_TASKS, RIGOR } from "../rules/policy.js";
import { resumedNotice } from "../../machines/actions/session.js";

export interface SessionEngineOptions {
  /** The clock; tests pass a fixed one. */
  now?: () => Date;
  /** Long work in progress (validation commands, effects): MCP progress notifications. */
  onProgress?: (message: string) => void;
  /** Diagnostics for the client's log. */
  log?: (level: "info" | "warning" | "error", message: string) => void;
  validationTimeoutMs?: number;
  /** Session lock timing (wait before `busy`, stale takeover); the store's defaults otherwise. */
  lock?: LockOptions;
  /** Who runs the personas (the client, or the headless runner): the model a dispatch names. */
  runs?: Runs;
  /** Set on the engine that works inside a session's own git worktree (docs/cli.md, --worktree). */
  workspace?: { projectRoot: string; pointer: WorktreePointer };
}

export interface StartResult {
  step: Step;
  resumed: boolean;
  /** Flags given on a resume are ignored (the session keeps its own); this says so. */
  ignoredFlags: string[];
  notes: string[];
}

/** What the router made of autopilot_start's arguments: the words, and the spec's project-relative path. */
export interface StartRequest {
  parsed: ReturnType<typeof startArgs>;
  rel: string;
}

export class SessionEngine {
  readonly root: string;
  readonly store: SessionStore;
  private readonly opts: SessionEngineOptions;
  /** `.harness/config.json`, read at most once for this call (the router's). */
  private readonly config: () => Promise<ProjectConfig>;

  constructor(root: string, opts: SessionEngineOptions, config: () => Promise<ProjectConfig>, store?: SessionStore) {
    this.root = path.resolve(root);
    this.store = store ?? new SessionStore(this.root);
    this.opts = opts;
    this.config = config;
  }

  private now(): string {
    return (this.opts.now?.() ?? new Date()).toISOString();
  }

  // ---- calls (the router's, each with the session's handle) ----------------------------------

  async start(ref: SessionRef, { parsed, rel }: StartRequest): Promise<StartResult> {
    const config = await this.config();
    return this.store.withLock(
      ref,
      async () => {
        if (await this.store.exists(ref)) {
          const { state, notes } = await this.load(ref);
          if (state.currentState !== "DONE") {
            await takePersonEdits(this.root, ref.paths, state);
            let s = await this.finishPending(ref, state);
            // A budget given on a resume replaces the session's (the way to raise it from outside).
            const budget = parsed.budget ?? (state.budget ? null : (config.budget ?? null));
            if (budget) s = { ...s, budget: { ...budget, continueOnceAt: null } };
            const baselineNote = await ensureBaseline(this.root, ref.paths, () => this.now());
            s = await this.advance(ref, s, { type: "RESUME", now: this.now() });
            const looked = await this.lookForInteractivePlan(ref, s);
            s = looked.state;
            return {
              step: await this.render(ref, s),
              resumed: true,
              ignoredFlags: parsed.given,
              notes: [
                // "Resuming autopilot from state …" is the machine's (the RESUME report); saying it
                // here too printed it twice.
                ...(baselineNote ? [baselineNote] : []),
                ...(looked.note ? [looked.note] : []),
                ...(parsed.budget ? [`Budget set to ${formatBudget(parsed.budget)}.`] : []),
                ...(parsed.given.length
                  ? [
                      `Flags ${parsed.given.join(" ")} ignored: a resumed session keeps the flags it started with (rigor ${s.rigorLevel}${s.reviewPlans ? ", --review-plans" : ""}).`,
                    ]
                  : []),
                ...notes,
              ],
            };
          }
          await this.archiveDone(ref);
        }
        const specText = await readFile(path.join(this.root, rel), "utf8").catch((e: NodeJS.ErrnoException) => {
          throw new AutopilotError("spec_not_found", `Cannot read the spec ${rel}: ${e.code ?? e.message}.`);
        });
        assertParseableMarkdown(specText, `The spec ${rel}`);
        const { phases } = parseSpec(specText);
        await assertGitReady(this.root);
        const startingCommit = await headCommit(this.root);
        const now = this.now();
        // What the working tree held before autopilot did anything: never autopilot's to commit.
        const baseline = await takeBaseline(this.root, gitRunner(this.root), now);
        await writeBaseline(ref.paths, baseline);
        // Step ids start again at a fresh session: an earlier session's result files must not answer its steps.
        await rm(path.join(this.root, path.dirname(resultPath({ sessionDir: ref.paths.sessionDirRel }, 1))), {
          recursive: true,
          force: true,
        });
        // The config's budget, else the rigor level's.
        const maxAttempts = config.retryBudget ?? RIGOR[parsed.rigorLevel].retryBudget;
        const initial = initState({
          sessionDir: ref.paths.sessionDirRel,
          specPath: rel,
          startingCommit,
          now,
          maxAttempts,
        });
        const budget = parsed.budget ?? config.budget ?? null;
        if (budget) initial.budget = { ...budget, continueOnceAt: null };
        // --human-gates: the flag, else the config's `humanGates`, else on with --thorough.
        if (parsed.humanGates || (config.humanGates ?? RIGOR[parsed.rigorLevel].humanGates))
          initial.humanOnlyGates = true;
        if (parsed.parallel || config.parallel === true)
          initial.parallel = { minIndependent: config.parallelMinTasks ?? PARALLEL_MIN_TASKS };
        const s = await this.advance(ref, initial, {
          type: "START",
          phases: phases.map((p) => ({ name: p.name, complexity: p.complexity })),
          specPath: rel,
          sessionDir: ref.paths.sessionDirRel,
          startingCommit,
          rigorLevel: parsed.rigorLevel,
          reviewPlans: parsed.reviewPlans,
          userChanges: baseline.entries.map((e) => e.path).filter((p) => !isClientConfig(p)),
          now,
        });
        const step = await this.render(ref, s);
        return { step, resumed: false, ignoredFlags: [], notes: [] };
      },
      this.opts.lock,
    );
  }

  /** The current Step again. Finishes work a crash left half-done; otherwise changes nothing. */
  async next(ref: SessionRef): Promise<Step> {
    await this.config();
    return this.withSession(ref, async (state) => {
      const s = await this.finishPending(ref, state);
      // A host calls autopilot_next when it lost the thread (a context reset, a new conversation):
      // the Step starts with where the session stands and what was done and decided, as a resume's
      // does. Shown, not saved: the state file stays as it was.
      if (s.currentState === "DONE" || s.notices.some((n) => n.kind === "resumed")) return this.render(ref, s);
      return this.render(ref, { ...s, notices: [resumedNotice(s), ...s.notices] });
    });
  }

  /**
   * `usage`: what the persona run cost, as far as the host knows (null: it does not say). Added to
   * the session's ledger in the same write as the transition, so a stale or refused report adds
   * nothing. `raw` undefined or null: the persona's result file (the brief's "- Result:" line), as
   * the persona wrote it; a host then reports only the step (docs/mcp.md, autopilot_report).
   */
  async report(ref: SessionRef, stepId: number, raw: unknown, rawUsage: unknown = null, task?: string): Promise<Step> {
    const usage = parseUsage(rawUsage);
    // A config the effects would refuse is refused before anything is recorded (read once per call).
    await this.config();
    if (raw === undefined || raw === null)
      raw = await readResultFile(this.root, ref, stepId, task?.trim() || undefined, {
        read: () => this.read(ref),
        peek: () => this.peek(ref),
      });
    const result = await this.parseResult(ref, raw);
    return this.withSession(ref, async (state) => {
      let s = await this.finishPending(ref, state);
      if (s.currentState === "EXECUTE" && restsAt(s, "wave") && !s.stopped)
        return this.reportTask(ref, s, stepId, result, usage, task);
      const step = await this.dispatchAt(ref, s, stepId, result, state);
      const event = await resultToEvent(ref.paths, s, result, step.next.expects.artifacts.plan, this.now());
      s = await this.advance(ref, recordRun(s, usage, this.opts.runs, await this.config()), event, {
        recorded: { what: `The persona's result for step ${stepId}`, stepId, call: "autopilot_report" },
      });
      return this.render(ref, s);
    });
  }

  /**
   * One task's report in a parallel wave: taken for a task still running whose report is not in
   * yet, from the step that dispatched it or any later one (the others' reports move the step on
   * without making this one stale). The task is the report's `task`, else the result's task number.
   */
  private async reportTask(
    ref: SessionRef,
    state: AutopilotState,
    stepId: number,
    result: PersonaResult,
    usage: ReturnType<typeof parseUsage>,
    given?: string,
  ): Promise<Step> {
    const step = renderStep(state, ref.slug);
    const run = state.phaseRun.waveRun;
    const running = (run?.tasks ?? []).filter((t) => t.status === "running");
    const fromResult =
      result.kind === "executed" && result.task?.number != null ? String(result.task.number) : undefined;
    const id = given?.trim() || fromResult;
    const waiting = running.filter((t) => !t.reported).map((t) => t.task);
    if (!id)
      throw new AutopilotError(
        "bad_result",
        `Step ${state.stepId} runs several tasks at once: report each executor's result with its task ("task": ${waiting.map((t) => `"${t}"`).join(" or ")}).`,
        { step },
      );
    const t = running.find((x) => x.task === id);
    if (!t || t.reported)
      throw new AutopilotError(
        "bad_result",
        `Task ${id} ${t ? "has reported already" : "is not running in this wave"}; the wave waits for ${waiting.length ? `task${waiting.length === 1 ? "" : "s"} ${waiting.join(", ")}` : "nothing"}. Nothing was changed.`,
        { step },
      );
    if (stepId < (t.dispatchedAt ?? 0) || stepId > state.stepId) {
      throw new AutopilotError(
        "stale_step",
        `Step ${stepId} is stale for task ${id}: its current attempt was dispatched at step ${t.dispatchedAt}. Nothing was changed; follow the current Step.`,
        { step: await this.render(ref, state) },
      );
    }
    if (result.kind !== "executed" && !result.error)
      throw new AutopilotError(
        "bad_result",
        `Task ${id} expects an "executed" result from harness-task-executor, not "${result.kind}".`,
        { step },
      );
    const ex = result.kind === "executed" ? result : null;
    const done =
      !!ex && (ex.outcome === "complete" || (ex.outcome === "checkpoint" && ex.checkpoint?.type === "passed"));
    // A human checkpoint: asked as in a serial session once the wave's reports are in; the task then goes on with the answer.
    const checkpoint =
      !done && ex?.outcome === "checkpoint" && ex.checkpoint && ex.checkpoint.type !== "passed"
        ? ex.checkpoint
        : undefined;
    // A plan defect: the plan goes back to the planner once the wave's other reports are in (not a retry).
    const defect =
      !done && ex?.outcome === "plan_defect" && !result.error?.trim() ? ex.defect?.trim() || "(no details)" : undefined;
    const error =
      done || checkpoint
        ? undefined
        : result.error?.trim() ||
          (defect ? `the executor reports a defect in the plan: ${defect}` : "the executor reported a failure");
    const s = await this.advance(
      ref,
      recordRun(state, usage, this.opts.runs, await this.config(), id),
      {
        type: "TASK_REPORTED",
        task: id,
        done,
        ...(error ? { error } : {}),
        ...(checkpoint ? { checkpoint } : {}),
        ...(defect ? { defect } : {}),
        ...(ex?.notDone?.length ? { notDone: ex.notDone } : {}),
        ...(ex?.summary ? { summary: ex.summary } : {}),
        ...(ex?.learnings?.length ? { learnings: ex.learnings } : {}),
        ...(ex?.commitMessage?.trim() ? { commitMessage: ex.commitMessage } : {}),
        ...(done && ex?.evidence?.length ? { evidence: ex.evidence.map((e) => `Task ${id}: ${e}`) } : {}),
        now: this.now(),
      },
      { recorded: { what: `Task ${id}'s result (step ${stepId})`, stepId, call: "autopilot_report" } },
    );
    faultPoint("wave-reported");
    return this.render(ref, s);
  }

  /**
   * Apply an answer to the ask Step `stepId`. `by` is the channel it came through: a caller that
   * cannot vouch for a person answering (the MCP tool autopilot_decide) says `host`. The person's
   * words with no answer to take (none given, or a Step that asks nothing) are recorded as a note
   * for the next persona's brief, whatever the step (src/engine/answers.ts).
   */
  async decide(
    ref: SessionRef,
    stepId: number,
    answer: string | undefined,
    rationale?: string,
    by: DecisionChannel = "host",
    /** by "relayed": the user's reply as the host quoted it. */
    userWords?: string,
  ): Promise<Step> {
    await this.config();
    return this.withSession(ref, async (state) => {
      let s = await this.finishPending(ref, state);
      const said = {
        ...(rationale ? { rationale: rationale.slice(0, 2000) } : {}),
        ...(by === "relayed" && userWords ? { userWords: userWords.slice(0, 2000) } : {}),
      };
      // An answer is for the Step it names (stale otherwise); words alone are recorded whenever they come.
      if (answer?.trim()) await this.assertStep(ref, s, stepId, state);
      if (isNote(s, ref.slug, answer, said, by)) {
        s = noted(s, ref.slug, answer, said, by, this.now());
        await this.store.write(ref, s);
        return this.render(ref, s);
      }
      const chosen = checkedAnswer(s, ref.slug, answer!, by, said);
      s = await this.advance(
        ref,
        s,
        { type: "DECIDE", answer: chosen, by, ...said, now: this.now() },
        {
          recorded: { what: `Your answer "${chosen}" to step ${stepId}`, stepId, call: "autopilot_decide" },
        },
      );
      return this.render(ref, s);
    });
  }

  /** The saved state, read-only (no lock: a reader never blocks a writer). */
  async read(ref: SessionRef): Promise<AutopilotState> {
    if (!(await this.store.exists(ref)))
      throw new AutopilotError("unknown_session", unknownSessionMessage(ref.slug, await this.store.list()));
    return (await this.store.read(ref)).state;
  }

  /**
   * Save research to the session's scratchpad (write_scratchpad). The session's rules: nothing is
   * written under --fast; a phase index names that phase's folder, so that PHASE_COMPLETE (which
   * clears the folder by the phase's name) finds it. Returns the file's absolute path.
   */
  async writeScratchpad(ref: SessionRef, phase: string | number, filename: string, content: string): Promise<string> {
    const state = await this.read(ref);
    if (RIGOR[state.rigorLevel].scratchpad === "none")
      throw new AutopilotError(
        "bad_input",
        "This session runs with --fast: the scratchpad is skipped. Keep the research in the conversation.",
      );
    const name = typeof phase === "number" && state.phases[phase] ? state.phases[phase].name : phase;
    return writeScratchpad(ref.paths, name, filename, content);
  }

  /**
   * A persona's result recorded by the persona itself (autopilot_result): checked as a report is,
   * for the dispatch Step `stepId` only, then written where `report` without a result reads it.
   * No transition: the host's report of the step still moves the session.
   */
  async record(ref: SessionRef, stepId: number, raw: unknown): Promise<string> {
    const result = await this.parseResult(ref, raw);
    return this.withSession(ref, async (state) => {
      const s = await this.finishPending(ref, state);
      if (s.currentState === "EXECUTE" && restsAt(s, "wave"))
        throw new AutopilotError(
          "bad_result",
          "A parallel wave's task records its result in the file its brief names (- Result:), not here.",
          { step: renderStep(s, ref.slug) },
        );
      await this.dispatchAt(ref, s, stepId, result);
      const rel = resultPath({ sessionDir: ref.paths.sessionDirRel }, stepId);
      await writeTextAtomic(path.join(this.root, rel), JSON.stringify(result) + "\n");
      return rel;
    });
  }

  /** The one check of a persona result's shape, for every caller; bad_result with the current Step. */
  private async parseResult(ref: SessionRef, raw: unknown): Promise<PersonaResult> {
    // A result with a planPath object once surfaced as a TypeError (tests/reliability/hostile.test.ts).
    const parsed = PersonaResultSchema.safeParse(raw);
    if (parsed.success) return parsed.data;
    // An unknown session is the more useful error; otherwise show where the session is.
    const step = await this.peek(ref);
    const issue = parsed.error.issues[0];
    const kind = step.next.kind === "dispatch" ? `"${step.next.expects.result}"` : "<the kind the prompt asks for>";
    throw new AutopilotError(
      "bad_result",
      `The result does not fit the protocol (${["result", ...(issue?.path ?? [])].join(".")}: ${issue?.message}). Send {"kind": ${kind}, ...} as described in docs/mcp.md.`,
      { step },
    );
  }

  /** The dispatch Step `stepId` is the current one and expects this result's kind; its Step. */
  private async dispatchAt(
    ref: SessionRef,
    s: AutopilotState,
    stepId: number,
    result: PersonaResult,
    found?: AutopilotState,
  ): Promise<Step & { next: { kind: "dispatch" } }> {
    await this.assertStep(ref, s, stepId, found);
    const step = renderStep(s, ref.slug);
    if (step.next.kind !== "dispatch")
      throw new AutopilotError(
        "bad_result",
        `Step ${s.stepId} is not waiting for a persona (it is a "${step.next.kind}" step). Follow the current Step instead.`,
        { step },
      );
    if (result.kind !== step.next.expects.result)
      throw new AutopilotError(
        "bad_result",
        `Step ${s.stepId} expects a "${step.next.expects.result}" result from ${step.next.persona}, not "${result.kind}". Report the persona's result with kind "${step.next.expects.result}".`,
        { step },
      );
    return step as Step & { next: { kind: "dispatch" } };
  }

  /** The Step as saved, without finishing anything (for status and resources). */
  async peek(ref: SessionRef): Promise<Step> {
    return this.stepFor(ref, await this.read(ref));
  }

  /** The Step as this engine's client is told it: with its dispatch's model, in its worktree. */
  private async stepFor(ref: SessionRef, state: AutopilotState): Promise<Step> {
    const runs = this.opts.runs ?? "other";
    const step = renderStep(state, ref.slug);
    return this.inWorkspace(runs === "other" ? step : withModel(step, state, runs, (await this.config()).models));
  }

  // ---- internals -----------------------------------------------------------------------------

  /** A dispatch in a worktree session names the folder the persona works in (DONE's finish notice says how to merge). */
  private inWorkspace(step: Step): Step {
    const ws = this.opts.workspace;
    if (!ws) return step;
    const { pointer } = ws;
    const where = path.join(ws.projectRoot, pointer.path);
    if (step.next.kind === "dispatch") {
      const inside = (prompt: string) =>
        `Work in ${where} (this session's git worktree, branch ${pointer.branch}): every path below is relative to it.\n${prompt}`;
      return {
        ...step,
        next: {
          ...step.next,
          prompt: inside(step.next.prompt),
          ...(step.next.tasks ? { tasks: step.next.tasks.map((t) => ({ ...t, prompt: inside(t.prompt) })) } : {}),
        },
      };
    }
    return step;
  }

  private async withSession<T>(ref: SessionRef, fn: (state: AutopilotState) => Promise<T>): Promise<T> {
    if (!(await this.store.exists(ref)))
      throw new AutopilotError("unknown_session", unknownSessionMessage(ref.slug, await this.store.list()));
    return this.store.withLock(
      ref,
      async () => {
        const { state } = await this.load(ref);
        await takePersonEdits(this.root, ref.paths, state);
        return fn(state);
      },
      this.opts.lock,
    );
  }

  private async load(ref: SessionRef) {
    const loaded = await this.store.read(ref);
    // The skill's migration: a pre-v3 file whose history names no commit starts from HEAD.
    if (loaded.state.startingCommit !== null) return loaded;
    return { ...loaded, state: { ...loaded.state, startingCommit: await headCommit(this.root).catch(() => null) } };
  }

  /** `found`: the state as this call read it, before it finished what an earlier call left owed. */
  private async assertStep(ref: SessionRef, state: AutopilotState, stepId: number, found?: AutopilotState) {
    if (stepId === state.stepId) return;
    const finished = found && found !== state ? found : null;
    const step = await this.render(ref, state);
    throw new AutopilotError("stale_step", staleStepMessage(stepId, state, finished), {
      step,
      ...(finished ? { finished: true } : {}),
    });
  }

  /** Apply an event, save it with its outbox, perform the effects, then gather any facts owed. */
  private async advance(
    ref: SessionRef,
    state: AutopilotState,
    event: AutopilotEvent,
    /** `recorded`: what the event records for the caller, said if what follows its save fails. */
    opts: { keepReport?: boolean; recorded?: { what: string; stepId: number; call: string } } = {},
  ): Promise<AutopilotState> {
    // The report is what happened since the host last saw a Step: a host event starts it afresh,
    // and the automatic steps that follow (probes, effects, a plan found on resume) add to it.
    const s = apply(opts.keepReport ? state : { ...state, notices: [] }, event);
    faultPoint("before-save");
    await this.store.write(ref, s);
    faultPoint("after-save");
    try {
      return await this.runProbes(ref, await this.performOutbox(ref, s, true));
    } catch (e) {
      const r = opts.recorded;
      if (!r) throw e;
      const saved = await this.store.read(ref).then(
        (x) => x.state,
        () => null,
      );
      throw failedAfterRecording(e, r.what, r.stepId, saved, r.call);
    }
  }

  /** Anything a crash left: an outbox not yet cleared, facts not yet gathered; a plan edited since its approval. */
  private async finishPending(ref: SessionRef, state: AutopilotState): Promise<AutopilotState> {
    let s = state;
    if (s.outbox.length) {
      this.opts.log?.("info", `Finishing ${s.outbox.length} effect(s) left by an interrupted call.`);
      s = await this.performOutbox(ref, s);
    }
    s = await this.runProbes(ref, s);
    return this.checkPlanUnchanged(ref, s);
  }

  /**
   * An approval belongs to one plan: while the phase runs (and while the approval question is
   * open), the plan file must still hash to what was approved (or shown). If it changed, the
   * session goes back through the plan gate and the Step says so.
   */
  private async checkPlanUnchanged(ref: SessionRef, state: AutopilotState): Promise<AutopilotState> {
    if (state.stopped) return state;
    const phase = state.phases[state.currentPhase];
    if (!phase?.planPath) return state;
    const run = state.phaseRun;
    const expected = ["EXECUTE", "VERIFY", "REVIEW"].includes(state.currentState)
      ? run.approvedPlanSha256
      : state.currentState === "APPROVE_PLAN" && restsAt(state, "review")
        ? run.planSha256
        : null;
    // Files written before plan hashes were kept have none: nothing to compare.
    if (!expected) return state;
    const now = await planFileSha256(this.root, phase.planPath);
    if (now === expected) return state;
    this.opts.log?.("warning", `The plan ${phase.planPath} changed after approval; asking again.`);
    return this.advance(ref, state, { type: "PLAN_CHANGED", from: expected, to: now, now: this.now() });
  }

  private async performOutbox(ref: SessionRef, state: AutopilotState, fresh = false): Promise<AutopilotState> {
    if (!state.outbox.length) return state;
    let s = state;
    let performed = 0;
    // A commit the repository's pre-commit or commit-msg hook refused becomes the machine's event,
    // saved in the same write that clears the outbox (what it owes in turn, its learning, is performed
    // then): a crash before it leaves the outbox, whose commit the next call tries again.
    let rejected = null as CommitRejectedEvent | null;
    for (const effect of state.outbox) {
      this.opts.onProgress?.(`effect ${effect.type}`);
      try {
        s = await performEffect(ref.paths, s, effect, this.now(), this.config, { fresh });
      } catch (e) {
        if (!(e instanceof CommitRejected)) throw e;
        faultPoint("commit-rejected");
        const event: CommitRejectedEvent | null =
          e.kind === "hook" && effect.type === "commit" && !rejected
            ? {
                type: "COMMIT_REJECTED",
                commit: effect,
                hook: e.hook ?? "pre-commit",
                output: e.output,
                paths: e.paths,
                now: this.now(),
              }
            : null;
        // Signing, or a commit no state can route (the user's own changes): a coded error, the
        // commit still owed by the saved outbox.
        if (!event || !accepts(s, event)) throw commitRejectedError(e, effect);
        rejected = event;
      }
      if (++performed === 1) faultPoint("mid-effects");
    }
    faultPoint("after-effects");
    s = { ...s, outbox: [] };
    if (rejected) {
      this.opts.log?.("warning", `The ${rejected.hook} hook rejected the commit "${rejected.commit.args.label}".`);
      s = apply(s, rejected);
    }
    await this.store.write(ref, s);
    return s.outbox.length ? this.performOutbox(ref, s) : s;
  }

  private async runProbes(ref: SessionRef, state: AutopilotState): Promise<AutopilotState> {
    let s = state;
    // Each probe moves the machine to a resting state or to another probe; the bound only guards
    // against a defect turning into an endless loop.
    for (let i = 0; i < 20; i++) {
      const probe = probeFor(s);
      if (!probe) return s;
      const event = await this.probe(ref, s, probe);
      s = apply(s, event);
      faultPoint("before-save");
      await this.store.write(ref, s);
      faultPoint("after-probe-save");
      s = await this.performOutbox(ref, s, true);
    }
    throw new AutopilotError(
      "internal",
      "The session did not come to rest after 20 automatic steps. Please report this.",
    );
  }

  private async probe(ref: SessionRef, state: AutopilotState, probe: Probe): Promise<AutopilotEvent> {
    const now = this.now();
    if (probe === "waveOpen" || probe === "waveMerge") {
      const ctx = {
        root: this.root,
        slug: ref.slug,
        config: this.config,
        validationTimeoutMs: this.opts.validationTimeoutMs,
        onProgress: this.opts.onProgress,
        now,
        onStep: (p: "merged" | "validated" | "removed") =>
          faultPoint(p === "merged" ? "wave-merge" : p === "validated" ? "wave-validated" : "wave-removed"),
      };
      const event = probe === "waveOpen" ? await openWave(state, ctx) : await mergeWave(state, ctx);
      faultPoint(probe === "waveOpen" ? "wave-opened" : "wave-merged");
      return event;
    }
    const phase = state.phases[state.currentPhase];
    if (probe === "assess") {
      // The skill: "If planPath is set and the file exists, skip to APPROVE_PLAN."
      const planPath = phase?.planPath ?? null;
      const exists = planPath ? (await readPlanFacts(this.root, planPath, [])) !== null : false;
      // The phase starts here: its review's range begins at this commit.
      const head = await headCommit(this.root).catch(() => null);
      return { type: "ASSESSED", planPath: exists ? planPath : null, head, now };
    }
    if (probe === "planFacts") {
      const concerns = state.phaseRun.concerns.length
        ? state.phaseRun.concerns
        : ((await readHandoff(ref.paths).catch(() => null))?.concerns ?? []);
      const found = phase.planPath
        ? await readPlanFacts(this.root, phase.planPath, concerns, state.parallel)
        : (await locatePlan(ref.paths, state, undefined, undefined)).facts;
      if (!found)
        throw new AutopilotError(
          "plan_not_found",
          `The plan for phase ${state.currentPhase + 1} (${phase.planPath ?? "no path recorded"}) is missing. Restore the file (git checkout) and call autopilot_next again.`,
        );
      return { type: "PLAN_FACTS", plan: { ...found, concerns }, now };
    }
    this.opts.onProgress?.("running the project's validation commands");
    const v = await runValidation(this.root, { timeoutMs: this.opts.validationTimeoutMs, config: await this.config() });
    return { type: "VALIDATED", passed: v.passed, summary: v.summary, now };
  }

  /** Resuming a phase that waits for an interactive plan: has the human written it yet? */
  private async lookForInteractivePlan(
    ref: SessionRef,
    state: AutopilotState,
  ): Promise<{ state: AutopilotState; note?: string }> {
    if (state.currentState !== "PLAN" || !restsAt(state, "awaitingInteractivePlan") || state.stopped) return { state };
    const { facts, tried } = await locatePlan(ref.paths, state, undefined, plannedPlanPath(state));
    if (!facts)
      return {
        state,
        note: `No plan for phase ${state.currentPhase + 1} yet: checked ${tried.join(", ") || "nothing"}; ${planSearchText(state)}.`,
      };
    return {
      state: await this.advance(ref, state, { type: "PLANNED", plan: facts, now: this.now() }, { keepReport: true }),
    };
  }

  private async render(ref: SessionRef, state: AutopilotState): Promise<Step> {
    const step = await this.stepFor(ref, state);
    await noteHandOver(this.root, ref.paths, step, state.updatedAt ?? "");
    if (step.next.kind === "dispatch") {
      // The brief is a pure function of the saved state and the files on disk; writing it again
      // after a crash or on autopilot_next produces the same file.
      const facts = await gatherDispatchFacts(ref.paths, state);
      if (step.next.tasks) {
        // A parallel wave: one brief per task, named by the step that dispatched it (the same file
        // again on every later render, so an executor already at work keeps reading the same brief).
        for (const t of step.next.tasks) {
          const file = path.join(this.root, t.brief);
          await mkdir(path.dirname(file), { recursive: true });
          await writeTextAtomic(file, taskBriefContent(state, ref.slug, t.task, facts), { flush: false });
        }
        return step;
      }
      const file = path.join(this.root, briefPath(state, state.stepId));
      await mkdir(path.dirname(file), { recursive: true });
      await writeTextAtomic(file, briefContent(state, ref.slug, facts), { flush: false });
    }
    return step;
  }

  private async archiveDone(ref: SessionRef): Promise<void> {
    const p = ref.paths;
    const stamp = this.now().replace(/[:.]/g, "-");
    await rename(p.state, path.join(path.dirname(p.state), `autopilot-state.done-${stamp}.json`));
  }
}

type CommitRejectedEvent = Extract<AutopilotEvent, { type: "COMMIT_REJECTED" }>;
