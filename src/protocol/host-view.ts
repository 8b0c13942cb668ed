// A Step as each client's host model is told to act on it: which subagent tool this client has
// (Claude Code's Agent, Codex's spawn_agent, Gemini CLI's invoke_agent, or none), the one-line
// `todo`, and the text view for clients that show the model text. The Step itself (what to do) is
// the engine's (src/engine/step.ts); how to say it to each client is here, beside the Step's type,
// read by the MCP front end (src/mcp/render.ts) and, for the default `todo`, by the engine.
import type { Step } from "./step.js";
import { shellWord } from "./words.js";

/**
 * The client driving the session, from the MCP initialize `clientInfo.name`: it decides which
 * subagent tool the instructions name. "other" reads the persona file when it has no subagents.
 */
export type Host = "claude-code" | "codex" | "gemini" | "other";

export function hostOf(clientName: string | undefined): Host {
  const n = (clientName ?? "").toLowerCase();
  if (n.startsWith("claude")) return "claude-code"; // "claude-code"
  if (n.includes("codex")) return "codex"; // "codex-mcp-client"
  if (n.includes("gemini")) return "gemini"; // "gemini-cli-mcp-client"
  return "other";
}

export interface HostView {
  host: Host;
  /** Where the persona files are (the package's personas/ folder), for hosts that read them. */
  personasDir?: string;
  /**
   * Before each persona's agent name (`autopilot serve --agent-prefix`): a Claude Code plugin's
   * agents are named `<plugin>:<agent>`, so the plugin's server names `autopilot:harness-planner`.
   */
  agentPrefix?: string;
  /** How the person runs autopilot's CLI where the server runs (`npx -y autopilot-mcp@<version>`); absent: `autopilot`. */
  cli?: readonly string[];
}

const OTHER: HostView = { host: "other" };

/** `autopilot approve <session>` as the person can run it there. */
function approveCommand(view: HostView, session: string): string {
  return [...(view.cli ?? ["autopilot"]), "approve", session].map(shellWord).join(" ");
}

function agentName(view: HostView, persona: string): string {
  return `${view.agentPrefix ?? ""}${persona}`;
}

function personaFile(view: HostView, persona: string): string {
  return `${view.personasDir ?? "personas"}/${persona}.md`;
}

/**
 * How this host runs a persona on `prompt` (a name such as next.prompt, or "the prompt below"), on
 * `model` when the Step names one (Claude Code's Agent call and Codex's spawn_agent take it).
 */
function runPersona(view: HostView, persona: string, prompt: string, model?: string): string {
  switch (view.host) {
    case "claude-code":
      return `Call the Agent tool with subagent_type "${agentName(view, persona)}",${model ? ` model "${model}",` : ""} run_in_background false and ${prompt} as its prompt`;
    case "codex":
      return `Call spawn_agent with ${model ? `model "${model}" and ` : ""}message "You are ${persona}: follow ${personaFile(view, persona)}." followed by ${prompt}, then wait_agent for its final answer`;
    case "gemini":
      return `Call invoke_agent with agent_name "${agentName(view, persona)}" and ${prompt} as its prompt`;
    default:
      return `Run the ${agentName(view, persona)} subagent with ${prompt} (no subagents? read ${personaFile(view, persona)} and do its work yourself)`;
  }
}

function reportCall(step: Pick<Step, "session" | "stepId">, result: string): string {
  return `autopilot_report {"session":"${step.session}","stepId":${step.stepId},"result":<its JSON reply, kind "${result}">,"usage":<its usage block, if any>}`;
}

function decideCall(step: Pick<Step, "session" | "stepId">): string {
  return `autopilot_decide {"session":"${step.session}","stepId":${step.stepId},"answer":<one option>,"rationale":<their reason, if given>,"userWords":<their reply, quoted, when you pass on what they said>}`;
}

/**
 * Claude Code's todo: its model reads the todo inside the Step's JSON (structuredContent), next to
 * `stepId` and `next`, in every later request of the conversation; so the call after names those
 * fields instead of repeating their values (the tool's input schema describes the rest), and the
 * session is the connection's (autopilot_report and autopilot_decide default to it). The same text
 * for every persona (with an agent prefix too: it says `"autopilot:" + next.persona`), so it is shown
 * once a conversation (src/mcp/render.ts hostStep).
 */
function leanTodo(step: Pick<Step, "session" | "stepId" | "next">, view: HostView): string | null {
  const next = step.next;
  // A dispatch on another model than the agent file's (one tier up after failures) names it: a
  // todo of its own, so the usual one stays as short as it was.
  if (next.kind === "dispatch")
    return `Agent tool: subagent_type ${view.agentPrefix ? `"${view.agentPrefix}" + next.persona` : "next.persona"},${next.model ? " model next.model," : ""} prompt next.prompt, run_in_background false; then autopilot_report {stepId, usage: its <usage> block} (its result is saved; pass none). Run in the background anyway? End your turn; report on its task notification.`;
  if (next.kind === "ask" && !next.humanOnly?.length)
    return "Ask the user next.question (options: next.options); then autopilot_decide {stepId, answer, rationale: their reason, if given, userWords: their reply, quoted}.";
  if (next.kind === "done")
    return "Session done: show the user the whole report; ask how to finish the branch, then run only their choice's commands.";
  return null;
}

/**
 * A parallel wave (next.tasks): every executor not running yet started together, each reported by
 * its task as it returns; an entry with `startedAt` runs already (another task reported since it was
 * started) and is only reported. Claude Code: several Agent calls in one message (one text for every
 * wave, so it is shown once a conversation); Codex: spawn_agent for each, then wait_agent and close_agent
 * (its agent limit counts agents not closed); Gemini CLI
 * and others: what they offer (docs/clients.md).
 */
function waveTodo(step: Pick<Step, "session" | "stepId" | "next">, view: HostView): string | null {
  const next = step.next;
  if (next.kind !== "dispatch" || !next.tasks?.length) return null;
  const report = `autopilot_report {"session":"${step.session}","stepId":${step.stepId},"task":<the entry's task>,"result":<its JSON reply, kind "${next.expects.result}">,"usage":<its usage block, if any>}`;
  const running = "an entry with startedAt runs already: only report it";
  const model = next.tasks.some((t) => t.model) ? "model: the entry's model if it has one, " : "";
  switch (view.host) {
    case "claude-code":
      return `Start the entries of next.tasks without startedAt together: one Agent tool call each, all in ONE message (subagent_type ${view.agentPrefix ? `"${view.agentPrefix}" + next.persona` : "next.persona"}, ${model}prompt: the entry's prompt, run_in_background false); ${running}. Then autopilot_report {stepId, task: the entry's task, usage: its <usage> block} once per executor as each returns (each writes its result file; one report never waits for another). Launched in the background anyway: end your turn, and report each when its task notification brings its reply.`;
    case "codex":
      // Codex counts every agent not closed against its limit (agents.max_threads, 6 by default in
      // 0.169) and refuses a spawn past it ("agent thread limit reached"): a wave wider than that, or
      // waves whose finished executors stay open, would stop there (tests/clients/codex.test.ts).
      return `For each entry of next.tasks without startedAt call spawn_agent with ${model ? "the entry's model (if it has one) and " : ""}message "You are ${next.persona}: follow ${personaFile(view, next.persona)}." followed by the entry's prompt, all before waiting (${running}); then wait_agent for each, close_agent it once its answer is in hand, and call ${report} once per executor. A spawn refused with "agent thread limit reached": spawn that entry again after your next close_agent.`;
    default:
      return `${runPersona(view, next.persona, "each entry's prompt")}, for every entry of next.tasks without startedAt, at the same time if you can (one after the other otherwise; ${running}); then call ${report} once per executor, as each returns.`;
  }
}

/** One line that alone says what to do with `next`: which tool, which agent, which call after. */
export function todoFor(step: Pick<Step, "session" | "stepId" | "next">, view: HostView = OTHER): string {
  const next = step.next;
  const wave = waveTodo(step, view);
  if (wave) return wave;
  const lean = view.host === "claude-code" ? leanTodo(step, view) : null;
  if (lean) return lean;
  switch (next.kind) {
    case "dispatch":
      return `${runPersona(view, next.persona, "next.prompt", next.model)}, then call ${reportCall(step, next.expects.result)}.`;
    case "ask":
      if (next.humanOnly?.length)
        return `Only a person may answer ${next.humanOnly.map((o) => `"${o}"`).join(" or ")} here: ask the user to answer next.question in the client's form or to run \`${approveCommand(view, step.session)}\` in their own terminal, then call autopilot_next. autopilot_decide from you is refused for those answers.`;
      return `Ask the user next.question (options: next.options), then call ${decideCall(step)}.`;
    case "wait":
      return "Tell the user next.reason, then stop (they resume with next.resumeWith).";
    default:
      return "Show the user the whole report (what was built, the final review's findings and what to do about each, which .harness/ files to commit or ignore), ask them how to finish the branch (the report's options) and run only the commands of the one they choose; the session is done.";
  }
}

/** The human-readable rendering of a Step: what happened, then numbered instructions. */
export function renderStepText(step: Step, view: HostView = OTHER): string {
  const lines: string[] = [];
  const where = step.phase
    ? `${step.state} · phase ${step.phase.number}/${step.phase.total}: ${step.phase.name}`
    : step.state;
  lines.push(`autopilot ${step.session} · step ${step.stepId} · ${where} · rigor ${step.rigor}`);
  if (step.report) lines.push("", step.report);
  lines.push("");
  const n = step.next;
  if (n.kind === "dispatch" && n.tasks?.length) {
    const start = n.tasks.filter((t) => t.startedAt === undefined);
    lines.push(
      start.length
        ? `1. ${n.description}: run these ${start.length} ${n.persona} subagents AT THE SAME TIME (one message with one call each), each with its own prompt:`
        : `1. ${n.description}: these ${n.persona} subagents run already; start one again (with its prompt) only if it is gone, as after a restart:`,
      "",
    );
    for (const t of n.tasks)
      lines.push(
        `   - task ${t.task} (${t.description}${t.model ? `; model ${t.model}` : ""}${t.startedAt !== undefined ? `; running since step ${t.startedAt}` : ""}):`,
        t.prompt
          .split("\n")
          .map((l) => `     ${l}`)
          .join("\n"),
        "",
      );
    lines.push(
      `2. As each returns (in any order), call autopilot_report with {"session":"${step.session}","stepId":${step.stepId},"task":"<its task>","result":<that persona's JSON, kind "${n.expects.result}">,"usage":<its usage block, if any>}. One task's report never waits for another's.`,
    );
  } else if (n.kind === "dispatch") {
    lines.push(
      view.host === "other"
        ? `1. Dispatch the ${n.persona} subagent (${n.description}) with this prompt:`
        : `1. ${n.description}: ${runPersona(view, n.persona, "this prompt", n.model)}:`,
      "",
      n.prompt
        .split("\n")
        .map((l) => `   ${l}`)
        .join("\n"),
      "",
      ...(view.host === "other"
        ? [`   (No subagents? Read ${personaFile(view, n.persona)} and do its work yourself.)`, ""]
        : []),
      `2. Call autopilot_report with {"session":"${step.session}","stepId":${step.stepId},"result":<the persona's JSON, kind "${n.expects.result}">,"usage":<the subagent's usage block, if any>}.`,
    );
  } else if (n.kind === "ask") {
    lines.push(`1. Ask the user: ${n.question}`);
    if (n.context)
      lines.push(
        n.context
          .split("\n")
          .map((l) => `   ${l}`)
          .join("\n"),
      );
    lines.push(
      `   Options: ${n.options.map((o) => `"${o}"`).join(", ")}`,
      `2. Call autopilot_decide with {"session":"${step.session}","stepId":${step.stepId},"answer":<one option>,"rationale":<the user's reason, if given>,"userWords":<the user's reply, quoted, when you pass on what they said>}.`,
    );
    if (n.humanOnly?.length)
      lines.push(
        `   Human gate: only a person may answer ${n.humanOnly.map((o) => `"${o}"`).join(" or ")}. autopilot_decide from you is refused for those (human_required): ask the user to answer in the client's form, or to run \`${approveCommand(view, step.session)}\` in their own terminal, then call autopilot_next.`,
      );
  } else if (n.kind === "wait") {
    lines.push(`1. Tell the user: ${n.reason}`, `2. Stop here. To continue later: ${n.resumeWith}.`);
  } else {
    if (!step.report) lines.push(`Summary: ${JSON.stringify(n.summary)}`, "");
    lines.push(
      "1. Show the user the whole report above (the final review's findings and what to do about each, the .harness/ files to commit or ignore).",
      "2. Ask them how to finish the branch (the report's options) and run only the commands of the one they choose. The session is DONE.",
    );
  }
  return lines.join("\n");
}
