// The `start` prompt: `/mcp__autopilot__start SPEC [FLAGS]` in Claude Code, `/start` in Gemini CLI.
// Not named `autopilot`: Gemini CLI renames both of two commands that share a name, and the
// installed `/autopilot` command file must keep its name. It only tells the host how to drive the
// tools; the Steps carry everything else.
//
// Clients fill prompt arguments differently: Claude Code splits what the user typed on spaces and
// maps the words onto the arguments in order, dropping words beyond the last argument; Gemini CLI
// puts the whole line into the first required argument. So the prompt has spare argument slots and
// reads the flags out of all of them, `spec` included.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { splitCommandLine } from "../engine/flags.js";
import { AutopilotError } from "../protocol/errors.js";

const PROMPT_NAME = "start";
/** The arguments after `spec`, in order: room for every flag (and a spec path's extra words). */
const EXTRA_ARGS = ["flags", "flag2", "flag3", "flag4"] as const;

function autopilotPromptText(spec: string, flags: string[] = []): string {
  const args = JSON.stringify({ spec, ...(flags.length ? { flags: flags.join(" ") } : {}) });
  return [
    `Run the autopilot on ${spec}${flags.length ? ` with ${flags.join(" ")}` : ""}.`,
    "",
    `1. Call autopilot_start with ${args}.`,
    "2. Every autopilot result is a Step. Do exactly what its `todo` says, then call the tool it names:",
    "   - dispatch: run the persona the Step names as a subagent, with the prompt it gives (the todo names your subagent tool); report its JSON reply with autopilot_report (same session and stepId).",
    "   - ask: put the question and its options to the user; pass their answer, their reason and their reply quoted (userWords) to autopilot_decide.",
    "   - the user says something outside a question (a direction, a correction): autopilot_decide with only userWords (their words, quoted); it reaches the next persona.",
    "   - wait: tell the user the reason and stop; they resume with autopilot_start later.",
    "   - done: show the whole report (the final review's findings, the .harness/ files to commit or ignore) and stop.",
    "3. Show the user every Step's `report`. Never plan, execute, verify or review yourself: the personas do.",
    `4. To pick the session up again (a new conversation, a context reset): autopilot_start with ${JSON.stringify({ spec })} resumes it (autopilot_next with its session continues it too).`,
  ].join("\n");
}

/** The command line the user typed, whichever arguments the client put its words in. */
function promptCommandLine(args: Record<string, string | undefined>): { spec: string; flags: string[] } {
  const line = ["spec", ...EXTRA_ARGS]
    .map((k) => args[k]?.trim() ?? "")
    .filter(Boolean)
    .join(" ");
  try {
    const parsed = splitCommandLine(line);
    if (!parsed.spec)
      throw new AutopilotError(
        "spec_not_found",
        "No spec path was given, e.g. docs/changes/my-feature/proposal.md --fast.",
      );
    return parsed;
  } catch (e) {
    if (e instanceof AutopilotError) throw new McpError(ErrorCode.InvalidParams, `[${e.code}] ${e.message}`);
    throw e;
  }
}

export function registerPrompts(server: McpServer): void {
  const more = z.string().optional().describe("More flags");
  server.registerPrompt(
    PROMPT_NAME,
    {
      description: "Autopilot: carry a multi-phase spec from plan to reviewed, committed code.",
      argsSchema: {
        spec: z.string().describe("Spec path, e.g. docs/changes/x/proposal.md; flags may follow"),
        flags: z.string().optional().describe("--fast | --thorough, --review-plans"),
        flag2: more,
        flag3: more,
        flag4: more,
      },
    },
    (args) => {
      const { spec, flags } = promptCommandLine(args);
      return { messages: [{ role: "user", content: { type: "text", text: autopilotPromptText(spec, flags) } }] };
    },
  );
}
