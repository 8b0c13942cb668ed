// Small file helpers shared by the effects: every whole-file write is atomic so a crash leaves the
// old file or the new one, never half. (Paths are confined to the project by src/session/confine.ts.)
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";

export async function readTextOrNull(file: string): Promise<string | null> {
  try {
    return await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw e;
  }
}

/**
 * `flush: false` for a file made again from the state at every call (a brief): renamed in whole
 * like any other, without waiting for the disk. Everything else is flushed before it is renamed.
 */
export async function writeTextAtomic(file: string, content: string, opts: { flush?: boolean } = {}): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, content, { encoding: "utf8", fsync: opts.flush !== false });
}

/** Detect the file's newline style so edits keep a CRLF file CRLF. */
export function eolOf(text: string): "\r\n" | "\n" {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

/** An effect id as it is embedded in Markdown: no `--` (would end the comment) and no newlines. */
export function markerFor(effectId: string): string {
  const safe = String(effectId)
    .replace(/[\r\n]+/g, " ")
    .replace(/--+/g, "-")
    .replace(/>/g, "")
    .trim();
  return `<!-- autopilot:${safe} -->`;
}
