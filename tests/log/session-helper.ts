// A real finished session for the decision-log tests: the in-process engine, the scripted runner
// and a gate that answers like a person would (a human approves the plan that raised concerns and
// overrides one blocking review; policy answers the rest).
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { PolicyGate, drive, type Gate, type GateAnswer } from "../../src/headless/drive.js";
import type { AskNext, Step } from "../../src/protocol/step.js";

import { SLUG, SPEC, SPEC_PATH } from "../helpers/scanner-spec.js";
export { SLUG, SPEC, SPEC_PATH };

/** Approves paused plans and overrides a blocking phase review as a human; policy for the rest. */
export class PersonGate implements Gate {
  private policy = new PolicyGate();
  async answer(step: Step, ask: AskNext): Promise<GateAnswer> {
    if (step.state === "APPROVE_PLAN" && ask.options.includes("yes"))
      return { answer: "yes", by: "terminal", rationale: "Concerns are noted; the rule syntax is settled in task 1." };
    if (step.state === "REVIEW" && ask.options.includes("override"))
      return {
        answer: "override",
        by: "terminal",
        rationale: "The finding is a false positive: the key is a test fixture.",
      };
    return this.policy.answer(step, ask);
  }
}

export interface FinishedSession {
  repo: TempRepo;
  slug: string;
}

/**
 * Run the three-phase spec to DONE in a fresh repository. `specText` replaces the spec (e.g. to
 * give a phase a hostile name).
 */
export async function finishedSession(opts: { specText?: string; flags?: string } = {}): Promise<FinishedSession> {
  const repo = await makeRepo();
  let tick = 0;
  // Phases of different lengths, so a timeline by time has something to show.
  const now = () => new Date(Date.UTC(2026, 2, 19, 10, 0, 0) + tick++ * 7_000);
  await mkdir(path.join(repo.dir, "docs/changes/security-scanner"), { recursive: true });
  await writeFile(path.join(repo.dir, SPEC_PATH), opts.specText ?? SPEC);
  await git(repo.dir, "add", "-A");
  await git(repo.dir, "commit", "-qm", "spec");
  const engine = new Engine(repo.dir, { now });
  const runner = new ScriptedRunner({
    phases: {
      0: { checkpoints: { 2: "passed" } },
      1: {
        tasks: 5,
        concerns: ["rule syntax undecided"],
        fail: { task: 2, times: 2, error: "TypeError: rules is undefined" },
      },
      2: { blockingReviewOnce: true },
    },
    finalBlocking: 1,
  });
  const { final } = await drive(engine, (await engine.start(SPEC_PATH, opts.flags)).step, runner, new PersonGate());
  if (final.state !== "DONE")
    throw new Error(`the scripted session stopped at ${final.state}: ${JSON.stringify(final.next)}`);
  return { repo, slug: SLUG };
}
