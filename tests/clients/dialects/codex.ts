// Codex CLI's vocabulary, as its 0.169 requests show it to the model: MCP tools come as the
// namespace `mcp__autopilot` (named here `mcp__autopilot__<tool>`) and their result is shown as
// "Wall time: ...\nOutput:\n" followed by the structuredContent JSON; subagents are the multi-agent
// tools: `spawn_agent` (`agent_type` = a custom agent's name, `message` = the task) returns an
// agent id at once, `wait_agent` returns `{"status":{"<id>":{"completed":"<final text>"}}}`, and a
// finished agent is closed with `close_agent`. A custom agent's `developer_instructions` open the
// subagent's developer message. Files are read and written with `exec_command` (a shell command;
// its result shows the command's output after "Output:").
import path from "node:path";
import type { Conversation, Dialect, ToolCall, ToolResult, WantedCall } from "../brain/types.js";

const MCP_PREFIX = "mcp__autopilot__";
const EOF_MARK = "AUTOPILOT_SCRIPTED_EOF";

function q(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function unq(s: string): string {
  const m = /^'((?:[^']|'\\'')*)'$/.exec(s);
  return m ? m[1].replace(/'\\''/g, "'") : s;
}

/** Every text the model was shown outside tool results. */
function shownTexts(conv: Conversation): string {
  const user = conv.messages
    .filter((m) => m.role === "user")
    .flatMap((m) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])));
  return [conv.system, ...user].join("\n");
}

/**
 * A shell command as this conversation can run it: exec_command, or, where Codex offers a catalog
 * model only its code mode (the `exec` tool, JavaScript calling the nested tools), a script that
 * runs it through `tools.exec_command` and prints the result as exec_command's own result reads.
 */
function shell(conv: Conversation, cmd: string): WantedCall {
  if (conv.tools.includes("exec_command") || !conv.tools.includes("exec"))
    return { name: "exec_command", args: { cmd } };
  const script = [
    `const r = await tools.exec_command({ cmd: ${JSON.stringify(cmd)}, login: false });`,
    "text(`Process exited with code ${r.exit_code}\\nOutput:\\n${r.output}`);",
  ].join("\n");
  return { name: "exec", args: { input: script } };
}

/** The shell command of an exec_command call, or of a code-mode script that runs one. */
function commandOf(call: ToolCall): string | null {
  if (call.name === "exec_command") return String((call.args.cmd as string | undefined) ?? "");
  if (call.name !== "exec") return null;
  const m = /tools\.exec_command\(\{ cmd: ("(?:[^"\\]|\\.)*")/.exec((call.args.input as string | undefined) ?? "");
  return m ? (JSON.parse(m[1]) as string) : null;
}

/** The command's output in an exec_command result ("...\nOutput:\n<output>"). */
function execOutput(text: string): string {
  const i = text.indexOf("\nOutput:\n");
  if (i >= 0) return text.slice(i + "\nOutput:\n".length);
  return text.startsWith("Output:\n") ? text.slice("Output:\n".length) : text;
}

function exitCode(text: string): number | null {
  const m = /Process exited with code (-?\d+)/.exec(text);
  return m ? Number(m[1]) : null;
}

function json(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function agentIdOf(result: ToolResult): string | null {
  const j = json(result.text.trim());
  return typeof j?.agent_id === "string" ? j.agent_id : typeof j?.id === "string" ? j.id : null;
}

/** The last wait_agent result of the conversation, parsed. */
function lastWait(conv: Conversation): any {
  const waits = new Set<string>();
  let found: any = null;
  for (const m of conv.messages)
    for (const p of m.parts) {
      if (p.type === "tool_call" && p.call.name === "wait_agent") waits.add(p.call.id);
      if (p.type === "tool_result" && waits.has(p.result.callId)) found = json(p.result.text.trim());
    }
  return found;
}

/** The agent id the result of spawn_agent `call` named, or null. */
function spawnedId(conv: Conversation, call: ToolCall): string | null {
  for (const m of conv.messages)
    for (const p of m.parts) if (p.type === "tool_result" && p.result.callId === call.id) return agentIdOf(p.result);
  return null;
}

export const codex: Dialect = {
  name: "codex",
  autopilotTool: (conv, tool) => (conv.tools.includes(MCP_PREFIX + tool) ? MCP_PREFIX + tool : null),
  autopilotToolOf: (name) => (name.startsWith(MCP_PREFIX) ? name.slice(MCP_PREFIX.length) : null),
  dispatch(conv, d): WantedCall | null {
    if (!conv.tools.includes("spawn_agent")) return null;
    // As the Step's todo says: a custom agent type, or a message that names the persona first.
    const type = /agent_type "([^"]+)"/.exec(d.todo ?? "")?.[1];
    if (type) return { name: "spawn_agent", args: { agent_type: type, message: d.prompt } };
    // The model, where the todo names one (`with model "gpt-6-astra" and message`) or asks for a
    // wave entry's (`with the entry's model (if it has one) and message`).
    const m =
      /spawn_agent with (?:model "([^"]+)" and |(the entry's model) \(if it has one\) and )?message "([^"]*)" followed by/.exec(
        d.todo ?? "",
      );
    const model = m?.[1] ?? (m?.[2] ? d.model : undefined);
    if (m) return { name: "spawn_agent", args: { ...(model ? { model } : {}), message: `${m[3]}\n\n${d.prompt}` } };
    // The todo names no way to give the subagent its persona: the prompt alone.
    return { name: "spawn_agent", args: { message: d.prompt } };
  },
  isDispatch: (name) => name === "spawn_agent" || name === "wait_agent" || name === "close_agent",
  followDispatch(conv, call, result): WantedCall | null {
    if (call.name === "spawn_agent") {
      const id = agentIdOf(result);
      if (!id) return null; // no agent: subagentText says why
      return { name: "wait_agent", args: { targets: [id], timeout_ms: 600_000 } };
    }
    if (call.name === "wait_agent") {
      const j = json(result.text.trim());
      const target = (call.args.targets as string[] | undefined)?.[0];
      const status = target ? j?.status?.[target] : undefined;
      if (
        target &&
        (j?.timed_out ||
          !status ||
          typeof status !== "object" ||
          !("completed" in status || "errored" in status || "failed" in status))
      ) {
        return { name: "wait_agent", args: { targets: [target], timeout_ms: 600_000 } };
      }
      // Done: close it (finished agents count toward Codex's limit of open agents until closed).
      return target ? { name: "close_agent", args: { target } } : null;
    }
    return null;
  },
  subagentText(result, conv) {
    const wait = lastWait(conv);
    const states = wait?.status && typeof wait.status === "object" ? Object.values(wait.status) : [];
    const done = states.find((s: any) => s && typeof s.completed === "string") as { completed: string } | undefined;
    if (done) return done.completed;
    return `no completed subagent: ${result.text}`;
  },
  // The message is "You are <persona>: follow <file>." (as the todo says), a blank line, the prompt.
  promptOf: (call) =>
    call.name === "spawn_agent" && typeof call.args.message === "string"
      ? call.args.message.replace(/^You are [^\n]*\n\n/, "")
      : null,
  finishedText(conv, call) {
    // The agent id its spawn_agent result named, then the wait_agent results that show it completed.
    const calls = new Map<string, ToolCall>();
    let id: string | null = null;
    let done: string | null = null;
    for (const m of conv.messages)
      for (const p of m.parts) {
        if (p.type === "tool_call") calls.set(p.call.id, p.call);
        if (p.type !== "tool_result") continue;
        if (p.result.callId === call.id) id = agentIdOf(p.result);
        else if (id && calls.get(p.result.callId)?.name === "wait_agent") {
          const status = json(p.result.text.trim())?.status?.[id];
          if (status && typeof status === "object")
            done =
              typeof status.completed === "string"
                ? status.completed
                : "errored" in status || "failed" in status
                  ? `the subagent failed: ${JSON.stringify(status)}`
                  : done;
        }
      }
    return done;
  },
  awaitSubagents(conv, calls) {
    const ids = calls.flatMap((c) => spawnedId(conv, c) ?? []);
    return ids.length ? { name: "wait_agent", args: { targets: ids, timeout_ms: 600_000 } } : null;
  },
  closeSubagent(conv, call) {
    const id = spawnedId(conv, call);
    if (!id) return null;
    const closed = conv.messages.some((m) =>
      m.parts.some((p) => p.type === "tool_call" && p.call.name === "close_agent" && p.call.args.target === id),
    );
    return closed ? null : { name: "close_agent", args: { target: id } };
  },
  refusedForLimit(conv, call) {
    let refused = false;
    let closedSince = false;
    for (const m of conv.messages)
      for (const p of m.parts) {
        if (p.type === "tool_result" && p.result.callId === call.id)
          refused = /agent thread limit reached/.test(p.result.text);
        if (refused && p.type === "tool_call" && p.call.name === "close_agent") closedSince = true;
      }
    return refused ? { closedSince } : null;
  },
  isNotice: (text) => text.trim().startsWith("<subagent_notification>"),
  subagent(conv) {
    // A custom agent's developer_instructions are the persona file's body: "You are **<name>**".
    const m = /You are \*\*(harness-[a-z-]+)\*\*/.exec(conv.system);
    if (m) return { persona: m[1] };
    // Spawned without a custom agent: the task it was given is a dispatch prompt, perhaps led by
    // "You are <persona>: ...".
    const first = conv.messages.find((x) => x.role === "user");
    const text = first?.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n") ?? "";
    if (!/\bBrief: \S+|\bRead your brief \S+ first\b/.test(text)) return null;
    return { persona: /^You are (harness-[a-z-]+)\b/m.exec(text)?.[1] ?? null };
  },
  cwd(conv) {
    const m = /<cwd>([^<]+)<\/cwd>/.exec(shownTexts(conv));
    if (!m) throw new Error("codex dialect: the request names no working directory (<cwd>)");
    return m[1].trim();
  },
  readFile: (conv, rel) => shell(conv, `cat -- ${q(rel)}`),
  readPathOf(_conv, call: ToolCall) {
    const m = /^cat -- ('(?:[^']|'\\'')*')$/.exec(commandOf(call) ?? "");
    return m ? unq(m[1]) : null;
  },
  readText(r) {
    if (r.isError) return null;
    const code = exitCode(r.text);
    if (code !== null && code !== 0) return null;
    return execOutput(r.text);
  },
  writeFile(_conv, rel, content) {
    const dir = path.posix.dirname(rel);
    const body = content.endsWith("\n") ? content : content + "\n";
    return shell(_conv, `mkdir -p -- ${q(dir)} && cat > ${q(rel)} <<'${EOF_MARK}'\n${body}${EOF_MARK}`);
  },
  writePathOf(_conv, call) {
    const m = /&& cat > ('(?:[^']|'\\'')*') <<'/.exec(commandOf(call) ?? "");
    return m ? unq(m[1]) : null;
  },
};
