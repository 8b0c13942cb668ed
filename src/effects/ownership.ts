// Which changes in the working tree are autopilot's own. A checkpoint or recovery commit stages
// only those: a change autopilot did not make is never committed without the user having said so.
//
// The session's baseline (taken when it starts) lists every path that already differed from HEAD
// — modified, staged, deleted or untracked — with a hash of its content then. At commit time:
//  - a path not in the baseline changed during the session: autopilot's, staged — unless it is a
//    client config file `autopilot install` writes, this session's spec (the person's words: no
//    persona writes it, so a change to it mid-session is theirs) or another session's spec or
//    plan (left out, reported);
//  - a baseline path whose content is unchanged is the user's: never staged, not mentioned;
//  - a baseline path whose content changed was touched by both (or by the user again): left out
//    and reported, because committing it would commit the user's part too;
//  - a path the person changed mid-session while autopilot waited for them (the baseline's
//    `during`), and `.harness/config.json` (autopilot's settings, the person's file): left out and
//    reported.
import { createHash } from "node:crypto";
import { lstat, readFile, readdir, readlink } from "node:fs/promises";
import path from "node:path";
import { readTextOrNull, writeTextAtomic } from "./fsutil.js";
import { gitDirs } from "./git-dir.js";
import {
  CONFIG_FILE_REL,
  HARNESS_SHARED_FILES_REL,
  projectPaths,
  SESSIONS_DIR_REL,
  STATE_FILE,
  type SessionPaths,
} from "../session/paths.js";
import { LEFT_OUT_SHOWN, type NoticeOf } from "../session/notices.js";

interface BaselineEntry {
  /** Project-relative, POSIX. */
  path: string;
  /** sha256 of the working-tree content when the session started; null when the path was deleted. */
  hash: string | null;
}

export interface Baseline {
  /** HEAD when the baseline was taken. */
  head: string;
  takenAt: string;
  entries: BaselineEntry[];
  /**
   * Paths the person changed during the session while autopilot waited for them (src/engine/person-edits.ts),
   * with their hash then: theirs, left out of every commit and named in its report.
   */
  during?: BaselineEntry[];
  /** What differed from HEAD when autopilot last handed the session to the person (an ask or wait Step). */
  idle?: { takenAt: string; entries: BaselineEntry[] };
}

export interface LeftOut {
  path: string;
  why: string;
}

export type GitRunner = (args: string[]) => Promise<string>;

/**
 * Every path of the project that differs from HEAD (worktree or index) or is untracked and not
 * ignored, project-relative, session files and submodules aside. One `git status`; paths in porcelain output are
 * relative to the repository root, so the project's prefix is stripped.
 */
/** "" when `root` is the top of its repository (it holds `.git`): no git process needed to know. */
export function topPrefix(root: string): string | undefined {
  return gitDirs(root) ? "" : undefined;
}

export async function listChanges(git: GitRunner, knownPrefix?: string): Promise<string[]> {
  // The project's folder inside the repository ("" at its top: the caller may know).
  const prefix = knownPrefix ?? (await git(["rev-parse", "--show-prefix"])).trim();
  const out = await git([
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--no-renames",
    // A submodule is another repository: autopilot never commits into it or over its recorded
    // commit, so its changes are neither the session's nor part of the baseline.
    "--ignore-submodules=all",
    "--",
    ".",
    // Session files are autopilot's bookkeeping, never part of a commit nor of the baseline.
    `:(exclude)${SESSIONS_DIR_REL}`,
  ]);
  const paths = new Set<string>();
  for (const rec of out.split("\0")) {
    if (rec.length < 4) continue;
    let p = rec.slice(3);
    if (prefix && p.startsWith(prefix)) p = p.slice(prefix.length);
    if (p.endsWith("/")) p = p.slice(0, -1); // a nested repository shows as a folder
    if (p) paths.add(p);
  }
  return [...paths].sort();
}

/** sha256 of a path's content; null when it does not exist. A folder (nested repo) hashes its listing. */
export async function hashPath(root: string, rel: string): Promise<string | null> {
  const abs = path.join(root, rel);
  try {
    const st = await lstat(abs);
    const h = createHash("sha256");
    if (st.isSymbolicLink()) h.update("link:" + (await readlink(abs)));
    else if (st.isDirectory()) h.update("dir:" + (await readdir(abs)).sort().join("\0"));
    else h.update(await readFile(abs));
    return h.digest("hex");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw e;
  }
}

/**
 * What the working tree holds that is not autopilot's: every change but the files autopilot's own
 * sessions append to (.harness/learnings.md and failures.md, left uncommitted at DONE), which are
 * never the user's changes and are committed with the session's work like any file it writes.
 */
export async function takeBaseline(root: string, git: GitRunner, now: string): Promise<Baseline> {
  const head = (await git(["rev-parse", "HEAD"])).trim();
  return { head, takenAt: now, entries: await changedEntries(root, git) };
}

/** Every changed path but autopilot's shared files, with its content's hash now. */
export async function changedEntries(root: string, git: GitRunner): Promise<BaselineEntry[]> {
  const entries: BaselineEntry[] = [];
  const own = new Set<string>(HARNESS_SHARED_FILES_REL);
  for (const p of await listChanges(git, topPrefix(root)))
    if (!own.has(p)) entries.push({ path: p, hash: await hashPath(root, p) });
  return entries;
}

export async function readBaseline(ws: SessionPaths): Promise<Baseline | null> {
  const text = await readTextOrNull(ws.baseline);
  if (text === null) return null;
  try {
    const b = JSON.parse(text) as Baseline;
    if (!b || !Array.isArray(b.entries)) return null;
    return b;
  } catch {
    return null;
  }
}

export async function writeBaseline(ws: SessionPaths, baseline: Baseline): Promise<void> {
  await writeTextAtomic(ws.baseline, JSON.stringify(baseline, null, 2) + "\n");
}

/**
 * Files `autopilot install` writes in a project (client configs, personas, commands): the user's
 * setup, not the session's work. By prefix; tests/install/client-list.test.ts holds it to every
 * file a project install writes, for every client.
 */
const CLIENT_CONFIG = [
  ".mcp.json",
  ".claude/",
  ".cursor/",
  ".vscode/mcp.json",
  ".codex/",
  ".agents/skills/autopilot/",
  ".gemini/",
  ".github/prompts/",
  ".github/agents/",
];

export function isClientConfig(rel: string): boolean {
  return CLIENT_CONFIG.some((c) => (c.endsWith("/") ? rel.startsWith(c) : rel === c));
}

/**
 * Paths that are not this session's work whoever changed them, with why: its own spec (the person
 * edits it to settle a question; the personas only read it) and the specs and plans of the
 * project's other sessions, which sit beside this session's work in one checkout. Read tolerantly:
 * an unreadable file contributes nothing.
 */
export async function notSessionWork(root: string, slug: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const dir = projectPaths(root).sessionsDir;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const text = await readTextOrNull(path.join(dir, name, STATE_FILE)).catch(() => null);
    if (!text) continue;
    try {
      const s = JSON.parse(text) as { specPath?: unknown; phases?: Array<{ planPath?: unknown }> };
      if (name === slug) {
        if (typeof s.specPath === "string") out.set(s.specPath, OWN_SPEC);
        continue;
      }
      if (typeof s.specPath === "string") out.set(s.specPath, OTHER_SESSION);
      for (const p of Array.isArray(s.phases) ? s.phases : [])
        if (typeof p?.planPath === "string" && !out.has(p.planPath)) out.set(p.planPath, OTHER_SESSION);
    } catch {
      // not ours to judge here
    }
  }
  return out;
}

const PERSON_DURING = "you changed it during the session, while autopilot waited for you: left for you to commit";
const OWN_SPEC = "the spec this session works from: your edit, left for you to commit";
const OTHER_SESSION = "the spec or plan of another autopilot session";

export interface Selection {
  stage: string[];
  leftOut: LeftOut[];
}

/** Split the current changes into autopilot's (to stage) and the rest (left out, with why). */
export async function selectOwnChanges(
  root: string,
  changes: string[],
  baseline: Baseline | null,
  others: Map<string, string>,
): Promise<Selection> {
  const before = new Map((baseline?.entries ?? []).map((e) => [e.path, e.hash]));
  const during = new Map((baseline?.during ?? []).map((e) => [e.path, e.hash]));
  const stage: string[] = [];
  const leftOut: LeftOut[] = [];
  for (const p of changes) {
    if (before.has(p)) {
      const now = await hashPath(root, p);
      if (now === before.get(p)) continue; // the user's change, untouched: theirs, silently
      leftOut.push({
        path: p,
        why: "you had uncommitted changes there when the session started, and it has changed since",
      });
      continue;
    }
    if (during.has(p)) {
      const same = (await hashPath(root, p)) === during.get(p);
      leftOut.push({ path: p, why: same ? PERSON_DURING : `${PERSON_DURING}; it has changed since` });
      continue;
    }
    if (p === CONFIG_FILE_REL) {
      leftOut.push({ path: p, why: "autopilot's settings for this project (your file), not the session's work" });
      continue;
    }
    if (isClientConfig(p)) {
      leftOut.push({ path: p, why: "client configuration (what `autopilot install` writes), not the session's work" });
      continue;
    }
    const notOurs = others.get(p);
    if (notOurs) {
      leftOut.push({ path: p, why: notOurs });
      continue;
    }
    stage.push(p);
  }
  return { stage, leftOut };
}

/** The notice of what a commit left out, bounded (src/session/notices.ts words it). */
export function leftOutNotice(leftOut: LeftOut[]): NoticeOf<"leftOut"> | null {
  if (!leftOut.length) return null;
  return {
    kind: "leftOut",
    entries: leftOut.slice(0, LEFT_OUT_SHOWN).map((l) => ({ path: l.path, why: l.why })),
    total: leftOut.length,
  };
}
