// write_scratchpad: bulky research saved to the session's scratchpad (the rules: Engine.writeScratchpad).
import path from "node:path";
import { ScratchpadInput } from "../schemas.js";
import { jsonResult } from "../render.js";
import type { ToolKit } from "./kit.js";
import type { ToolName } from "./names.js";

export function registerWriteScratchpad({ server, ctx, engineFor, safe }: ToolKit, name: ToolName): void {
  server.registerTool(
    name,
    {
      description:
        "Save bulky research to the session scratchpad (cleared when the phase completes). Returns the path.",
      inputSchema: ScratchpadInput,
    },
    (args) =>
      safe(async () => {
        const file = await (await engineFor()).writeScratchpad(args.session, args.phase, args.filename, args.content);
        const rel = path.relative(ctx.root, file).split(path.sep).join("/");
        return jsonResult({ path: rel }, `Wrote ${rel}.`);
      }),
  );
}
