// autopilot_start: start or resume a session on a spec.
import { resolveSpecPath, slugFromSpecPath } from "../../session/slug.js";
import { startArgs } from "../../engine/flags.js";
import { StartInput, StepOutput } from "../schemas.js";
import type { ToolKit } from "./kit.js";

export function registerStart({ server, ctx, stepTool, assertNotDriven }: ToolKit): void {
  server.registerTool(
    "autopilot_start",
    {
      description: "Start or resume a session on a spec; returns a Step.",
      inputSchema: StartInput,
      outputSchema: StepOutput,
    },
    (args, extra) =>
      stepTool(
        "autopilot_start",
        async (engine) => {
          await assertNotDriven(slugFromSpecPath(resolveSpecPath(ctx.root, startArgs(ctx.root, args.spec, args.flags).spec).rel));
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
