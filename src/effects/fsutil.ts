// Small file helpers shared by the effects: every path is resolved inside the project root, and
// every whole-file write is atomic so a crash leaves the old file or the new one, never half.
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { AutopilotError } from "../protocol/errors.js";

/** Resolve `rel` against `root`, refusing anything that lands outside it. */
export function resolveInside(root: string, rel: string): string {
  const base = path.resolve(root);
  const abs = path.resolve(base, rel);
  const back = path.relative(base, abs);
  if (back === ".." || back.startsWith(".." + path.sep) || path.isAbsolute(back)) {
    throw new AutopilotError("outside_project", `Path "${rel}" is outside the project ${base}. Use a path inside the project.`, {
      path: rel,
    });
  }
  return abs;
}

export async function readTextOrNull(file: string): Promise<string | null> {
  try {
    return await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw e;
  }
}

export async function writeTextAtomic(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, content, { encoding: "utf8" });
}

/** Detect the file's newline style so edits keep a CRLF file CRLF. */
export function eolOf(text: string): "\r\n" | "\n" {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

/** An effect id as it is embedded in Markdown: no `--` (would end the comment) and no newlines. */
export function markerFor(effectId: string): string {
  const safe = String(effectId).replace(/[\r\n]+/g, " ").replace(/--+/g, "-").replace(/>/g, "").trim();
  return `<!-- autopilot:${safe} -->`;
}
