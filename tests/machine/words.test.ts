// The person's words a brief hands the personas: a reply that says only the option it chose is not
// a request to carry out; anything more is, whole.
import { describe, expect, it } from "vitest";
import { personWords } from "../../machines/words.js";
import type { Decision } from "../../src/session/schema.js";

const at = (answer: string | undefined, userWords: string, state = "PHASE_COMPLETE"): Decision => ({
  phase: 0,
  decision: "phase_continue",
  timestamp: null,
  state,
  ...(answer === undefined ? {} : { answer }),
  by: "relayed",
  userWords,
});

describe("the person's words a persona is given", () => {
  it("leaves out a reply that only restates the answer, in any case or punctuation", () => {
    const said = personWords([
      at("yes", "yes"),
      at("yes", "Yes!"),
      at("yes", "ok"),
      at("leave them out", "Leave them out.", "INIT"),
      at("approve", "LGTM", "APPROVE_PLAN"),
    ]);
    expect(said).toEqual([]);
  });

  it("keeps a reply that says more than its answer, and a note without one", () => {
    const said = personWords([
      at("yes", "yes – keep countLines as it is here; I will file the newline case"),
      at("stop", "ok"),
      at(undefined, "yes"),
    ]);
    expect(said.map((s) => s.words)).toEqual([
      ["yes – keep countLines as it is here; I will file the newline case"],
      ["ok"],
      ["yes"],
    ]);
  });
});
