// The state file's text is what users diff and what every other reader parses: made from kept
// pieces, it must be byte for byte JSON.stringify(state, null, 2) + "\n", whatever the records hold.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serializeState } from "../../src/session/state-memo.js";

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
