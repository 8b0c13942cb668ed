// The one flow every call on a session takes (the session engine's calls, session.ts, are built on
// it): lock the session → read and migrate → rebuild the machine state → apply the event → save the
// new state with the effects it owes (the outbox) → perform them → clear them → gather facts the
// machine waits for (probes) → render the Step from the saved state. A crash anywhere leaves the
// old state, or the new state plus an outbox the next call finishes.
import { restsAt } from "../../machines/stages.js";
import { rename, mkdir } from "node:fs/promises";
import path from "node:path";
import type { AutopilotEvent } from "../../machines/autopilot.machine.js";
import type { AutopilotState } from "../session/schema.js";
import { type PersonaResult, type Step } from "../protocol/step.js";
import { AutopilotError } from "../protocol/errors.js";
import { SessionStore, type LockOptions } from "../session/store.js";
import type { SessionRef } from "../session/paths.js";
import { CommitRejected, headCommit } from "../effects/git.js";
import type { WorktreePointer } from "../effects/worktree.js";
import { readHandoff } from "../effects/handoff.js";
import { runValidation } from "../effects/validation.js";
import { writeTextAtomic } from "../effects/fsutil.js";
import { accepts, apply, probeFor, type Probe } from "./machine-state.js";
import { planSearchText, renderStep } from "./step.js";
import type { ProjectConfig } from "../session/config.js";
import { locatePlan, planFileSha256, readPlanFacts } from "./results.js";
import { performEffect } from "./perform.js";
import { briefContent, briefPath, taskBriefContent } from "../personas/dispatch.js";
import { plannedPlanPath } from "../personas/jobs.js";
import { mergeWave, openWave } from "./wave.js";
import { noteHandOver, takePersonEdits } from "./person-edits.js";
import { gatherDispatchFacts } from "./facts.js";
import { withModel, type Runs } from "../personas/models.js";
// Reliability testing hook (docs/reliability.md): a no-op unless AUTOPILOT_FAULT is set.
import { faultPoint } from "./faults.js";
import {
  commitRejectedError,
  failedAfterRecording,
  staleStepMessage,
  unknownSessionMessage,
} from "./session-errors.js";

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
  /** How the person runs autopilot's CLI here (`autopilot`, `npx -y autopilot-mcp@<version>`): the commands a report names. */
  cli?: readonly string[];
}

export class SessionFlow {
  readonly root: string;
  readonly store: SessionStore;
  protected readonly opts: SessionEngineOptions;
  /** `.harness/config.json`, read at most once for this call (the router's). */
  protected readonly config: () => Promise<ProjectConfig>;

  constructor(root: string, opts: SessionEngineOptions, config: () => Promise<ProjectConfig>, store?: SessionStore) {
    this.root = path.resolve(root);
    this.store = store ?? new SessionStore(this.root);
    this.opts = opts;
    this.config = config;
  }

  protected now(): string {
    return (this.opts.now?.() ?? new Date()).toISOString();
  }

  /** The dispatch Step `stepId` is the current one and expects this result's kind; its Step. */
  protected async dispatchAt(
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

  /** The Step as this engine's client is told it: with its dispatch's model, in its worktree. */
  protected async stepFor(ref: SessionRef, state: AutopilotState): Promise<Step> {
    const runs = this.opts.runs ?? "other";
    const step = renderStep(state, ref.slug);
    return this.inWorkspace(runs === "other" ? step : withModel(step, state, runs, (await this.config()).models));
  }

  // ---- internals -----------------------------------------------------------------------------

  /** A dispatch in a worktree session names the folder the persona works in (DONE's finish notice says how to merge). */
  protected inWorkspace(step: Step): Step {
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

  protected async withSession<T>(ref: SessionRef, fn: (state: AutopilotState) => Promise<T>): Promise<T> {
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

  protected async load(ref: SessionRef) {
    const loaded = await this.store.read(ref);
    // The skill's migration: a pre-v3 file whose history names no commit starts from HEAD.
    if (loaded.state.startingCommit !== null) return loaded;
    return { ...loaded, state: { ...loaded.state, startingCommit: await headCommit(this.root).catch(() => null) } };
  }

  /** `found`: the state as this call read it, before it finished what an earlier call left owed. */
  protected async assertStep(ref: SessionRef, state: AutopilotState, stepId: number, found?: AutopilotState) {
    if (stepId === state.stepId) return;
    const finished = found && found !== state ? found : null;
    const step = await this.render(ref, state);
    throw new AutopilotError("stale_step", staleStepMessage(stepId, state, finished), {
      step,
      ...(finished ? { finished: true } : {}),
    });
  }

  /** Apply an event, save it with its outbox, perform the effects, then gather any facts owed. */
  protected async advance(
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
  protected async finishPending(ref: SessionRef, state: AutopilotState): Promise<AutopilotState> {
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
  protected async checkPlanUnchanged(ref: SessionRef, state: AutopilotState): Promise<AutopilotState> {
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

  protected async performOutbox(ref: SessionRef, state: AutopilotState, fresh = false): Promise<AutopilotState> {
    if (!state.outbox.length) return state;
    let s = state;
    let performed = 0;
    // A commit the repository's pre-commit or commit-msg hook refused becomes the machine's event,
    // saved in the same write that clears the outbox (what it owes in turn, its learning, is performed
    // then): a crash before it leaves the outbox, whose commit the next call tries again.
    let rejected = null as CommitRejectedEvent | null;
    const asked = {};
    for (const effect of state.outbox) {
      this.opts.onProgress?.(`effect ${effect.type}`);
      try {
        s = await performEffect(ref.paths, s, effect, this.now(), this.config, { fresh, cli: this.opts.cli, asked });
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

  protected async runProbes(ref: SessionRef, state: AutopilotState): Promise<AutopilotState> {
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

  protected async probe(ref: SessionRef, state: AutopilotState, probe: Probe): Promise<AutopilotEvent> {
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
  protected async lookForInteractivePlan(
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

  protected async render(ref: SessionRef, state: AutopilotState): Promise<Step> {
    const step = await this.stepFor(ref, state);
    await noteHandOver(this.root, ref.paths, step, state.updatedAt ?? "");
    if (step.next.kind === "dispatch") {
      // The brief is a pure function of the saved state and the files on disk; writing it again
      // after a crash or on autopilot_next produces the same file.
      const facts = await gatherDispatchFacts(ref.paths, state, this.config);
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

  protected async archiveDone(ref: SessionRef): Promise<void> {
    const p = ref.paths;
    const stamp = this.now().replace(/[:.]/g, "-");
    await rename(p.state, path.join(path.dirname(p.state), `autopilot-state.done-${stamp}.json`));
  }
}

type CommitRejectedEvent = Extract<AutopilotEvent, { type: "COMMIT_REJECTED" }>;
