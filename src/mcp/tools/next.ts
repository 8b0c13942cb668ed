// autopilot_next: the current Step again; changes nothing.
import { NextInput, StepOutput } from "../schemas.js";
import type { ToolKit } from "./kit.js";
import type { ToolName } from "./names.js";

export function registerNext({ server, stepTool }: ToolKit, name: ToolName): void {
  server.registerTool(
    name,
    {
      description: "The current Step again; changes nothing.",
      inputSchema: NextInput,
      outputSchema: StepOutput,
      annotations: { idempotentHint: true },
    },
    // No in-band questions here: autopilot_next promises to change nothing.
    (args, extra) =>
      stepTool(name, async (engine) => ({ step: await engine.next(args.session) }), { elicit: false })(extra),
  );
}
