// autopilot_start: start or resume a session on a spec.
import { StartInput, StepOutput } from "../schemas.js";
import type { ToolKit } from "./kit.js";
import type { ToolName } from "./names.js";

export function registerStart({ server, stepTool }: ToolKit, name: ToolName): void {
  server.registerTool(
    name,
    {
      description: "Start or resume a session on a spec.",
      inputSchema: StartInput,
      outputSchema: StepOutput,
    },
    (args, extra) =>
      stepTool(
        name,
        async (engine) => {
          const r = await engine.start(args.spec, args.flags);
          return {
            step: r.step,
            report: r.resumed ? r.notes : [],
          };
        },
        { elicit: true },
      )(extra),
  );
}
