// The scripted model. Given a conversation exactly as a real client showed it to the model (in the
// neutral form of ./types.ts), it decides the next turn the way a diligent model would:
//
// host (the user's session):
//   - a user turn with the /autopilot command or the MCP prompt → autopilot_start with the spec and
//     the flags it reads there;
//   - an autopilot Step → do what `next` says: dispatch the persona through the client's own
//     subagent tool; put an `ask` to the user (end the turn; the user's next message is the
//     answer, passed to autopilot_decide); tell the user about a `wait` or the `done` summary;
//   - a parallel wave (next.tasks) → one dispatch call per entry not started yet, all in one
//     assistant message; then, as each executor's result is in hand (its tool result or task
//     notification), autopilot_report with that entry's task, one report per turn;
//   - a subagent's result → autopilot_report with its JSON block, session and stepId of the Step;
//     a subagent the client started in the background → end the turn, and report when the client's
//     task notification brings its result;
//   - a user turn with no Step in sight (after /clear, compaction, a new client): the session the
//     client's context names ("autopilot session <slug> is at ...", from the SessionStart hook) →
//     autopilot_next; without such a line it has nothing to resume and asks for a spec.
// persona (inside a subagent):
//   - read the brief the prompt names (and the plan, for the executor), write the plan/handoff or
//     the code and state.json with the client's file tools, then reply with one ```json result,
//     or hand it back through the client's hand-back tool when the persona's text says to.
//
// It acts only on what it is shown: a Step is read from the tool result's text as the client
// renders it (Claude Code: the structuredContent JSON), never from the server's own files; a persona
// learns its job from the prompt and the brief it reads through the client's tools. If what it sees
// is not enough, it says so in its reply (and the test fails on it), rather than guessing.
import type {
  Conversation,
  Decision,
  Dialect,
  Message,
  TaskNotification,
  ToolCall,
  ToolResult,
  WantedCall,
} from "./types.js";

export interface BrainOptions {
  /** Tasks per plan the planner writes (default 2). */
  tasksPerPlan?: number;
  /** Called with a line per decision (for test logs). */
  log?: (line: string) => void;
  /**
   * Asked once per review a reviewer persona hands back (`phase`: the phase name, or "final"):
   * true makes that review report one blocking finding. Default: never.
   */
  blockingReview?: (phase: string) => boolean;
  /**
   * Asked once per serial executor run (`phase`: the phase name): true makes that run fail its task
   * (an `executed` result with outcome "failed"), as a model that could not make it pass would.
   * Default: never.
   */
  failRun?: (phase: string) => boolean;
}

/** A Step as the host model reads it (docs/mcp.md); only the fields the brain uses are typed. */
export interface SeenStep {
  session: string;
  stepId: number;
  /** Left out of Claude Code's lean Step. */
  state?: string;
  rigor?: string;
  reviewPlans?: boolean;
  report?: string;
  todo?: string;
  next:
    | {
        kind: "dispatch";
        persona: string;
        description?: string;
        prompt: string;
        /** The model to run the persona on, in this client's terms, when the Step names one. */
        model?: string;
        expects?: { result: string };
        tasks?: WaveEntry[];
      }
    | { kind: "ask"; question: string; options: string[]; context?: string }
    | { kind: "wait"; reason: string; resumeWith: string }
    | { kind: "done"; summary?: unknown };
}

/** One entry of a parallel wave's `next.tasks` (docs/mcp.md), as the host model reads it. */
export interface WaveEntry {
  task: string;
  prompt: string;
  description?: string;
  /** The step that started its executor: it runs already, only its report is owed. */
  startedAt?: number;
  model?: string;
}

const AUTOPILOT_TOOLS = [
  "autopilot_start",
  "autopilot_next",
  "autopilot_report",
  "autopilot_decide",
  "autopilot_status",
  "autopilot_decisions",
  "gather_context",
  "write_scratchpad",
];

/** Text a client adds to a turn for the model's information only (Claude Code's reminders). */
function isReminder(text: string): boolean {
  const t = text.trim();
  return t === "" || (t.startsWith("<system-reminder>") && t.endsWith("</system-reminder>"));
}

function userText(m: Message, dialect?: Dialect): string {
  return m.parts
    .filter(
      (p): p is { type: "text"; text: string } =>
        p.type === "text" && !isReminder(p.text) && !dialect?.isNotice?.(p.text),
    )
    .map((p) => dialect?.userWords?.(p.text) ?? p.text)
    .join("\n")
    .trim();
}

/** Every tool call of the conversation by id. */
function callsById(conv: Conversation): Map<string, ToolCall> {
  const m = new Map<string, ToolCall>();
  for (const msg of conv.messages) for (const p of msg.parts) if (p.type === "tool_call") m.set(p.call.id, p.call);
  return m;
}

interface Event {
  kind: "user" | "result" | "notification";
  text?: string;
  call?: ToolCall;
  result?: ToolResult;
  /** A background subagent's completion (kind "notification"). */
  notice?: TaskNotification;
}

/** The conversation as a list of user turns and tool results, oldest first, meta tools left out. */
function events(conv: Conversation, dialect: Dialect): Event[] {
  const calls = callsById(conv);
  const out: Event[] = [];
  for (const m of conv.messages) {
    if (m.role !== "user") continue;
    for (const p of m.parts) {
      if (p.type !== "tool_result") continue;
      const call =
        calls.get(p.result.callId) ?? (p.result.name ? { id: "", name: p.result.name, args: {} } : undefined);
      if (call && dialect.isMetaTool?.(call.name)) continue;
      out.push({ kind: "result", call, result: p.result });
    }
    // The client's notices of background subagents that finished (they come inside reminders).
    for (const p of m.parts)
      if (p.type === "text")
        for (const notice of dialect.taskNotifications?.(p.text, conv) ?? [])
          out.push({ kind: "notification", call: calls.get(notice.callId), notice });
    // Text beside tool results is the client's annotation of them (Claude Code: "Tool loaded."),
    // not something the user said; unless a call was refused there: the turn stopped, and what
    // follows is the user's next message (Claude Code sends both in one user turn).
    if (
      m.parts.some((p) => p.type === "tool_result") &&
      !m.parts.some((p) => p.type === "tool_result" && p.result.isError)
    )
      continue;
    const t = userText(m, dialect);
    if (t) out.push({ kind: "user", text: t });
  }
  return out;
}

/** The JSON object a tool result shows, if it shows one. */
export function shownJson(result: ToolResult): any {
  if (result.structured && typeof result.structured === "object") return result.structured;
  const t = result.text.trim();
  try {
    return JSON.parse(t);
  } catch {
    // Some clients wrap the object (e.g. {"structuredContent":...} or text around it): find the outermost braces.
    const a = t.indexOf("{");
    const b = t.lastIndexOf("}");
    if (a >= 0 && b > a) {
      try {
        return JSON.parse(t.slice(a, b + 1));
      } catch {
        return null;
      }
    }
    return null;
  }
}

/** The Step an autopilot tool result shows (also inside an error's `step`), or null. */
export function stepOf(result: ToolResult): SeenStep | null {
  let j = shownJson(result);
  if (j && typeof j === "object" && "structuredContent" in j) j = j.structuredContent;
  if (j?.error?.step) return j.error.step as SeenStep;
  if (j && typeof j.stepId === "number" && j.next && typeof j.next.kind === "string") return j as SeenStep;
  return null;
}

/** The last ```json block of a text, parsed. */
export function lastJsonBlock(text: string): unknown {
  const blocks = [...text.matchAll(/```json\s*\n([\s\S]*?)```/g)];
  for (let i = blocks.length - 1; i >= 0; i--) {
    try {
      return JSON.parse(blocks[i][1]);
    } catch {
      /* try the one before */
    }
  }
  return null;
}

/** The spec and flags the user gave, from the /autopilot command body or the MCP prompt. */
export function startArgs(text: string): { spec: string; flags?: string } | null {
  // The MCP prompt: "1. Call autopilot_start with {...}."
  const call = /Call autopilot_start with (\{[^\n]*\})/.exec(text);
  if (call) {
    try {
      const j = JSON.parse(call[1]);
      if (typeof j.spec === "string") return j;
    } catch {
      /* fall through */
    }
  }
  // The command file: "Arguments: docs/spec.md --fast --review-plans"
  const line = /^Arguments:[ \t]*(.*)$/m.exec(text);
  // Where the text says a quoted path is one word, the model reads `"docs/my spec.md" --fast` so.
  const quotesKept = /a quoted path (with spaces )?is one word/.test(text);
  const fromWords = (rest: string) => {
    const words = quotesKept
      ? [...rest.trim().matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3])
      : rest.trim().split(/\s+/).filter(Boolean);
    // A spec is a Markdown path; anything else (an unexpanded placeholder, prose) is not an argument.
    if (!words.length || !/\.md$/i.test(words[0])) return null;
    const flags = words.slice(1).join(" ");
    return { spec: words[0], ...(flags ? { flags } : {}) };
  };
  const fromLine = line ? fromWords(line[1]) : null;
  if (fromLine) return fromLine;
  // The command as the user typed it, where the client shows the model the typed line itself next
  // to the command's text (a Codex skill mention `$autopilot docs/spec.md --fast`).
  const typed = /^[ \t]*[/$][\w.:-]*autopilot[\w.:-]*[ \t]+(.+)$/m.exec(text);
  return typed ? fromWords(typed[1]) : null;
}

/**
 * The session a line in the model's context says is in progress: the SessionStart hook's
 * "autopilot session <slug> is at <state> (step N); call autopilot_start with spec "<spec>" to resume
 * it (autopilot_next with session "<slug>" continues it too)", wherever the client put it (system
 * prompt, a reminder, a system turn); the scripted model takes the second way. The last one wins.
 */
export function resumeHint(conv: Conversation): string | null {
  const texts = [
    conv.system,
    ...conv.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : []))),
  ];
  let slug: string | null = null;
  for (const t of texts)
    for (const m of t.matchAll(/autopilot session (\S+) is at [A-Z_]+ \(step \d+\)[^\n]*autopilot_next/g)) slug = m[1];
  return slug;
}

/** The persona's own text tells it to hand its result back through the client's hand-back tool. */
function personaSaysHandBack(system: string): boolean {
  return /hand-back tool/i.test(system);
}

function slugify(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

export class Brain {
  private readonly o: Required<Omit<BrainOptions, "log">> & Pick<BrainOptions, "log">;
  constructor(
    readonly dialect: Dialect,
    opts: BrainOptions = {},
  ) {
    this.o = {
      tasksPerPlan: opts.tasksPerPlan ?? 2,
      log: opts.log,
      blockingReview: opts.blockingReview ?? (() => false),
      failRun: opts.failRun ?? (() => false),
    };
  }

  /** Whether the executor run of this brief fails: asked once per run (a run's requests share its brief). */
  private readonly failing = new Map<string, boolean>();
  private failsRun(brief: string, phase: string): boolean {
    if (!this.failing.has(brief)) this.failing.set(brief, this.o.failRun(phase));
    return this.failing.get(brief)!;
  }

  decide(conv: Conversation): Decision {
    const sub = this.dialect.subagent(conv);
    const d = sub ? this.persona(conv, sub.persona) : this.host(conv);
    this.o.log?.(
      `${sub ? `[${sub.persona ?? "subagent"}]` : "[host]"} ${d.kind === "reply" ? `reply: ${d.text.slice(0, 120)}` : d.calls.map((c) => c.name).join(", ")}`,
    );
    return d;
  }

  // ---------------------------------------------------------------- host

  /** Call an autopilot tool, loading it first if the client has deferred it. */
  private callAutopilot(conv: Conversation, tool: string, args: Record<string, unknown>): Decision {
    const name = this.dialect.autopilotTool(conv, tool);
    if (name) return { kind: "tool_calls", calls: [{ name, args }] };
    // Load the tools (Claude Code's ToolSearch); a model that searched twice since the user last
    // spoke and still has no autopilot tool says so instead of searching on.
    let searches = 0;
    for (let i = conv.messages.length - 1; i >= 0; i--) {
      const m = conv.messages[i];
      if (m.role === "user" && m.parts.some((p) => p.type === "text")) break;
      searches += m.parts.filter((p) => p.type === "tool_call" && this.dialect.isMetaTool?.(p.call.name)).length;
    }
    const load = searches < 2 ? this.dialect.loadTools?.(conv, AUTOPILOT_TOOLS) : null;
    if (load) return { kind: "tool_calls", calls: [load] };
    return {
      kind: "reply",
      text: `I cannot call ${tool}: the client offers no such tool (tools: ${conv.tools.join(", ")}).`,
    };
  }

  /** The Step a result shows, as this client shows it to the model. */
  private stepOf(result: ToolResult): SeenStep | null {
    if (this.dialect.stepFromText) return this.dialect.stepFromText(result.text) as SeenStep | null;
    return stepOf(result);
  }

  /**
   * The todo of the last Step of this kind that carried one (a model reads it back in its context);
   * a dispatch's from a Step like it: one persona, or a wave (next.tasks).
   */
  private todoOf(_conv: Conversation, evs: Event[], kind: SeenStep["next"]["kind"], wave = false): string | undefined {
    let todo: string | undefined;
    for (const e of evs) {
      if (e.kind !== "result" || !e.call || !this.dialect.autopilotToolOf(e.call.name) || !e.result) continue;
      const s = this.stepOf(e.result);
      if (s?.todo && s.next.kind === kind && (s.next.kind !== "dispatch" || !!s.next.tasks?.length === wave))
        todo = s.todo;
    }
    return todo;
  }

  private lastStep(evs: Event[]): SeenStep | null {
    return this.lastStepShown(evs)?.step ?? null;
  }

  /** The last Step an autopilot result showed, with everything that result showed the model. */
  private lastStepShown(evs: Event[]): { step: SeenStep; shown: string } | null {
    for (let i = evs.length - 1; i >= 0; i--) {
      const e = evs[i];
      if (e.kind === "result" && e.call && this.dialect.autopilotToolOf(e.call.name) && e.result) {
        const s = this.stepOf(e.result);
        if (s) {
          // Claude Code's Step after a report or a decision leaves out the session: the call named
          // it, or left it to the connection (then the last Step that showed one named it).
          const session =
            typeof s.session === "string"
              ? s.session
              : typeof e.call.args.session === "string"
                ? e.call.args.session
                : this.sessionShown(evs.slice(0, i));
          const step = session === s.session || session === undefined ? s : { ...s, session };
          return { step, shown: `${e.result.text}\n${e.result.structured ? JSON.stringify(e.result.structured) : ""}` };
        }
      }
    }
    return null;
  }

  /** The session the last autopilot result that showed one named. */
  private sessionShown(evs: Event[]): string | undefined {
    for (let i = evs.length - 1; i >= 0; i--) {
      const e = evs[i];
      if (e.kind !== "result" || !e.call || !this.dialect.autopilotToolOf(e.call.name) || !e.result) continue;
      const s = this.stepOf(e.result);
      if (typeof s?.session === "string") return s.session;
      if (typeof e.call.args.session === "string") return e.call.args.session;
    }
    return undefined;
  }

  /** A compaction's summary: what the user asked, and where the last Step left the session. */
  private summary(conv: Conversation): Decision {
    const evs = events({ ...conv, messages: conv.messages.slice(0, -1) }, this.dialect);
    const asked = evs.filter((e) => e.kind === "user").map((e) => `   - ${e.text!.split("\n")[0]}`);
    const step = this.lastStep(evs);
    const where = step
      ? `autopilot session ${step.session}, step ${step.stepId}${step.state ? ` at ${step.state}` : ""}; next: ${step.next.kind}`
      : "no autopilot session started yet";
    return {
      kind: "reply",
      text: [
        "<analysis>",
        "The user runs the autopilot on a spec.",
        "</analysis>",
        "<summary>",
        "1. Primary Request and Intent:",
        ...asked,
        "8. Current Work:",
        `   ${where}`,
        "</summary>",
      ].join("\n"),
    };
  }

  private host(conv: Conversation): Decision {
    if (this.dialect.summaryRequest?.(conv)) return this.summary(conv);
    const evs = events(conv, this.dialect);
    const last = evs.at(-1);
    if (!last) return { kind: "reply", text: "Nothing to do: the conversation is empty." };
    const step = this.lastStep(evs);

    if (last.kind === "user") {
      // The user's answer to a question we put to them.
      if (step?.next.kind === "ask") {
        const answer = pickOption(last.text!, step.next.options);
        if (!answer) return { kind: "reply", text: `Please answer with one of: ${step.next.options.join(" / ")}.` };
        // Where the Step asks for the user's reply, quoted, the host passes it on as userWords; the
        // session as the ask's todo shows the call (Claude Code's leaves it to the connection).
        // A Step without a todo is done as the last Step of its kind said (the command text).
        const askTodo = this.todoOf(conv, evs, "ask");
        const relay = /userWords/.test(this.lastStepShown(evs)?.shown ?? "") || /userWords/.test(askTodo ?? "");
        return this.callAutopilot(conv, "autopilot_decide", {
          ...(!askTodo || /session/.test(askTodo) ? { session: step.session } : {}),
          stepId: step.stepId,
          answer,
          rationale: `user said: ${last.text!.slice(0, 200)}`,
          ...(relay ? { userWords: last.text!.slice(0, 500) } : {}),
        });
      }
      const args = startArgs(last.text!);
      if (args) return this.callAutopilot(conv, "autopilot_start", args);
      if (step) return this.callAutopilot(conv, "autopilot_next", { session: step.session });
      const hinted = resumeHint(conv);
      if (hinted) return this.callAutopilot(conv, "autopilot_next", { session: hinted });
      return { kind: "reply", text: "Which spec should the autopilot run? (No spec path found in your message.)" };
    }

    if (last.kind === "notification") {
      if (step?.next.kind === "dispatch" && step.next.tasks?.length) return this.wave(conv, step);
      // The notices that arrived since the model last acted; only the subagent started for the
      // open dispatch Step counts (the client may notify of one already reported again).
      const pending = this.pendingDispatch(conv);
      const notices: TaskNotification[] = [];
      for (let i = evs.length - 1; i >= 0 && evs[i].kind === "notification"; i--)
        if (evs[i].notice!.callId === pending) notices.unshift(evs[i].notice!);
      if (!step || step.next.kind !== "dispatch" || !notices.length)
        return { kind: "reply", text: "A background subagent finished; its result was already handled." };
      const withResult = notices.find((n) => n.status === "completed" && lastJsonBlock(n.result)) ?? notices.at(-1)!;
      if (withResult.status !== "completed")
        return {
          kind: "reply",
          text: `The ${step.next.persona} subagent ended (${withResult.status}) without a result:\n${withResult.result.slice(0, 2000)}`,
        };
      return this.reportResult(conv, step, withResult.result, notices.find((n) => n.usage)?.usage);
    }

    // A tool result.
    const call = last.call;
    const result = last.result!;
    if (call && this.dialect.isDispatch(call.name)) {
      if (!step || step.next.kind !== "dispatch")
        return { kind: "reply", text: "A subagent returned, but no dispatch Step is open." };
      if (step.next.tasks?.length) return this.wave(conv, step);
      // Started in the background: the client says it will notify; nothing to report until then.
      if (this.dialect.launchedInBackground?.(result))
        return {
          kind: "reply",
          text: `The ${step.next.persona} subagent is running in the background; I will report its result when it finishes.`,
        };
      const more = this.dialect.followDispatch?.(conv, call, result);
      if (more) return { kind: "tool_calls", calls: [more] };
      return this.reportResult(conv, step, this.dialect.subagentText(result, conv));
    }
    if (call && this.dialect.autopilotToolOf(call.name)) {
      // The step was reported without its result and the persona wrote no result file (the
      // client refused its write): the error says to send the reply itself, so it is sent.
      if (
        this.dialect.autopilotToolOf(call.name) === "autopilot_report" &&
        call.args.result === undefined &&
        /Call autopilot_report again with result/.test(result.text)
      ) {
        // The reply is the subagent's last result, or the task notification that brought it.
        const reply = [...evs]
          .reverse()
          .find(
            (e) =>
              (e.kind === "result" && e.call && this.dialect.isDispatch(e.call.name)) ||
              (e.kind === "notification" && e.notice?.status === "completed"),
          );
        const json =
          reply?.kind === "notification"
            ? lastJsonBlock(reply.notice!.result)
            : reply?.result
              ? lastJsonBlock(this.dialect.subagentText(reply.result, conv))
              : null;
        if (json) return this.callAutopilot(conv, "autopilot_report", { ...call.args, result: json });
      }
      const s = this.stepOf(result);
      if (!s) return { kind: "reply", text: `The autopilot returned no Step:\n${result.text.slice(0, 2000)}` };
      if (
        result.isError ||
        (!this.dialect.stepFromText && shownJson(result)?.error) ||
        /^\s*(<[a-z_]+>\s*)?Error \[/.test(result.text)
      ) {
        // Any other error with the current Step: the brain never retries blindly; it reports and stops.
        return { kind: "reply", text: `The autopilot refused the call:\n${result.text.slice(0, 2000)}` };
      }
      return this.follow(conv, s);
    }
    return {
      kind: "reply",
      text: `Unexpected tool result${call ? ` of ${call.name}` : ""}:\n${result.text.slice(0, 1000)}`,
    };
  }

  /**
   * A wave Step (next.tasks), as its todo says: start every entry this conversation has not started
   * (all in one message: one dispatch call each), else report the first entry whose executor's
   * result is in hand (its dispatch call's result, or the task notification of one launched in the
   * background) with its task, else end the turn and wait for the notifications.
   */
  private wave(conv: Conversation, s: SeenStep): Decision {
    if (s.next.kind !== "dispatch" || !s.next.tasks) throw new Error("not a wave");
    const next = s.next;
    const entries = s.next.tasks;
    const evs = events(conv, this.dialect);
    // The todo the last wave Step showed (Claude Code shows the same one once a conversation).
    const todo = s.todo ?? this.todoOf(conv, evs, "dispatch", true);
    const dispatches = conv.messages.flatMap((m) =>
      m.parts.flatMap((p) => (p.type === "tool_call" && this.dialect.isDispatch(p.call.name) ? [p.call] : [])),
    );
    const results = new Map<string, { text: string; usage?: string }>();
    for (const m of conv.messages)
      for (const p of m.parts)
        if (p.type === "tool_result" && !this.dialect.launchedInBackground?.(p.result)) {
          const text = this.dialect.subagentText(p.result, conv);
          const usage = /<usage>[\s\S]*?<\/usage>/.exec(text)?.[0];
          results.set(p.result.callId, { text, ...(usage ? { usage } : {}) });
        }
    for (const e of evs)
      if (e.kind === "notification" && e.notice!.status === "completed")
        results.set(e.notice!.callId, {
          text: e.notice!.result,
          ...(e.notice!.usage ? { usage: e.notice!.usage } : {}),
        });
    const toStart: WaveEntry[] = [];
    const inHand: Array<{ entry: WaveEntry; call: ToolCall; text: string; usage?: string }> = [];
    const running: ToolCall[] = [];
    const promptOf = (c: ToolCall) => (this.dialect.promptOf ? this.dialect.promptOf(c) : c.args.prompt);
    for (const entry of entries) {
      const started = dispatches.filter((c) => promptOf(c) === entry.prompt).at(-1);
      // Started by this conversation (at this Step, or at an earlier one: startedAt): only reported.
      // One with startedAt that this conversation never started has no executor it knows of (as
      // after a restart): started again, as the Step's prompt allows.
      const refused = started ? this.dialect.refusedForLimit?.(conv, started) : null;
      if (!started) toStart.push(entry);
      else if (refused) {
        // Refused for the client's limit of open agents: spawned again once one was closed, as the todo says.
        if (refused.closedSince && /spawn that entry again after your next close_agent/.test(todo ?? ""))
          toStart.push(entry);
      } else if (this.dialect.finishedText) {
        // The dispatch returned at once (Codex): the answer comes from a later wait.
        const text = this.dialect.finishedText(conv, started);
        if (text !== null) inHand.push({ entry, call: started, text });
        else running.push(started);
      } else if (results.has(started.id)) inHand.push({ entry, call: started, ...results.get(started.id)! });
    }
    if (toStart.length) {
      const calls = toStart.map((entry) => {
        // The entry's prompt opens with its task and name: a short description for the call.
        const m = /^Do task (\S+) \("([^"]+)"\)/.exec(entry.prompt);
        return this.dialect.dispatch(conv, {
          persona: next.persona,
          description: entry.description ?? (m ? `Task ${m[1]}: ${m[2]}` : `Task ${entry.task}`),
          prompt: entry.prompt,
          ...(entry.model ? { model: entry.model } : {}),
          ...(todo ? { todo } : {}),
        });
      });
      if (calls.some((c) => !c))
        return { kind: "reply", text: `I cannot run the ${next.persona} subagents: this client has no subagent tool.` };
      return { kind: "tool_calls", calls: calls as WantedCall[], ...(s.report ? { text: s.report } : {}) };
    }
    const ready = inHand[0];
    // Nothing in hand, some still running, and the client waits for them with a call (Codex's wait_agent).
    const wait = !ready && running.length ? this.dialect.awaitSubagents?.(conv, running) : null;
    if (wait) return { kind: "tool_calls", calls: [wait] };
    if (!ready)
      return {
        kind: "reply",
        text: `The executors of tasks ${entries.map((t) => t.task).join(", ")} are running; I will report each when it finishes.`,
      };
    // Its agent closed first, when the todo says so (Codex counts open agents against its limit).
    const close = /close_agent/.test(todo ?? "") ? this.dialect.closeSubagent?.(conv, ready.call) : null;
    if (close) return { kind: "tool_calls", calls: [close] };
    const json = lastJsonBlock(ready.text);
    if (!json)
      return {
        kind: "reply",
        text: `The executor of task ${ready.entry.task} returned no JSON result:\n${ready.text.slice(0, 2000)}`,
      };
    const passResult = !todo || /"result"|result:/.test(todo);
    return this.callAutopilot(conv, "autopilot_report", {
      ...(!todo || /session/.test(todo) ? { session: s.session } : {}),
      stepId: s.stepId,
      task: ready.entry.task,
      ...(passResult ? { result: json } : {}),
      ...(ready.usage ? { usage: ready.usage } : {}),
    });
  }

  /** autopilot_report with the JSON block of a subagent's final text (and its usage block, when shown). */
  private reportResult(conv: Conversation, step: SeenStep, text: string, usage?: string): Decision {
    const json = lastJsonBlock(text);
    if (!json)
      return {
        kind: "reply",
        text: `The ${step.next.kind === "dispatch" ? step.next.persona : "?"} subagent returned no JSON result:\n${text.slice(0, 2000)}`,
      };
    // As the dispatch todo says (the Step's, or the last one shown: Claude Code leaves out a todo
    // it has just shown): pass the result on, or report only the step (the persona wrote its file).
    const todo = this.todoOf(conv, events(conv, this.dialect), "dispatch");
    const passResult = !todo || /"result"|result:/.test(todo);
    const passSession = !todo || /session/.test(todo);
    return this.callAutopilot(conv, "autopilot_report", {
      ...(passSession ? { session: step.session } : {}),
      stepId: step.stepId,
      ...(passResult ? { result: json } : {}),
      ...(usage ? { usage } : {}),
    });
  }

  /** The id of the dispatch call made after the last autopilot Step, if any (the subagent the open Step waits for). */
  private pendingDispatch(conv: Conversation): string | null {
    let pending: string | null = null;
    const calls = callsById(conv);
    for (const m of conv.messages)
      for (const p of m.parts) {
        if (p.type === "tool_call" && this.dialect.isDispatch(p.call.name)) pending = p.call.id;
        if (p.type === "tool_result") {
          const c = calls.get(p.result.callId);
          if (c && this.dialect.autopilotToolOf(c.name) && this.stepOf(p.result)) pending = null;
        }
      }
    return pending;
  }

  /** Do what a Step's `next` says. */
  private follow(conv: Conversation, s: SeenStep): Decision {
    const report = s.report ? `${s.report}\n\n` : "";
    switch (s.next.kind) {
      case "dispatch": {
        if (s.next.tasks?.length) return this.wave(conv, s);
        // No todo on the Step (Claude Code's lean Step shows one once): as the last dispatch's said.
        const todo = s.todo ?? this.todoOf(conv, events(conv, this.dialect), "dispatch");
        const call = this.dialect.dispatch(conv, {
          persona: s.next.persona,
          // A lean Step (Claude Code) has no description: the prompt's job sentence is one.
          description:
            s.next.description ??
            s.next.prompt
              .trim()
              .split("\n")
              .at(-1)!
              .replace(/\s*Brief: \S+$/, "")
              .replace(/\.$/, ""),
          prompt: s.next.prompt,
          ...(s.next.model ? { model: s.next.model } : {}),
          ...(todo ? { todo } : {}),
        });
        if (!call)
          return {
            kind: "reply",
            text: `${report}I cannot run the ${s.next.persona} subagent: this client has no subagent tool.`,
          };
        return { kind: "tool_calls", calls: [call], text: s.report };
      }
      case "ask":
        return {
          kind: "reply",
          text: `${report}${s.next.question}\n${s.next.context ? `${s.next.context}\n` : ""}Options: ${s.next.options.join(" / ")}`,
        };
      case "wait":
        return { kind: "reply", text: `${report}${s.next.reason}\nTo continue: ${s.next.resumeWith}` };
      case "done": {
        // As the todo and the skill say: the report, then the person chooses how to finish the branch
        // (its numbered ways); nothing of them is run before they answer.
        const ways = (s.report ?? "")
          .split(/^Finish the branch/m)
          .slice(1)
          .join("")
          .split("\n")
          .map((l) => /^\s+\d+\. ([^:]+):/.exec(l)?.[1])
          .filter((w): w is string => !!w);
        const ask = ways.length ? ` How do you want to finish the branch: ${ways.join(", or ")}?` : "";
        return { kind: "reply", text: `${report}The autopilot session ${s.session} is DONE.${ask}` };
      }
    }
  }

  // ---------------------------------------------------------------- persona

  /** What a write of `rel` that came back as an error tried to write (the result decided then), or null. */
  private writeRefused(conv: Conversation, rel: string): string | null {
    const calls = callsById(conv);
    for (const m of conv.messages)
      for (const p of m.parts) {
        if (p.type !== "tool_result" || !p.result.isError) continue;
        const c = calls.get(p.result.callId);
        if (c && sameFile(this.dialect.writePathOf(conv, c), rel)) return this.dialect.writtenContent?.(conv, c) ?? "";
      }
    return null;
  }

  /** What this conversation wrote to `rel` (its last successful write), or null. */
  private writtenText(conv: Conversation, rel: string): string | null {
    const calls = callsById(conv);
    let text: string | null = null;
    for (const m of conv.messages)
      for (const p of m.parts) {
        if (p.type !== "tool_result" || p.result.isError) continue;
        const c = calls.get(p.result.callId);
        if (c && sameFile(this.dialect.writePathOf(conv, c), rel))
          text = this.dialect.writtenContent?.(conv, c) ?? null;
      }
    return text;
  }

  private persona(conv: Conversation, persona: string | null): Decision {
    const firstUser = conv.messages.find((m) => m.role === "user" && userText(m, this.dialect));
    const prompt = firstUser ? userText(firstUser, this.dialect) : "";
    // "Brief: <path>", or a wave task's "Read your brief <path> first."
    const briefM = /\bBrief: (\S+)|\bRead your brief (\S+?) first\b/.exec(prompt);
    const brief = briefM?.[1] ?? briefM?.[2];
    if (!brief) return { kind: "reply", text: `The prompt names no brief to read:\n${prompt.slice(0, 1000)}` };
    // The result kind is in the brief ("Finish with one JSON object ...: {"kind":"planned",...}").
    let kind = "";
    const fail = (why: string): Decision => {
      const finish = this.dialect.finish?.(conv, { kind, error: why });
      return finish
        ? { kind: "tool_calls", calls: [finish] }
        : this.finalReport(conv, "```json\n" + JSON.stringify({ kind, error: why }) + "\n```");
    };

    // What this conversation has read and written so far.
    const reads = new Map<string, string | null>();
    const written = new Set<string>();
    const calls = callsById(conv);
    for (const m of conv.messages)
      for (const p of m.parts) {
        if (p.type !== "tool_result") continue;
        const c = calls.get(p.result.callId);
        if (!c) continue;
        const r = this.dialect.readPathOf(conv, c);
        if (r !== null) reads.set(r, p.result.isError ? null : this.dialect.readText(p.result));
        const w = this.dialect.writePathOf(conv, c);
        if (w !== null && !p.result.isError) written.add(w);
      }
    // 1. Read the brief first: the prompt names only it; its header names the files ("- Plan: ...").
    if (!reads.has(brief)) return { kind: "tool_calls", calls: [this.dialect.readFile(conv, brief)] };
    const briefText = reads.get(brief);
    kind = /Finish with one JSON object[^{]*\{"kind":"(\w+)"/.exec(briefText ?? "")?.[1] ?? "";
    if (briefText == null || !kind) {
      const why = briefText == null ? `could not read the brief ${brief}` : `the brief ${brief} names no result kind`;
      const finish = this.dialect.finish?.(conv, { kind: "error", error: why });
      return finish ? { kind: "tool_calls", calls: [finish] } : { kind: "reply", text: why };
    }
    const planPath = /^- Plan: (\S+?\.md)\b/m.exec(briefText)?.[1];
    // An executor (or a fixer) reads the plan next.
    if ((kind === "executed" || kind === "fixed") && planPath && !reads.has(planPath))
      return { kind: "tool_calls", calls: [this.dialect.readFile(conv, planPath)] };

    // 2. The files this persona writes.
    let files: Array<{ path: string; content: string }>;
    let result: Record<string, unknown>;
    const phase = /phase (\d+)\/(\d+) "([^"]+)"/.exec(prompt);
    const phaseName = phase?.[3] ?? "final";
    switch (kind) {
      case "planned": {
        const handoff = /^- Handoff: (\S+?\.json)\b/m.exec(briefText)?.[1];
        if (!planPath || !handoff) return fail("the brief names no plan or handoff path");
        const n = this.o.tasksPerPlan;
        const slug = slugify(phaseName);
        // A session that runs independent tasks at the same time asks for each task's header line
        // (its dependencies, files and ownership); these tasks need no other.
        const parallel = /runs independent tasks at the same time/.test(briefText);
        // The shape the planner's texts ask for (and the server checks): per task a Files line,
        // numbered steps, a Verify line.
        const tasks = Array.from({ length: n }, (_, i) =>
          [
            `### Task ${i + 1}: ${phaseName} part ${i + 1}`,
            "",
            `${parallel ? "**Depends on:** none | " : ""}**Files:** src/${slug}/part-${i + 1}.js`,
            "",
            `1. Write \`src/${slug}/part-${i + 1}.js\` exporting \`part${i + 1}\`.`,
            `2. Run \`node -e "import('./src/${slug}/part-${i + 1}.js')"\`: it exits 0.`,
            "",
            `**Verify:** \`node -e "import('./src/${slug}/part-${i + 1}.js')"\` → exits 0`,
            "",
          ].join("\n"),
        );
        const map = Array.from({ length: n }, (_, i) => `- CREATE src/${slug}/part-${i + 1}.js`);
        files = [
          {
            path: planPath,
            content: [
              `# Plan: ${phaseName}`,
              "",
              `**Tasks:** ${n}`,
              "",
              "## Goal",
              "",
              `Each part of ${phaseName} is a module that loads.`,
              "",
              "## File map",
              "",
              ...map,
              "",
              "## Tasks",
              "",
              ...tasks,
            ].join("\n"),
          },
          {
            path: handoff,
            content:
              JSON.stringify(
                {
                  fromSkill: "harness-planning",
                  phase: phaseName,
                  summary: `${n} tasks, no checkpoints`,
                  planPath,
                  taskCount: n,
                  checkpointCount: 0,
                  concerns: [],
                  assumptions: [],
                  deferred: [],
                },
                null,
                2,
              ) + "\n",
          },
        ];
        result = {
          kind: "planned",
          planPath,
          concerns: [],
          assumptions: [],
          deferred: [],
          summary: `${n} tasks, no checkpoints`,
        };
        break;
      }
      case "executed":
      case "fixed": {
        const plan = planPath ? reads.get(planPath) : null;
        if (!plan) return fail(`could not read the plan ${planPath ?? "(none named)"}`);
        // The tasks from the one the brief says to start at ("- Start at: Task N"); a fix touches them
        // all; a parallel wave's executor does the one task its brief names ("- Task: N (name)"),
        // in the worktree it names ("- Worktree: <path> ..."), where every path of the plan lies.
        const waveTask = /^- Task: (\d+) /m.exec(briefText)?.[1];
        const worktree = /^- Worktree: (\S+)/m.exec(briefText)?.[1];
        if (waveTask && !worktree) return fail(`the brief ${brief} names a task but no worktree`);
        const from =
          kind === "executed" ? Number(waveTask ?? /^- Start at: Task (\d+)/m.exec(briefText)?.[1] ?? "1") : 1;
        const planTasks = plan
          .split(/^### Task /m)
          .slice(1)
          .map((t) => ({
            n: Number(/^(\d+)/.exec(t)?.[1] ?? "0"),
            name: /^\d+: (.+)$/m.exec(t)?.[1] ?? "",
            files:
              /\*\*Files:\*\*\s*([^|\n]+)/
                .exec(t)?.[1]
                .trim()
                .split(/\s*,\s*/) ?? [],
          }))
          .filter((t) => (waveTask ? t.n === Number(waveTask) : t.n >= from));
        // A run that cannot make its task pass (the test's choice, asked once per run: its brief).
        if (kind === "executed" && !waveTask && this.failsRun(brief, phaseName)) {
          const task = planTasks[0];
          return this.finalReport(
            conv,
            "```json\n" +
              JSON.stringify({
                kind,
                outcome: "failed",
                task: { number: task?.n ?? from, name: task?.name ?? "" },
                error: `the task's check still fails (scripted model, ${brief})`,
                fixAttempted: "re-read the error output and the plan",
              }) +
              "\n```",
          );
        }
        const targets = planTasks.flatMap((t) => t.files.map((f) => (worktree ? `${worktree}/${f}` : f)));
        if (!targets.length)
          return fail(
            `the plan ${planPath} names no files ${waveTask ? `for task ${waveTask}` : `from task ${from} on`}`,
          );
        const statePath = /^- Execution state: (\S+?\.json)/m.exec(briefText)?.[1];
        // The execution state is kept, not replaced: read it first (it may not exist yet).
        if (statePath && !reads.has(statePath))
          return { kind: "tool_calls", calls: [this.dialect.readFile(conv, statePath)] };
        files = planTasks.flatMap((t) =>
          t.files.map((f) => ({
            path: worktree ? `${worktree}/${f}` : f,
            content: `// ${phaseName}, task ${t.n} (written by the scripted model)\nexport const part${t.n} = ${JSON.stringify(f)};\n`,
          })),
        );
        if (statePath && kind === "executed") {
          let prev: Record<string, unknown>;
          try {
            prev = JSON.parse(reads.get(statePath) ?? "{}");
          } catch {
            prev = {};
          }
          const last = planTasks.at(-1)!.n;
          const progress = {
            ...((prev.progress as object) ?? {}),
            ...Object.fromEntries(planTasks.map((t) => [`Task ${t.n}`, "complete"])),
          };
          files.push({
            path: statePath,
            content:
              JSON.stringify(
                {
                  ...prev,
                  schemaVersion: 1,
                  position: { phase: "execute", task: `Task ${last}` },
                  progress,
                  lastSession: { date: "2026-01-01", summary: `tasks ${from}-${last} done` },
                },
                null,
                2,
              ) + "\n",
          });
        }
        const evidence = planTasks.flatMap((t) => t.files).map((t) => `node -e "import('./${t}')": exit 0`);
        result =
          kind === "fixed"
            ? { kind: "fixed", summary: `fixed the findings in ${targets.length} files`, evidence, disputed: [] }
            : waveTask
              ? {
                  kind: "executed",
                  task: { number: Number(waveTask), name: planTasks[0].name },
                  outcome: "complete",
                  summary: `task ${waveTask} done in ${worktree}`,
                  evidence,
                }
              : {
                  kind: "executed",
                  outcome: "complete",
                  summary: `${targets.length}/${targets.length} tasks`,
                  evidence,
                };
        // The commit message the brief's reply asks for, as the persona texts show it (the server fits
        // it to the repository's convention): what changed, a fix naming what it fixed.
        if (briefText.includes('"commitMessage"')) {
          const fixing = /^- (.+?)(?: \(\S+:\d+\))?(?: — .*)?$/m.exec(
            /^## [^\n]*(?:findings|failures) to fix[^\n]*\n\n([\s\S]*?)\n\n/m.exec(briefText)?.[1] ?? "",
          )?.[1];
          const subject =
            kind === "fixed" || fixing
              ? `fix(${slugify(phaseName)}): ${fixing ?? `the findings on ${phaseName}`}`
              : `feat(${slugify(phaseName)}): add ${planTasks.map((t) => t.name).join(", ")}`;
          result.commitMessage = `${subject}\n\nEach part is a module that loads (written by the scripted model).`;
        }
        // A fix (of review or verification findings) changes the code it was given.
        if (kind === "fixed" || /^Fix the /m.test(prompt))
          files = files.map((f) => (f.path === statePath ? f : { ...f, content: f.content + "// fixed\n" }));
        break;
      }
      case "verified":
        files = [];
        result = {
          kind: "verified",
          verdict: "pass",
          findings: [],
          evidence: ["every planned file exists and loads (scripted model)"],
        };
        break;
      case "reviewed":
        files = [];
        result = {
          kind: "reviewed",
          findings: [{ severity: "note", title: `Reviewed ${phaseName}: nothing blocking` }],
        };
        break;
      default:
        return fail(`unknown result kind ${kind}`);
    }

    // 3. Read what will be overwritten (clients refuse blind overwrites), then write, then reply.
    // The result file the brief names (new for each step, so never read first) is written with the
    // others, when this subagent has a tool that can write it.
    const resultRel = /^- Result: (\S+?\.json)\b/m.exec(briefText)?.[1];
    const resultCall =
      resultRel && this.dialect.writeResultFile
        ? (c: string) => this.dialect.writeResultFile!(conv, resultRel, c)
        : null;
    const blocking = (): Record<string, unknown> =>
      kind === "reviewed" && this.o.blockingReview(phaseName)
        ? {
            kind: "reviewed",
            findings: [
              {
                severity: "blocking",
                file: `src/${slugify(phaseName)}/part-1.js`,
                line: 2,
                title: `${phaseName}: part1 is exported under the wrong name`,
                rationale: "callers import it by another name",
                scenario: `import { part1 } from "./src/${slugify(phaseName)}/part-1.js" gets undefined`,
              },
            ],
          }
        : result;
    const pending = files.filter((f) => !written.has(f.path));
    if (this.dialect.readBeforeWrite) {
      const unread = pending.filter((f) => !reads.has(f.path));
      if (unread.length) return { kind: "tool_calls", calls: unread.map((f) => this.dialect.readFile(conv, f.path)) };
    }
    const wroteResult = resultRel ? this.writtenText(conv, resultRel) : null;
    // A write of the result file the client refused (a permission mode that asks for Bash) is not
    // tried again: the reply carries the result, and the host passes it on when told to.
    const refused = resultRel ? this.writeRefused(conv, resultRel) : null;
    if (resultCall && resultRel && wroteResult === null && refused === null) {
      // The result is decided once, here, and written; the reply repeats what was written.
      const write = resultCall(JSON.stringify(blocking()) + "\n");
      if (write)
        return {
          kind: "tool_calls",
          calls: [...pending.map((f) => this.dialect.writeFile(conv, f.path, f.content)), write],
        };
    }
    if (pending.length)
      return { kind: "tool_calls", calls: pending.map((f) => this.dialect.writeFile(conv, f.path, f.content)) };
    const decided = wroteResult ?? (refused || null);
    result = decided !== null ? (JSON.parse(decided) as Record<string, unknown>) : blocking();
    const finish = this.dialect.finish?.(conv, result);
    if (finish) return { kind: "tool_calls", calls: [finish] };
    return this.finalReport(
      conv,
      `${persona ?? "persona"}: done (${files.length} files written).\n\n\`\`\`json\n${JSON.stringify(result)}\n\`\`\``,
    );
  }

  /**
   * The persona's final report: through the client's hand-back tool when the client offers one
   * and the persona's text says to use it; else as the final text. Once handed back, the run is over.
   */
  private finalReport(conv: Conversation, report: string): Decision {
    const handBack = personaSaysHandBack(conv.system) ? this.dialect.handBack?.(conv, report) : null;
    if (!handBack) return { kind: "reply", text: report };
    const sent = conv.messages.some((m) =>
      m.parts.some((p) => p.type === "tool_call" && p.call.name === handBack.name),
    );
    return sent ? { kind: "reply", text: "Report delivered." } : { kind: "tool_calls", calls: [handBack] };
  }
}

/** A write's path is the file: the same path, or (a call that names only its tail, autopilot_result) its tail. */
function sameFile(written: string | null, rel: string): boolean {
  return written !== null && (written === rel || rel.endsWith(`/${written}`));
}

/** The option a user's answer names: exact, a prefix, or a number; null when none or ambiguous. */
export function pickOption(text: string, options: string[]): string | null {
  const t = text.trim().toLowerCase();
  const n = /^(\d+)\b/.exec(t);
  if (n && options[Number(n[1]) - 1]) return options[Number(n[1]) - 1];
  const exact = options.find((o) => t === o.toLowerCase() || t.startsWith(o.toLowerCase() + " "));
  if (exact) return exact;
  const pre = options.filter((o) => o.toLowerCase().startsWith(t.split(/\s+/)[0]));
  return pre.length === 1 ? pre[0] : null;
}

export type { WantedCall };
