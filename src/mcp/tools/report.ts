// autopilot_report: a persona's result; returns the next Step.
import { AutopilotError } from "../../protocol/errors.js";
import { PersonaResult } from "../../protocol/step.js";
import { parseUsage } from "../../session/usage.js";
import { ReportInput, StepOutput } from "../schemas.js";
import type { ToolKit } from "./kit.js";

export function registerReport({ server, stepTool, assertNotDriven }: ToolKit): void {
  server.registerTool(
    "autopilot_report",
    {
      description: "Report a persona's result; returns the next Step.",
      inputSchema: ReportInput,
      outputSchema: StepOutput,
    },
    (args, extra) =>
      stepTool(
        "autopilot_report",
        async (engine) => {
          const parsed = PersonaResult.safeParse(args.result);
          if (!parsed.success) {
            // An unknown session is the more useful error; otherwise show where the session is.
            const step = await engine.peek(args.session);
            const issue = parsed.error.issues[0];
            const kind = step.next.kind === "dispatch" ? `"${step.next.expects.result}"` : "<the kind the prompt asks for>";
            throw new AutopilotError(
              "bad_result",
              `The result does not fit the protocol (${["result", ...issue.path].join(".")}: ${issue.message}). Send {"kind": ${kind}, ...} as described in docs/mcp.md.`,
              { step },
            );
          }
          const usage = parseUsage(args.usage);
          await assertNotDriven(args.session);
          return { step: await engine.report(args.session, args.stepId, parsed.data, usage) };
        },
        { elicit: true },
      )(extra),
  );
}
