// The subjects of a repository's most recent commits, which tell how its people write them
// (./commit-message.ts). Asked of git once per HEAD and kept: a checkpoint commit of autopilot's
// own moves HEAD by one commit it knows, so the next commit's window is that one before the window
// it had, with no `git log` (one git process fewer at every commit of a session).
import { readHead } from "./git-dir.js";
import { plainGit, raw } from "./git-kit.js";

/** How many recent commits the convention is read from. */
const HISTORY = 30;

interface Recent {
  subject: string;
  /** Made by a person (not by autopilot: no effect trailer, no `[autopilot]` subject). */
  human: boolean;
}

/** Per project root: the HEAD the window was read at, and the window (newest first). */
const windows = new Map<string, { head: string; recent: Recent[] }>();

/** The subjects people wrote among the last HISTORY non-merge commits of HEAD. */
export async function humanSubjects(root: string): Promise<string[]> {
  const head = readHead(root)?.sha;
  const kept = head ? windows.get(root) : undefined;
  if (kept && kept.head === head) return kept.recent.filter((r) => r.human).map((r) => r.subject);
  const out = await raw(plainGit(root), ["log", `-n${HISTORY}`, "--no-merges", "--format=%s%x1f%b%x1e", "HEAD"]).catch(
    () => "",
  );
  const recent = out
    .split("\x1e")
    .map((r) => r.trim().split("\x1f"))
    .filter(([s]) => s)
    .map(([s, body]) => ({
      subject: s,
      human: !/^Autopilot-Effect:/m.test(body ?? "") && !s.startsWith("[autopilot]"),
    }));
  if (head) windows.set(root, { head, recent });
  return recent.filter((r) => r.human).map((r) => r.subject);
}

/** autopilot made commit `sha` on `parent` (not a merge): the window moves by it, if it was kept. */
export function noteOwnCommit(root: string, parent: string | undefined, sha: string, subject: string): void {
  const kept = windows.get(root);
  if (!kept || !parent || kept.head !== parent) return void windows.delete(root);
  windows.set(root, { head: sha, recent: [{ subject, human: false }, ...kept.recent.slice(0, HISTORY - 1)] });
}
