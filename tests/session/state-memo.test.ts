// The state file's text is what users diff and what every other reader parses: made from kept
// pieces, it must be byte for byte JSON.stringify(state, null, 2) + "\n", whatever the records hold.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseMarkdown } from "../../src/markdown/mdast.js";
import type { AutopilotState } from "../../src/session/schema.js";
import { rememberState, rememberedState, serializeState } from "../../src/session/state-memo.js";

const plain = (s: unknown) => JSON.stringify(s, null, 2) + "\n";

describe("the state file's text", () => {
  it("equals JSON.stringify as the decisions and history grow, are replaced or emptied", () => {
    const record = fc.oneof(
      fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 }),
      // Records that hold what the text is made around: the list's own key, line breaks, brackets.
      fc.record({ decisions: fc.constant([]), note: fc.constantFrom("a\nb", '\n  "decisions": []', "[]", "") }),
    );
    const step = fc.oneof(
      fc.record({ op: fc.constant("append"), list: fc.constantFrom("decisions", "history"), add: fc.array(record) }),
      fc.record({ op: fc.constant("replace"), list: fc.constantFrom("decisions", "history"), add: fc.array(record) }),
      fc.record({ op: fc.constant("other"), list: fc.constantFrom("decisions", "history"), add: fc.array(record) }),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 }),
        fc.array(step, { maxLength: 12 }),
        (extra, steps) => {
          let state: Record<string, unknown> = { schemaVersion: 5, ...extra, decisions: [], history: [], stepId: 0 };
          expect(serializeState(state)).toBe(plain(state));
          for (const s of steps) {
            const list = (state[s.list] as unknown[] | undefined) ?? [];
            state =
              s.op === "append"
                ? { ...state, [s.list]: [...list, ...s.add] }
                : s.op === "replace"
                  ? { ...state, [s.list]: s.add }
                  : { ...state, stepId: Number(state.stepId) + 1 };
            expect(serializeState(state)).toBe(plain(state));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

// The default suite (vitest.config.ts) sets AUTOPILOT_CHECK_STATE=1 for itself and every server and
// CLI it starts: what a process keeps between calls is frozen there, so an engine change that wrote
// into a saved state or a shared Markdown tree fails in the suite instead of drifting from the file.
describe("the default suite's check of what a process keeps", () => {
  it("freezes a kept state and a shared Markdown tree: a write into either throws", () => {
    const state = { schemaVersion: 5, decisions: [{ id: "d1" }], history: [] } as unknown as AutopilotState;
    rememberState("/nonexistent/state.json", "1:2:3:1234567", state, serializeState(state));
    const kept = rememberedState("/nonexistent/state.json", "1:2:3:1234567", () => "") as unknown as {
      decisions: { id: string }[];
    };
    expect(kept).toBe(state);
    expect(() => (kept.decisions[0].id = "changed")).toThrow(TypeError);
    const tree = parseMarkdown("# Title\n\nText.\n");
    expect(() => tree.children.pop()).toThrow(TypeError);
  });
});
