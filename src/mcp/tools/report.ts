// autopilot_report: a persona's result; returns the next Step. The engine checks the result and
// the usage (SessionEngine.report), once, for every caller; and, for every call that changes a
// session, that no headless run drives it (the kit's beforeChange).
import { ReportInput, StepOutput } from "../schemas.js";
import type { ToolKit } from "./kit.js";

export function registerReport({ server, stepTool, sessionOf }: ToolKit): void {
  server.registerTool(
    "autopilot_report",
    {
      description: "Report a persona's result.",
      inputSchema: ReportInput,
      outputSchema: StepOutput,
    },
    (args, extra) =>
      stepTool(
        "autopilot_report",
        // No session: the connection's (kit.sessionOf). No result: the engine reads the result file.
        async (engine) => ({
          step: await engine.report(
            await sessionOf(args.session, engine, args.stepId),
            args.stepId,
            args.result,
            args.usage,
            args.task,
          ),
        }),
        { elicit: true },
      )(extra),
  );
}
