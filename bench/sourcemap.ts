// Which source file a position in a bundled file comes from: the hidden source maps scripts/bundle.mjs
// writes beside the bin's chunks (no package for it: the mappings' base64 VLQ is a few lines).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DIGIT = new Map([...B64].map((c, i) => [c, i]));

/** Per generated line, the segments' start columns and source indexes, in column order. */
type Lines = Array<{ cols: number[]; srcs: number[] }>;

function decode(mappings: string): Lines {
  const lines: Lines = [];
  let src = 0;
  for (const line of mappings.split(";")) {
    const cols: number[] = [];
    const srcs: number[] = [];
    let col = 0;
    for (const seg of line.split(",")) {
      if (!seg) continue;
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const ch of seg) {
        const d = DIGIT.get(ch) ?? 0;
        value += (d & 31) << shift;
        if (d & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      col += fields[0] ?? 0;
      if (fields.length >= 4) {
        src += fields[1];
        cols.push(col);
        srcs.push(src);
      }
    }
    lines.push({ cols, srcs });
  }
  return lines;
}

/** `url` (file://…) at 0-based line and column → the source file, relative to the package root; or the url's own path. */
export function sourceResolver(packageRoot: string): (url: string, line: number, column: number) => string {
  const maps = new Map<string, { lines: Lines; sources: string[] } | null>();
  return (url, line, column) => {
    if (!url.startsWith("file://")) return url;
    const file = fileURLToPath(url);
    let map = maps.get(file);
    if (map === undefined) {
      map = null;
      if (existsSync(`${file}.map`)) {
        const raw = JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[]; mappings: string };
        const dir = path.dirname(file);
        // The bundle sits in dist/src/cli/ of its own package (BENCH_SERVER may name another build).
        const root = path.basename(dir) === "cli" ? path.resolve(dir, "../../..") : packageRoot;
        map = {
          lines: decode(raw.mappings),
          sources: raw.sources.map((s) => path.relative(root, path.resolve(dir, s))),
        };
      }
      maps.set(file, map);
    }
    if (!map) return path.relative(packageRoot, file);
    const l = map.lines[line];
    if (!l || !l.cols.length) return path.relative(packageRoot, file);
    let i = 0;
    while (i + 1 < l.cols.length && l.cols[i + 1] <= column) i++;
    return map.sources[l.srcs[i]] ?? path.relative(packageRoot, file);
  };
}
