// The eight tools. Thin: check input, call the engine, render. Every Step tool answers with the
// Step (structuredContent) and its text; every failure is an isError result with a stable code.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { readDriver } from "../headless/driver-lock.js";
import { resolveSpecPath, slugFromSpecPath } from "../session/slug.js";
import { startArgs } from "../engine/flags.js";
import { hostOf, type HostView } from "../engine/step.js";
import { packageRoot } from "../install/paths.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Engine } from "../engine/engine.js";
import { AutopilotError } from "../protocol/errors.js";
import { PersonaResult, type Step } from "../protocol/step.js";
import { sessionDirRel } from "../session/paths.js";
import { gatherContext, type ContextPart } from "../effects/context.js";
import { writeScratchpad } from "../effects/scratchpad.js";
import {
  DecideInput,
  DecisionsInput,
  GatherInput,
  NextInput,
  ReportInput,
  ScratchpadInput,
  StartInput,
  StatusInput,
  StepOutput,
} from "./schemas.js";
import { errorResult, hostStep, jsonResult, stepResult } from "./render.js";
import { Progress, type Extra } from "./progress.js";
import { askInBand, clientCanElicit } from "./elicitation.js";
import { decisionLog, listSessions, sessionDetail, summaryLine } from "./sessions.js";
import path from "node:path";
import { parseUsage } from "../session/usage.js";
import { RIGOR } from "../../machines/policy.js";

let engineModule: Promise<typeof import("../engine/engine.js")> | undefined;
/**
 * The engine module, loaded on the first call that needs it rather than at start-up: it brings the
 * markdown parser, the state machine and the effects (~100 ms of module loading on the bench
 * machine), none of which tools/list needs (docs/performance.md, cold start).
 */
export function loadEngine(): Promise<typeof import("../engine/engine.js")> {
  return (engineModule ??= import("../engine/engine.js"));
}

export interface ToolContext {
  root: string;
  /** In-band human decisions where the client supports them (on unless --no-elicit, AUTOPILOT_ELICIT=0 or config `elicit: false`). */
  elicit: boolean;
  heartbeatMs: number;
  elicitTimeoutMs?: number;
  log: (level: "info" | "warning" | "error", message: string) => void;
  now?: () => Date;
}

/** The package's persona files, named in the instructions of hosts that read them. */
function personasDir(): string | undefined {
  try {
    return path.join(packageRoot(), "personas").split(path.sep).join("/");
  } catch {
    return undefined;
  }
}

export function registerTools(server: McpServer, ctx: ToolContext): void {
  // Which client this is (initialize clientInfo.name) decides the subagent tool the Steps name.
  let dir: string | undefined | null = null;
  const view = (): HostView => ({
    host: hostOf(server.server.getClientVersion()?.name),
    personasDir: dir === null ? (dir = personasDir()) : dir,
  });
  const engineFor = async (progress?: Progress) =>
    new (await loadEngine()).Engine(ctx.root, { onProgress: progress?.report, log: ctx.log, now: ctx.now });

  /** A Step tool: progress while it runs, in-band questions afterwards if enabled, errors as results. */
  const stepTool = (
    name: string,
    run: (engine: Engine) => Promise<{ step: Step; preface?: string[]; report?: string[] }>,
    opts: { elicit: boolean },
  ) =>
    async (extra: Extra): Promise<CallToolResult> => {
      const progress = new Progress(extra, ctx.heartbeatMs);
      try {
        const engine = await engineFor(progress);
        const out = await run(engine);
        let step = out.step;
        if (out.report?.length) step = { ...step, report: [...out.report, ...(step.report ? [step.report] : [])].join("\n\n") };
        const preface = [...(out.preface ?? [])];
        if (opts.elicit) step = await answerInBand(engine, step, extra, progress, preface);
        ctx.log("info", `${name} ${step.session}: step ${step.stepId} ${step.state} → ${step.next.kind}${step.next.kind === "dispatch" ? ` ${step.next.persona}` : ""}`);
        return stepResult(step, view(), preface);
      } catch (e) {
        const r = errorResult(e, view());
        ctx.log("warning", `${name}: ${(r.structuredContent as { error: { code: string } }).error.code}`);
        return r;
      } finally {
        progress.stop();
      }
    };

  /** Put ask Steps to the user through the client's form until one is not answered. */
  const answerInBand = async (engine: Engine, first: Step, extra: Extra, progress: Progress, preface: string[]): Promise<Step> => {
    if (!ctx.elicit || !clientCanElicit(server.server)) return first;
    let step = first;
    // Each accepted answer is one transition; the bound only guards against a defect looping.
    for (let i = 0; i < 100 && step.next.kind === "ask"; i++) {
      const got = await askInBand(server.server, step, {
        signal: extra.signal,
        timeoutMs: ctx.elicitTimeoutMs,
        onWaiting: () => progress.report("waiting for the user's answer"),
      });
      if (!got) return step;
      try {
        step = await engine.decide(step.session, step.stepId, got.answer, got.rationale, "elicited");
        preface.push(`The user answered "${got.answer}"${got.rationale ? ` (${got.rationale})` : ""} in the client's form; it is recorded.`);
      } catch (e) {
        // Someone else moved the session while the user was answering: show where it is now.
        const current = e instanceof AutopilotError ? (e.details?.step as Step | undefined) : undefined;
        if (current) return current;
        throw e;
      }
    }
    return step;
  };

  // A headless `autopilot run` drives its session for as long as it lives; a chat client moving
  // the same session underneath it would only make the run stop with busy half-way.
  const assertNotDriven = async (slug: string) => {
    const driver = await readDriver(ctx.root, slug).catch(() => null);
    if (driver && driver.pid !== process.pid)
      throw new AutopilotError(
        "busy",
        `\`autopilot run\` (pid ${driver.pid} on ${driver.hostname}, since ${driver.startedAt}) is driving session "${slug}". Wait for it to finish or stop it (Ctrl-C), then call autopilot_next.`,
      );
  };

  const safe = async (fn: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      return await fn();
    } catch (e) {
      return errorResult(e, view());
    }
  };

  server.registerTool(
    "autopilot_start",
    {
      description: "Start or resume a session on a spec; returns a Step.",
      inputSchema: StartInput,
      outputSchema: StepOutput,
    },
    (args, extra) =>
      stepTool(
        "autopilot_start",
        async (engine) => {
          await assertNotDriven(slugFromSpecPath(resolveSpecPath(ctx.root, startArgs(ctx.root, args.spec, args.flags).spec).rel));
          const r = await engine.start(args.spec, args.flags);
          return {
            step: r.step,
            report: r.resumed ? r.notes : [],
          };
        },
        { elicit: true },
      )(extra),
  );

  server.registerTool(
    "autopilot_next",
    {
      description: "The current Step again; changes nothing.",
      inputSchema: NextInput,
      outputSchema: StepOutput,
      annotations: { idempotentHint: true },
    },
    // No in-band questions here: autopilot_next promises to change nothing.
    (args, extra) => stepTool("autopilot_next", async (engine) => ({ step: await engine.next(args.session) }), { elicit: false })(extra),
  );

  server.registerTool(
    "autopilot_report",
    {
      description: "Report a persona's result; returns the next Step.",
      inputSchema: ReportInput,
      outputSchema: StepOutput,
    },
    (args, extra) =>
      stepTool(
        "autopilot_report",
        async (engine) => {
          const parsed = PersonaResult.safeParse(args.result);
          if (!parsed.success) {
            // An unknown session is the more useful error; otherwise show where the session is.
            const step = await engine.peek(args.session);
            const issue = parsed.error.issues[0];
            throw new AutopilotError(
              "bad_result",
              `The result does not fit the protocol (${["result", ...issue.path].join(".")}: ${issue.message}). Send {"kind": <expects.result>, ...} as described in docs/mcp.md.`,
              { step },
            );
          }
          const usage = parseUsage(args.usage);
          await assertNotDriven(args.session);
          return { step: await engine.report(args.session, args.stepId, parsed.data, usage) };
        },
        { elicit: true },
      )(extra),
  );

  server.registerTool(
    "autopilot_decide",
    {
      description: "Record the user's answer; returns the next Step.",
      inputSchema: DecideInput,
      outputSchema: StepOutput,
    },
    (args, extra) =>
      stepTool(
        "autopilot_decide",
        async (engine) => {
          await assertNotDriven(args.session);
          try {
            return { step: await engine.decide(args.session, args.stepId, args.answer, args.rationale, "host") };
          } catch (e) {
            // --human-gates refused the host's answer: where the client has a form, the question
            // goes to the user there (their answer, not the host's, is applied).
            if (!(e instanceof AutopilotError && e.code === "human_required") || !ctx.elicit || !clientCanElicit(server.server)) throw e;
            const asked = e.details?.step as Step | undefined;
            if (!asked || asked.next.kind !== "ask") throw e;
            const progress = new Progress(extra, ctx.heartbeatMs);
            try {
              const got = await askInBand(server.server, asked, {
                signal: extra.signal,
                timeoutMs: ctx.elicitTimeoutMs,
                onWaiting: () => progress.report("waiting for the user's answer"),
              });
              if (!got) throw e;
              return {
                step: await engine.decide(asked.session, asked.stepId, got.answer, got.rationale, "elicited"),
                preface: [`This gate needs a person: the question went to the user in the client's form, who answered "${got.answer}"${got.rationale ? ` (${got.rationale})` : ""}; it is recorded.`],
              };
            } finally {
              progress.stop();
            }
          }
        },
        { elicit: true },
      )(extra),
  );

  server.registerTool(
    "autopilot_status",
    {
      description: "Sessions and what each waits on, or one in detail.",
      inputSchema: StatusInput,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      safe(async () => {
        const engine = await engineFor();
        if (args.session) {
          const d = await sessionDetail(engine, args.session);
          return jsonResult({ ...d, step: hostStep(d.step, view()) }, summaryLine(d));
        }
        const sessions = await listSessions(engine);
        const text = sessions.length ? sessions.map(summaryLine).join("\n") : "No autopilot sessions in this project. Start one with autopilot_start.";
        return jsonResult({ sessions }, text);
      }),
  );

  server.registerTool(
    "autopilot_decisions",
    {
      description: "The decision log: decisions with signals, phase history, final review, commits. Read-only.",
      inputSchema: DecisionsInput,
      annotations: { readOnlyHint: true },
    },
    (args) => safe(async () => jsonResult(await decisionLog(await engineFor(), args.session))),
  );

  server.registerTool(
    "gather_context",
    {
      description: "Session context in one call: state, learnings, handoff, validation (runs the project's checks; ask for it explicitly).",
      inputSchema: GatherInput,
      annotations: { readOnlyHint: true },
    },
    (args, extra) =>
      safe(async () => {
        await (await engineFor()).read(args.session); // unknown_session, unsafe names
        const progress = new Progress(extra, ctx.heartbeatMs);
        try {
          const include: ContextPart[] = args.include ?? ["state", "learnings", "handoff"];
          if (include.includes("validation")) progress.report("running the project's validation commands");
          return jsonResult(await gatherContext(ctx.root, args.session, include, { signal: extra.signal }));
        } finally {
          progress.stop();
        }
      }),
  );

  server.registerTool(
    "write_scratchpad",
    {
      description: "Save bulky research to the session scratchpad (cleared when the phase completes). Returns the path.",
      inputSchema: ScratchpadInput,
    },
    (args) =>
      safe(async () => {
        const state = await (await engineFor()).read(args.session);
        if (RIGOR[state.rigorLevel].scratchpad === "none")
          throw new AutopilotError(
            "bad_input",
            "This session runs with --fast: the scratchpad is skipped. Keep the research in the conversation.",
          );
        // The folder is named after the phase, whichever way the caller names it, so that
        // PHASE_COMPLETE (which clears it by name) finds it.
        const phase =
          typeof args.phase === "number" && state.phases[args.phase] ? state.phases[args.phase].name : args.phase;
        const file = await writeScratchpad(ctx.root, sessionDirRel(args.session), phase, args.filename, args.content);
        const rel = path.relative(ctx.root, file).split(path.sep).join("/");
        return jsonResult({ path: rel }, `Wrote ${rel}.`);
      }),
  );
}
