// The decision log's parallel waves: each task of each wave a session ran, read from the
// state file's `waveLog` (machines/actions/wave.ts keeps it with each change to the wave's
// ledger). Part of the model in ./model.ts; pure.
import type { AutopilotState } from "../session/schema.js";
import type { WaveTask } from "../session/wave-plan.js";

/**
 * One task of a parallel wave, as the session last saw it: where it worked, what became of it.
 * `status`: merged (its work is on the session's branch), done by hand (a person merged it after a
 * question), question (at its human checkpoint, or the merge queue stopped it: outside its
 * Files/Owns, or its retry budget spent; nothing of it merged), sent back (running again after a
 * failure, a conflict or a failing validation), re-run (a person asked for it again; its worktree opens next), running (first
 * attempt), waiting to merge (done; tasks before it merge first), plan sent back (its executor
 * reported a defect in the plan: the plan went back to the planner; nothing of it merged), stopped
 * for the revised plan (not done when another task sent the plan back; it runs again from the
 * revised plan). Those two keep their worktree and branch, unmerged.
 */
interface WaveTaskLog {
  task: string;
  name: string;
  status:
    | "merged"
    | "done by hand"
    | "question"
    | "sent back"
    | "re-run"
    | "running"
    | "waiting to merge"
    | "plan sent back"
    | "stopped for the revised plan";
  /** The status with its reason, in words. */
  statusText: string;
  /** Attempts started (1: the first run). */
  attempts: number;
  /** The current (last) attempt's worktree, relative to the checkout, and its branch. Removed once merged. */
  worktree: string;
  branch: string;
  /** The session's head after its merge; null: not merged by autopilot. */
  merged: string | null;
  mergedShort: string | null;
  /** What the validation commands printed after its merge; null: not run for it. */
  validation: string | null;
  /** Each time the merge queue sent it back: the attempt that followed, why, and what went wrong. */
  sentBack: { attempt: number; why: "failed" | "conflict" | "validation"; error: string }[];
  /** Files it changed outside its Files/Owns (status question). */
  outside: string[];
  /** Earlier attempts never merged: their worktrees and branches are kept for the user. */
  unmerged: { worktree: string; branch: string }[];
  /** The last thing that went wrong, when nothing above says it. */
  error: string | null;
}

/** A phase as the log names it (model.ts `PhaseRef`). */
type PhaseRef = { index: number; number: number; name: string | null };

export interface WaveLog {
  phase: PhaseRef | null;
  /** 1-based, within its phase's plan. */
  number: number;
  /** The plan the wave ran, when recorded. */
  plan: string | null;
  tasks: WaveTaskLog[];
}

const SENT_BACK: Record<string, string> = {
  failed: "its executor failed",
  conflict: "its merge conflicted",
  validation: "the validation failed after its merge",
};

function waveTaskLog(t: WaveTask): WaveTaskLog {
  const sentBack = (t.sentBack ?? []).map((b) => ({ attempt: b.attempt, why: b.why, error: b.error }));
  const last = sentBack.at(-1);
  const byHand = t.status === "merged" && !t.merged && t.error === "done by hand";
  const stopped =
    t.status === "defect" ? "plan sent back" : t.status === "held" ? "stopped for the revised plan" : null;
  const status: WaveTaskLog["status"] = byHand
    ? "done by hand"
    : stopped
      ? stopped
      : t.status === "merged"
        ? "merged"
        : t.status === "outside" || t.status === "exhausted" || (t.status === "running" && t.atCheckpoint)
          ? "question"
          : t.status === "rerun"
            ? "re-run"
            : t.status === "done" || (t.status === "running" && t.reportedDone)
              ? "waiting to merge"
              : t.attempt > (t.budgetFrom ?? 1) && last
                ? "sent back"
                : "running";
  const statusText =
    status === "merged"
      ? `merged${t.merged ? ` (${t.merged.slice(0, 7)})` : ""}${sentBack.length ? ` after ${sentBack.length} send-back${sentBack.length === 1 ? "" : "s"}` : ""}`
      : status === "done by hand"
        ? "done by hand (a person put its work on the session's branch)"
        : status === "question"
          ? t.atCheckpoint
            ? `question: at its human checkpoint "${t.atCheckpoint}"`
            : t.status === "outside"
              ? `question: changed files outside its Files/Owns (${(t.outside ?? []).join(", ")}); nothing merged`
              : `question: its retry budget is spent (${t.error ?? "unknown error"}); nothing merged`
          : status === "plan sent back"
            ? `plan sent back to the planner: its executor reports a defect in the plan (${t.error ?? "no detail"}); nothing of it merged; its worktree is kept while it holds work`
            : status === "stopped for the revised plan"
              ? `stopped for the revised plan: another task sent the plan back${t.error ? ` (its own report: ${t.error})` : ""}: nothing of it merged; its worktree is kept while it holds work`
              : status === "sent back"
                ? `sent back: ${SENT_BACK[last!.why]} (${last!.error}); attempt ${t.attempt} running`
                : status;
  return {
    task: t.task,
    name: t.name,
    status,
    statusText,
    attempts: t.attempt,
    worktree: t.worktree.path,
    branch: t.worktree.branch,
    merged: t.merged ?? null,
    mergedShort: t.merged ? t.merged.slice(0, 7) : null,
    validation: t.validation ?? null,
    sentBack,
    outside: t.outside ?? [],
    unmerged: (t.unmerged ?? []).map((u) => ({ worktree: u.path, branch: u.branch })),
    error: t.error?.trim() ? t.error : null,
  };
}

export function waveLogs(state: AutopilotState, phaseRef: (index: number) => PhaseRef | null): WaveLog[] {
  return (state.waveLog ?? []).map((w) => ({
    phase: phaseRef(w.phase),
    number: w.wave + 1,
    plan: w.plan,
    tasks: w.tasks.map(waveTaskLog),
  }));
}
