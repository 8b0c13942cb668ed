// autopilot_decisions: the decision log, read-only.
import { DecisionsInput } from "../schemas.js";
import { jsonResult } from "../render.js";
import { decisionLog } from "../sessions.js";
import type { ToolKit } from "./kit.js";
import type { ToolName } from "./names.js";

export function registerDecisions({ server, engineFor, safe }: ToolKit, name: ToolName): void {
  server.registerTool(
    name,
    {
      description: "The decision log: decisions with signals, phase history, final review, commits. Read-only.",
      inputSchema: DecisionsInput,
      annotations: { readOnlyHint: true },
    },
    (args) => safe(async () => jsonResult(await decisionLog(await engineFor(), args.session))),
  );
}
