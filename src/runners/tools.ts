// The confined tool set a persona works with in the built-in agent loop. Every tool is a contract
// (seed 004): the model proposes a call, the harness validates the input, confines every path to
// the project, checks that edits rest on a fresh full read of the file, runs the action and hands
// back a bounded result. Refusals are results the model can act on, never exceptions, so one bad
// proposal costs a turn instead of the run.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { promises as fs, realpathSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { checkPath } from "../session/confine.js";
import { runShell } from "./shell.js";

interface ToolDefinition {
  name: string;
  description: string;
  input_schema: { type: "object"; properties?: unknown; required?: string[]; [k: string]: unknown };
}

interface ToolResult {
  content: string;
  isError: boolean;
}

export interface ToolboxOptions {
  /** Characters of file content one read_file call returns (default 40,000). */
  maxReadChars?: number;
  /** Files larger than this are not read at all (default 8 MB): search or run_command instead. */
  maxFileBytes?: number;
  /** Characters of command output kept, from the end (default 16,000). */
  maxCommandOutputChars?: number;
  /** Default and ceiling of run_command's time limit in seconds (default 120 and 900). */
  commandTimeoutSec?: number;
  maxCommandTimeoutSec?: number;
  /** Entries list_files returns (default 400). */
  maxListEntries?: number;
  /** Matches search returns (default 100). */
  maxSearchMatches?: number;
  /** Characters of any one tool result, the last line of defence (default 48,000). */
  maxResultChars?: number;
  /** Environment for run_command and git (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Aborts running commands. */
  signal?: AbortSignal;
}

export interface Toolbox {
  readonly projectRoot: string;
  readonly definitions: ToolDefinition[];
  call(name: string, input: unknown): Promise<ToolResult>;
  /** Project-relative paths of files read earlier whose content has since changed on disk. */
  changedSinceRead(): Promise<string[]>;
  /** Project-relative paths this toolbox wrote or edited. */
  readonly written: ReadonlySet<string>;
}

const SKIP_DIRS = new Set(["node_modules", ".git"]);
const MAX_LINE_CHARS = 2000;

// ---- input contracts ----
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
const ListInput = z.object({
  path: z.string().optional().describe("Directory relative to the project root (default the root)."),
  glob: z.string().optional().describe("Only paths matching this glob, e.g. 'src/**/*.ts'."),
});
const SearchInput = z.object({
  pattern: z.string().min(1).describe("Text to find; a JavaScript regular expression if regex is true."),
  regex: z.boolean().optional().describe("Treat pattern as a regular expression (default: literal text)."),
  path: z.string().optional().describe("File or directory to search (default the whole project)."),
});
const RunInput = z.object({
  command: z.string().min(1).describe("Shell command, run with sh in the project root."),
  timeoutSec: z.number().positive().optional().describe("Time limit in seconds."),
});
const GitStatusInput = z.object({});
const GitDiffInput = z.object({
  path: z.string().optional().describe("Limit the diff to this path."),
});

function toInputSchema(schema: z.ZodType): ToolDefinition["input_schema"] {
  const json = z.toJSONSchema(schema) as Record<string, unknown>;
  delete json.$schema;
  return json as ToolDefinition["input_schema"];
}

/** Thrown inside handlers for refusals; `call` turns it into an is_error result. */
class Refusal extends Error {}

// A file the model has read: what it saw (hash) and which lines of that content it saw in full.
interface Baseline {
  hash: string;
  size: number;
  mtimeMs: number;
  totalLines: number;
  covered: Array<[number, number]>;
}

export function createToolbox(projectRoot: string, opts: ToolboxOptions = {}): Toolbox {
  const root = realpathSync(projectRoot);
  const o = {
    maxReadChars: opts.maxReadChars ?? 40_000,
    maxFileBytes: opts.maxFileBytes ?? 8 * 1024 * 1024,
    maxCommandOutputChars: opts.maxCommandOutputChars ?? 16_000,
    commandTimeoutSec: opts.commandTimeoutSec ?? 120,
    maxCommandTimeoutSec: opts.maxCommandTimeoutSec ?? 900,
    maxListEntries: opts.maxListEntries ?? 400,
    maxSearchMatches: opts.maxSearchMatches ?? 100,
    maxResultChars: opts.maxResultChars ?? 48_000,
    env: opts.env ?? process.env,
  };
  const baselines = new Map<string, Baseline>(); // keyed by real absolute path
  const written = new Set<string>();

  const rel = (abs: string) => path.relative(root, abs).split(path.sep).join("/") || ".";
  // Resolves a model-supplied path to its real location, refusing anything that is, or through a
  // symlink leads, outside the project (src/session/confine.ts). A path that does not exist yet is
  // judged by its nearest existing parent, so a new file under a symlinked directory cannot escape.
  function resolve(p: string | undefined, mode: "read" | "write"): string {
    const given = p === undefined || p === "" ? "." : p;
    const checked = checkPath(root, given, { links: true });
    if (!checked.ok) {
      const e = checked.escape;
      const shown = JSON.stringify(given);
      if (e.why === "nul") throw new Refusal(`Path ${shown} contains a NUL byte.`);
      if (e.why === "outside")
        throw new Refusal(
          `Path ${shown} is outside the project (${root}). Only files inside the project can be used; give a path relative to the project root.`,
        );
      if (e.why === "broken")
        throw new Refusal(`Path ${shown} goes through a broken symlink (${rel(e.via)}); it cannot be used.`);
      throw new Refusal(
        `Path ${shown} leads outside the project through a symlink (${rel(e.via)} -> ${e.real}). Only files inside the project can be used.`,
      );
    }
    const target = checked.real;
    if (mode === "write") {
      const r = rel(target);
      const parts = r.toLowerCase().split("/");
      if (parts.includes(".git")) {
        throw new Refusal(
          `${r} is inside git's internal directory, which cannot be written. Use run_command with git commands instead.`,
        );
      }
      if (/^\.harness\/sessions\/[^/]+\/autopilot-state[^/]*$/i.test(r)) {
        throw new Refusal(
          `${r} is the autopilot session state; only the autopilot server writes it. ` +
            `Report your outcome with report_result instead.`,
        );
      }
    }
    return target;
  }

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

  const isBinary = (buf: Buffer) => buf.subarray(0, 8192).includes(0);
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

  async function* walk(dir: string): AsyncGenerator<{ abs: string; dir: boolean; link: boolean }> {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (SKIP_DIRS.has(e.name)) continue;
        yield { abs, dir: true, link: false };
        yield* walk(abs);
      } else {
        // Symlinks are listed but never followed, so a walk cannot leave the project.
        yield { abs, dir: false, link: e.isSymbolicLink() };
      }
    }
  }

  async function listFiles(input: z.infer<typeof ListInput>): Promise<string> {
    const abs = resolve(input.path, "read");
    const st = await fs.stat(abs).catch(() => null);
    if (!st) throw new Refusal(`${input.path} does not exist.`);
    if (!st.isDirectory()) return rel(abs);
    const match = input.glob ? globToRegExp(input.glob) : null;
    const out: string[] = [];
    let more = 0;
    for await (const e of walk(abs)) {
      const r = rel(e.abs);
      if (match) {
        if (e.dir || !(match.test(r) || match.test(path.relative(abs, e.abs).split(path.sep).join("/")))) continue;
      }
      if (out.length >= o.maxListEntries) {
        more++;
        continue;
      }
      out.push(e.dir ? `${r}/` : e.link ? `${r} (symlink)` : r);
    }
    if (out.length === 0) return match ? `No files match ${input.glob}.` : "The directory is empty.";
    if (more > 0) out.push(`[${more} more not shown; narrow the path or glob]`);
    return out.join("\n");
  }

  async function search(input: z.infer<typeof SearchInput>): Promise<string> {
    const abs = resolve(input.path, "read");
    let re: RegExp;
    try {
      re = input.regex ? new RegExp(input.pattern) : new RegExp(input.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    } catch (e) {
      throw new Refusal(`Invalid regular expression: ${(e as Error).message}`);
    }
    const st = await fs.stat(abs).catch(() => null);
    if (!st) throw new Refusal(`${input.path} does not exist.`);
    const files: string[] = [];
    if (st.isDirectory()) {
      for await (const e of walk(abs)) if (!e.dir && !e.link) files.push(e.abs);
    } else files.push(abs);
    const out: string[] = [];
    let more = 0;
    for (const f of files) {
      const fst = await fs.stat(f).catch(() => null);
      if (!fst || fst.size > 1024 * 1024) continue;
      const buf = await fs.readFile(f).catch(() => null);
      if (!buf || isBinary(buf)) continue;
      const lines = buf.toString("utf8").split("\n");
      for (let i = 0; i < lines.length; i++) {
        if (!re.test(lines[i])) continue;
        if (out.length >= o.maxSearchMatches) {
          more++;
          continue;
        }
        const line = lines[i].length > 300 ? lines[i].slice(0, 300) + " …" : lines[i];
        out.push(`${rel(f)}:${i + 1}: ${line}`);
      }
    }
    if (out.length === 0) return `No matches for ${JSON.stringify(input.pattern)}.`;
    if (more > 0) out.push(`[${more} more matches not shown; narrow the pattern or path]`);
    return out.join("\n");
  }

  async function runCommand(input: z.infer<typeof RunInput>): Promise<ToolResult> {
    const limit = Math.min(input.timeoutSec ?? o.commandTimeoutSec, o.maxCommandTimeoutSec);
    const r = await runShell(input.command, {
      cwd: root,
      env: o.env,
      timeoutMs: limit * 1000,
      maxChars: o.maxCommandOutputChars,
      signal: opts.signal,
    });
    const head = r.timedOut
      ? `Timed out after ${limit}s; the command and its children were killed.`
      : r.signal
        ? `Killed by signal ${r.signal}.`
        : `Exit code ${r.code}.`;
    const dropped = r.droppedChars > 0 ? `[first ${r.droppedChars} characters of output omitted]\n` : "";
    return { content: `${head}\n${dropped}${r.output || "(no output)"}`, isError: r.timedOut };
  }

  function git(args: string[]): Promise<{ code: number; out: string; err: string }> {
    return new Promise((res) => {
      execFile(
        "git",
        ["-c", "core.quotepath=off", "--no-pager", ...args],
        { cwd: root, env: o.env, maxBuffer: 16 * 1024 * 1024, signal: opts.signal },
        (error, stdout, stderr) => {
          const code = error
            ? typeof (error as { code?: unknown }).code === "number"
              ? (error as { code: number }).code
              : 1
            : 0;
          res({ code, out: String(stdout), err: String(stderr) });
        },
      );
    });
  }

  async function gitStatus(): Promise<string> {
    const r = await git(["status", "--porcelain=v1", "--branch"]);
    if (r.code !== 0) throw new Refusal(`git status failed: ${r.err.trim() || `exit ${r.code}`}`);
    return r.out.trim() || "(clean)";
  }

  async function gitDiff(input: z.infer<typeof GitDiffInput>): Promise<string> {
    const spec = input.path ? ["--", rel(resolve(input.path, "read"))] : [];
    const hasHead = (await git(["rev-parse", "--verify", "-q", "HEAD"])).code === 0;
    const r = await git(
      hasHead ? ["diff", "--no-color", "HEAD", ...spec] : ["diff", "--no-color", "--cached", ...spec],
    );
    if (r.code !== 0) throw new Refusal(`git diff failed: ${r.err.trim() || `exit ${r.code}`}`);
    const text = r.out;
    const max = o.maxResultChars - 200;
    if (text.length > max) {
      return text.slice(0, max) + `\n[diff cut at ${max} of ${text.length} characters; pass path to see one file]`;
    }
    return text.trim() || "(no changes)";
  }

  const tools: Array<{
    name: string;
    description: string;
    schema: z.ZodType;
    run: (input: never) => Promise<string | ToolResult>;
  }> = [
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
    {
      name: "list_files",
      description:
        "List files under a directory (recursively; node_modules and .git skipped), optionally filtered by a glob.",
      schema: ListInput,
      run: listFiles,
    },
    {
      name: "search",
      description: "Find lines containing a text (or matching a regular expression) in the project's text files.",
      schema: SearchInput,
      run: search,
    },
    {
      name: "run_command",
      description:
        "Run a shell command in the project root with a time limit. Returns the exit code and the end of the combined output.",
      schema: RunInput,
      run: runCommand,
    },
    {
      name: "git_status",
      description: "Show git status (branch and changed files).",
      schema: GitStatusInput,
      run: gitStatus,
    },
    {
      name: "git_diff",
      description: "Show uncommitted changes against HEAD, for the whole project or one path.",
      schema: GitDiffInput,
      run: gitDiff,
    },
  ];
  const byName = new Map(tools.map((t) => [t.name, t]));

  function bound(text: string): string {
    if (text.length <= o.maxResultChars) return text;
    return text.slice(0, o.maxResultChars) + `\n[result cut at ${o.maxResultChars} of ${text.length} characters]`;
  }

  return {
    projectRoot: root,
    written,
    definitions: tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: toInputSchema(t.schema),
    })),
    async call(name, input) {
      const tool = byName.get(name);
      if (!tool)
        return { content: `Unknown tool ${name}. Available: ${[...byName.keys()].join(", ")}.`, isError: true };
      const parsed = tool.schema.safeParse(input ?? {});
      if (!parsed.success) {
        return { content: `Invalid input for ${name}: ${formatIssues(parsed.error)}`, isError: true };
      }
      try {
        const r = await tool.run(parsed.data as never);
        return typeof r === "string"
          ? { content: bound(r), isError: false }
          : { content: bound(r.content), isError: r.isError };
      } catch (e) {
        if (e instanceof Refusal) return { content: e.message, isError: true };
        if (opts.signal?.aborted) throw e;
        return { content: `${name} failed: ${(e as Error).message}`, isError: true };
      }
    },
    async changedSinceRead() {
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
    },
  };
}

export function formatIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(input)"}: ${i.message}`).join("; ");
}

/** `*` within a segment, `**` across segments, `?`, `{a,b}`; a glob without `/` matches basenames too. */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        i++;
        if (glob[i + 1] === "/") {
          i++;
          re += "(?:.*/)?";
        } else re += ".*";
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "{") {
      const end = glob.indexOf("}", i);
      if (end < 0) re += "\\{";
      else {
        re +=
          "(?:" +
          glob
            .slice(i + 1, end)
            .split(",")
            .map((s) => s.replace(/[.+^$()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*"))
            .join("|") +
          ")";
        i = end;
      }
    } else re += c.replace(/[.+^$()|[\]\\]/g, "\\$&");
  }
  return new RegExp(glob.includes("/") ? `^${re}$` : `(?:^|/)${re}$`);
}
