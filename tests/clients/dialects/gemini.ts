// Gemini CLI's vocabulary, as its 0.61 requests show it to the model: MCP tools are named
// `mcp_autopilot_<tool>` and their result reaches the model only as the text content (wrapped in
// <untrusted_context>), so the Step is read from autopilot's text rendering; subagents run through
// `invoke_agent` (`agent_name`, `prompt`), the agent file's body is the subagent's system prompt, a
// subagent ends with `complete_task` (`result`), and the host gets "Subagent '<name>' finished.
// ... Result:\n<result>". Files are read and written with `read_file` / `write_file` (`file_path`).
import type { Dialect, ToolCall, ToolResult, WantedCall } from "../brain/types.js";

const MCP_PREFIX = "mcp_autopilot_";

function unwrap(text: string): string {
  return text.replace(/^\s*<untrusted_context>\s*/, "").replace(/\s*<\/untrusted_context>\s*$/, "");
}

/** A Step read from autopilot's text rendering (docs/mcp.md), as a model reading it would. */
export function stepFromText(raw: string): unknown {
  const text = unwrap(raw);
  const head = /^autopilot (\S+) · step (\d+) · ([A-Z_]+)(?: · phase (\d+)\/(\d+): (.*?))? · rigor (\w+)/m.exec(text);
  if (!head) return null;
  const [, session, stepId, state, , , , rigor] = head;
  const after = text.slice(head.index + head[0].length);
  const first = /^1\. /m.exec(after);
  const report = first ? after.slice(0, first.index).trim() : "";
  const base = { session, stepId: Number(stepId), state, rigor, ...(report ? { report } : {}) };
  // A parallel wave: "1. <what>: run these N <persona> subagents AT THE SAME TIME ...:" (or "these
  // <persona> subagents run already ..."), then per task "   - task <task> (<description>[; running
  // since step N]):" and its prompt indented by five spaces, then "2. As each returns ... kind "<result>"".
  const wave =
    /^1\. (.*?): (?:run these \d+ |these )(harness-[a-z-]+) subagents[^\n]*\n\n([\s\S]*?)^(2\. As each returns[^\n]*kind "(\w+)"[^\n]*)$/m.exec(
      after,
    );
  if (wave) {
    const tasks = [
      ...wave[3].matchAll(/^ {3}- task (\S+) \((.*?)(?:; running since step (\d+))?\):\n((?: {5}.*\n?)+)/gm),
    ].map((t) => ({
      task: t[1],
      description: t[2],
      prompt: t[4]
        .split("\n")
        .map((l) => l.replace(/^ {5}/, ""))
        .join("\n")
        .trim(),
      ...(t[3] ? { startedAt: Number(t[3]) } : {}),
    }));
    return {
      ...base,
      todo: `${wave[0].split("\n")[0]} ${wave[4]}`,
      next: {
        kind: "dispatch",
        persona: wave[2],
        description: wave[1],
        prompt: tasks[0]?.prompt ?? "",
        expects: { result: wave[5] },
        tasks,
      },
    };
  }
  // "1. <what to do, naming the persona>:" then the prompt indented by three spaces, then
  // "2. Call autopilot_report ... kind "<result>"".
  const dispatch = /^1\. (.*):\n\n((?: {3}.*\n|\n)+?)2\. Call autopilot_report[^\n]*kind "(\w+)"/m.exec(after);
  const persona = dispatch ? /\b(harness-[a-z-]+)\b/.exec(dispatch[1])?.[1] : undefined;
  if (dispatch && persona) {
    const prompt = dispatch[2]
      .split("\n")
      .map((l) => l.replace(/^ {3}/, ""))
      .join("\n")
      .replace(/\n\(No subagents\?[^\n]*\)\s*$/, "")
      .trim();
    const todo = dispatch[1];
    return {
      ...base,
      todo,
      next: { kind: "dispatch", persona, description: todo, prompt, expects: { result: dispatch[3] } },
    };
  }
  const ask = /^1\. Ask the user: (.*)\n([\s\S]*?)^ {3}Options: (.*)$/m.exec(after);
  if (ask) {
    const options = [...ask[3].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
    const context = ask[2]
      .split("\n")
      .map((l) => l.replace(/^ {3}/, ""))
      .join("\n")
      .trim();
    return { ...base, next: { kind: "ask", question: ask[1], options, ...(context ? { context } : {}) } };
  }
  const wait = /^1\. Tell the user: (.*)\n2\. Stop here\. To continue later: (.*?)\.?$/m.exec(after);
  if (wait) return { ...base, next: { kind: "wait", reason: wait[1], resumeWith: wait[2] } };
  if (/The session is DONE/.test(after)) return { ...base, next: { kind: "done", summary: report } };
  return null;
}

export const gemini: Dialect = {
  // A SessionStart hook's context, in a headless run, comes in front of the prompt in <hook_context>.
  userWords: (text) => text.replace(/<hook_context>[\s\S]*?<\/hook_context>\s*/g, ""),
  name: "gemini",
  autopilotTool: (conv, tool) => (conv.tools.includes(MCP_PREFIX + tool) ? MCP_PREFIX + tool : null),
  autopilotToolOf: (name) => (name.startsWith(MCP_PREFIX) ? name.slice(MCP_PREFIX.length) : null),
  stepFromText,
  dispatch(conv, d): WantedCall | null {
    if (!conv.tools.includes("invoke_agent")) return null;
    return { name: "invoke_agent", args: { agent_name: d.persona, prompt: d.prompt } };
  },
  isDispatch: (name) => name === "invoke_agent",
  subagentText(r: ToolResult) {
    const i = r.text.indexOf("\nResult:\n");
    return i >= 0 ? r.text.slice(i + "\nResult:\n".length) : r.text;
  },
  subagent(conv) {
    const m = /You are \*\*(harness-[a-z-]+)\*\*/.exec(conv.system);
    return m ? { persona: m[1] } : null;
  },
  cwd(conv) {
    const first = conv.messages.find((m) => m.role === "user");
    const text = first?.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n") ?? "";
    const m =
      /Workspace Directories:\*\*\s*\n\s*- (\S+)/.exec(text) ?? /Workspace Directories:\s*\n\s*- (\S+)/.exec(text);
    if (!m) throw new Error("gemini dialect: the request names no workspace directory");
    return m[1];
  },
  // Paths relative to the workspace: a subagent's request names no directory.
  readFile: (_conv, rel) => ({ name: "read_file", args: { file_path: rel } }),
  readPathOf: (_conv, call: ToolCall) =>
    call.name === "read_file" && typeof call.args.file_path === "string" ? call.args.file_path : null,
  readText: (r) => (r.isError || /^Error/.test(r.text) ? null : r.text),
  writeFile: (_conv, rel, content) => ({ name: "write_file", args: { file_path: rel, content } }),
  writePathOf: (_conv, call) =>
    call.name === "write_file" && typeof call.args.file_path === "string" ? call.args.file_path : null,
  finish(conv, result): WantedCall | null {
    if (!conv.tools.includes("complete_task")) return null;
    return { name: "complete_task", args: { result: "```json\n" + JSON.stringify(result) + "\n```" } };
  },
};
