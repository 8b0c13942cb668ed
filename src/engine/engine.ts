// The router: every call on a session enters here. It checks the call's input once (the session's
// name becomes a handle, src/session/paths.ts `SessionRef`; the step id, the answer, the persona
// result's shape are checked by the layer that owns them), applies the caller's check before a
// session changes (`beforeChange`), reads the project config at most once, and finds where the
// session works: this checkout, or its own git worktree (--worktree). The flow itself is the
// session engine's (session.ts), which takes the handle.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { AutopilotState, DecisionChannel } from "../session/schema.js";
import { DECISION_CHANNELS, DecisionChannel as DecisionChannelSchema } from "../session/schema.js";
import type { Step } from "../protocol/step.js";
import { AutopilotError } from "../protocol/errors.js";
import { requireString, shown } from "../protocol/input.js";
import { SessionStore } from "../session/store.js";
import { resolveSpecPath, slugFromSpecPath } from "../session/slug.js";
import { sessionRef, sessionRefAt, type SessionRef } from "../session/paths.js";
import { readProjectConfig, type ProjectConfig } from "../session/config.js";
import { parseSpec } from "../markdown/spec.js";
import { bringSpec, checkWorktree, createWorktree, ensureSessionLink, readPointer } from "../effects/worktree.js";
import { assertParseableMarkdown } from "./limits.js";
import { startArgs } from "./flags.js";
import { SessionEngine, type StartRequest, type StartResult } from "./session.js";
import type { SessionEngineOptions } from "./flow.js";

export interface EngineOptions extends Omit<SessionEngineOptions, "workspace"> {
  /**
   * Run once per call that changes a session (start, report, decide, an in-band answer included),
   * with the session's handle, before anything is read or locked. The MCP server refuses here a
   * session that a headless `autopilot run` of another process drives.
   */
  beforeChange?: (ref: SessionRef) => Promise<void>;
}

export type { StartResult } from "./session.js";
export { parseFlags, type Flags } from "./flags.js";

/** Where one call works: the session engine for the session's root, and the handle at that root. */
interface Route {
  engine: SessionEngine;
  ref: SessionRef;
}

export class Engine {
  readonly root: string;
  readonly store: SessionStore;
  private readonly opts: EngineOptions;

  constructor(root: string, opts: EngineOptions = {}) {
    this.root = path.resolve(root);
    this.store = new SessionStore(this.root);
    this.opts = opts;
  }

  async start(specArg: string, flags?: string | string[]): Promise<StartResult> {
    // Flags may also stand in the spec ("docs/spec.md --fast"), as some clients pass them.
    const parsed = startArgs(this.root, specArg, flags);
    const { rel } = resolveSpecPath(this.root, parsed.spec);
    const ref = sessionRef(this.root, slugFromSpecPath(rel));
    await this.opts.beforeChange?.(ref);
    // Read once for the whole call; a bad key is refused here, before anything is made.
    const { config } = await readProjectConfig(this.root);
    const request: StartRequest = { parsed, rel };
    const routed = await this.worktreeRoute(ref, () => Promise.resolve(config), { evenIfDone: true });
    if (routed) return routed.engine.start(routed.ref, withoutWorktree(request));
    if (parsed.worktree || config.worktree === true) {
      const fresh =
        !(await this.store.exists(ref)) ||
        (await this.here()
          .read(ref)
          .then(
            (st) => st.currentState === "DONE",
            () => false,
          ));
      if (fresh) return this.startInWorktree(ref, withoutWorktree(request), config);
    }
    return this.session(() => Promise.resolve(config)).start(ref, request);
  }

  /** The current Step again. Finishes work a crash left half-done; otherwise changes nothing. */
  async next(slug: string): Promise<Step> {
    const { engine, ref } = await this.route(sessionRef(this.root, slug));
    return engine.next(ref);
  }

  /**
   * `usage`: what the persona run cost, as far as the host knows (null: it does not say). The
   * result and its usage are checked once, by the session engine, for every caller.
   */
  async report(slug: string, stepId: number, raw: unknown, rawUsage: unknown = null, task?: unknown): Promise<Step> {
    const ref = sessionRef(this.root, slug);
    await this.opts.beforeChange?.(ref);
    assertStepId(stepId);
    const which = taskOf(task);
    const routed = await this.route(ref);
    return routed.engine.report(routed.ref, stepId, raw, rawUsage, which);
  }

  /**
   * Record a persona's result for the dispatch Step `stepId` without reporting it (the MCP tool
   * autopilot_result, called by the persona): checked as a report checks it, then kept where
   * `report` without a result reads it. Changes no state; returns the file, relative to the root
   * the persona works in.
   */
  async record(slug: string, stepId: number, raw: unknown): Promise<string> {
    const ref = sessionRef(this.root, slug);
    await this.opts.beforeChange?.(ref);
    assertStepId(stepId);
    const routed = await this.route(ref);
    return routed.engine.record(routed.ref, stepId, raw);
  }

  /**
   * Apply an answer to the ask Step `stepId`. `by` is the channel it came through: a caller that
   * cannot vouch for a person answering (the MCP tool autopilot_decide) says `host`. Without an
   * answer (or at a Step that asks nothing), the person's words are recorded as a note.
   */
  async decide(
    slug: string,
    stepId: number,
    answer: string | undefined,
    rationale?: string,
    by: DecisionChannel = "host",
    /** by "relayed": the user's reply as the host quoted it. */
    userWords?: string,
  ): Promise<Step> {
    const ref = sessionRef(this.root, slug);
    await this.opts.beforeChange?.(ref);
    assertStepId(stepId);
    if (answer !== undefined && answer !== null)
      requireString(answer, "answer", 'Pass one of the ask Step\'s options, e.g. "yes".');
    if (rationale !== undefined && rationale !== null && typeof rationale !== "string")
      throw new AutopilotError("bad_input", "rationale must be a string (the user's reason, in their words).");
    if (userWords !== undefined && userWords !== null && typeof userWords !== "string")
      throw new AutopilotError("bad_input", "userWords must be a string (the user's reply, quoted).");
    if (!DecisionChannelSchema.safeParse(by).success)
      throw new AutopilotError(
        "bad_input",
        `by must be the channel the answer came through (${DECISION_CHANNELS.map((o) => `"${o}"`).join(", ")}), not ${shown(by)}.`,
      );
    const routed = await this.route(ref);
    return routed.engine.decide(routed.ref, stepId, answer, rationale, by, userWords);
  }

  /** The saved state, read-only (no lock: a reader never blocks a writer). */
  async read(slug: string): Promise<AutopilotState> {
    const ref = sessionRef(this.root, slug);
    return this.here().read(ref);
  }

  /**
   * Save research to the session's scratchpad (write_scratchpad): the session's rules are the
   * session engine's. Returns the file's absolute path.
   */
  async writeScratchpad(slug: string, phase: string | number, filename: string, content: string): Promise<string> {
    const ref = sessionRef(this.root, slug);
    return this.here().writeScratchpad(ref, phase, filename, content);
  }

  /** The Step as saved, without finishing anything (for status and resources). */
  async peek(slug: string): Promise<Step> {
    const { engine, ref } = await this.route(sessionRef(this.root, slug));
    return engine.peek(ref);
  }

  /** Where a session's personas work: its worktree, or the project. */
  async rootFor(slug: string): Promise<string> {
    const ref = sessionRef(this.root, slug);
    const pointer = await readPointer(ref.paths);
    return pointer ? path.join(this.root, pointer.path) : this.root;
  }

  async sessions(): Promise<string[]> {
    return this.store.list();
  }

  // ---- routing -------------------------------------------------------------------------------

  /** `.harness/config.json`, read on first need and at most once for this call. */
  private configOnce(): () => Promise<ProjectConfig> {
    let read: Promise<ProjectConfig> | undefined;
    return () => (read ??= readProjectConfig(this.root).then((r) => r.config));
  }

  /** A session engine for this checkout (one per call: the config it reads is this call's). */
  private session(config: () => Promise<ProjectConfig>): SessionEngine {
    return new SessionEngine(this.root, this.opts, config, this.store);
  }

  /** This checkout's session engine, for reads that need no routing. */
  private here(): SessionEngine {
    return this.session(this.configOnce());
  }

  private async route(ref: SessionRef): Promise<Route> {
    const config = this.configOnce();
    return (await this.worktreeRoute(ref, config)) ?? { engine: this.session(config), ref };
  }

  /**
   * The route of a session that runs in its own worktree (null for a session in this checkout).
   * Checks the worktree first: a removed worktree or a branch that lost the session's commits is
   * an error saying what to do. A DONE session needs no worktree to be read.
   */
  private async worktreeRoute(
    ref: SessionRef,
    config: () => Promise<ProjectConfig>,
    opts: { evenIfDone?: boolean } = {},
  ): Promise<Route | null> {
    const pointer = await readPointer(ref.paths);
    if (!pointer) return null;
    const state = (await this.store.exists(ref))
      ? await this.here()
          .read(ref)
          .catch(() => null)
      : null;
    if (state?.currentState === "DONE" && !opts.evenIfDone) return null;
    const last = state?.commits.at(-1)?.sha ?? state?.startingCommit ?? null;
    const abs = await checkWorktree(this.root, ref.slug, pointer, last);
    await ensureSessionLink(this.root, ref.slug, pointer);
    const engine = new SessionEngine(abs, { ...this.opts, workspace: { projectRoot: this.root, pointer } }, config);
    return { engine, ref: sessionRefAt(abs, ref) };
  }

  private async startInWorktree(ref: SessionRef, request: StartRequest, config: ProjectConfig): Promise<StartResult> {
    const { rel } = request;
    // Everything that can be refused is refused before a branch or a folder is made.
    const specText = await readFile(path.join(this.root, rel), "utf8").catch((e: NodeJS.ErrnoException) => {
      throw new AutopilotError("spec_not_found", `Cannot read the spec ${rel}: ${e.code ?? e.message}.`);
    });
    assertParseableMarkdown(specText, `The spec ${rel}`);
    parseSpec(specText);
    const pointer = await createWorktree(this.root, ref.slug, (this.opts.now?.() ?? new Date()).toISOString());
    const abs = path.join(this.root, pointer.path);
    const copied = await bringSpec(this.root, abs, rel);
    const engine = new SessionEngine(abs, { ...this.opts, workspace: { projectRoot: this.root, pointer } }, () =>
      Promise.resolve(config),
    );
    const r = await engine.start(sessionRefAt(abs, ref), request);
    const note =
      `Working in its own git worktree ${pointer.path} on branch ${pointer.branch} (from ${pointer.startingCommit.slice(0, 7)} on ${pointer.baseBranch}); your checkout and branch are not touched.` +
      (copied
        ? ` The spec ${rel} differs from the committed one (or is not committed), so your copy was put into the worktree.`
        : "");
    return { ...r, step: { ...r.step, report: [note, r.step.report].filter(Boolean).join("\n\n") } };
  }
}

/** The start's words without `--worktree` (the session inside the worktree has no use for it). */
function withoutWorktree({ parsed, rel }: StartRequest): StartRequest {
  const given = parsed.given.filter((w) => w !== "--worktree");
  return { rel, parsed: { ...parsed, worktree: false, given, flags: given } };
}

/** A wave's task as autopilot_report got it: "3", 3 or "Task 3" (a model may send any); absent is absent. */
function taskOf(task: unknown): string | undefined {
  if (task === undefined || task === null) return undefined;
  if (typeof task === "number" && Number.isSafeInteger(task)) return String(task);
  if (typeof task === "string" && task.trim()) return task.trim().replace(/^(?:task\s*#?|#)\s*(?=\d+$)/i, "");
  throw new AutopilotError(
    "bad_input",
    `task must be the task of the wave Step's next.tasks this result is for (e.g. "3"), not ${shown(task)}.`,
  );
}

function assertStepId(stepId: unknown): asserts stepId is number {
  if (typeof stepId !== "number" || !Number.isSafeInteger(stepId))
    throw new AutopilotError(
      "bad_input",
      `stepId must be the integer stepId of the Step being answered, not ${shown(stepId)}. Call autopilot_next for the current Step.`,
    );
}
