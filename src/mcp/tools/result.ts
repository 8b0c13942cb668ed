// autopilot_result: the persona of a dispatch Step records its own JSON result, so the host
// reports only the step (autopilot_report without `result` reads it). For the personas that have
// no file-writing tool (Claude Code's verifier and reviewer are read-only by their tool list), it
// is how their result reaches the server without the host copying it. It records the result of
// the current dispatch Step only: it cannot move the session, answer a question or report.
import { AutopilotError } from "../../protocol/errors.js";
import { ResultInput } from "../schemas.js";
import type { ToolKit } from "./kit.js";
import type { ToolName } from "./names.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** What the persona does after each refusal: the host's Step is not its business, so none is shown. */
const PERSONA_TODO: Record<string, string> = {
  bad_result: "Fix the result as the message says and call autopilot_result again.",
  stale_step: "Your step is over: end with your JSON result in your reply.",
};

export function registerResult({ server, engineFor, sessionOf }: ToolKit, name: ToolName): void {
  server.registerTool(
    name,
    {
      description: "Personas only: record your JSON result for your step.",
      inputSchema: ResultInput,
    },
    async (args): Promise<CallToolResult> => {
      try {
        const engine = await engineFor();
        const file = await engine.record(await sessionOf(args.session, engine, args.stepId), args.stepId, args.result);
        return {
          content: [
            {
              type: "text",
              text: `Recorded in ${file}: the host's autopilot_report for this step finds it there (the same result passed again changes nothing). End your final message as your agent file says.`,
            },
          ],
        };
      } catch (e) {
        const code = e instanceof AutopilotError ? e.code : "internal";
        const message = e instanceof Error ? e.message : String(e);
        const todo = PERSONA_TODO[code] ?? "End with your JSON result in your reply: the host reports it.";
        return { isError: true, content: [{ type: "text", text: `Error [${code}]: ${message}\nNext: ${todo}` }] };
      }
    },
  );
}
