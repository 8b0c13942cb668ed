// The import graph of the shipped source (src/ and the statechart), read with the TypeScript
// compiler's own pre-processor: every `import`, `import type`, `export ... from` and `import()`
// of a relative module is an edge. A circle is a strongly connected component of more than one
// file (or a file importing itself).
import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export function sourceFiles(root: string, dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|mts)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(p);
    }
  };
  for (const d of dirs) if (existsSync(path.join(root, d))) walk(path.join(root, d));
  return out.sort();
}

/** file → the files it imports (absolute paths), relative imports only. */
export function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const deps = new Set<string>();
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith(".")) continue;
      const abs = path.resolve(path.dirname(file), ref.fileName);
      const candidates = [
        abs.replace(/\.js$/, ".ts"),
        abs.replace(/\.mjs$/, ".mts"),
        `${abs}.ts`,
        path.join(abs, "index.ts"),
      ];
      const hit = candidates.find((c) => known.has(c));
      if (hit) deps.add(hit);
    }
    graph.set(file, [...deps].sort());
  }
  return graph;
}

/** Every circle: Tarjan's strongly connected components with more than one file, or a self-import. */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** One path around a circle, for the failure message: a → b → … → a. */
export function loopThrough(graph: Map<string, string[]>, comp: string[]): string[] {
  const inComp = new Set(comp);
  const start = comp[0]!;
  const prev = new Map<string, string>();
  const queue = [start];
  const seen = new Set([start]);
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!inComp.has(w)) continue;
      if (w === start) {
        const pathBack = [v];
        while (pathBack[0] !== start) pathBack.unshift(prev.get(pathBack[0]!)!);
        return [...pathBack, start];
      }
      if (!seen.has(w)) {
        seen.add(w);
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return comp;
}
