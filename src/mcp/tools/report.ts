// autopilot_report: a persona's result; returns the next Step. The engine checks the result and
// the usage (SessionEngine.report), once, for every caller; and, for every call that changes a
// session, that no headless run drives it (the kit's beforeChange).
import { ReportInput, StepOutput } from "../schemas.js";
import type { ToolKit } from "./kit.js";
import type { ToolName } from "./names.js";

export function registerReport({ server, stepTool, sessionOf }: ToolKit, name: ToolName): void {
  server.registerTool(
    name,
    {
      description: "Report a persona's result.",
      inputSchema: ReportInput,
      outputSchema: StepOutput,
    },
    (args, extra) =>
      stepTool(
        name,
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
