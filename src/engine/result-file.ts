// The result a persona wrote to its result file (the brief's "- Result:" line), read when a host
// reports a step without the result: a parallel wave's task by the step that dispatched it.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { AutopilotError } from "../protocol/errors.js";
import type { Step } from "../protocol/step.js";
import type { SessionRef } from "../session/paths.js";
import type { AutopilotState } from "../session/schema.js";
import { resultPath } from "../personas/dispatch.js";
import { taskResultPath } from "../personas/jobs.js";

/** The session as saved and its Step, for what a refusal names. */
interface Reads {
  read: () => Promise<AutopilotState>;
  peek: () => Promise<Step>;
}

/** The result file's JSON object; bad_result (with the current Step) when there is none that parses. */
export async function readResultFile(
  root: string,
  ref: SessionRef,
  stepId: number,
  task: string | undefined,
  { read, peek }: Reads,
): Promise<object> {
  // A task the wave does not have is said as such, with the tasks it waits for (not as a missing file).
  const run = task ? (await read().catch(() => null))?.phaseRun.waveRun : undefined;
  if (task && run && !run.tasks.some((t) => t.task === task)) {
    const waiting = run.tasks.filter((t) => t.status === "running" && !t.reported).map((t) => `"${t.task}"`);
    const step = await peek().catch(() => undefined);
    throw new AutopilotError(
      "bad_result",
      `Task ${JSON.stringify(task)} is not a task of this wave; the wave waits for ${waiting.length ? `task ${waiting.join(", ")}` : "nothing"} (the "task" of each next.tasks entry). Nothing was changed.`,
      step ? { step } : undefined,
    );
  }
  const dispatchedAt = task ? (run?.tasks.find((t) => t.task === task)?.dispatchedAt ?? stepId) : stepId;
  const rel = task
    ? taskResultPath({ sessionDir: ref.paths.sessionDirRel }, dispatchedAt, task)
    : resultPath({ sessionDir: ref.paths.sessionDirRel }, stepId);
  const text = await readFile(path.join(root, rel), "utf8").catch(() => null);
  let why = text === null ? `the persona wrote no ${rel}` : "";
  if (text !== null) {
    try {
      const value = JSON.parse(text) as unknown;
      if (value && typeof value === "object" && !Array.isArray(value)) return value;
      why = `${rel} holds no JSON object`;
    } catch (e) {
      why = `${rel} is not JSON (${(e as Error).message})`;
    }
  }
  const step = await peek().catch(() => undefined);
  throw new AutopilotError(
    "bad_result",
    `No result: ${why}. Call autopilot_report again with result: the persona's JSON reply.`,
    step ? { step } : undefined,
  );
}
