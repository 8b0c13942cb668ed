// The pull request a session hands back, in a real repository: a description a reviewer can act
// on (what changed and why per phase, the planner's assumptions and who answered each gate, how it
// was tested, the findings left open, the cost), written to the session's pr.md as well as the state.
import { afterEach, describe, expect, it } from "vitest";
import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { autopilotCommits, git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { PersonaRunner, PersonaTask, RunnerOutcome } from "../../src/runners/types.js";
import { PolicyGate, drive } from "../../src/headless/drive.js";
import { prTitle } from "../../src/effects/pull-request.js";
import { specOverview } from "../../src/markdown/spec-overview.js";

const SPEC_PATH = "docs/changes/wc/proposal.md";
const SPEC = `# wc

> Count the words and lines of a text file from the command line. Blank lines count as lines.

**Status:** Draft

## Implementation Order

### Phase 1: Counting Core
<!-- complexity: low -->
Count words.

### Phase 2: Command
<!-- complexity: low -->
The wc command prints the counts.
`;
const ASSUMED = "Words are split on whitespace only; punctuation stays part of a word.";

let repo: TempRepo;
afterEach(async () => repo?.cleanup());

/** The scripted personas, each result passed through `edit` (the task it answered, the outcome). */
class Editing implements PersonaRunner {
  readonly name = "editing";
  readonly simulated = true;
  constructor(
    private readonly inner: PersonaRunner,
    private readonly edit: (task: PersonaTask, out: RunnerOutcome) => RunnerOutcome,
  ) {}
  async run(task: PersonaTask): Promise<RunnerOutcome> {
    return this.edit(task, await this.inner.run(task));
  }
}

/** The first planner also says what it assumed where the spec is silent. */
const assumingPlanner = (inner: PersonaRunner) =>
  new Editing(inner, (task, out) =>
    out.result.kind !== "planned" || task.phaseIndex !== 0
      ? out
      : { ...out, result: { ...out.result, assumptions: [ASSUMED] } },
  );

describe("the pull request of a session", () => {
  it("says what the change does, what changed and why, what was assumed, how it was tested and what is left open", async () => {
    repo = await makeRepo({
      files: { "README.md": "# wc\n", ".gitignore": ".harness/sessions/\n", [SPEC_PATH]: SPEC },
    });
    // The person's own uncommitted file: the first question, answered before any phase.
    await writeFile(path.join(repo.dir, "notes.txt"), "mine\n");
    const engine = new Engine(repo.dir);
    const reports: string[] = [];
    const runner = assumingPlanner(
      new ScriptedRunner({
        phases: { 0: { tasks: 2, verifyFailsOnce: true }, 1: { tasks: 2, blockingReviewOnce: true } },
      }),
    );
    const { final } = await drive(engine, (await engine.start(SPEC_PATH)).step, runner, new PolicyGate(), {
      onStep: (s) => s.report && reports.push(s.report),
    });
    expect(final.state).toBe("DONE");
    const sessions = path.join(repo.dir, ".harness", "sessions");
    const slug = (await readdir(sessions, { withFileTypes: true })).find((d) => d.isDirectory())!.name;
    const state = JSON.parse(await readFile(path.join(sessions, slug, "autopilot-state.json"), "utf8"));
    const { title, body } = state.pullRequest as { title: string; body: string };

    expect(title).toBe("Count the words and lines of a text file from the command line");
    expect(await readFile(path.join(sessions, slug, "pr.md"), "utf8")).toBe(body);
    expect(reports.join("\n")).toContain(`(PR text: .harness/sessions/${slug}/pr.md):\n  1. open the pull request: `);
    expect(reports.join("\n")).toContain(`gh pr create --title '${title}' --body-file .harness/sessions/${slug}/pr.md`);

    // What changed, per phase: each commit as it was made, with the reason its author gave.
    const commits = (await autopilotCommits(repo.dir)).reverse();
    const [first] = commits;
    expect(body).toContain(
      `## What changed\n\n### Phase 1: Counting Core\n\n- ${first.subject} (${first.sha.slice(0, 7)})\n  Simulated by autopilot's scripted runner.`,
    );
    const sections = body.split(/^## /m).map((s) => s.split("\n")[0]);
    expect(sections.slice(1)).toEqual([
      "What changed",
      "Assumptions and decisions",
      "How it was tested",
      "Findings left open",
      "Cost",
      "Commits",
    ]);
    for (const c of commits) expect(body).toContain(`- ${c.sha.slice(0, 7)} ${c.subject}`);
    const fix = commits.find((c) => c.step.startsWith("Phase 2: Command — review fixes"))!;
    expect(body.slice(body.indexOf("### Phase 2: Command"))).toContain(`- ${fix.subject} (${fix.sha.slice(0, 7)})`);

    expect(body).toContain(`Where the spec was silent, the planner assumed:\n\n- Phase 1: ${ASSUMED}`);
    // Each gate by where it was answered and what it decided, in the log's words.
    expect(body).toMatch(
      /Who answered each gate:\n\n- Before the first phase: The user's own changes left out of the commit /,
    );
    expect(body).toMatch(/\n- Phase 1: Plan auto-approved \(no signal fired\) — /);
    expect(body).not.toMatch(/- Final review: The user's own changes/);

    // How it was tested: what the executor ran, what verification checked, the failed round and its fate.
    expect(body).toMatch(
      /- Phase 1: verification passed after 1 failed round \(its findings: 1 blocking fixed \(commit [0-9a-f]{7}\)\); review: 1 note open\./,
    );
    expect(body).toContain("  - the executor ran: project checks: pass (simulated)");
    expect(body).toContain("  - verification checked: project checks: pass (simulated)");
    expect(body).toMatch(
      /- Phase 2: verification passed; review: 1 blocking fixed \(commit [0-9a-f]{7}\), 1 note open\./,
    );
    expect(body).toContain("- Final review of the whole change: passed (1 warning open).");

    const open = body.slice(body.indexOf("## Findings left open"), body.indexOf("## Cost"));
    // Both phases' reviewers left the same note: one line naming both.
    expect(open).toMatch(
      /^- note — Consider a doc comment \(simulated\) \(phase 1 review, p1-r1-\d; phase 2 review, p2-r1-\d\): open$/m,
    );
    expect(open).toMatch(
      /^- warning — Naming differs between phases \(simulated\) \(final review, final-r1-\d\): open$/m,
    );
    expect(open).not.toContain("Unchecked input");
    expect(body).toMatch(/## Cost\n\nCost unknown: \d+ persona runs reported, none with its usage/);
    expect(body).not.toMatch(/Implements|Persona runs: unknown\./);
    // Nothing is left uncommitted but the person's own file, which stays theirs.
    expect(await git(repo.dir, "status", "--porcelain", "--", ".", ":(exclude).harness")).toBe("?? notes.txt\n");

    // No loose ends: the decision log named, the finished session out of "Active", advice that fits the repository.
    const done = reports.at(-1)!;
    expect(done).toContain(`Decision log: \`autopilot log ${slug}\` (\`--format html\` for a page).`);
    expect(done).toContain("  - sessions/ (working state) is ignored by git already.");
    // The learnings entry is said once: in the list of .harness/ files worth committing.
    expect(done).toContain("  - commit .harness/learnings.md if your team keeps what later runs learn");
    expect(done).not.toContain("Learnings: added this run's entry");
    const summary = await readFile(path.join(sessions, slug, "summary.md"), "utf8");
    expect(summary).toContain("**Next step:** All phases complete. Open the pull request (its description is pr.md");
    expect(summary).not.toContain(".gitignore");
    const index = await readFile(path.join(sessions, "index.md"), "utf8");
    expect(index).toMatch(new RegExp(`^## Active Sessions\\n\\n## Finished Sessions\\n\\n- \\[${slug}\\]`));
  });

  it("advises ignoring the session folders only where git does not already", async () => {
    repo = await makeRepo({ files: { "README.md": "# wc\n", [SPEC_PATH]: SPEC } });
    const engine = new Engine(repo.dir);
    const runner = new ScriptedRunner({ phases: { 0: { tasks: 1 }, 1: { tasks: 1 } } });
    const { final } = await drive(engine, (await engine.start(SPEC_PATH)).step, runner, new PolicyGate());
    expect(final.state).toBe("DONE");
    const sessions = path.join(repo.dir, ".harness", "sessions");
    const slug = (await readdir(sessions, { withFileTypes: true })).find((d) => d.isDirectory())!.name;
    expect(await readFile(path.join(sessions, slug, "summary.md"), "utf8")).toContain(
      "Keep .harness/sessions/ out of git (add the line `.harness/sessions/` to .gitignore).",
    );
  });
});

/** The final reviewer raises the phases' note once more. */
const repeatingFinalReviewer = (inner: PersonaRunner) =>
  new Editing(inner, (task, out) => {
    if (out.result.kind !== "reviewed" || task.phaseIndex !== null) return out;
    const again = { severity: "note" as const, title: "Consider a doc comment (simulated)" };
    return { ...out, result: { ...out.result, findings: [...(out.result.findings ?? []), again] } };
  });

describe("the findings a pull request leaves open", () => {
  it("lists a finding every review raised again once, naming each review that raised it", async () => {
    repo = await makeRepo({
      files: { "README.md": "# wc\n", ".gitignore": ".harness/sessions/\n", [SPEC_PATH]: SPEC },
    });
    const engine = new Engine(repo.dir);
    const runner = repeatingFinalReviewer(new ScriptedRunner({ phases: { 0: { tasks: 1 }, 1: { tasks: 1 } } }));
    const { final } = await drive(engine, (await engine.start(SPEC_PATH)).step, runner, new PolicyGate());
    expect(final.state).toBe("DONE");
    const sessions = path.join(repo.dir, ".harness", "sessions");
    const slug = (await readdir(sessions, { withFileTypes: true })).find((d) => d.isDirectory())!.name;
    const body = await readFile(path.join(sessions, slug, "pr.md"), "utf8");
    const open = body.slice(body.indexOf("## Findings left open"), body.indexOf("## Cost"));
    expect(open.match(/Consider a doc comment/g)).toHaveLength(1);
    expect(open).toMatch(
      /^- note — Consider a doc comment \(simulated\) \(phase 1 review, p1-r1-\d; phase 2 review, p2-r1-\d; final review, final-r1-\d\): open$/m,
    );
    expect(open).toMatch(
      /^- warning — Naming differs between phases \(simulated\) \(final review, final-r1-\d\): open$/m,
    );
  });
});

describe("the pull request's title", () => {
  it("is the spec's heading when it says what the change is, else its summary when it fits in 72 characters, else its first clause, else the spec's name with its phases", () => {
    const spec = (summary: string) => `# Dashboard\n\n## Overview\n\n${summary}\n\n## Implementation Order\n`;
    expect(prTitle({ title: "Dashboard", overview: specOverview(spec("Add a side panel. More text.")) }, [])).toBe(
      "Add a side panel",
    );
    const long =
      "The dashboard gains a collapsible side panel available on every page, providing full interactive sessions for maintenance.";
    expect(prTitle({ title: "Dashboard", overview: specOverview(spec(long)) }, ["Panel"])).toBe(
      "The dashboard gains a collapsible side panel available on every page",
    );
    const noClause =
      "Adoption and usage telemetry provides visibility into which harness skills are being used and how often.";
    expect(prTitle({ title: "Telemetry", overview: noClause }, ["Events", "Report"])).toBe("Telemetry: Events, Report");
    expect(specOverview("# T\n\n**Keywords:** a, b\n\n## Overview\n\n**Goals:**\n\nShip it.\n")).toBe("Ship it.");
    // A heading that says what the change is wins over an overview that describes the code before it.
    const tally = "Tally counts lines today. Users want word counts and a command to run it on a file.";
    expect(prTitle({ title: "Tally: words and a command line", overview: tally }, ["Word counting"])).toBe(
      "Tally: words and a command line",
    );
    const title = prTitle({ title: "x".repeat(40), overview: null }, ["a".repeat(30), "b".repeat(30)]);
    expect(title.length).toBeLessThanOrEqual(72);
  });
});
