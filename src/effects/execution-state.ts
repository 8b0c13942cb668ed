// The executor's `<sessionDir>/state.json` (upstream's execution state: `position`, `progress`,
// `lastSession`). The executor writes it; autopilot only resets its task progress when a phase
// starts, so that phase 1's `"Task 1": "complete"` never passes for phase 2's task 1, and closes its
// position when the session is DONE. Every other field is kept as written. Idempotent: the same
// phase writes the same bytes.
import path from "node:path";
import { readTextOrNull, writeTextAtomic } from "./fsutil.js";
import type { SessionPaths } from "../session/paths.js";

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === "object" && Object.keys(v).length === 0);
}

function executionStatePath(ws: SessionPaths): string {
  return path.join(ws.sessionDir, "state.json");
}

/**
 * A new phase starts: `progress` empties, `position.task` goes, and `autopilotPhase` names the phase
 * the progress belongs to; the earlier progress is kept in `earlierPhases` under its phase's name.
 * A missing file is made with the phase's name and empty progress, so the executor, which keeps
 * the fields it does not know, writes its progress under the right phase; a file that is not a
 * JSON object is left as it is (it is not autopilot's to repair).
 */
export async function resetExecutionState(ws: SessionPaths, phase: string): Promise<{ written: boolean }> {
  const file = executionStatePath(ws);
  const text = await readTextOrNull(file);
  if (text === null) {
    await writeTextAtomic(file, JSON.stringify({ autopilotPhase: phase, progress: {} }, null, 2) + "\n");
    return { written: true };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return { written: false };
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return { written: false };
  const o = parsed as Record<string, unknown>;
  if (o.autopilotPhase === phase && isEmpty(o.progress)) return { written: false };
  const position =
    o.position && typeof o.position === "object" && !Array.isArray(o.position)
      ? { ...(o.position as Record<string, unknown>) }
      : {};
  delete position.task;
  // Nothing is lost: the earlier phase's progress is kept under its name.
  const earlier = typeof o.autopilotPhase === "string" ? o.autopilotPhase : "before autopilot";
  const kept =
    o.earlierPhases && typeof o.earlierPhases === "object" && !Array.isArray(o.earlierPhases)
      ? { ...(o.earlierPhases as Record<string, unknown>) }
      : {};
  if (!isEmpty(o.progress) || o.position !== undefined) kept[earlier] = { position: o.position, progress: o.progress };
  const next = {
    ...o,
    autopilotPhase: phase,
    position,
    progress: {},
    ...(Object.keys(kept).length ? { earlierPhases: kept } : {}),
  };
  const body = JSON.stringify(next, null, 2) + "\n";
  if (body === text) return { written: false };
  await writeTextAtomic(file, body);
  return { written: true };
}

/**
 * The session is DONE: the file no longer says a task of the last phase is under way. `position`
 * becomes `{ "phase": "complete" }` (upstream's word for a finished run) without its `task`; the
 * last phase's `progress` and `autopilotPhase` stay, as true records of what was done. A missing
 * file, or one that is not a JSON object, is left as it is. Idempotent.
 */
export async function closeExecutionState(ws: SessionPaths): Promise<{ written: boolean }> {
  const file = executionStatePath(ws);
  const text = await readTextOrNull(file);
  if (text === null) return { written: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return { written: false };
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return { written: false };
  const o = parsed as Record<string, unknown>;
  const position =
    o.position && typeof o.position === "object" && !Array.isArray(o.position)
      ? { ...(o.position as Record<string, unknown>) }
      : {};
  delete position.task;
  position.phase = "complete";
  const body = JSON.stringify({ ...o, position }, null, 2) + "\n";
  if (body === text) return { written: false };
  await writeTextAtomic(file, body);
  return { written: true };
}
