// The session engine's calls (start and resume, next, report, decide, record, the scratchpad),
// given the session's handle (its name checked once and its paths, src/session/paths.ts
// `SessionRef`) by the router (engine.ts). Each takes the one flow (flow.ts). One instance serves
// one call (the project config it reads is read once for it).
import { restsAt } from "../../machines/stages.js";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import type { AutopilotState, DecisionChannel } from "../session/schema.js";
import { initState } from "../session/schema.js";
import { PersonaResult as PersonaResultSchema, type PersonaResult, type Step } from "../protocol/step.js";
import { AutopilotError } from "../protocol/errors.js";
import type { SessionRef } from "../session/paths.js";
import { parseSpec } from "../markdown/spec.js";
import { assertGitReady, gitRunner, headCommit } from "../effects/git.js";
import { isClientConfig, takeBaseline, writeBaseline } from "../effects/ownership.js";
import { writeTextAtomic } from "../effects/fsutil.js";
import { writeScratchpad } from "../effects/scratchpad.js";
import { renderStep } from "./step.js";
import { checkedAnswer, isNote, noted } from "./answers.js";
import { formatBudget, parseUsage } from "../session/usage.js";
import { resultToEvent } from "./results.js";
import { resultPath } from "../personas/dispatch.js";
import { readResultFile } from "./result-file.js";
import { ensureBaseline } from "./baseline.js";
import { takePersonEdits } from "./person-edits.js";
import { recordRun } from "./runs.js";
// Reliability testing hook (docs/reliability.md): a no-op unless AUTOPILOT_FAULT is set.
import { faultPoint } from "./faults.js";
import { assertParseableMarkdown } from "./limits.js";
import { unknownSessionMessage } from "./session-errors.js";
import type { startArgs } from "./flags.js";
import { PARALLEL_MIN_TASKS, RIGOR } from "../rules/policy.js";
import { resumedNotice } from "../../machines/actions/session.js";

import { SessionFlow } from "./flow.js";

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

export class SessionEngine extends SessionFlow {
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
      const chosen = checkedAnswer(s, ref.slug, answer!, by, said, this.opts.cli);
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

  /** The Step as saved, without finishing anything (for status and resources). */
  async peek(ref: SessionRef): Promise<Step> {
    return this.stepFor(ref, await this.read(ref));
  }
}
