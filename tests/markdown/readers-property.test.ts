import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AutopilotError } from "../../src/protocol/errors.js";
import { countPlan } from "../../src/markdown/plan.js";
import { parseSpec } from "../../src/markdown/spec.js";

// Markdown-ish lines, so the generator reaches headings, fences, comments and markers often.
const line = fc.oneof(
  fc.constantFrom(
    "## Implementation Order",
    "### Phase 1: One",
    "### Phase 5a — Two",
    "### Task 1: Do",
    "### Task 2: Check [checkpoint:human-verify]",
    "**Tasks:** 3",
    "```",
    "<!-- complexity: high -->",
    "---",
    "1. **Phase 1 — Item.**",
    "| a | b |",
    "",
  ),
  fc.string({ maxLength: 40 }),
);
const doc = fc.array(line, { maxLength: 30 }).map((ls) => ls.join("\n"));

describe("the readers on arbitrary Markdown", () => {
  it("a spec either yields named phases or a no_phases error, never a crash", () => {
    fc.assert(
      fc.property(doc, (text) => {
        try {
          const { phases } = parseSpec(text);
          expect(phases.length).toBeGreaterThan(0);
          for (const p of phases) expect(p.name.length).toBeGreaterThan(0);
        } catch (e) {
          expect(e).toBeInstanceOf(AutopilotError);
          expect((e as AutopilotError).code).toBe("no_phases");
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a plan never has more checkpoint tasks than tasks", () => {
    fc.assert(
      fc.property(doc, (text) => {
        const { tasks, checkpoints } = countPlan(text);
        expect(checkpoints).toBeGreaterThanOrEqual(0);
        expect(checkpoints).toBeLessThanOrEqual(tasks);
      }),
      { numRuns: 300 },
    );
  });
});
