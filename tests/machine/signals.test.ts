// The signal registry (src/rules/signals.ts) drives the plan gate, the state schema and the logs:
// whatever the registry holds is what the machine evaluates, records and shows.
import { describe, expect, it } from "vitest";
import { SIGNALS, SIGNAL_NAMES, firedSignals, signalsFor } from "../../src/rules/signals.js";
import { planGateReport } from "../../machines/reports.js";
import { Signals } from "../../src/session/schema.js";
import { signalRows } from "../../src/log/model.js";
import { planned, plan, started, where } from "./helpers.js";

const high = { name: "Rule Engine", complexity: "high" as const };
const low = { name: "Core Scanner", complexity: "low" as const };

describe("the signal registry", () => {
  it("a snapshot records exactly the registry's fields, and the state schema accepts it", () => {
    // A quiet plan is auto-approved: its decision carries the snapshot.
    const s = planned(started([low]), plan(3));
    const snap = s.decisions.at(-1)!.signals!;
    const fields = SIGNALS.flatMap((d) => Object.keys(d.fields)).sort();
    expect(Object.keys(snap).sort()).toEqual(fields);
    expect(() => Signals.parse(snap)).not.toThrow();
    expect(() => Signals.parse({ ...snap, reviewPlans: undefined })).toThrow();
  });

  it("fires each signal by its own rule, in the registry's order, and a quiet plan fires none", () => {
    const quiet = planned(started([low]), plan(3));
    expect(firedSignals(signalsFor(quiet))).toEqual([]);
    expect(where(quiet)).toBe("EXECUTE.running");
    // A low phase whose plan outgrew it, with concerns, more tasks than the threshold, a high
    // rating (the override only raises low phases, so that one is read from a second state).
    const loud = planned(started([low], { reviewPlans: true }), plan(21, 0, ["risk"]));
    expect(firedSignals(signalsFor(loud))).toEqual([
      "reviewPlans",
      "complexityOverride",
      "plannerConcerns",
      "taskCount",
    ]);
    expect(where(loud)).toBe("APPROVE_PLAN.review");
    const highPhase = planned(started([high]), plan(3));
    expect(firedSignals(signalsFor(highPhase))).toEqual(["highComplexity"]);
    expect(SIGNAL_NAMES).toEqual(SIGNALS.map((d) => d.name));
  });

  it("the gate report and the log rows show every signal of the registry", () => {
    const s = planned(started([low], { reviewPlans: true }), plan(21, 0, ["risk"]));
    const snap = signalsFor(s);
    const fired = firedSignals(snap);
    const report = planGateReport({
      phaseNumber: 1,
      phaseName: "Core Scanner",
      signals: snap,
      fired,
      rigor: "standard",
      mode: "pause",
      checkpointCount: 0,
    });
    expect(report.split("\n").filter((l) => l.endsWith("(triggered)"))).toHaveLength(fired.length);
    const rows = signalRows(snap, fired, true);
    expect(rows.map((r) => [r.name, r.label, r.fired])).toEqual(
      SIGNALS.map((d) => [d.name, d.label, fired.includes(d.name)]),
    );
    for (const r of rows) expect(r.rule.length).toBeGreaterThan(0);
  });
});
