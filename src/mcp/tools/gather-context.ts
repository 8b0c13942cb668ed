// gather_context: a session's context in one call.
import { gatherContext, type ContextPart } from "../../effects/context.js";
import { GatherInput } from "../schemas.js";
import { jsonResult } from "../render.js";
import { Progress } from "../progress.js";
import type { ToolKit } from "./kit.js";
import type { ToolName } from "./names.js";

export function registerGatherContext({ server, ctx, engineFor, safe }: ToolKit, name: ToolName): void {
  server.registerTool(
    name,
    {
      description:
        "Session context in one call: state, learnings, handoff, validation (runs the project's checks; ask for it explicitly).",
      inputSchema: GatherInput,
      annotations: { readOnlyHint: true },
    },
    (args, extra) =>
      safe(async () => {
        const engine = await engineFor();
        await engine.read(args.session); // unknown_session, unsafe names
        // A --worktree session's files and checks are in its worktree, not in this checkout.
        const root = await engine.rootFor(args.session);
        const progress = new Progress(extra, ctx.heartbeatMs);
        try {
          const include: ContextPart[] = args.include ?? ["state", "learnings", "handoff"];
          if (include.includes("validation")) progress.report("running the project's validation commands");
          return jsonResult(await gatherContext(root, args.session, include, { signal: extra.signal }));
        } finally {
          progress.stop();
        }
      }),
  );
}
