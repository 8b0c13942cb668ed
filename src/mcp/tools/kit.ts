// What every tool module shares: the server's context, the engine (loaded lazily), the client's
// view, and the wrappers that turn a tool's work into a Step result or a coded error. Each tool
// lives in its own module next to this one and only says what it does.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import path from "node:path";
import { readDriver } from "../../session/driver-lock.js";
import { hostOf, type HostView } from "../../protocol/host-view.js";
import { packageRoot } from "../../install/paths.js";
import { cliWordsHere } from "../../install/server-command.js";
import type { Engine } from "../../engine/engine.js";
import { AutopilotError } from "../../protocol/errors.js";
import type { Step } from "../../protocol/step.js";
import type { SessionRef } from "../../session/paths.js";
import { errorResult, stepResult, type Told } from "../render.js";
import { Progress, type Extra } from "../progress.js";
import { askInBand, clientCanElicit } from "../elicitation.js";
import type { ToolName } from "./names.js";

let engineModule: Promise<typeof import("../../engine/engine.js")> | undefined;
/**
 * The engine module, loaded on the first call that needs it rather than at start-up: it brings the
 * markdown parser, the state machine and the effects (~100 ms of module loading on the bench
 * machine), none of which tools/list needs (docs/performance.md, cold start).
 */
export function loadEngine(): Promise<typeof import("../../engine/engine.js")> {
  return (engineModule ??= import("../../engine/engine.js"));
}

export interface ToolContext {
  root: string;
  /** In-band human decisions where the client supports them (on unless --no-elicit, AUTOPILOT_ELICIT=0 or config `elicit: false`). */
  elicit: boolean;
  heartbeatMs: number;
  elicitTimeoutMs?: number;
  /** Before each persona's agent name in dispatch todos (`serve --agent-prefix`). */
  agentPrefix?: string;
  log: (level: "info" | "warning" | "error", message: string) => void;
  now?: () => Date;
}

/** What a Step tool's work returns: the Step, and lines to show before it or with its report. */
interface StepWork {
  step: Step;
  preface?: string[];
  report?: string[];
}

export interface ToolKit {
  server: McpServer;
  ctx: ToolContext;
  /** Which client this is (initialize clientInfo.name) decides the subagent tool the Steps name. */
  view: () => HostView;
  engineFor: (progress?: Progress) => Promise<Engine>;
  /** A Step tool: progress while it runs, in-band questions afterwards if enabled, errors as results. */
  stepTool: (
    name: ToolName,
    run: (engine: Engine) => Promise<StepWork>,
    opts: { elicit: boolean },
  ) => (extra: Extra) => Promise<CallToolResult>;
  /** A tool that answers JSON: errors become coded results. */
  safe: (fn: () => Promise<CallToolResult>) => Promise<CallToolResult>;
  /** Put an ask Step to the user in the client's form; null when they do not answer. */
  askUser: (step: Step, extra: Extra, progress: Progress) => ReturnType<typeof askInBand>;
  /**
   * The session a report or a decision names; left out, the one session this connection's Steps
   * have been about, else (a new server process: print mode's next turn, a reconnect) the
   * project's one session in progress, or the one of them at `stepId`. bad_input naming them
   * otherwise.
   */
  sessionOf: (named: string | undefined, engine: Engine, stepId: number) => Promise<string>;
}

/** The kind of Step each tool answers (Claude Code's lean Step then leaves out the session the call named). */
const ANSWERS: Partial<Record<ToolName, Step["next"]["kind"]>> = {
  autopilot_report: "dispatch",
  autopilot_decide: "ask",
};

/** The package's persona files, named in the instructions of hosts that read them. */
function personasDir(): string | undefined {
  try {
    return path.join(packageRoot(), "personas").split(path.sep).join("/");
  } catch {
    return undefined;
  }
}

export function toolKit(server: McpServer, ctx: ToolContext): ToolKit {
  let dir: string | undefined | null = null;
  // How the person runs the CLI here, for the commands a Step names: found once, on first use.
  let cli: string[] | undefined;
  const view = (): HostView => ({
    host: hostOf(server.server.getClientVersion()?.name),
    personasDir: dir === null ? (dir = personasDir()) : dir,
    ...(ctx.agentPrefix ? { agentPrefix: ctx.agentPrefix } : {}),
    cli: (cli ??= cliWordsHere()),
  });
  // A headless `autopilot run` drives its session for as long as it lives; a chat client moving
  // the same session underneath it would only make the run stop with busy half-way. The engine
  // runs this check once for every call that changes a session (start, report, decide, in-band
  // answers), with the session's handle.
  const assertNotDriven = async (ref: SessionRef) => {
    const driver = await readDriver(ctx.root, ref.slug).catch(() => null);
    if (driver && driver.pid !== process.pid)
      throw new AutopilotError(
        "busy",
        `\`autopilot run\` (pid ${driver.pid} on ${driver.hostname}, since ${driver.startedAt}) is driving session "${ref.slug}". Wait for it to finish or stop it (Ctrl-C), then call autopilot_next.`,
      );
  };
  // What this connection has shown its model (one client conversation per stdio server): the todos
  // (reset by autopilot_start and autopilot_next) and the sessions its Steps were about.
  const told: Told = { todos: new Set() };
  const sessions = new Set<string>();
  const sessionOf = async (named: string | undefined, engine: Engine, stepId: number): Promise<string> => {
    if (named !== undefined) return named;
    if (sessions.size === 1) return [...sessions][0];
    const name = (xs: string[]) => xs.map((x) => `"${x}"`).join(", ");
    if (sessions.size)
      throw new AutopilotError(
        "bad_input",
        `Which session? This conversation has had Steps of ${name([...sessions])}: name one in \`session\`.`,
      );
    // This process has shown no Step yet: the project's sessions in progress.
    const open: Array<{ slug: string; stepId: number }> = [];
    for (const slug of await engine.sessions()) {
      const state = await engine.read(slug).catch(() => null);
      if (state && state.currentState !== "DONE") open.push({ slug, stepId: state.stepId });
    }
    const at = open.filter((x) => x.stepId === stepId);
    if (open.length === 1) return open[0].slug;
    if (at.length === 1) return at[0].slug;
    throw new AutopilotError(
      "bad_input",
      open.length
        ? `Which session? ${name(open.map((x) => x.slug))} are in progress${at.length ? ` (${name(at.map((x) => x.slug))} at step ${stepId})` : ""}: name one in \`session\`.`
        : "Which session? No session is in progress in this project: pass `session` (autopilot_status lists them).",
    );
  };
  const engineFor = async (progress?: Progress) =>
    new (await loadEngine()).Engine(ctx.root, {
      // The client decides the models' names in a dispatch (src/personas/models.ts).
      runs: view().host,
      onProgress: progress?.report,
      log: ctx.log,
      now: ctx.now,
      beforeChange: assertNotDriven,
      cli: (cli ??= cliWordsHere()),
    });

  const stepTool: ToolKit["stepTool"] =
    (name, run, opts) =>
    async (extra: Extra): Promise<CallToolResult> => {
      const progress = new Progress(extra, ctx.heartbeatMs);
      try {
        const engine = await engineFor(progress);
        const out = await run(engine);
        let step = out.step;
        if (out.report?.length)
          step = { ...step, report: [...out.report, ...(step.report ? [step.report] : [])].join("\n\n") };
        const preface = [...(out.preface ?? [])];
        if (opts.elicit) step = await answerInBand(engine, step, extra, progress, preface);
        if (name === "autopilot_start" || name === "autopilot_next") told.todos.clear();
        sessions.add(step.session);
        ctx.log(
          "info",
          `${name} ${step.session}: step ${step.stepId} ${step.state} → ${step.next.kind}${step.next.kind === "dispatch" ? ` ${step.next.persona}` : ""}`,
        );
        return stepResult(step, view(), preface, ANSWERS[name], told);
      } catch (e) {
        const r = errorResult(e, view());
        ctx.log("warning", `${name}: ${(r.structuredContent as { error: { code: string } }).error.code}`);
        return r;
      } finally {
        progress.stop();
      }
    };

  const askUser: ToolKit["askUser"] = (step, extra, progress) =>
    askInBand(server.server, step, {
      signal: extra.signal,
      timeoutMs: ctx.elicitTimeoutMs,
      onWaiting: () => progress.report("waiting for the user's answer"),
    });

  /** Put ask Steps to the user through the client's form until one is not answered. */
  const answerInBand = async (
    engine: Engine,
    first: Step,
    extra: Extra,
    progress: Progress,
    preface: string[],
  ): Promise<Step> => {
    if (!ctx.elicit || !clientCanElicit(server.server)) return first;
    let step = first;
    // Each accepted answer is one transition; the bound only guards against a defect looping.
    for (let i = 0; i < 100 && step.next.kind === "ask"; i++) {
      const got = await askUser(step, extra, progress);
      if (!got) return step;
      try {
        step = await engine.decide(step.session, step.stepId, got.answer, got.rationale, "elicited");
        preface.push(
          `The user answered "${got.answer}"${got.rationale ? ` (${got.rationale})` : ""} in the client's form; it is recorded.`,
        );
      } catch (e) {
        // Someone else moved the session while the user was answering: show where it is now.
        const current = e instanceof AutopilotError ? e.details?.step : undefined;
        if (current) return current;
        throw e;
      }
    }
    return step;
  };

  const safe = async (fn: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      return await fn();
    } catch (e) {
      return errorResult(e, view());
    }
  };

  return { server, ctx, view, engineFor, stepTool, safe, askUser, sessionOf };
}
