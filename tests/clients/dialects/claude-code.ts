// Claude Code's vocabulary, as its 2.1.x requests show it to the model: MCP tools are named
// mcp__<server>__<tool> and may be deferred behind ToolSearch; subagents run through the Agent tool
// (subagent_type = the agent file's name), whose system prompt is the agent file's body; Read and
// Write take absolute paths, Read prefixes line numbers, Write refuses to overwrite a file that was
// not read first. A plugin's server's tools are mcp__plugin_<plugin>_<server>__<tool>, and its agents
// <plugin>:<agent>: the agent the host names is the one the Step's todo names. The TUI runs every
// subagent in the background ("Async agent launched") and tells the host model when it finished in
// a later turn (a <task-notification> in a system reminder); in auto mode (2.1.33x) a subagent gets
// a SubagentHandback tool, the only way its report reaches its caller.
import path from "node:path";
import type { Conversation, Dialect, TaskNotification, ToolCall, ToolResult, WantedCall } from "../brain/types.js";

/** A Bash write of one file: `mkdir -p '<dir>' && cat > '<file>' <<'RESULT_JSON'` then the content. */
const HEREDOC = /cat > '([^']+)' <<'RESULT_JSON'\n([\s\S]*?)\nRESULT_JSON$/;

/** The server's tools as Claude Code names them: installed into the project or user settings, or from the plugin. */
const MCP_PREFIXES = ["mcp__autopilot__", "mcp__plugin_autopilot_autopilot__"];

function abs(conv: Conversation, rel: string): string {
  return path.isAbsolute(rel) ? rel : path.join(claudeCode.cwd(conv), rel);
}

function relOf(conv: Conversation, p: unknown): string | null {
  if (typeof p !== "string") return null;
  const root = claudeCode.cwd(conv);
  return path.isAbsolute(p) ? path.relative(root, p).split(path.sep).join("/") : p;
}

/** Every text the model was shown outside tool results: the system prompt and system turns. */
function systemTexts(conv: Conversation): string {
  const turns = conv.messages
    .filter((m) => m.role === "system")
    .flatMap((m) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])));
  return [conv.system, ...turns].join("\n");
}

export const claudeCode: Dialect = {
  name: "claude-code",
  autopilotTool: (conv, tool) => MCP_PREFIXES.map((p) => p + tool).find((n) => conv.tools.includes(n)) ?? null,
  autopilotToolOf: (name) => {
    const p = MCP_PREFIXES.find((x) => name.startsWith(x));
    return p ? name.slice(p.length) : null;
  },
  loadTools(conv, tools): WantedCall | null {
    if (!conv.tools.includes("ToolSearch")) return null;
    // The names the client announced as deferred, else (after an MCP prompt Claude Code announces
    // none) a keyword search, as the ToolSearch description offers.
    const listed = systemTexts(conv);
    const names = tools.flatMap((t) => MCP_PREFIXES.map((p) => p + t)).filter((n) => listed.includes(n));
    if (!names.length)
      return { name: "ToolSearch", args: { query: "+autopilot autopilot", max_results: tools.length } };
    return { name: "ToolSearch", args: { query: `select:${names.join(",")}`, max_results: names.length } };
  },
  isMetaTool: (name) => name === "ToolSearch",
  dispatch(conv, d): WantedCall | null {
    const tool = ["Agent", "Task"].find((t) => conv.tools.includes(t));
    if (!tool) return null;
    // The agent the todo names: next.persona, or for the plugin's `"autopilot:" + next.persona`
    // (the text view names it whole: `subagent_type "autopilot:harness-planner"`).
    const prefixed = /subagent_type "([^"]+)" \+ next\.persona/.exec(d.todo ?? "")?.[1];
    const named =
      prefixed !== undefined ? prefixed + d.persona : (/subagent_type "([^"]+)"/.exec(d.todo ?? "")?.[1] ?? d.persona);
    // The model the Step names, where the todo says to pass it ("model next.model"; the text view
    // names it: `model "opus"`).
    const model = /\bmodel next\.model\b|\bmodel: the entry's model\b/.test(d.todo ?? "")
      ? d.model
      : /\bmodel "([^"]+)"/.exec(d.todo ?? "")?.[1];
    // The next action depends on the result: run in the foreground.
    return {
      name: tool,
      args: {
        subagent_type: named,
        description: d.description,
        prompt: d.prompt,
        ...(model ? { model } : {}),
        run_in_background: false,
      },
    };
  },
  isDispatch: (name) => name === "Agent" || name === "Task",
  subagentText: (r: ToolResult) => r.text,
  subagent(conv) {
    // The agent file's body is the subagent's system prompt; ours open with "You are **<name>**".
    const m = /You are \*\*(harness-[a-z-]+)\*\*/.exec(conv.system);
    if (m) return { persona: m[1] };
    return null;
  },
  cwd(conv) {
    const m = /Primary working directory: (\S+)/.exec(systemTexts(conv));
    if (!m) throw new Error("claude-code dialect: the request names no working directory");
    return m[1];
  },
  readFile: (conv, rel) => ({ name: "Read", args: { file_path: abs(conv, rel) } }),
  readPathOf: (conv, call: ToolCall) => (call.name === "Read" ? relOf(conv, call.args.file_path) : null),
  readText(r) {
    if (r.isError) return null;
    // "     1\tline" (cat -n style); a note may follow in a <system-reminder>.
    const lines = r.text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, "").split("\n");
    const numbered = lines.filter((l) => /^\s*\d+[\t→]/.test(l));
    if (!numbered.length) return r.text;
    return numbered.map((l) => l.replace(/^\s*\d+[\t→]/, "")).join("\n");
  },
  writeFile: (conv, rel, content) => ({ name: "Write", args: { file_path: abs(conv, rel), content } }),
  writePathOf: (conv, call) => {
    if (call.name === "Write") return relOf(conv, call.args.file_path);
    // autopilot_result records the result file of its step (the brain matches the file's tail).
    if (claudeCode.autopilotToolOf(call.name) === "autopilot_result")
      return `results/step-${String(call.args.stepId)}.json`;
    const m = call.name === "Bash" ? HEREDOC.exec(String((call.args.command as string | undefined) ?? "")) : null;
    return m ? relOf(conv, m[1]) : null;
  },
  writeResultFile(conv, rel, content) {
    // A read-only persona's one autopilot tool (its agent file and brief name it), when the client gave it.
    const record = claudeCode.autopilotTool(conv, "autopilot_result");
    const stepId = /step-(\d+)\.json$/.exec(rel)?.[1];
    if (record && stepId && /autopilot_result/.test(conv.system))
      return { name: record, args: { stepId: Number(stepId), result: JSON.parse(content) } };
    if (conv.tools.includes("Write")) return { name: "Write", args: { file_path: abs(conv, rel), content } };
    // A persona without Write (another client's read-only agent): a here-document writes the file.
    if (!conv.tools.includes("Bash")) return null;
    const file = abs(conv, rel);
    return {
      name: "Bash",
      args: {
        command: `mkdir -p '${path.dirname(file)}' && cat > '${file}' <<'RESULT_JSON'\n${content.replace(/\n$/, "")}\nRESULT_JSON`,
        description: "Write the result file the brief names",
      },
    };
  },
  writtenContent(conv, call) {
    if (claudeCode.autopilotToolOf(call.name) === "autopilot_result") return JSON.stringify(call.args.result) + "\n";
    if (call.name === "Write") return typeof call.args.content === "string" ? call.args.content : null;
    const m = call.name === "Bash" ? HEREDOC.exec(String((call.args.command as string | undefined) ?? "")) : null;
    return m ? m[2] + "\n" : null;
  },
  readBeforeWrite: true,
  handBack: (conv, report) =>
    conv.tools.includes("SubagentHandback") ? { name: "SubagentHandback", args: { message: report } } : null,
  // /compact (or auto-compaction) sends the conversation with a last user turn asking for a summary.
  summaryRequest(conv) {
    const last = conv.messages.at(-1);
    return (
      last?.role === "user" &&
      last.parts.some(
        (p) => p.type === "text" && /Please provide your summary based on the conversation so far/.test(p.text),
      )
    );
  },
  // A subagent's message (its SubagentHandback report) is not something the user said.
  isNotice: (text) => /<agent-message from="/.test(text),
  launchedInBackground: (r) => /^Async agent launched/.test(r.text.trim()),
  taskNotifications(text, conv): TaskNotification[] {
    const out: TaskNotification[] = [];
    for (const m of text.matchAll(/<task-notification>([\s\S]*?)<\/task-notification>/g)) {
      const field = (name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(m[1])?.[1];
      const callId = field("tool-use-id");
      if (!callId) continue;
      const usage = field("usage");
      out.push({
        callId: callId.trim(),
        status: (field("status") ?? "").trim(),
        result: field("result") ?? "",
        ...(usage ? { usage: `<usage>${usage}</usage>` } : {}),
      });
    }
    // A report handed back through SubagentHandback: a message from the agent, the report indented
    // under the "[Subagent hand-back]" frame. The agent is known by the id its launch result named.
    for (const m of text.matchAll(/<agent-message from="([^"]+)">([\s\S]*?)<\/agent-message>/g)) {
      const launch = conv.messages
        .flatMap((msg) => msg.parts)
        .find((p) => p.type === "tool_result" && p.result.text.includes(`agentId: ${m[1]} `));
      if (!launch || launch.type !== "tool_result") continue;
      const frame = /\[Subagent hand-back\][^\n]*\n([\s\S]*)$/.exec(m[2]);
      const report = frame
        ? frame[1]
            .split("\n")
            .map((l) => l.replace(/^ {2}/, ""))
            .join("\n")
        : m[2];
      out.push({ callId: launch.result.callId, status: "completed", result: report });
    }
    return out;
  },
};
