// list_files and search: the project's files by path or by content. A walk lists symlinks but never
// follows them, and skips node_modules and .git.
import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { Refusal, isBinary, type Tool, type ToolContext } from "./tool-kit.js";

const SKIP_DIRS = new Set(["node_modules", ".git"]);

const ListInput = z.object({
  path: z.string().optional().describe("Directory relative to the project root (default the root)."),
  glob: z.string().optional().describe("Only paths matching this glob, e.g. 'src/**/*.ts'."),
});
const SearchInput = z.object({
  pattern: z.string().min(1).describe("Text to find; a JavaScript regular expression if regex is true."),
  regex: z.boolean().optional().describe("Treat pattern as a regular expression (default: literal text)."),
  path: z.string().optional().describe("File or directory to search (default the whole project)."),
});

export function searchTools({ limits: o, rel, resolve }: ToolContext): Tool[] {
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

  return [
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
  ];
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
