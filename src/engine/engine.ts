// The one flow every tool call takes: lock the session → read and migrate → rebuild the machine
// state → apply the event → save the new state with the effects it owes (the outbox) → perform them
// → clear them → gather facts the machine waits for (probes) → render the Step from the saved state.
// A crash anywhere leaves the old state, or the new state plus an outbox the next call finishes.
import { readFile, rename, mkdir } from "node:fs/promises";
import path from "node:path";
import type { AutopilotEvent } from "../machine/autopilot.machine.js";
import type { AutopilotState, DecisionChannel, Notice } from "../session/schema.js";
import { DECISION_CHANNELS, DecisionChannel as DecisionChannelSchema, initState } from "../session/schema.js";
import { PersonaResult as PersonaResultSchema, type PersonaResult, type Step } from "../protocol/step.js";
import { AutopilotError } from "../protocol/errors.js";
import { requireString, shown } from "../protocol/input.js";
import { SessionStore } from "../session/store.js";
import { resolveSpecPath, slugFromSpecPath, assertSafeSlug, shellWord } from "../session/slug.js";
import { sessionDirRel, sessionPaths, sessionPathsAt } from "../session/paths.js";
import { parseSpec } from "../markdown/spec.js";
import { assertGitReady, CommitRejected, gitRunner, headCommit } from "../effects/git.js";
import { readBaseline, takeBaseline, writeBaseline } from "../effects/ownership.js";
import {
  bringSpec,
  checkWorktree,
  createWorktree,
  ensureSessionLink,
  readPointer,
  type WorktreePointer,
} from "../effects/worktree.js";
import { readHandoff } from "../effects/handoff.js";
import { runValidation } from "../effects/validation.js";
import { writeTextAtomic } from "../effects/fsutil.js";
import { writeScratchpad } from "../effects/scratchpad.js";
import { accepts, apply, probeFor } from "./machine-state.js";
import { askFor, budgetAskFor, humanOnlyAnswers, matchAnswer, planSearchText, renderStep } from "./step.js";
import { isHumanChannel } from "../session/schema.js";
import { addUsage, formatBudget, formatCost, parseUsage, raisedBudget, type UsageReport } from "../session/usage.js";
import { readProjectConfig } from "../session/config.js";
import { locatePlan, planFileSha256, readPlanFacts, resultToEvent } from "./results.js";
import { performEffect } from "./perform.js";
import { briefContent, briefPath, plannedPlanPath } from "../personas/dispatch.js";
import { gatherDispatchFacts } from "./facts.js";
// Reliability testing hook (docs/reliability.md): a no-op unless AUTOPILOT_FAULT is set.
import { faultPoint } from "./faults.js";
import { assertParseableMarkdown } from "./limits.js";
import { startArgs } from "./flags.js";
import type { LockOptions } from "../session/store.js";
import { RIGOR } from "../machine/policy.js";

export interface EngineOptions {
  /** The clock; tests pass a fixed one. */
  now?: () => Date;
  /** Long work in progress (validation commands, effects): MCP progress notifications. */
  onProgress?: (message: string) => void;
  /** Diagnostics for the client's log. */
  log?: (level: "info" | "warning" | "error", message: string) => void;
  validationTimeoutMs?: number;
  /** Session lock timing (wait before `busy`, stale takeover); the store's defaults otherwise. */
  lock?: LockOptions;
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

export { parseFlags, type Flags } from "./flags.js";

export class Engine {
  readonly root: string;
  readonly store: SessionStore;
  private readonly opts: EngineOptions;

  constructor(root: string, opts: EngineOptions = {}) {
    this.root = path.resolve(root);
    this.store = new SessionStore(this.root);
    this.opts = opts;
  }

  private now(): string {
    return (this.opts.now?.() ?? new Date()).toISOString();
  }

  // ---- tools ------------------------------------------------------------------------------

  async start(specArg: string, flags?: string | string[]): Promise<StartResult> {
    // Flags may also stand in the spec ("docs/spec.md --fast"), as some clients pass them.
    const parsed = startArgs(this.root, specArg, flags);
    const { rel } = resolveSpecPath(this.root, parsed.spec);
    const slug = slugFromSpecPath(rel);
    // Read once for the whole call; a bad key is refused here, before anything is made.
    const { config } = await readProjectConfig(this.root);
    if (!this.opts.workspace) {
      const routed = await this.worktreeEngine(slug, { evenIfDone: true });
      if (routed) return routed.start(withoutWorktree(specArg), withoutWorktree(flags));
      if (parsed.worktree || config.worktree === true) {
        const fresh = !(await this.store.exists(slug)) || (await this.read(slug).then((st) => st.currentState === "DONE", () => false));
        if (fresh) return this.startInWorktree(withoutWorktree(specArg), rel, slug, withoutWorktree(flags));
      }
    }
    return this.store.withLock(slug, async () => {
      if (await this.store.exists(slug)) {
        const { state, notes } = await this.load(slug);
        if (state.currentState !== "DONE") {
          let s = await this.finishPending(slug, state);
          // A budget given on a resume replaces the session's (the way to raise it from outside).
          const budget = parsed.budget ?? (state.budget ? null : (config.budget ?? null));
          if (budget) s = { ...s, budget: { ...budget, continueOnceAt: null } };
          const baselineNote = await this.ensureBaseline(state);
          s = await this.advance(slug, s, { type: "RESUME", now: this.now() });
          const looked = await this.lookForInteractivePlan(slug, s);
          s = looked.state;
          return {
            step: await this.render(slug, s),
            resumed: true,
            ignoredFlags: parsed.given,
            notes: [
              // "Resuming autopilot from state …" is the machine's (the RESUME report); saying it
              // here too printed it twice.
              ...(baselineNote ? [baselineNote] : []),
              ...(looked.note ? [looked.note] : []),
              ...(parsed.budget ? [`Budget set to ${formatBudget(parsed.budget)}.`] : []),
              ...(parsed.given.length
                ? [`Flags ${parsed.given.join(" ")} ignored: a resumed session keeps the flags it started with (rigor ${s.rigorLevel}${s.reviewPlans ? ", --review-plans" : ""}).`]
                : []),
              ...notes,
            ],
          };
        }
        await this.archiveDone(slug);
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
      await writeBaseline(sessionPaths(this.root, slug), baseline);
      const maxAttempts = config.retryBudget;
      const initial = initState({ sessionDir: sessionDirRel(slug), specPath: rel, startingCommit, now, maxAttempts });
      const budget = parsed.budget ?? config.budget ?? null;
      if (budget) initial.budget = { ...budget, continueOnceAt: null };
      // --human-gates: the flag, else the config's `humanGates`, else on with --thorough.
      if (parsed.humanGates || (config.humanGates ?? RIGOR[parsed.rigorLevel].humanGates)) initial.humanOnlyGates = true;
      const s = await this.advance(slug, initial, {
        type: "START",
        phases: phases.map((p) => ({ name: p.name, complexity: p.complexity })),
        specPath: rel,
        sessionDir: sessionDirRel(slug),
        startingCommit,
        rigorLevel: parsed.rigorLevel,
        reviewPlans: parsed.reviewPlans,
        userChanges: baseline.entries.map((e) => e.path),
        now,
      });
      const step = await this.render(slug, s);
      return { step, resumed: false, ignoredFlags: [], notes: [] };
    }, this.opts.lock);
  }

  /** The current Step again. Finishes work a crash left half-done; otherwise changes nothing. */
  async next(slug: string): Promise<Step> {
    assertSafeSlug(slug);
    const routed = await this.worktreeEngine(slug);
    if (routed) return routed.next(slug);
    return this.withSession(slug, async (state) => {
      const s = await this.finishPending(slug, state);
      return this.render(slug, s);
    });
  }

  /**
   * `usage`: what the persona run cost, as far as the host knows (null: it does not say). Added to
   * the session's ledger in the same write as the transition, so a stale or refused report adds
   * nothing.
   */
  async report(slug: string, stepId: number, raw: unknown, rawUsage: unknown = null): Promise<Step> {
    assertSafeSlug(slug);
    assertStepId(stepId);
    const routed = await this.worktreeEngine(slug);
    if (routed) return routed.report(slug, stepId, raw, rawUsage);
    const usage = parseUsage(rawUsage);
    // The one check of a persona result, for every caller (the MCP tool, headless hosts, scripts):
    // a result with a planPath object once surfaced as a TypeError (tests/reliability/hostile.test.ts).
    const parsed = PersonaResultSchema.safeParse(raw);
    if (!parsed.success) {
      // An unknown session is the more useful error; otherwise show where the session is.
      const step = await this.peek(slug);
      const issue = parsed.error.issues[0];
      const kind = step.next.kind === "dispatch" ? `"${step.next.expects.result}"` : "<the kind the prompt asks for>";
      throw new AutopilotError(
        "bad_result",
        `The result does not fit the protocol (${["result", ...(issue?.path ?? [])].join(".")}: ${issue?.message}). Send {"kind": ${kind}, ...} as described in docs/mcp.md.`,
        { step },
      );
    }
    const result: PersonaResult = parsed.data;
    return this.withSession(slug, async (state) => {
      let s = await this.finishPending(slug, state);
      await this.assertStep(slug, s, stepId);
      const step = renderStep(s, slug);
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
      const event = await resultToEvent(this.root, s, result, step.next.expects.artifacts.plan, this.now());
      const final = step.state === "FINAL_REVIEW";
      s = {
        ...s,
        usage: addUsage(s.usage, {
          persona: step.next.persona,
          phaseIndex: final ? null : (step.phase?.index ?? null),
          phaseName: final ? null : (step.phase?.name ?? null),
          usage,
        }),
      };
      s = await this.advance(slug, s, event);
      return this.render(slug, s);
    });
  }

  /**
   * Apply an answer to the ask Step `stepId`. `by` is the channel it came through: a caller that
   * cannot vouch for a person answering (the MCP tool autopilot_decide) says `host`.
   */
  async decide(
    slug: string,
    stepId: number,
    answer: string,
    rationale?: string,
    by: DecisionChannel = "host",
    /** by "relayed": the user's reply as the host quoted it. */
    userWords?: string,
  ): Promise<Step> {
    assertSafeSlug(slug);
    assertStepId(stepId);
    requireString(answer, "answer", "Pass one of the ask Step's options, e.g. \"yes\".");
    const routed = await this.worktreeEngine(slug);
    if (routed) return routed.decide(slug, stepId, answer, rationale, by, userWords);
    if (rationale !== undefined && rationale !== null && typeof rationale !== "string")
      throw new AutopilotError("bad_input", "rationale must be a string (the user's reason, in their words).");
    if (!DecisionChannelSchema.safeParse(by).success)
      throw new AutopilotError("bad_input", `by must be the channel the answer came through (${DECISION_CHANNELS.map((o) => `"${o}"`).join(", ")}), not ${shown(by)}.`);
    return this.withSession(slug, async (state) => {
      let s = await this.finishPending(slug, state);
      await this.assertStep(slug, s, stepId);
      const budgetAsk = askFor(s) ? null : budgetAskFor(s, slug);
      const ask = askFor(s) ?? budgetAsk;
      if (!ask)
        throw new AutopilotError(
          "bad_answer",
          `Step ${s.stepId} is not asking the user anything (it is a "${renderStep(s, slug).next.kind}" step). Follow the current Step instead.`,
          { step: renderStep(s, slug) },
        );
      const chosen = matchAnswer(answer, ask.options);
      if (!chosen)
        throw new AutopilotError(
          "bad_answer",
          `"${answer}" is not one of the options: ${ask.options.map((o) => `"${o}"`).join(", ")}. Ask the user again and pass one of them.`,
          { step: renderStep(s, slug) },
        );
      if (humanOnlyAnswers(s).includes(chosen) && !isHumanChannel(by)) {
        // --human-gates: nothing is written; the Step stays as it is.
        const step = renderStep(s, slug);
        throw new AutopilotError(
          "human_required",
          `"${chosen}" at this gate needs a person (the session runs with --human-gates), and this answer came from ${by === "host" ? "the host model (autopilot_decide)" : by === "relayed" ? "the host model relaying what it says are the user's words (a person's answer must reach autopilot directly)" : `the ${by} channel`}. Nothing was changed. Ask the user to answer it in the client's form, or to run \`autopilot approve ${shellWord(slug)}\` in their own terminal; then call autopilot_next. ${step.next.kind === "ask" ? `Answers the host may pass on here: ${step.next.options.filter((o) => !humanOnlyAnswers(s).includes(o)).map((o) => `"${o}"`).join(", ")}.` : ""}`,
          { step },
        );
      }
      if (budgetAsk) {
        s = await this.answerBudget(slug, s, chosen, by, rationale, userWords);
        return this.render(slug, s);
      }
      s = await this.advance(slug, s, {
        type: "DECIDE",
        answer: chosen,
        by,
        ...(rationale ? { rationale: rationale.slice(0, 2000) } : {}),
        ...(by === "relayed" && userWords ? { userWords: userWords.slice(0, 2000) } : {}),
        now: this.now(),
      });
      return this.render(slug, s);
    });
  }

  /** The saved state, read-only (no lock: a reader never blocks a writer). */
  async read(slug: string): Promise<AutopilotState> {
    assertSafeSlug(slug);
    if (!(await this.store.exists(slug)))
      throw new AutopilotError("unknown_session", unknownSessionMessage(slug, await this.store.list()));
    return (await this.store.read(slug)).state;
  }

  /**
   * Save research to the session's scratchpad (write_scratchpad). The session's rules: nothing is
   * written under --fast; a phase index names that phase's folder, so that PHASE_COMPLETE (which
   * clears the folder by the phase's name) finds it. Returns the file's absolute path.
   */
  async writeScratchpad(slug: string, phase: string | number, filename: string, content: string): Promise<string> {
    const state = await this.read(slug);
    if (RIGOR[state.rigorLevel].scratchpad === "none")
      throw new AutopilotError("bad_input", "This session runs with --fast: the scratchpad is skipped. Keep the research in the conversation.");
    const name = typeof phase === "number" && state.phases[phase] ? state.phases[phase].name : phase;
    return writeScratchpad(sessionPaths(this.root, slug), name, filename, content);
  }

  /** The Step as saved, without finishing anything (for status and resources). */
  async peek(slug: string): Promise<Step> {
    const routed = await this.worktreeEngine(slug);
    if (routed) return routed.peek(slug);
    const state = await this.read(slug);
    return this.inWorkspace(renderStep(state, slug), state);
  }

  /** Where a session's personas work: its worktree, or the project. */
  async rootFor(slug: string): Promise<string> {
    const pointer = this.opts.workspace ? null : await readPointer(this.root, slug);
    return pointer ? path.join(this.root, pointer.path) : this.root;
  }

  async sessions(): Promise<string[]> {
    return this.store.list();
  }

  // ---- internals -----------------------------------------------------------------------------

  /**
   * The budget gate's answer. The gate is the engine's, not the machine's: the machine state does
   * not change, the step moves on by one and the answer is recorded as a decision.
   */
  private async answerBudget(slug: string, state: AutopilotState, answer: string, by: DecisionChannel, rationale?: string, userWords?: string): Promise<AutopilotState> {
    const now = this.now();
    const budget = state.budget!;
    const stepId = state.stepId + 1;
    const spent = formatCost(state.usage?.total);
    let next: AutopilotState;
    let decision: string;
    let notice: Notice;
    if (answer === "raise budget") {
      const raised = raisedBudget(budget, rationale);
      decision = "raised_budget";
      notice = { kind: "budgetAnswered", answer: "raised", budget: formatBudget(budget), raised: formatBudget(raised), spent };
      next = { ...state, budget: raised };
    } else if (answer === "continue once") {
      decision = "budget_continue_once";
      notice = { kind: "budgetAnswered", answer: "continueOnce", budget: formatBudget(budget), spent };
      next = { ...state, budget: { ...budget, continueOnceAt: stepId } };
    } else {
      decision = "stopped_budget";
      notice = { kind: "budgetAnswered", answer: "stopped", budget: formatBudget(budget), spent };
      next = { ...state, stopped: true };
    }
    next = {
      ...next,
      stepId,
      notices: [notice],
      updatedAt: now,
      decisions: [
        ...state.decisions,
        {
          phase: state.currentState === "FINAL_REVIEW" ? null : state.currentPhase,
          decision,
          timestamp: now,
          state: state.currentState,
          answer,
          by,
          ...(rationale ? { rationale: String(rationale).slice(0, 2000) } : {}),
          ...(by === "relayed" && userWords ? { userWords: userWords.slice(0, 2000) } : {}),
        },
      ],
    };
    await this.store.write(slug, next);
    return next;
  }

  /**
   * The engine of a session that runs in its own worktree (null for a session in this checkout).
   * Checks the worktree first: a removed worktree or a branch that lost the session's commits is
   * an error saying what to do. A DONE session needs no worktree to be read.
   */
  private async worktreeEngine(slug: string, opts: { evenIfDone?: boolean } = {}): Promise<Engine | null> {
    if (this.opts.workspace) return null;
    const pointer = await readPointer(this.root, slug);
    if (!pointer) return null;
    const state = (await this.store.exists(slug)) ? await this.read(slug).catch(() => null) : null;
    if (state?.currentState === "DONE" && !opts.evenIfDone) return null;
    const last = state?.commits.at(-1)?.sha ?? state?.startingCommit ?? null;
    const abs = await checkWorktree(this.root, slug, pointer, last);
    await ensureSessionLink(this.root, slug, pointer);
    return new Engine(abs, { ...this.opts, workspace: { projectRoot: this.root, pointer } });
  }

  private async startInWorktree(spec: string, rel: string, slug: string, flags: string | string[] | undefined): Promise<StartResult> {
    // Everything that can be refused is refused before a branch or a folder is made.
    const specText = await readFile(path.join(this.root, rel), "utf8").catch((e: NodeJS.ErrnoException) => {
      throw new AutopilotError("spec_not_found", `Cannot read the spec ${rel}: ${e.code ?? e.message}.`);
    });
    assertParseableMarkdown(specText, `The spec ${rel}`);
    parseSpec(specText);
    const pointer = await createWorktree(this.root, slug, this.now());
    const abs = path.join(this.root, pointer.path);
    const copied = await bringSpec(this.root, abs, rel);
    const engine = new Engine(abs, { ...this.opts, workspace: { projectRoot: this.root, pointer } });
    const r = await engine.start(spec, flags);
    const note =
      `Working in its own git worktree ${pointer.path} on branch ${pointer.branch} (from ${pointer.startingCommit.slice(0, 7)} on ${pointer.baseBranch}); your checkout and branch are not touched.` +
      (copied ? ` The spec ${rel} differs from the committed one (or is not committed), so your copy was put into the worktree.` : "");
    return { ...r, step: { ...r.step, report: [note, r.step.report].filter(Boolean).join("\n\n") } };
  }

  /** A dispatch in a worktree session names the folder the persona works in; DONE says how to merge. */
  private inWorkspace(step: Step, state?: AutopilotState): Step {
    const ws = this.opts.workspace;
    if (!ws) return step;
    const { pointer } = ws;
    const where = path.join(ws.projectRoot, pointer.path);
    if (step.next.kind === "dispatch")
      return {
        ...step,
        next: {
          ...step.next,
          prompt: `Work in ${where} (this session's git worktree, branch ${pointer.branch}): every path below is relative to it.\n${step.next.prompt}`,
        },
      };
    if (step.next.kind === "done") {
      const pr = state?.pullRequest;
      const merge = [
        `This session's commits are on branch ${pointer.branch} (worktree ${pointer.path}), not on ${pointer.baseBranch}.`,
        `To merge them into ${pointer.baseBranch}: \`autopilot merge ${shellWord(step.session)}\` in the project (a plain merge: never forced, never rewrites history; a conflict stops it with nothing changed). Or open a pull request from ${pointer.branch}${pr?.title ? ":" : "."}`,
        ...(pr?.title ? ["", `Title: ${pr.title}`, "", String(pr.body ?? "").trimEnd()] : []),
      ].join("\n");
      return { ...step, report: [step.report, merge].filter(Boolean).join("\n\n") };
    }
    return step;
  }

  private async withSession<T>(slug: string, fn: (state: AutopilotState) => Promise<T>): Promise<T> {
    if (!(await this.store.exists(slug)))
      throw new AutopilotError("unknown_session", unknownSessionMessage(slug, await this.store.list()));
    return this.store.withLock(slug, async () => fn((await this.load(slug)).state), this.opts.lock);
  }

  private async load(slug: string) {
    const loaded = await this.store.read(slug);
    // The skill's migration: a pre-v3 file whose history names no commit starts from HEAD.
    if (loaded.state.startingCommit === null)
      loaded.state.startingCommit = await headCommit(this.root).catch(() => null);
    return loaded;
  }

  private async assertStep(slug: string, state: AutopilotState, stepId: number): Promise<void> {
    if (stepId !== state.stepId) {
      const step = await this.render(slug, state);
      throw new AutopilotError(
        "stale_step",
        `Step ${stepId} is stale: the session is at step ${state.stepId}. Nothing was changed; follow the current Step.`,
        { step },
      );
    }
  }

  /** Apply an event, save it with its outbox, perform the effects, then gather any facts owed. */
  private async advance(
    slug: string,
    state: AutopilotState,
    event: AutopilotEvent,
    opts: { keepReport?: boolean } = {},
  ): Promise<AutopilotState> {
    // The report is what happened since the host last saw a Step: a host event starts it afresh,
    // and the automatic steps that follow (probes, effects, a plan found on resume) add to it.
    let s = apply(opts.keepReport ? state : { ...state, notices: [] }, event);
    faultPoint("before-save");
    await this.store.write(slug, s);
    faultPoint("after-save");
    s = await this.performOutbox(slug, s);
    return this.runProbes(slug, s);
  }

  /** Anything a crash left: an outbox not yet cleared, facts not yet gathered; a plan edited since its approval. */
  private async finishPending(slug: string, state: AutopilotState): Promise<AutopilotState> {
    let s = state;
    if (s.outbox.length) {
      this.opts.log?.("info", `Finishing ${s.outbox.length} effect(s) left by an interrupted call.`);
      s = await this.performOutbox(slug, s);
    }
    s = await this.runProbes(slug, s);
    return this.checkPlanUnchanged(slug, s);
  }

  /**
   * An approval belongs to one plan: while the phase runs (and while the approval question is
   * open), the plan file must still hash to what was approved (or shown). If it changed, the
   * session goes back through the plan gate and the Step says so.
   */
  private async checkPlanUnchanged(slug: string, state: AutopilotState): Promise<AutopilotState> {
    if (state.stopped) return state;
    const phase = state.phases[state.currentPhase];
    if (!phase?.planPath) return state;
    const run = state.phaseRun;
    const expected =
      ["EXECUTE", "VERIFY", "REVIEW"].includes(state.currentState)
        ? run.approvedPlanSha256
        : state.currentState === "APPROVE_PLAN" && state.stage === "review"
          ? run.planSha256
          : null;
    // Files written before plan hashes were kept have none: nothing to compare.
    if (!expected) return state;
    const now = await planFileSha256(this.root, phase.planPath);
    if (now === expected) return state;
    this.opts.log?.("warning", `The plan ${phase.planPath} changed after approval; asking again.`);
    return this.advance(slug, state, { type: "PLAN_CHANGED", from: expected, to: now, now: this.now() });
  }

  private async performOutbox(slug: string, state: AutopilotState): Promise<AutopilotState> {
    if (!state.outbox.length) return state;
    let s = state;
    let performed = 0;
    // A commit the repository's pre-commit or commit-msg hook refused becomes the machine's event,
    // saved in the same write that clears the outbox: a crash before it leaves the outbox, whose
    // commit the next call tries again (and the hook refuses again, or not).
    let rejected = null as CommitRejectedEvent | null;
    for (const effect of state.outbox) {
      this.opts.onProgress?.(`effect ${effect.type}`);
      try {
        s = await performEffect(sessionPaths(this.root, slug), s, effect, this.now());
      } catch (e) {
        if (!(e instanceof CommitRejected)) throw e;
        faultPoint("commit-rejected");
        const event: CommitRejectedEvent | null =
          e.kind === "hook" && effect.type === "commit" && !rejected
            ? { type: "COMMIT_REJECTED", commit: effect, hook: e.hook ?? "pre-commit", output: e.output, paths: e.paths, now: this.now() }
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
    await this.store.write(slug, s);
    return s;
  }

  private async runProbes(slug: string, state: AutopilotState): Promise<AutopilotState> {
    let s = state;
    // Each probe moves the machine to a resting state or to another probe; the bound only guards
    // against a defect turning into an endless loop.
    for (let i = 0; i < 20; i++) {
      const probe = probeFor(s);
      if (!probe) return s;
      const event = await this.probe(s, probe);
      s = apply(s, event);
      faultPoint("before-save");
      await this.store.write(slug, s);
      faultPoint("after-probe-save");
      s = await this.performOutbox(slug, s);
    }
    throw new AutopilotError("internal", "The session did not come to rest after 20 automatic steps. Please report this.");
  }

  private async probe(state: AutopilotState, probe: "assess" | "planFacts" | "validate"): Promise<AutopilotEvent> {
    const now = this.now();
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
        : ((await readHandoff(sessionPathsAt(this.root, state.sessionDir)).catch(() => null))?.concerns ?? []);
      const found = phase.planPath
        ? await readPlanFacts(this.root, phase.planPath, concerns)
        : (await locatePlan(this.root, state, undefined, undefined)).facts;
      if (!found)
        throw new AutopilotError(
          "plan_not_found",
          `The plan for phase ${state.currentPhase + 1} (${phase.planPath ?? "no path recorded"}) is missing. Restore the file (git checkout) and call autopilot_next again.`,
        );
      return { type: "PLAN_FACTS", plan: { ...found, concerns }, now };
    }
    this.opts.onProgress?.("running the project's validation commands");
    const v = await runValidation(this.root, { timeoutMs: this.opts.validationTimeoutMs });
    return { type: "VALIDATED", passed: v.passed, summary: v.summary, now };
  }

  /** Resuming a phase that waits for an interactive plan: has the human written it yet? */
  private async lookForInteractivePlan(slug: string, state: AutopilotState): Promise<{ state: AutopilotState; note?: string }> {
    if (state.currentState !== "PLAN" || state.stage !== "awaitingInteractivePlan" || state.stopped) return { state };
    const { facts, tried } = await locatePlan(this.root, state, undefined, plannedPlanPath(state));
    if (!facts)
      return {
        state,
        note: `No plan for phase ${state.currentPhase + 1} yet: checked ${tried.join(", ") || "nothing"}; ${planSearchText(state)}.`,
      };
    return { state: await this.advance(slug, state, { type: "PLANNED", plan: facts, now: this.now() }, { keepReport: true }) };
  }

  /**
   * A session started by upstream's skill or an older autopilot has no baseline: take it now, so
   * what the working tree holds at the hand-over stays out of autopilot's commits.
   */
  private async ensureBaseline(state: AutopilotState): Promise<string | null> {
    const ws = sessionPathsAt(this.root, state.sessionDir);
    if (await readBaseline(ws)) return null;
    const baseline = await takeBaseline(this.root, gitRunner(this.root), this.now()).catch(() => null);
    if (!baseline) return null;
    await writeBaseline(ws, baseline);
    const n = baseline.entries.length;
    return n
      ? `This session had no record of what was uncommitted when it started; autopilot took it now: ${n} changed path${n === 1 ? "" : "s"} (e.g. ${baseline.entries[0].path}) stay out of its commits. Commit them yourself if they belong to this work.`
      : null;
  }

  private async render(slug: string, state: AutopilotState): Promise<Step> {
    const step = this.inWorkspace(renderStep(state, slug), state);
    if (step.next.kind === "dispatch") {
      // The brief is a pure function of the saved state and the files on disk; writing it again
      // after a crash or on autopilot_next produces the same file.
      const facts = await gatherDispatchFacts(this.root, slug, state);
      const file = path.join(this.root, briefPath(slug, state.stepId));
      await mkdir(path.dirname(file), { recursive: true });
      await writeTextAtomic(file, briefContent(state, slug, facts));
    }
    return step;
  }

  private async archiveDone(slug: string): Promise<void> {
    const p = sessionPaths(this.root, slug);
    const stamp = this.now().replace(/[:.]/g, "-");
    await rename(p.state, path.join(path.dirname(p.state), `autopilot-state.done-${stamp}.json`));
  }
}

type CommitRejectedEvent = Extract<AutopilotEvent, { type: "COMMIT_REJECTED" }>;

/** A refused commit the session cannot route to the executor or a question: what happened, and what to do. */
function commitRejectedError(e: CommitRejected, effect: AutopilotState["outbox"][number]): AutopilotError {
  const what = effect.type === "commit" ? `autopilot's commit "${effect.args.label}"` : "the commit of your changes made before autopilot";
  const output = e.output ? `:\n${e.output}\n` : ". ";
  const then = "then continue the session (autopilot_next, or the same `autopilot run` command): the commit is still owed, and is made once.";
  if (e.kind === "signing")
    return new AutopilotError(
      "commit_rejected",
      `Git could not sign ${what} (the repository asks for signed commits)${output}Nothing was committed. Make signing work (start gpg-agent or unlock the key, e.g. \`echo test | gpg --clearsign\`; for SSH signing, \`ssh-add\` the key), or turn signing off for this repository (\`git config commit.gpgsign false\`); ${then}`,
    );
  return new AutopilotError(
    "commit_rejected",
    `The ${e.hook ?? "commit"} hook rejected ${what}${output}Nothing was committed. Fix what it reports${effect.type === "commit" ? "" : " in your files (or commit them yourself)"}; ${then}`,
  );
}

/** The start's own words without `--worktree` (the engine inside the worktree has no use for it). */
function withoutWorktree<T extends string | string[] | undefined>(words: T): T {
  const strip = (w: string) => w.replace(/(^|[\s,])--worktree(?=$|[\s,])/g, "$1").trim();
  return (Array.isArray(words) ? words.map(strip).filter(Boolean) : typeof words === "string" ? strip(words) : words) as T;
}

function assertStepId(stepId: unknown): asserts stepId is number {
  if (typeof stepId !== "number" || !Number.isSafeInteger(stepId))
    throw new AutopilotError("bad_input", `stepId must be the integer stepId of the Step being answered, not ${shown(stepId)}. Call autopilot_next for the current Step.`);
}

function unknownSessionMessage(slug: string, known: string[]): string {
  return `No autopilot session "${slug}" in this project.${known.length ? ` Known sessions: ${known.join(", ")}.` : ""} Start one with autopilot_start {"spec": "<path to spec>"}.`;
}

