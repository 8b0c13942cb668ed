// read_file, write_file and edit_file, and the contract between them: a file is overwritten or
// edited only after the model has read all of it as it is on disk now (a hash of what it saw and
// the lines it saw in full are kept per file), so no change rests on a stale or partial read.
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { Refusal, isBinary, type Tool, type ToolContext } from "./tool-kit.js";

const MAX_LINE_CHARS = 2000;

const ReadInput = z.object({
  path: z.string().min(1).describe("File path relative to the project root."),
  offset: z.number().int().min(1).optional().describe("First line to show, 1-based (default 1)."),
  limit: z.number().int().min(1).optional().describe("Maximum number of lines to show."),
});
const WriteInput = z.object({
  path: z.string().min(1).describe("File path relative to the project root."),
  content: z.string().describe("The complete new content of the file."),
});
const EditInput = z.object({
  path: z.string().min(1).describe("File path relative to the project root."),
  old: z.string().min(1).describe("Exact text to replace; must occur exactly once in the file."),
  new: z.string().describe("Replacement text."),
});

// A file the model has read: what it saw (hash) and which lines of that content it saw in full.
interface Baseline {
  hash: string;
  size: number;
  mtimeMs: number;
  totalLines: number;
  covered: Array<[number, number]>;
}

export interface FileTools {
  tools: Tool[];
  /** Project-relative paths written or edited. */
  written: Set<string>;
  /** Project-relative paths of files read earlier whose content has since changed on disk. */
  changedSinceRead: () => Promise<string[]>;
}

export function fileTools({ limits: o, rel, resolve }: ToolContext): FileTools {
  const baselines = new Map<string, Baseline>(); // keyed by real absolute path
  const written = new Set<string>();

  async function fingerprint(abs: string) {
    const buf = await fs.readFile(abs);
    const st = await fs.stat(abs);
    return { buf, hash: createHash("sha256").update(buf).digest("hex"), size: st.size, mtimeMs: st.mtimeMs };
  }

  function cover(b: Baseline, from: number, to: number) {
    const all = [...b.covered, [from, to] as [number, number]].sort((x, y) => x[0] - y[0]);
    const merged: Array<[number, number]> = [];
    for (const [a, z2] of all) {
      const last = merged[merged.length - 1];
      if (last && a <= last[1] + 1) last[1] = Math.max(last[1], z2);
      else merged.push([a, z2]);
    }
    b.covered = merged;
  }
  const fullyRead = (b: Baseline) =>
    b.totalLines === 0 || (b.covered.length === 1 && b.covered[0][0] <= 1 && b.covered[0][1] >= b.totalLines);

  function remember(abs: string, hash: string, size: number, mtimeMs: number, totalLines: number) {
    const b: Baseline = { hash, size, mtimeMs, totalLines, covered: [] };
    cover(b, 1, Math.max(totalLines, 1));
    baselines.set(abs, b);
  }

  // The freshness contract of write_file (overwrite) and edit_file: the model must have seen the
  // whole file as it is on disk now. Returns the current content.
  async function requireFresh(abs: string, verb: string): Promise<Buffer> {
    const r = rel(abs);
    const b = baselines.get(abs);
    if (!b) {
      throw new Refusal(
        `${r} exists and you have not read it. Call read_file on ${r} (the whole file) before you ${verb} it.`,
      );
    }
    const now = await fingerprint(abs);
    if (now.hash !== b.hash) {
      baselines.delete(abs);
      throw new Refusal(
        `${r} has changed on disk since you read it (stale read): your copy is out of date. ` +
          `Call read_file on ${r} again and base your change on the current content.`,
      );
    }
    // Same bytes, new timestamp (a touch, a formatter that changed nothing): still fresh.
    b.mtimeMs = now.mtimeMs;
    if (!fullyRead(b)) {
      const seen = b.covered.map(([a, z2]) => `${a}-${z2}`).join(", ");
      throw new Refusal(
        `You have read only part of ${r} (lines ${seen} of ${b.totalLines}). ` +
          `Read the rest of it with read_file (offset/limit) before you ${verb} it.`,
      );
    }
    return now.buf;
  }

  const splitLines = (text: string) => {
    if (text === "") return [];
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    return lines;
  };

  async function readFile(input: z.infer<typeof ReadInput>): Promise<string> {
    const abs = resolve(input.path, "read");
    let st;
    try {
      st = await fs.stat(abs);
    } catch {
      throw new Refusal(`${input.path} does not exist. Use list_files or search to find the right path.`);
    }
    if (st.isDirectory()) throw new Refusal(`${input.path} is a directory; use list_files to see what it holds.`);
    if (st.size > o.maxFileBytes) {
      throw new Refusal(
        `${rel(abs)} is ${st.size} bytes, too large to read (limit ${o.maxFileBytes}). Use search, or run_command with head/sed/grep.`,
      );
    }
    const fp = await fingerprint(abs);
    if (isBinary(fp.buf)) return `${rel(abs)} is a binary file (${fp.size} bytes); its content is not shown.`;
    const lines = splitLines(fp.buf.toString("utf8"));
    const total = lines.length;
    const start = input.offset ?? 1;
    if (total === 0) {
      remember(abs, fp.hash, fp.size, fp.mtimeMs, 0);
      return `${rel(abs)} is empty (0 lines).`;
    }
    if (start > total) throw new Refusal(`${rel(abs)} has only ${total} lines; offset ${start} is past the end.`);
    const last = Math.min(total, input.limit ? start + input.limit - 1 : total);
    const width = String(last).length;
    const out: string[] = [];
    let chars = 0;
    let shownTo = start - 1;
    let cutLines = false;
    for (let n = start; n <= last; n++) {
      let line = lines[n - 1];
      if (line.length > MAX_LINE_CHARS) {
        line = line.slice(0, MAX_LINE_CHARS) + ` … [line cut at ${MAX_LINE_CHARS} chars]`;
        cutLines = true;
      }
      const rendered = `${String(n).padStart(width)}\t${line}`;
      if (chars + rendered.length + 1 > o.maxReadChars && out.length > 0) break;
      out.push(rendered);
      chars += rendered.length + 1;
      shownTo = n;
    }
    let b = baselines.get(abs);
    if (!b || b.hash !== fp.hash) {
      b = { hash: fp.hash, size: fp.size, mtimeMs: fp.mtimeMs, totalLines: total, covered: [] };
      baselines.set(abs, b);
    }
    // A cut line was not seen in full, so it does not count toward a full read.
    if (!cutLines) cover(b, start, shownTo);
    const notes: string[] = [];
    if (shownTo < total) {
      notes.push(
        `[showing lines ${start}-${shownTo} of ${total}; ` +
          `call read_file with offset=${shownTo + 1} to continue${shownTo < last ? " (output limit reached)" : ""}]`,
      );
    } else if (start > 1) {
      notes.push(`[showing lines ${start}-${shownTo} of ${total}]`);
    }
    if (cutLines) notes.push("[some long lines were cut; this read does not count as a full read for editing]");
    return [...out, ...notes].join("\n");
  }

  async function writeFile(input: z.infer<typeof WriteInput>): Promise<string> {
    const abs = resolve(input.path, "write");
    let exists = false;
    try {
      const st = await fs.stat(abs);
      if (st.isDirectory()) throw new Refusal(`${input.path} is a directory.`);
      exists = true;
    } catch (e) {
      if (e instanceof Refusal) throw e;
    }
    if (exists) await requireFresh(abs, "overwrite");
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, input.content);
    const fp = await fingerprint(abs);
    remember(abs, fp.hash, fp.size, fp.mtimeMs, splitLines(input.content).length);
    written.add(rel(abs));
    return `${exists ? "Overwrote" : "Created"} ${rel(abs)} (${splitLines(input.content).length} lines, ${fp.size} bytes).`;
  }

  async function editFile(input: z.infer<typeof EditInput>): Promise<string> {
    const abs = resolve(input.path, "write");
    try {
      await fs.stat(abs);
    } catch {
      throw new Refusal(`${input.path} does not exist. Use write_file to create a new file.`);
    }
    const buf = await requireFresh(abs, "edit");
    const text = buf.toString("utf8");
    const first = text.indexOf(input.old);
    if (first < 0) {
      throw new Refusal(
        `The text to replace was not found in ${rel(abs)}. It must match the file exactly, whitespace included ` +
          `(without the line-number prefix read_file shows).`,
      );
    }
    if (text.indexOf(input.old, first + 1) >= 0) {
      throw new Refusal(
        `The text to replace occurs more than once in ${rel(abs)}. Include more surrounding lines so it is unique.`,
      );
    }
    const next = text.slice(0, first) + input.new + text.slice(first + input.old.length);
    await fs.writeFile(abs, next);
    const fp = await fingerprint(abs);
    const lines = splitLines(next).length;
    remember(abs, fp.hash, fp.size, fp.mtimeMs, lines);
    written.add(rel(abs));
    const at = text.slice(0, first).split("\n").length;
    return `Edited ${rel(abs)} at line ${at}: replaced ${splitLines(input.old).length || 1} line(s) with ${splitLines(input.new).length} line(s); the file now has ${lines} lines.`;
  }

  async function changedSinceRead(): Promise<string[]> {
    const out: string[] = [];
    for (const [abs, b] of baselines) {
      const st = await fs.stat(abs).catch(() => null);
      if (!st) {
        out.push(`${rel(abs)} (deleted)`);
        baselines.delete(abs);
        continue;
      }
      if (st.size === b.size && st.mtimeMs === b.mtimeMs) continue;
      const fp = await fingerprint(abs).catch(() => null);
      if (fp && fp.hash === b.hash) {
        b.mtimeMs = fp.mtimeMs;
        continue;
      }
      out.push(rel(abs));
      baselines.delete(abs);
    }
    return out;
  }

  return {
    tools: [
      {
        name: "read_file",
        description:
          "Read a text file with line numbers. Long files are shown in parts: continue with offset. " +
          "Editing or overwriting a file requires having read all of it, as it is now on disk.",
        schema: ReadInput,
        run: readFile,
      },
      {
        name: "write_file",
        description:
          "Create a file, or replace an existing file's whole content (only after reading all of it). Parent directories are created.",
        schema: WriteInput,
        run: writeFile,
      },
      {
        name: "edit_file",
        description:
          "Replace one exact, unique occurrence of `old` with `new` in a file you have read in full since it last changed.",
        schema: EditInput,
        run: editFile,
      },
    ],
    written,
    changedSinceRead,
  };
}
