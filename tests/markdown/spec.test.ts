import { describe, expect, it } from "vitest";
import { AutopilotError } from "../../src/protocol/errors.js";
import { DESCRIPTION_MAX, parseSpec } from "../../src/markdown/spec.js";
import { fixture } from "./helpers.js";

const brief = (text: string) =>
  parseSpec(text).phases.map(({ id, name, complexity, annotated }) => ({ id, name, complexity, annotated }));

function noPhases(text: string): AutopilotError {
  try {
    parseSpec(text);
  } catch (e) {
    expect(e).toBeInstanceOf(AutopilotError);
    return e as AutopilotError;
  }
  throw new Error("expected a no_phases error");
}

describe("reading the phases of a spec", () => {
  it("ignores an example Implementation Order inside a fenced code block and reads the real one", () => {
    expect(brief(fixture("specs/fenced-example.md"))).toEqual([
      { id: "1", name: "Real first phase", complexity: "low", annotated: true },
      { id: "2", name: "Real second phase", complexity: "medium", annotated: false },
    ]);
  });

  it("accepts Phase 0, lettered ids like 5a and A, and every separator, but not 'Phase Boundaries'", () => {
    expect(brief(fixture("specs/ids-and-separators.md")).map((p) => [p.id, p.name])).toEqual([
      ["0", "Colon with id zero"],
      ["5a", "Em dash with lettered id"],
      ["A", "En dash with letter id"],
      ["7", "Hyphen separator"],
    ]);
  });

  it("finds the complexity comment on the heading line, the next line, the end of the first paragraph, or later in the body", () => {
    expect(brief(fixture("specs/complexity-positions.md")).map((p) => [p.id, p.complexity, p.annotated])).toEqual([
      ["1", "low", true],
      ["2", "high", true],
      ["3", "low", true],
      ["4", "high", true],
      ["5", "medium", false],
    ]);
  });

  it("keeps the complexity comment out of the phase name and the description", () => {
    const [p1, , p3] = parseSpec(fixture("specs/complexity-positions.md")).phases;
    expect(p1.name).toBe("On the heading line");
    expect(p3.description).toContain("ends its first paragraph with the annotation.");
    expect(p3.description).not.toContain("complexity");
  });

  it("skips YAML front matter, even when it contains headings, and matches the section title case-insensitively", () => {
    const spec = parseSpec(fixture("specs/front-matter.md"));
    expect(spec.title).toBe("Front matter spec");
    expect(spec.phases.map((p) => p.name)).toEqual(["After the front matter"]);
  });

  it("keeps inline Markdown in names as the author wrote it", () => {
    const text = "## Implementation Order\n\n### Phase B: Library Family _(4 slices)_ and `code`\n";
    expect(parseSpec(text).phases[0].name).toBe("Library Family _(4 slices)_ and `code`");
  });

  it("gives each phase its body as a description for the planner, bounded in size", () => {
    const body = "word ".repeat(3000);
    const spec = parseSpec(
      `## Implementation Order\n\n### Phase 1: Big\n\n${body}\n\n### Phase 2: Small\n\nShort body.\n`,
    );
    expect(spec.phases[0].description.length).toBeLessThanOrEqual(DESCRIPTION_MAX + 20);
    expect(spec.phases[0].description).toMatch(/truncated/);
    expect(spec.phases[1].description).toBe("Short body.");
  });

  it("treats sub-headings inside a phase as part of that phase", () => {
    const text =
      "## Implementation Order\n\n### Phase 1: Core\n\n#### Phase 1a: Sub step\n\n<!-- complexity: high -->\n\n### Phase 2: Next\n";
    expect(brief(text).map((p) => [p.id, p.complexity])).toEqual([
      ["1", "high"],
      ["2", "medium"],
    ]);
  });
});

describe("specs whose phases cannot be read", () => {
  it("reports a missing Implementation Order section and the Phase headings it ignored elsewhere", () => {
    const e = noPhases(fixture("specs/no-implementation-order.md"));
    expect(e.code).toBe("no_phases");
    expect(e.message).toContain("no Implementation Order section");
    expect(e.message).toContain("Phase 1 — Designed but not ordered");
    expect(e.message).toContain("### Phase 1: Name");
    expect(e.message).toContain("<!-- complexity: low|medium|high -->");
  });

  it("lists numbered list items instead of inventing phases from them", () => {
    const e = noPhases(fixture("specs/numbered-list.md"));
    expect(e.message).toContain("3 numbered list items");
    expect(e.message).toContain("Phase 1 — Types.");
    expect((e.details?.found as { numberedItems: string[] }).numberedItems).toHaveLength(3);
  });

  it("lists bold items instead of inventing phases from them", () => {
    const e = noPhases(fixture("specs/bold-items.md"));
    expect(e.message).toContain("2 bold items");
    expect(e.message).toContain("Phase 1: Schemas");
  });

  it("says when the only Implementation Order is an example in a code block", () => {
    const e = noPhases(fixture("specs/fenced-only.md"));
    expect(e.message).toContain("no Implementation Order section");
    expect(e.message).toContain("fenced code block");
  });

  it("keeps the reason on one line, as the CLI prints it", () => {
    for (const f of ["no-implementation-order.md", "numbered-list.md", "bold-items.md", "fenced-only.md"]) {
      expect(noPhases(fixture(`specs/${f}`)).message).not.toContain("\n");
    }
  });

  it("never crashes on empty or odd input", () => {
    for (const text of [
      "",
      "\n",
      "---\n---\n",
      "## Implementation Order",
      "## Implementation Order\n\n### Phase 1:\n",
      "```\nunclosed",
    ]) {
      try {
        parseSpec(text);
      } catch (e) {
        expect((e as AutopilotError).code).toBe("no_phases");
      }
    }
    expect(parseSpec("## Implementation Order\n\n### Phase 1:\n").phases[0].name).toBe("Phase 1");
  });
});

describe("robustness", () => {
  it("reads a bold Phase heading and Windows line endings", () => {
    const text =
      "## Implementation Order\r\n\r\n### **Phase 1: Bold name**\r\n<!-- complexity: low -->\r\n\r\n### Phase 2: Plain ###\r\n";
    expect(brief(text)).toEqual([
      { id: "1", name: "Bold name", complexity: "low", annotated: true },
      { id: "2", name: "Plain", complexity: "medium", annotated: false },
    ]);
  });
});
