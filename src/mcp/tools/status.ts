// autopilot_status: the sessions and what each waits on, or one in detail.
import { StatusInput } from "../schemas.js";
import { hostStep, jsonResult } from "../render.js";
import { listSessions, sessionDetail, summaryLine } from "../sessions.js";
import type { ToolKit } from "./kit.js";
import type { ToolName } from "./names.js";

export function registerStatus({ server, view, engineFor, safe }: ToolKit, name: ToolName): void {
  server.registerTool(
    name,
    {
      description: "Sessions and what each waits on, or one in detail.",
      inputSchema: StatusInput,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      safe(async () => {
        const engine = await engineFor();
        if (args.session) {
          const d = await sessionDetail(engine, args.session);
          return jsonResult({ ...d, step: hostStep(d.step, view()) }, summaryLine(d));
        }
        const sessions = await listSessions(engine);
        const text = sessions.length
          ? sessions.map(summaryLine).join("\n")
          : "No autopilot sessions in this project. Start one with autopilot_start.";
        return jsonResult({ sessions }, text);
      }),
  );
}
