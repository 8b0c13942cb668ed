// The built-in agent loop: a persona run directly on the Messages API, with the harness owning the
// loop (seed 003/004). The model proposes tool calls; the confined toolbox decides and executes
// them; the run ends when the model reports a result that passes the protocol's schema, or when the
// step limit is reached. Operational failures become results with `error` so the machine can retry
// or escalate; only a setup problem that no retry can fix stops the run.
import Anthropic from "@anthropic-ai/sdk";
import type {
  ContentBlockParam,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlock,
} from "@anthropic-ai/sdk/resources/messages";
import { AutopilotError } from "../protocol/errors.js";
import type { PersonaResult, ResultKind } from "../protocol/step.js";
import { checkResult, loadPersonaPrompt, RESULT_FIELDS, resultInputSchema, taskPrompt } from "./persona-prompts.js";
import { createToolbox, type ToolboxOptions } from "./tools.js";
import type { PersonaRunner, PersonaTask, RunnerOutcome, TokenUsage } from "./types.js";

const DEFAULT_MODEL = "claude-sonnet-5-5";
const REPORT_TOOL = "report_result";

export interface AnthropicRunnerOptions {
  /**
   * One model for every persona; default: env AUTOPILOT_MODEL. Without either, each persona runs on
   * the model its Step names (its tier, src/session/models.ts), else DEFAULT_MODEL.
   */
  model?: string;
  /** Default: env ANTHROPIC_API_KEY (or, without it, env ANTHROPIC_AUTH_TOKEN as a bearer token). */
  apiKey?: string;
  /** Default: env ANTHROPIC_BASE_URL (read by the SDK), else the public API. */
  baseURL?: string;
  /** Model turns per dispatch before giving up (default 50). */
  maxTurns?: number;
  /** max_tokens per response (default 8192). */
  maxTokens?: number;
  /** SDK retries on 429/5xx/connection errors (default 2). */
  maxRetries?: number;
  /** Per-request timeout in ms (default the SDK's). */
  timeoutMs?: number;
  /** Folder searched for persona files before the bundled personas/. */
  personasDir?: string;
  /**
   * Characters of tool results kept in the transcript (default 400,000); past it the oldest are
   * replaced by a note, so a long run does not outgrow the context window.
   */
  historyBudgetChars?: number;
  /** Limits of the tool set. */
  tools?: Omit<ToolboxOptions, "signal">;
  /** Environment to read defaults from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

const CONTRACT = (kind: ResultKind) =>
  [
    "## How this run works",
    "You are running headless inside autopilot: there is no human to talk to during this run. Work only with the " +
      "tools given; every path is relative to the project root and stays inside it. Before you edit or overwrite a " +
      "file, read all of it; if it changes on disk afterwards, read it again. Tool results are bounded: use offset, " +
      "narrower paths or patterns for more.",
    `When you are done, call ${REPORT_TOOL} exactly once with a result of kind "${kind}": ${RESULT_FIELDS[kind]}. ` +
      `If you cannot do the job, call it with {"kind":"${kind}","error":"<why>"}. Your run ends only through ${REPORT_TOOL}.`,
  ].join("\n\n");

export class AnthropicRunner implements PersonaRunner {
  readonly name = "anthropic";
  readonly simulated = false;
  readonly model: string;
  /** One model for every persona (`"model"` in the config, or AUTOPILOT_MODEL): the tiers do not apply. */
  private readonly pinned: boolean;
  private readonly client: Anthropic;
  private readonly o: Required<Pick<AnthropicRunnerOptions, "maxTurns" | "maxTokens">> & AnthropicRunnerOptions;

  constructor(opts: AnthropicRunnerOptions = {}) {
    const env = opts.env ?? process.env;
    const apiKey = opts.apiKey ?? env.ANTHROPIC_API_KEY;
    const authToken = apiKey ? undefined : env.ANTHROPIC_AUTH_TOKEN;
    if (!apiKey && !authToken) {
      throw new AutopilotError(
        "bad_input",
        "The anthropic runner needs an API key: set ANTHROPIC_API_KEY (and optionally AUTOPILOT_MODEL), " +
          "or choose another runner with --runner scripted|command.",
      );
    }
    this.model = opts.model ?? (env.AUTOPILOT_MODEL || DEFAULT_MODEL);
    this.pinned = opts.model !== undefined || !!env.AUTOPILOT_MODEL;
    this.o = { ...opts, maxTurns: opts.maxTurns ?? 50, maxTokens: opts.maxTokens ?? 8192 };
    this.client = new Anthropic({
      // Passing the credential explicitly keeps the SDK from also reading profiles from disk.
      ...(apiKey ? { apiKey } : { authToken }),
      baseURL: opts.baseURL ?? env.ANTHROPIC_BASE_URL ?? undefined,
      maxRetries: opts.maxRetries ?? 2,
      ...(opts.timeoutMs ? { timeout: opts.timeoutMs } : {}),
      logLevel: "off",
    });
  }

  async run(task: PersonaTask, signal?: AbortSignal): Promise<RunnerOutcome> {
    signal?.throwIfAborted();
    const kind = task.expects.result;
    const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const log: string[] = [];
    const note = (s: string) => {
      if (log.length < 200) log.push(s);
    };
    const finish = (result: PersonaResult): RunnerOutcome => ({ result, usage, log });
    const fail = (error: string) => finish({ kind, error });

    const toolbox = createToolbox(task.projectRoot, { ...this.o.tools, signal });
    const tools: Tool[] = [
      ...toolbox.definitions,
      {
        name: REPORT_TOOL,
        description: `Report the outcome of your work (kind "${kind}") and end the run. Call it once, last.`,
        input_schema: resultInputSchema(kind),
      },
    ];
    // The prefix up to the system prompt (tools, then system) is identical on every turn of this
    // persona, so one breakpoint there makes turns 2..n read it from the cache.
    const system: TextBlockParam[] = [
      { type: "text", text: loadPersonaPrompt(task.persona, kind, { personasDir: this.o.personasDir }) },
      { type: "text", text: CONTRACT(kind), cache_control: { type: "ephemeral" } },
    ];
    const messages: MessageParam[] = [{ role: "user", content: [{ type: "text", text: taskPrompt(task) }] }];
    // The persona's model (the Step's), unless one model was pinned for every persona.
    const model = this.pinned ? this.model : (task.model ?? this.model);

    for (let turn = 1; turn <= this.o.maxTurns; turn++) {
      signal?.throwIfAborted();
      projectHistory(messages, this.o.historyBudgetChars ?? 400_000);
      markConversationCache(messages);
      let response;
      try {
        response = await this.client.messages.create(
          { model, max_tokens: this.o.maxTokens, system, tools, messages },
          { signal },
        );
      } catch (e) {
        if (signal?.aborted) throw signal.reason ?? e;
        const stop = setupProblem(e, model);
        if (stop) throw stop;
        return fail(`The model API call failed on turn ${turn}: ${describeApiError(e)}`);
      }
      addUsage(usage, response.usage);
      messages.push({ role: "assistant", content: response.content as ContentBlockParam[] });

      const uses = response.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
      for (const b of response.content) {
        if (b.type === "text" && b.text.trim()) note(`${task.persona}: ${oneLine(b.text)}`);
      }
      if (response.stop_reason === "refusal") {
        return fail(`The model declined the task (stop_reason refusal) on turn ${turn}.`);
      }
      if (uses.length === 0) {
        const why = response.stop_reason === "max_tokens" ? "Your response was cut off at the token limit. " : "";
        messages.push({
          role: "user",
          content: [
            { type: "text", text: `${why}Continue the work with the tools, and end by calling ${REPORT_TOOL}.` },
          ],
        });
        continue;
      }

      const results: ToolResultBlockParam[] = [];
      for (const use of uses) {
        if (use.name === REPORT_TOOL) {
          const check = checkResult(kind, use.input);
          if (check.ok) {
            note(`${REPORT_TOOL}: ${oneLine(JSON.stringify(check.result))}`);
            return finish(check.result);
          }
          note(`${REPORT_TOOL} refused: ${oneLine(check.message)}`);
          results.push({ type: "tool_result", tool_use_id: use.id, content: check.message, is_error: true });
          continue;
        }
        const r = await toolbox.call(use.name, use.input);
        note(
          `${use.name} ${oneLine(summarizeInput(use.input))}${r.isError ? ` -> refused: ${oneLine(r.content)}` : ""}`,
        );
        results.push({
          type: "tool_result",
          tool_use_id: use.id,
          content: r.content,
          ...(r.isError ? { is_error: true } : {}),
        });
      }
      const content: ContentBlockParam[] = [...results];
      // Disk is the truth, not the transcript: say which files the model read have changed since.
      const changed = await toolbox.changedSinceRead();
      if (changed.length) {
        content.push({
          type: "text",
          text: `Note: these files changed on disk after you read them; read them again before relying on them: ${changed.join(", ")}`,
        });
      }
      if (turn === this.o.maxTurns - 1) {
        content.push({ type: "text", text: `You have one turn left: call ${REPORT_TOOL} now.` });
      }
      messages.push({ role: "user", content });
    }
    return fail(
      `step limit reached: ${this.o.maxTurns} model turns without a valid ${REPORT_TOOL} call` +
        (toolbox.written.size ? ` (files written: ${[...toolbox.written].slice(0, 20).join(", ")})` : ""),
    );
  }
}

// Context is a projection, not a log: when tool results outgrow the budget, the oldest are replaced
// by a short note (the model can re-run the tool). The newest message is always kept whole.
// Eliding rewrites early messages and so costs one cache miss; it happens only past the budget.
function projectHistory(messages: MessageParam[], budget: number) {
  const results: Array<{ block: ToolResultBlockParam; size: number }> = [];
  for (const m of messages.slice(0, -1)) {
    if (m.role !== "user" || typeof m.content === "string") continue;
    for (const b of m.content) {
      if (b.type === "tool_result" && typeof b.content === "string") results.push({ block: b, size: b.content.length });
    }
  }
  const last = messages[messages.length - 1];
  let total = results.reduce((n, r) => n + r.size, 0);
  if (last && typeof last.content !== "string") {
    for (const b of last.content)
      if (b.type === "tool_result" && typeof b.content === "string") total += b.content.length;
  }
  for (const r of results) {
    if (total <= budget) break;
    if (r.size < 200) continue;
    const note = `[earlier tool result elided to keep the context small (${r.size} characters); run the tool again if you need it]`;
    total -= r.size - note.length;
    r.block.content = note;
  }
}

// Keeps one moving cache breakpoint on the newest user content, so each turn reuses the previous
// turn's prefix; older marks are removed to stay within the API's limit of four breakpoints.
function markConversationCache(messages: MessageParam[]) {
  for (const m of messages) {
    if (typeof m.content === "string") continue;
    for (const b of m.content) {
      if ("cache_control" in b && b.cache_control) delete (b as { cache_control?: unknown }).cache_control;
    }
  }
  const last = messages[messages.length - 1];
  if (last && typeof last.content !== "string" && last.content.length) {
    const b = last.content[last.content.length - 1] as { cache_control?: unknown };
    b.cache_control = { type: "ephemeral" };
  }
}

function addUsage(total: TokenUsage, u: Anthropic.Messages.Usage | undefined) {
  if (!u) return;
  total.inputTokens += u.input_tokens ?? 0;
  total.outputTokens += u.output_tokens ?? 0;
  total.cacheReadTokens += u.cache_read_input_tokens ?? 0;
  total.cacheWriteTokens += u.cache_creation_input_tokens ?? 0;
}

// Errors no retry can fix (a wrong key, no access, a model id that does not exist) stop the run
// with a next step; everything else (rate limits, overload, network) is this dispatch's failure.
function setupProblem(e: unknown, model: string): AutopilotError | null {
  if (e instanceof Anthropic.AuthenticationError) {
    return new AutopilotError(
      "bad_input",
      `The Anthropic API rejected the API key (401): check ANTHROPIC_API_KEY. ${describeApiError(e)}`,
    );
  }
  if (e instanceof Anthropic.PermissionDeniedError) {
    return new AutopilotError(
      "bad_input",
      `The API key may not use this API or model (403): check the key's workspace and AUTOPILOT_MODEL. ${describeApiError(e)}`,
    );
  }
  if (e instanceof Anthropic.NotFoundError) {
    return new AutopilotError(
      "bad_input",
      `Model "${model}" or the API endpoint was not found (404): check AUTOPILOT_MODEL and ANTHROPIC_BASE_URL. ${describeApiError(e)}`,
    );
  }
  if (e instanceof Anthropic.AnthropicError && !(e instanceof Anthropic.APIError)) {
    // Raised by the client before any request (e.g. a malformed base URL or missing credentials).
    return new AutopilotError("bad_input", `The Anthropic client is misconfigured: ${e.message}`);
  }
  return null;
}

function describeApiError(e: unknown): string {
  if (e instanceof Anthropic.APIError) {
    const body = e.error as { error?: { message?: string; type?: string } } | undefined;
    const msg = body?.error?.message ?? e.message;
    return `${e.status ?? "no status"}${body?.error?.type ? ` ${body.error.type}` : ""}: ${msg}`;
  }
  return (e as Error)?.message ?? String(e);
}

function summarizeInput(input: unknown): string {
  if (!input || typeof input !== "object") return "";
  const i = input as Record<string, unknown>;
  const main = i.path ?? i.command ?? i.pattern ?? i.glob;
  return typeof main === "string" ? main : "";
}

function oneLine(s: string, max = 160): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}
