// autopilot_next: the current Step again; changes nothing.
import { NextInput, StepOutput } from "../schemas.js";
import type { ToolKit } from "./kit.js";

export function registerNext({ server, stepTool }: ToolKit): void {
  server.registerTool(
    "autopilot_next",
    {
      description: "The current Step again; changes nothing.",
      inputSchema: NextInput,
      outputSchema: StepOutput,
      annotations: { idempotentHint: true },
    },
    // No in-band questions here: autopilot_next promises to change nothing.
    (args, extra) =>
      stepTool("autopilot_next", async (engine) => ({ step: await engine.next(args.session) }), { elicit: false })(
        extra,
      ),
  );
}
