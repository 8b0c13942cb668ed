// Where autopilot's files live: the one place for their names. The store, the engine, the MCP
// resources and every effect take their paths from here; an effect is handed one of these objects
// (`ProjectPaths` for the files every session of the project shares, `SessionPaths` for one
// session's) rather than spelling a path itself.
import path from "node:path";
import { AutopilotError } from "../protocol/errors.js";
import { assertSafeSlug } from "./slug.js";

const HARNESS_DIR_REL = ".harness";
export const SESSIONS_DIR_REL = ".harness/sessions";
/** `.harness/config.json`: validation commands, runner, budgets, worktree (docs/cli.md). */
export const CONFIG_FILE_REL = ".harness/config.json";
export const WORKTREES_DIR_REL = ".harness/worktrees";
export const STATE_FILE = "autopilot-state.json";
const LAST_GOOD_FILE = "autopilot-state.last-good.json";
const LOCK_FILE = "autopilot.lock";
/** In a session folder: the worktree the session runs in, when it runs in one. */
export const WORKTREE_POINTER_FILE = "worktree.json";
/** The files under .harness/ that every session appends to (learnings, failures): autopilot's own. */
export const HARNESS_SHARED_FILES_REL = [".harness/learnings.md", ".harness/failures.md"] as const;
/** The roadmap autopilot keeps in step with the session (harness-roadmap's file). */
const ROADMAP_FILE_REL = "docs/roadmap.md";

export function sessionDirRel(slug: string): string {
  assertSafeSlug(slug);
  return `${SESSIONS_DIR_REL}/${slug}`;
}

declare const checked: unique symbol;
/** A session name `assertSafeSlug` passed: only `sessionRef` makes one. */
export type SessionSlug = string & { readonly [checked]: true };

/**
 * A session handle: its name, checked once, and its files. The engine's router makes one per call
 * (`sessionRef`); the session engine and the store take it instead of a raw name, so the name is
 * not checked again nor its paths rebuilt on the way down.
 */
export interface SessionRef {
  readonly slug: SessionSlug;
  readonly paths: SessionPaths;
}

/** Check a session name given by a client (`unknown_session`, `outside_project`) and make its handle. */
export function sessionRef(projectRoot: string, slug: unknown): SessionRef {
  assertSafeSlug(slug);
  return { slug: slug as SessionSlug, paths: buildSessionPaths(projectRoot, slug) };
}

/** The same session's handle under another root (its git worktree): the name is not checked again. */
export function sessionRefAt(projectRoot: string, ref: SessionRef): SessionRef {
  return { slug: ref.slug, paths: buildSessionPaths(projectRoot, ref.slug) };
}

/** The files every session of a project shares. */
export interface ProjectPaths {
  projectRoot: string;
  harnessDir: string;
  /** The project's learnings (`.harness/learnings.md`). */
  learnings: string;
  failures: string;
  config: string;
  roadmap: string;
  sessionsDir: string;
  sessionsIndex: string;
  worktreesDir: string;
}

/** One session's files, and the project's. */
export interface SessionPaths extends ProjectPaths {
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
  summary: string;
  /** The pull request's description, written at DONE (its title is in the state and the report). */
  pr: string;
  /** The session's own learnings, promoted to the project's at DONE. */
  sessionLearnings: string;
  /** The changes that were in the working tree when the session started (src/effects/ownership.ts). */
  baseline: string;
  worktreePointer: string;
  /** `scratchpad/`; one folder in it per phase, named by src/effects/scratchpad.ts. */
  scratchpadDir: string;
  /** `phase-N-review.json`; N as the caller numbers it (autopilot writes the phase number, from 1; upstream files use both). */
  review(n: number): string;
}

/**
 * The paths of the session whose state file says `sessionDir`: `.harness/sessions/<slug>`, as the
 * store writes it for every state it reads (src/session/migrate.ts sets it to where the file lives).
 */
export function sessionPathsAt(projectRoot: string, sessionDir: string): SessionPaths {
  const rel = sessionDir.replace(/\\/g, "/").replace(/\/+$/, "");
  const prefix = `${SESSIONS_DIR_REL}/`;
  if (!rel.startsWith(prefix))
    throw new AutopilotError(
      "outside_project",
      `Session folder "${sessionDir}" is not a folder of ${SESSIONS_DIR_REL}/. Use the session's own folder.`,
      { path: sessionDir },
    );
  return sessionPaths(projectRoot, rel.slice(prefix.length));
}

export function projectPaths(projectRoot: string): ProjectPaths {
  const root = path.resolve(projectRoot);
  const harnessDir = path.join(root, HARNESS_DIR_REL);
  const sessionsDir = path.join(root, SESSIONS_DIR_REL);
  return {
    projectRoot: root,
    harnessDir,
    learnings: path.join(harnessDir, "learnings.md"),
    failures: path.join(harnessDir, "failures.md"),
    config: path.join(root, CONFIG_FILE_REL),
    roadmap: path.join(root, ROADMAP_FILE_REL),
    sessionsDir,
    sessionsIndex: path.join(sessionsDir, "index.md"),
    worktreesDir: path.join(root, WORKTREES_DIR_REL),
  };
}

export function sessionPaths(projectRoot: string, slug: string): SessionPaths {
  assertSafeSlug(slug);
  return buildSessionPaths(projectRoot, slug);
}

/** A checked name's paths. */
function buildSessionPaths(projectRoot: string, slug: string): SessionPaths {
  const project = projectPaths(projectRoot);
  const sessionDir = path.join(project.sessionsDir, slug);
  return {
    ...project,
    slug,
    sessionDirRel: `${SESSIONS_DIR_REL}/${slug}`,
    sessionDir,
    state: path.join(sessionDir, STATE_FILE),
    lastGood: path.join(sessionDir, LAST_GOOD_FILE),
    lock: path.join(sessionDir, LOCK_FILE),
    handoff: path.join(sessionDir, "handoff.json"),
    summary: path.join(sessionDir, "summary.md"),
    pr: path.join(sessionDir, "pr.md"),
    sessionLearnings: path.join(sessionDir, "learnings.md"),
    baseline: path.join(sessionDir, "baseline.json"),
    worktreePointer: path.join(sessionDir, WORKTREE_POINTER_FILE),
    scratchpadDir: path.join(sessionDir, "scratchpad"),
    review(n: number): string {
      if (!Number.isInteger(n) || n < 0)
        throw new RangeError(`review file number must be a non-negative integer, got ${n}`);
      return path.join(sessionDir, `phase-${n}-review.json`);
    },
  };
}
