// The one path check. Every file autopilot reads or writes for a project, and every path a client,
// a plan or a headless model names, goes through `checkPath` (or `confine`, which throws its one
// coded error): lexically inside the root, and, when asked, still inside once every symbolic link
// on the way is followed. Callers word the refusal for their reader; the rule lives only here.
import { lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import { AutopilotError } from "../protocol/errors.js";

/** Why a path was refused. `via` is the existing part of the path whose link leads away. */
type PathEscape =
  | { why: "nul" }
  | { why: "outside"; abs: string }
  | { why: "link"; abs: string; via: string; real: string }
  | { why: "broken"; abs: string; via: string };

export type PathCheck = { ok: true; abs: string; real: string } | { ok: false; escape: PathEscape };

/** `abs` is `root` or below it. A child named "..foo" is inside; only ".." as a whole segment leaves. */
export function isInside(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel === "" || (rel !== ".." && !rel.startsWith(".." + path.sep) && !path.isAbsolute(rel));
}

/**
 * A path as written by a person or a model on any system. On POSIX a backslash would otherwise be
 * part of one file name, so `..\..\etc` would pass the check as a name and reach a tool that reads
 * it as a path; and `C:\x` (a Windows absolute path) is absolute wherever it was written.
 */
function asNative(p: string): string {
  if (path.sep === "\\") return p;
  if (/^[a-zA-Z]:[\\/]/.test(p)) return "/" + p.slice(3).replace(/\\/g, "/");
  return p.replace(/\\/g, "/");
}

/**
 * Check `p` (relative to `root`, or absolute) against `root`. With `links`, the nearest part of
 * the path that exists is resolved with every symbolic link followed and must stay inside the
 * root's real location: a new file under a linked folder is judged by where the folder really is.
 * `real` is the path with links resolved (`abs` when `links` is off).
 */
export function checkPath(root: string, p: string, opts: { links?: boolean } = {}): PathCheck {
  if (p.includes("\0")) return { ok: false, escape: { why: "nul" } };
  const base = path.resolve(root);
  const abs = path.resolve(base, asNative(p));
  if (!isInside(base, abs)) return { ok: false, escape: { why: "outside", abs } };
  if (!opts.links) return { ok: true, abs, real: abs };
  const realRoot = realpathSync(base);
  let probe = abs;
  const tail: string[] = [];
  for (;;) {
    try {
      lstatSync(probe);
      break;
    } catch {
      const parent = path.dirname(probe);
      if (parent === probe) break;
      tail.unshift(path.basename(probe));
      probe = parent;
    }
  }
  let resolved: string;
  try {
    resolved = realpathSync(probe);
  } catch {
    // A dangling link: writing through it would create its target, wherever that is.
    return { ok: false, escape: { why: "broken", abs, via: probe } };
  }
  const real = path.join(resolved, ...tail);
  if (!isInside(realRoot, real)) return { ok: false, escape: { why: "link", abs, via: probe, real } };
  return { ok: true, abs, real };
}

/** The refusal in words, for a reader who gave `given`; `root` is named so they can see where. */
function escapeMessage(e: PathEscape, given: string, root: string): string {
  const shown = JSON.stringify(given);
  switch (e.why) {
    case "nul":
      return `Path ${shown} contains a NUL byte.`;
    case "outside":
      return `Path ${shown} is outside the project ${path.resolve(root)}. Use a path inside the project.`;
    case "link":
      return `Path ${shown} leads outside the project through a symbolic link (${e.via} -> ${e.real}). Use a path inside the project.`;
    case "broken":
      return `Path ${shown} goes through a broken symbolic link (${e.via}); it cannot be used.`;
  }
}

/** `p` resolved inside `root`, or the error `outside_project` naming the path and the reason. */
export function confine(root: string, p: string, opts: { links?: boolean } = {}): string {
  const r = checkPath(root, p, opts);
  if (!r.ok)
    throw new AutopilotError("outside_project", escapeMessage(r.escape, p, root), { path: p, why: r.escape.why });
  return r.abs;
}
