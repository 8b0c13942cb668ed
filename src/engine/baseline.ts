// A session started by upstream's skill or an older autopilot has no baseline (what the working
// tree held when it started): taken at its resume, so what the tree holds then stays out of
// autopilot's commits.
import { gitRunner } from "../effects/git.js";
import { readBaseline, takeBaseline, writeBaseline } from "../effects/ownership.js";
import type { SessionPaths } from "../session/paths.js";

/** Takes the baseline if the session has none; the note that says so (null when nothing to say). */
/** `now`: the clock, read only when a baseline is taken. */
export async function ensureBaseline(root: string, ws: SessionPaths, now: () => string): Promise<string | null> {
  if (await readBaseline(ws)) return null;
  const baseline = await takeBaseline(root, gitRunner(root), now()).catch(() => null);
  if (!baseline) return null;
  await writeBaseline(ws, baseline);
  const n = baseline.entries.length;
  return n
    ? `This session had no record of what was uncommitted when it started; autopilot took it now: ${n} changed path${n === 1 ? "" : "s"} (e.g. ${baseline.entries[0].path}) stay out of its commits. Commit them yourself if they belong to this work.`
    : null;
}
