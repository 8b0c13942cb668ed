// Where a session's files live. One place, so the store, the effects and the MCP resources agree.
import path from "node:path";
import { AutopilotError } from "../protocol/errors.js";
import { assertSafeSlug } from "./slug.js";

export const SESSIONS_DIR_REL = ".harness/sessions";
export const STATE_FILE = "autopilot-state.json";
export const LAST_GOOD_FILE = "autopilot-state.last-good.json";
export const LOCK_FILE = "autopilot.lock";

export function sessionDirRel(slug: string): string {
  assertSafeSlug(slug);
  return `${SESSIONS_DIR_REL}/${slug}`;
}

export interface SessionPaths {
  projectRoot: string;
  slug: string;
  /** `.harness/sessions/<slug>` relative to the project root, POSIX: the value stored in `sessionDir`. */
  sessionDirRel: string;
  sessionDir: string;
  state: string;
  /** The previous state file that parsed, kept so a corrupt file can be restored by hand. */
  lastGood: string;
  /** proper-lockfile's lock directory for the session (held by one process at a time). */
  lock: string;
  handoff: string;
  /** harness-execution's task-level state (not ours: read-only for us). */
  taskState: string;
  summary: string;
  scratchpadDir: string;
  /** `scratchpad/<phase>/` for one phase (the folder name the skill uses: the phase's label). */
  scratchpad(phase: string | number): string;
  /** `phase-N-review.json`; N as the caller numbers it (upstream files use both 0- and 1-based). */
  review(n: number): string;
  harnessDir: string;
  learnings: string;
  failures: string;
  sessionsDir: string;
  sessionsIndex: string;
  /** The pre-session singleton (schemaVersion 1) that older skill versions wrote for every spec. */
  legacyState: string;
}

export function sessionPaths(projectRoot: string, slug: string): SessionPaths {
  assertSafeSlug(slug);
  const root = path.resolve(projectRoot);
  const harnessDir = path.join(root, ".harness");
  const sessionsDir = path.join(harnessDir, "sessions");
  const sessionDir = path.join(sessionsDir, slug);
  const scratchpadDir = path.join(sessionDir, "scratchpad");
  return {
    projectRoot: root,
    slug,
    sessionDirRel: sessionDirRel(slug),
    sessionDir,
    state: path.join(sessionDir, STATE_FILE),
    lastGood: path.join(sessionDir, LAST_GOOD_FILE),
    lock: path.join(sessionDir, LOCK_FILE),
    handoff: path.join(sessionDir, "handoff.json"),
    taskState: path.join(sessionDir, "state.json"),
    summary: path.join(sessionDir, "summary.md"),
    scratchpadDir,
    scratchpad(phase: string | number): string {
      const name = String(phase);
      // The phase label comes from a spec heading or a client; it must not climb out of the scratchpad.
      if (name === "" || name === "." || /[\\/\0]|\.\./.test(name)) {
        throw new AutopilotError(
          "outside_project",
          `Scratchpad phase ${JSON.stringify(name)} is not a plain folder name (no "/", "\\", ".." or NUL). Use the phase number.`,
        );
      }
      return path.join(scratchpadDir, name);
    },
    review(n: number): string {
      if (!Number.isInteger(n) || n < 0) throw new RangeError(`review file number must be a non-negative integer, got ${n}`);
      return path.join(sessionDir, `phase-${n}-review.json`);
    },
    harnessDir,
    learnings: path.join(harnessDir, "learnings.md"),
    failures: path.join(harnessDir, "failures.md"),
    sessionsDir,
    sessionsIndex: path.join(sessionsDir, "index.md"),
    legacyState: path.join(harnessDir, STATE_FILE),
  };
}
