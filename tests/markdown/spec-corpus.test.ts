// The upstream corpus: specs users already have on disk. Skipped, visibly, where the shared
// corpus is not checked out next to the project.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AutopilotError } from "../../src/protocol/errors.js";
import { parseSpec } from "../../src/markdown/spec.js";
import { corpus, corpusPresent, warnIfCorpusMissing } from "./helpers.js";

warnIfCorpusMissing("spec corpus tests");

const specsDir = path.join(corpus, "upstream/specs");
const otherDir = path.join(corpus, "upstream/specs-other");
const mdFiles = (dir: string) =>
  corpusPresent
    ? readdirSync(dir)
        .filter((f) => f.endsWith(".md"))
        .sort()
    : [];

describe.skipIf(!corpusPresent)("upstream specs with Phase headings", () => {
  const files = mdFiles(specsDir);

  it("has the 39 specs the corpus README describes", () => {
    expect(files).toHaveLength(39);
  });

  it.each(files)("%s: phases match the careful reader's list exactly", (file) => {
    const expected = JSON.parse(readFileSync(path.join(specsDir, file.replace(/\.md$/, ".expected.json")), "utf8"));
    const got = parseSpec(readFileSync(path.join(specsDir, file), "utf8")).phases.map(
      ({ id, name, complexity, annotated }) => ({
        id,
        name,
        complexity,
        annotated,
      }),
    );
    expect(got).toEqual(expected);
  });
});

describe.skipIf(!corpusPresent)("upstream specs written another way", () => {
  const files = mdFiles(otherDir);

  it("has the 44 specs the corpus README describes", () => {
    expect(files).toHaveLength(44);
  });

  // Every one of these writes its Implementation Order as a list, bold paragraphs, a table,
  // "Step" headings or prose. None is read as phases (see the decision at the top of
  // src/markdown/spec.ts); each gets a one-line no_phases error that names what was there.
  it.each(files)("%s: never crashes and never yields phases silently; the error says what it found", (file) => {
    let error: unknown;
    try {
      parseSpec(readFileSync(path.join(otherDir, file), "utf8"));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AutopilotError);
    const e = error as AutopilotError;
    expect(e.code).toBe("no_phases");
    expect(e.message).not.toContain("\n");
    expect(e.message).toContain("### Phase 1: Name");
    expect(e.message).toMatch(
      /numbered list item|bullet item|bold item|table|heading|prose|no Implementation Order section/,
    );
    expect(e.details?.found).toBeDefined();
  });
});
