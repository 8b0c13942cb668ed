// write_scratchpad: bulky research saved to the session's scratchpad.
import path from "node:path";
import { AutopilotError } from "../../protocol/errors.js";
import { sessionPaths } from "../../session/paths.js";
import { writeScratchpad } from "../../effects/scratchpad.js";
import { RIGOR } from "../../../machines/policy.js";
import { ScratchpadInput } from "../schemas.js";
import { jsonResult } from "../render.js";
import type { ToolKit } from "./kit.js";

export function registerWriteScratchpad({ server, ctx, engineFor, safe }: ToolKit): void {
  server.registerTool(
    "write_scratchpad",
    {
      description: "Save bulky research to the session scratchpad (cleared when the phase completes). Returns the path.",
      inputSchema: ScratchpadInput,
    },
    (args) =>
      safe(async () => {
        const state = await (await engineFor()).read(args.session);
        if (RIGOR[state.rigorLevel].scratchpad === "none")
          throw new AutopilotError(
            "bad_input",
            "This session runs with --fast: the scratchpad is skipped. Keep the research in the conversation.",
          );
        // The folder is named after the phase, whichever way the caller names it, so that
        // PHASE_COMPLETE (which clears it by name) finds it.
        const phase =
          typeof args.phase === "number" && state.phases[args.phase] ? state.phases[args.phase].name : args.phase;
        const file = await writeScratchpad(sessionPaths(ctx.root, args.session), phase, args.filename, args.content);
        const rel = path.relative(ctx.root, file).split(path.sep).join("/");
        return jsonResult({ path: rel }, `Wrote ${rel}.`);
      }),
  );
}
