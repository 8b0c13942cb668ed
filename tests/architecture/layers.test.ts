// The layers of docs/architecture.md hold only if no module imports, however indirectly, one that
// imports it back: the vocabulary at the bottom, the front ends at the top, and no circle anywhere
// in the shipped source (src/, the statechart included).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { circles, importGraph, loopThrough, sourceFiles } from "./import-graph.js";
import { REPO_ROOT } from "../helpers/mcp-client.js";

const rel = (f: string) => path.relative(REPO_ROOT, f).split(path.sep).join("/");

describe("imports", () => {
  it("form no circle in src/", () => {
    const graph = importGraph(sourceFiles(REPO_ROOT, ["src"]));
    expect(graph.size).toBeGreaterThan(50);
    const found = circles(graph).map(
      (c) => loopThrough(graph, c).map(rel).join(" → ") + (c.length > 2 ? `  (${c.length} files in the circle)` : ""),
    );
    expect(found).toEqual([]);
  });

  it("are read the way the check needs: a planted circle is found", () => {
    const a = path.join(REPO_ROOT, "a.ts");
    const b = path.join(REPO_ROOT, "b.ts");
    const c = path.join(REPO_ROOT, "c.ts");
    const graph = new Map([
      [a, [b]],
      [b, [c]],
      [c, [a]],
    ]);
    expect(circles(graph).map((x) => x.map(rel))).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(loopThrough(graph, [a, b, c]).map(rel)).toEqual(["a.ts", "b.ts", "c.ts", "a.ts"]);
    expect(
      circles(
        new Map([
          [a, [b]],
          [b, []],
        ]),
      ),
    ).toEqual([]);
  });
});

describe("layers", () => {
  const graph = importGraph(sourceFiles(REPO_ROOT, ["src"]));
  const importsOf = (file: string) => graph.get(path.join(REPO_ROOT, file))?.map(rel);

  it("the vocabulary imports nothing of ours", () => {
    expect(importsOf("src/vocabulary.ts")).toEqual([]);
  });

  it("nothing below the front ends imports them", () => {
    const frontEnds = /^src\/(mcp|headless|cli)\//;
    const below = [...graph.keys()].map(rel).filter((f) => !frontEnds.test(f) && !/^src\/(install|runners)\//.test(f));
    const upward = below.flatMap((f) =>
      (importsOf(f) ?? []).filter((d) => frontEnds.test(d)).map((d) => `${f} → ${d}`),
    );
    expect(upward).toEqual([]);
  });
});

describe("file size", () => {
  // Measured after Prettier (120 columns). The files still above 500 lines are listed with the most
  // they may have until they are split; a file not listed may not pass 500, and a listed one may
  // not grow.
  const LIMIT = 500;
  const NOT_YET_SPLIT: Record<string, number> = {
    "src/engine/session.ts": 803,
    "src/session/migrate-fields.ts": 699,
    "src/effects/git.ts": 677,
    "src/personas/dispatch.ts": 668,
    "src/log/model.ts": 665,
    "src/runners/tools.ts": 634,
    "src/runners/scripted.ts": 594,
    "src/log/html.ts": 527,
    "src/session/notices.ts": 523,
  };
  it(`no source file is above ${LIMIT} lines, except the statechart and the files still to split`, () => {
    const big = sourceFiles(REPO_ROOT, ["src"])
      .map((f) => ({ file: rel(f), lines: readFileSync(f, "utf8").trimEnd().split("\n").length }))
      .filter((x) => x.lines > (NOT_YET_SPLIT[x.file] ?? LIMIT) && !/autopilot\.machine\.ts$/.test(x.file))
      .map((x) => `${x.file}: ${x.lines} lines`);
    expect(big).toEqual([]);
  });
});
