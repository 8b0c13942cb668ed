// Whatever is on disk, reading it either gives a valid state or a corrupt_state error the user can
// act on: never a crash, never an invalid state handed to the machine.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AutopilotError } from "../../src/protocol/errors.js";
import { migrateState } from "../../src/session/migrate.js";
import { AutopilotState, STATE_NAMES } from "../../src/session/schema.js";

const word = fc.constantFrom(
  "complete",
  "COMPLETE",
  "PHASE_COMPLETE",
  "in-progress",
  "done",
  "pending",
  "skipped",
  "weird",
  "critical",
  "important",
  "suggestion",
  "blocking",
  "warning",
  "note",
  "low",
  "Medium",
  "high",
);
const anyish = fc.oneof(fc.jsonValue(), word, fc.integer({ min: -2, max: 8 }), fc.constant(null));
const phase = fc.oneof(
  fc.record(
    {
      name: fc.oneof(fc.string(), anyish),
      complexity: fc.oneof(word, anyish),
      complexityOverride: anyish,
      planPath: fc.oneof(fc.string(), anyish),
      status: fc.oneof(word, anyish),
      n: fc.integer({ min: 0, max: 3 }),
      startedAt: anyish,
    },
    { requiredKeys: [] },
  ),
  anyish,
);
const finding = fc.oneof(
  fc.record(
    { severity: fc.oneof(word, anyish), title: anyish, description: anyish, line: anyish, file: anyish },
    { requiredKeys: [] },
  ),
  anyish,
);
const decision = fc.oneof(
  fc.string(),
  fc.record(
    {
      phase: anyish,
      decision: anyish,
      what: anyish,
      why: anyish,
      at: anyish,
      date: anyish,
      timestamp: anyish,
      signals: anyish,
      by: anyish,
    },
    { requiredKeys: [] },
  ),
  anyish,
);
// Shaped like a state file, with every field liable to be wrong: gets past the first checks often
// enough to exercise the normalisers, which plain random JSON would not.
const stateLike = fc.record(
  {
    schemaVersion: fc.oneof(fc.integer({ min: 0, max: 7 }), fc.constantFrom("3", "x"), anyish),
    sessionDir: fc.oneof(fc.constant(".harness/sessions/s/"), anyish),
    sessionSlug: anyish,
    specPath: fc.oneof(fc.constant("docs/changes/x/proposal.md"), anyish),
    startingCommit: anyish,
    reviewPlans: anyish,
    rigorLevel: fc.oneof(fc.constantFrom("fast", "Thorough", "standard"), anyish),
    currentState: fc.oneof(fc.constantFrom(...STATE_NAMES, "COMPLETE", "done", "final review"), anyish),
    currentPhase: fc.oneof(fc.integer({ min: -1, max: 6 }), anyish),
    phases: fc.oneof(fc.array(phase, { maxLength: 5 }), anyish),
    retryBudget: fc.oneof(
      fc.integer({ min: -1, max: 5 }),
      fc.record(
        {
          maxAttempts: anyish,
          currentTask: fc.oneof(
            anyish,
            fc.record({ name: anyish, number: anyish, attempts: anyish }, { requiredKeys: [] }),
          ),
        },
        { requiredKeys: [] },
      ),
      anyish,
    ),
    history: fc.oneof(
      fc.array(
        fc.oneof(
          fc.record({ phase: anyish, commit: anyish, name: anyish, reviewFindings: anyish }, { requiredKeys: [] }),
          anyish,
        ),
        { maxLength: 4 },
      ),
      anyish,
    ),
    decisions: fc.oneof(fc.array(decision, { maxLength: 4 }), anyish),
    finalReview: fc.oneof(
      fc.record(
        {
          status: fc.oneof(word, anyish),
          findings: fc.oneof(fc.array(finding, { maxLength: 3 }), anyish),
          retryCount: anyish,
        },
        { requiredKeys: [] },
      ),
      anyish,
    ),
    stepId: anyish,
    phaseRun: fc.oneof(fc.record({ retriesUsed: anyish, concerns: anyish }, { requiredKeys: [] }), anyish),
    outbox: anyish,
    extra: anyish,
  },
  { requiredKeys: [] },
);

function check(raw: unknown): void {
  let result;
  try {
    result = migrateState(raw);
  } catch (e) {
    if (!(e instanceof AutopilotError)) throw e;
    expect(e.code).toBe("corrupt_state");
    return;
  }
  expect(AutopilotState.safeParse(result.state).success).toBe(true);
  // Reading our own output again changes nothing: a resumed session does not drift with every save.
  const again = migrateState(JSON.parse(JSON.stringify(result.state)), { sessionDir: result.state.sessionDir });
  expect(again.state).toEqual(JSON.parse(JSON.stringify(result.state)));
  expect(again.notes).toEqual([]);
}

describe("migrateState on arbitrary input", () => {
  it("arbitrary JSON: a valid state or corrupt_state, nothing else", () => {
    fc.assert(fc.property(fc.jsonValue(), check), { numRuns: 500 });
  });
  it("state-shaped JSON with wrong fields: a valid state that reads back unchanged, or corrupt_state", () => {
    fc.assert(fc.property(stateLike, check), { numRuns: 3000 });
  });
});
