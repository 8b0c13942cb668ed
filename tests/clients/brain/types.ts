// The neutral form of a model conversation, shared by every client adapter (Anthropic Messages,
// OpenAI Responses/Chat, Gemini generateContent). An adapter turns the request a real client sent
// into a Conversation, asks the brain for a Decision, and turns that back into its API's reply.
// Nothing here knows a wire format; everything the brain sees is what the client showed the model.

export interface ToolCall {
  /** The call id as the client will echo it (adapters invent one when the API has none). */
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface ToolResult {
  /** The id of the ToolCall this answers ("" when the API pairs results by name or order). */
  callId: string;
  /** The tool's name when the API says it (Gemini does); else the brain finds it via callId. */
  name?: string;
  /** The result exactly as the client shows it to the model, as text. */
  text: string;
  /** Structured content, only when the client shows the model a structured object (not text). */
  structured?: unknown;
  isError?: boolean;
}

export type Part =
  { type: "text"; text: string } | { type: "tool_call"; call: ToolCall } | { type: "tool_result"; result: ToolResult };

export interface Message {
  /** "system" is a mid-conversation system turn (Claude Code sends some); the system prompt is Conversation.system. */
  role: "system" | "user" | "assistant";
  parts: Part[];
}

export interface Conversation {
  /** The system prompt as one text (parts joined with blank lines). */
  system: string;
  messages: Message[];
  /** Names of the tools offered in this request. */
  tools: string[];
  /** The model id the client asked for (lets an adapter tell side requests apart). */
  model?: string;
}

/** A tool call the brain wants made; the adapter assigns the id. */
export interface WantedCall {
  name: string;
  args: Record<string, unknown>;
}

export type Decision =
  /** Call these tools (in parallel, in one assistant turn), optionally with some text first. */
  | { kind: "tool_calls"; calls: WantedCall[]; text?: string }
  /** End the turn with this text. */
  | { kind: "reply"; text: string };

/** A file as the brain reads it back from a tool result. */
export interface FileRead {
  path: string;
  text: string | null;
}

/**
 * What differs between clients: the names and argument shapes of their tools, how they show an MCP
 * tool's result, and how a subagent's conversation can be recognised. One per client; the brain is
 * the same for all.
 */
export interface Dialect {
  name: string;
  /** The name under which the client offers autopilot's MCP tool `tool` (e.g. "mcp__autopilot__autopilot_start"), or null. */
  autopilotTool(conv: Conversation, tool: string): string | null;
  /** The autopilot tool a call of `name` is (e.g. "autopilot_start"), or null when it is not one. */
  autopilotToolOf(name: string): string | null;
  /**
   * A call that makes tools available which the client lists but has not loaded (Claude Code's
   * ToolSearch for deferred MCP tools); null when the client has no such thing.
   */
  loadTools?(conv: Conversation, tools: string[]): WantedCall | null;
  /** Calls of these names are bookkeeping (ToolSearch): the brain looks past their results. */
  isMetaTool?(name: string): boolean;
  /** The call that runs `persona` as a subagent, or null when the client has no subagent tool. */
  dispatch(
    conv: Conversation,
    d: { persona: string; description: string; prompt: string; model?: string; todo?: string },
  ): WantedCall | null;
  /** True when a call of this name was a subagent dispatch (or, for clients whose subagents run in the background, a step of waiting for one). */
  isDispatch(name: string): boolean;
  /**
   * After a dispatch tool's result: the call still needed before the subagent's answer is in hand
   * (Codex: wait_agent after spawn_agent, close_agent after wait_agent), or null when it is.
   */
  followDispatch?(conv: Conversation, call: ToolCall, result: ToolResult): WantedCall | null;
  /** The subagent's final text, from the dispatch tool's result (or earlier results in `conv`). */
  subagentText(result: ToolResult, conv: Conversation): string;
  /** The prompt a dispatch call gave its subagent (Codex: the message after its persona line); absent: `args.prompt`. */
  promptOf?(call: ToolCall): string | null;
  /**
   * For clients whose dispatch tool returns before the subagent finishes (Codex's spawn_agent):
   * the final text of the subagent `call` started, once a later result (wait_agent) showed it
   * finished; null while it runs. Absent: the dispatch call's own result is the subagent's answer.
   */
  finishedText?(conv: Conversation, call: ToolCall): string | null;
  /** For such clients: the call that waits for these started, unfinished subagents (Codex: wait_agent). */
  awaitSubagents?(conv: Conversation, calls: ToolCall[]): WantedCall | null;
  /** The call that closes the finished subagent `call` started, while it is open (Codex: close_agent); null once closed. */
  closeSubagent?(conv: Conversation, call: ToolCall): WantedCall | null;
  /** The dispatch `call` was refused for the client's limit of open subagents (Codex: "agent thread limit reached"), and whether a subagent was closed since. */
  refusedForLimit?(conv: Conversation, call: ToolCall): { closedSince: boolean } | null;
  /**
   * The Step a tool result shows, for clients that show the model only the text content (Gemini):
   * read from the text rendering. Absent: the brain reads the JSON the client shows.
   */
  stepFromText?(text: string): unknown;
  /** Text the client adds to a user turn for the model's information only (Codex's subagent notifications). */
  isNotice?(text: string): boolean;
  /** The user's own words in a text where the client put context in front of them (Gemini CLI's `<hook_context>`). */
  userWords?(text: string): string;
  /** When this conversation is a persona subagent's: which persona (null if unknown); else null. */
  subagent(conv: Conversation): { persona: string | null } | null;
  /** The project root the client works in (file tools may want absolute paths). */
  cwd(conv: Conversation): string;
  /** Read a file (path relative to the project root). */
  readFile(conv: Conversation, rel: string): WantedCall;
  /** If `call` was a read of a file: its project-relative path. */
  readPathOf(conv: Conversation, call: ToolCall): string | null;
  /** The file's text from a read result (without the client's line numbers), or null when it failed. */
  readText(result: ToolResult): string | null;
  /** Write a whole file (path relative to the project root). */
  writeFile(conv: Conversation, rel: string, content: string): WantedCall;
  /** If `call` was a write: its project-relative path. */
  writePathOf(conv: Conversation, call: ToolCall): string | null;
  /**
   * How a persona writes the result file its brief names ("- Result: <path>"), with the tools this
   * subagent was given (Claude Code: Write, or Bash for the read-only personas); null when it has
   * none. Absent: the persona only replies (the host passes the result on, as its todo says).
   */
  writeResultFile?(conv: Conversation, rel: string, content: string): WantedCall | null;
  /** The content a write call wrote (Write's content, Bash's here-document), or null when it was no write. */
  writtenContent?(conv: Conversation, call: ToolCall): string | null;
  /** True when the client refuses a write to an existing file not read first (Claude Code's Write does). */
  readBeforeWrite?: boolean;
  /**
   * How a persona hands back its result when the client wants a tool call rather than a final
   * ```json block (autopilot's own anthropic runner: report_result). Absent: reply with the block.
   */
  finish?(conv: Conversation, result: Record<string, unknown>): WantedCall | null;
  /**
   * The call that hands a subagent's final report (`report`, its whole final text) back to its
   * caller through the client's hand-back tool, when this conversation offers one (Claude Code's
   * SubagentHandback); null when it offers none. The brain uses it only when the persona's own text
   * says to.
   */
  handBack?(conv: Conversation, report: string): WantedCall | null;
  /**
   * A dispatch tool's result that says the subagent was started in the background and reports
   * later (Claude Code's "Async agent launched"): the host ends its turn and waits.
   */
  launchedInBackground?(result: ToolResult): boolean;
  /** The client asks the model to summarise the conversation (a compaction), not to act. */
  summaryRequest?(conv: Conversation): boolean;
  /**
   * Background subagents that finished or handed back their report, from a text the client added
   * to a user turn (Claude Code: a `<task-notification>` inside a system reminder, or an
   * `<agent-message>` carrying a SubagentHandback report): the dispatch call each answers (found in
   * `conv`), its status, its final text and its usage block.
   */
  taskNotifications?(text: string, conv: Conversation): TaskNotification[];
}

/** A background subagent's completion, as the client notifies the host model of it. */
export interface TaskNotification {
  /** The id of the dispatch call that started it. */
  callId: string;
  /** "completed", or how else it ended. */
  status: string;
  /** Its final text (the report). */
  result: string;
  /** Its usage block as shown, if any. */
  usage?: string;
}
