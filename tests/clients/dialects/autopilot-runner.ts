// autopilot's own agent loop (`autopilot run --runner anthropic`, src/runners/anthropic.ts) as a
// client of the Messages API: each request is one persona's run. The system prompt is the persona
// file's body; the tools are the confined toolbox (read_file, write_file, ... with paths relative
// to the project root) and report_result, which ends the run with the result as its input.
import type { Conversation, Dialect, ToolCall, ToolResult, WantedCall } from "../brain/types.js";

export const autopilotRunner: Dialect = {
  name: "autopilot-anthropic-runner",
  // The runner's personas call no autopilot tools: there is no host conversation here.
  autopilotTool: () => null,
  autopilotToolOf: () => null,
  dispatch: () => null,
  isDispatch: () => false,
  subagentText: (r: ToolResult) => r.text,
  subagent(conv: Conversation) {
    const m = /You are \*\*(harness-[a-z-]+)\*\*/.exec(conv.system);
    return { persona: m ? m[1] : null };
  },
  cwd: () => ".",
  readFile: (_conv, rel): WantedCall => ({ name: "read_file", args: { path: rel } }),
  readPathOf: (_conv, call: ToolCall) =>
    call.name === "read_file" && typeof call.args.path === "string" ? call.args.path : null,
  readText(r) {
    if (r.isError) return null;
    const lines = r.text.split("\n");
    const numbered = lines.filter((l) => /^\s*\d+\t/.test(l));
    if (!numbered.length) return r.text;
    return numbered.map((l) => l.replace(/^\s*\d+\t/, "")).join("\n");
  },
  writeFile: (_conv, rel, content): WantedCall => ({ name: "write_file", args: { path: rel, content } }),
  writePathOf: (_conv, call) =>
    call.name === "write_file" && typeof call.args.path === "string" ? call.args.path : null,
  readBeforeWrite: true,
  finish: (_conv, result) => ({ name: "report_result", args: result }),
};
