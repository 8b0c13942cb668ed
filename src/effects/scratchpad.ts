// Session scratchpad: `<sessionDir>/scratchpad/<phase-slug>/<file>`, where agents park bulky
// research instead of keeping it in conversation; cleared at PHASE_COMPLETE. The file name comes
// from an agent, so every write is confined: no separators, no `..`, no absolute names, and no
// symlink anywhere between the session directory and the file (a link could point outside).
// Whether to write at all (fast mode writes nothing) is the engine's decision, not this module's.
import { createHash } from "node:crypto";
import { lstat, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { AutopilotError } from "../protocol/errors.js";
import { requireString, shown } from "../protocol/input.js";
import { writeTextAtomic } from "./fsutil.js";
import { checkPath, confine } from "../session/confine.js";
import type { SessionPaths } from "../session/paths.js";

function refuse(what: string): never {
  throw new AutopilotError(
    "outside_project",
    `${what} Scratchpad files must be plain file names inside the session's scratchpad folder.`,
  );
}

/** "Phase 1: Core Scanner" → "phase-1-core-scanner"; a bare index n → "phase-<n>". */
export function phaseSlug(phase: string | number): string {
  if (typeof phase !== "string" && typeof phase !== "number")
    throw new AutopilotError("bad_input", `The phase must be a phase name or index, not ${shown(phase)}.`);
  if (typeof phase === "number") {
    if (!Number.isInteger(phase) || phase < 0) refuse(`Phase ${phase} is not a phase index.`);
    return `phase-${phase}`;
  }
  const slug = String(phase)
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80);
  if (slug) return slug;
  if (!String(phase).trim())
    throw new AutopilotError(
      "bad_input",
      `Phase "${phase}" has no usable name for a scratchpad folder. Pass the phase name or index.`,
    );
  // A name with no Latin letters or digits ("中文", "🚀") leaves nothing to name a folder by, and
  // every dispatch Step names the scratchpad folder: refusing it would leave such a session unable
  // to render a Step (tests/reliability/hostile.test.ts sends such names). A stable hash gives it
  // a folder of its own.
  return `phase-${createHash("sha256").update(String(phase)).digest("hex").slice(0, 10)}`;
}

function checkFilename(filename: string): string {
  if (filename !== undefined && filename !== null)
    requireString(filename, "The scratchpad file name", "Pass a plain name like research-topic.md.");
  const name = filename ?? "";
  if (!name.trim())
    throw new AutopilotError("bad_input", "Scratchpad file name is empty. Pass a name like research-topic.md.");
  if (name.includes("\0")) refuse(`File name contains a NUL byte.`);
  if (name.includes("/") || name.includes("\\")) refuse(`File name "${name}" contains a path separator.`);
  if (path.isAbsolute(name) || /^[a-zA-Z]:/.test(name)) refuse(`File name "${name}" is absolute.`);
  if (name === "." || name.includes("..")) refuse(`File name "${name}" contains "..".`);
  return name;
}

async function isLink(p: string): Promise<boolean | null> {
  try {
    return (await lstat(p)).isSymbolicLink();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

/** The phase folder, refusing links on the way; null-safe when parts do not exist yet. */
async function phaseDir(ws: SessionPaths, phase: string | number): Promise<string> {
  const root = ws.projectRoot;
  const session = ws.sessionDir;
  const pad = ws.scratchpadDir;
  const dir = confine(root, path.join(pad, phaseSlug(phase)));
  for (const p of [session, pad, dir]) {
    if ((await isLink(p)) === true) refuse(`${path.relative(root, p)} is a symbolic link.`);
  }
  // A link higher up (e.g. .harness itself) would still carry writes elsewhere.
  const checked = checkPath(root, dir, { links: true });
  if (!checked.ok) {
    const via = "via" in checked.escape ? checked.escape.via : dir;
    refuse(`${path.relative(root, via) || "."} resolves outside the project.`);
  }
  return dir;
}

/** Write (or replace) one scratchpad file; returns its absolute path. */
export async function writeScratchpad(
  ws: SessionPaths,
  phase: string | number,
  filename: string,
  content: string,
): Promise<string> {
  if (content !== undefined && content !== null)
    requireString(content, "The scratchpad content", "Pass the text to save.");
  const name = checkFilename(filename);
  const dir = await phaseDir(ws, phase);
  const file = path.join(dir, name);
  if ((await isLink(file)) === true) refuse(`${name} is a symbolic link.`);
  // Atomic rename replaces a path; it never follows a link planted after the check above.
  await writeTextAtomic(file, content ?? "");
  return file;
}

/** PHASE_COMPLETE: delete the phase's scratchpad folder. Missing folder: nothing to do. */
export async function clearScratchpad(ws: SessionPaths, phase: string | number): Promise<{ removed: boolean }> {
  const dir = confine(ws.projectRoot, path.join(ws.scratchpadDir, phaseSlug(phase)));
  const link = await isLink(dir);
  if (link === null) return { removed: false };
  // For a link, rm removes the link itself and never the folder it points to.
  await rm(dir, { recursive: link === false, force: true });
  return { removed: true };
}

/** File names in a phase's scratchpad (sorted), or every phase's when `phase` is omitted. */
export async function listScratchpad(
  ws: SessionPaths,
  phase?: string | number,
): Promise<Array<{ phase: string; files: string[] }>> {
  const base = ws.scratchpadDir;
  const phases = phase !== undefined ? [phaseSlug(phase)] : await readdir(base).catch(() => [] as string[]);
  const out: Array<{ phase: string; files: string[] }> = [];
  for (const p of phases.sort()) {
    const dir = path.join(base, p);
    if ((await isLink(dir)) !== false) continue;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const files = entries
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
    out.push({ phase: p, files });
  }
  return out;
}
