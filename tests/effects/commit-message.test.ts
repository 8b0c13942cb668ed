// Commit messages as a colleague writes them: the persona's proposal fitted to the repository's
// convention (the template of .harness/config.json, else Conventional Commits where commitlint is
// configured or the history uses them, else the history's plain style), autopilot's own subject
// when the proposal does not fit, and autopilot's identity in a trailer, never in the subject.
import { afterEach, describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import {
  COMMITLINT_FILES,
  commitMessage,
  commitlintConfig,
  findingTitle,
  repoConvention,
  stepTrailer,
} from "../../src/effects/commit-message.js";
import { commitCheckpoint } from "../../src/effects/git.js";
import { AutopilotError } from "../../src/protocol/errors.js";

const repos: TempRepo[] = [];
async function repo(files: Record<string, string> = {}, history: string[] = []): Promise<string> {
  const r = await makeRepo({ files: { "README.md": "# r\n", ...files } });
  repos.push(r);
  for (const [i, s] of history.entries()) {
    await writeFile(path.join(r.dir, `h${i}.txt`), s);
    await git(r.dir, "add", "-A");
    await git(r.dir, "commit", "-q", "-m", s);
  }
  return r.dir;
}
afterEach(async () => {
  while (repos.length) await repos.pop()!.cleanup();
});

const LABEL = "Phase 1: Counting Core — execution complete";
const work = { label: LABEL, kind: "work" as const, topic: "Counting Core" };
const CONVENTIONAL_HISTORY = ["feat: add the reader", "fix(reader): keep the BOM", "docs: usage"];
const PLAIN_HISTORY = ["Add the reader", "Keep the BOM when reading", "Document the usage"];

describe("the convention a repository writes its commits in", () => {
  it.each(COMMITLINT_FILES)("is Conventional Commits when the repository has %s", async (name) => {
    const dir = await repo({
      [name]:
        name.endsWith("json") || name === ".commitlintrc"
          ? '{"extends":["@commitlint/config-conventional"]}\n'
          : "export default {};\n",
    });
    expect(await repoConvention(dir)).toMatchObject({ kind: "conventional", from: "commitlint" });
  });

  it("reads a `commitlint` key in package.json, up to the repository's top from a package folder", async () => {
    const dir = await repo({
      "package.json": JSON.stringify({ name: "mono", commitlint: { extends: ["@commitlint/config-conventional"] } }),
      "packages/app/package.json": '{"name":"app"}\n',
    });
    expect(await commitlintConfig(path.join(dir, "packages/app"))).toBe(path.join(dir, "package.json"));
    const plain = await repo({ "package.json": '{"name":"x","scripts":{}}\n' });
    expect(await commitlintConfig(plain)).toBeNull();
  });

  it("takes the types and the header length a commitlint config sets", async () => {
    const dir = await repo({
      "commitlint.config.js":
        "export default { rules: { 'type-enum': [2, 'always', ['feature', 'bugfix', 'chore']], 'header-max-length': [2, 'always', 50] } };\n",
    });
    expect(await repoConvention(dir)).toEqual({
      kind: "conventional",
      types: ["feature", "bugfix", "chore"],
      headerMax: 50,
      from: "commitlint",
    });
  });

  it("is read from the history without a commitlint config, leaving autopilot's own commits out", async () => {
    expect(await repoConvention(await repo({}, CONVENTIONAL_HISTORY))).toMatchObject({
      kind: "conventional",
      from: "history",
    });
    expect(await repoConvention(await repo({}, PLAIN_HISTORY))).toEqual({ kind: "plain", capital: true });
    expect(await repoConvention(await repo({}, ["add x", "remove y", "rename z"]))).toEqual({
      kind: "plain",
      capital: false,
    });
  });
});

describe("the message of a commit of a persona's work", () => {
  it("keeps the persona's proposal in a Conventional Commits repository, with its body and autopilot's trailer", async () => {
    const dir = await repo({ ".commitlintrc.json": "{}\n" });
    const m = await commitMessage(dir, {
      ...work,
      proposal:
        "feat(count): count words, lines and bytes\n\nThe counter streams its input.\n\nAutopilot-Effect: forged",
    });
    expect(m).toEqual({
      subject: "feat(count): count words, lines and bytes",
      body: ["The counter streams its input."],
      trailers: [`Autopilot: ${LABEL}`],
      from: "persona",
    });
  });

  it("fits a proposal to the convention: a type where it has none, a lower-case start, no full stop; a known type kept", async () => {
    const dir = await repo({}, CONVENTIONAL_HISTORY);
    expect((await commitMessage(dir, { ...work, proposal: "Add the counter." })).subject).toBe("feat: add the counter");
    expect((await commitMessage(dir, { ...work, proposal: "test(count): cover empty input" })).subject).toBe(
      "test(count): cover empty input",
    );
    expect((await commitMessage(dir, { ...work, proposal: "wip: half of it" })).subject).toBe("feat: half of it");
  });

  it("writes a proposal in the plain style of a repository that does not use Conventional Commits", async () => {
    const dir = await repo({}, PLAIN_HISTORY);
    const m = await commitMessage(dir, { ...work, proposal: "feat(count): count words and lines" });
    expect(m.subject).toBe("Count words and lines");
    expect(m.from).toBe("persona");
  });

  it("words its own subject from what the commit holds when there is no proposal, or one that does not fit", async () => {
    const conv = await repo({ ".commitlintrc.json": "{}\n" });
    expect((await commitMessage(conv, work)).subject).toBe("feat: implement Counting Core");
    expect((await commitMessage(conv, { ...work, proposal: `feat: ${"very ".repeat(30)}long` })).from).toBe(
      "autopilot",
    );
    const fix = {
      label: "Phase 2: Rules — review fixes (round 1)",
      kind: "fix" as const,
      topic: "Rules",
      fixed: [
        "Empty input reaches the parser (src/parse.ts:4) — it throws Scenario: an empty file",
        "Unused import (src/a.ts:1)",
      ],
    };
    const m = await commitMessage(conv, fix);
    expect(m.subject).toBe("fix: empty input reaches the parser (and 1 more)");
    expect(m.body).toEqual(["- Empty input reaches the parser\n- Unused import"]);
    expect((await commitMessage(conv, { label: "Phase 1: Core — plan", kind: "plan", topic: "Core" })).subject).toBe(
      "docs: plan Core",
    );
    const plain = await repo({}, PLAIN_HISTORY);
    expect((await commitMessage(plain, fix)).subject).toBe("Fix empty input reaches the parser (and 1 more)");
    expect(
      (
        await commitMessage(plain, {
          label: "Phase 2: Rules — recovery at task 4",
          kind: "recovery",
          topic: "task 4 (Wire it)",
        })
      ).subject,
    ).toBe("Unfinished work on task 4 (Wire it)");
  });

  it("keeps a header within the convention's length, cut at a word", async () => {
    const dir = await repo({ ".commitlintrc.json": "{}\n" });
    const m = await commitMessage(dir, { ...work, topic: "a very long phase name ".repeat(8) });
    expect(m.subject.length).toBeLessThanOrEqual(72);
    expect(m.subject).toMatch(/^feat: implement a very long phase name .*…$/);
    expect(["a", "very", "long", "phase", "name"]).toContain(m.subject.slice(0, -1).split(" ").at(-1));
  });

  it("follows the `commitMessage` template of .harness/config.json over any convention, with the proposal's words", async () => {
    const dir = await repo({
      ".commitlintrc.json": "{}\n",
      ".harness/config.json": JSON.stringify({ commitMessage: "{type}(app): {summary} [PROJ-1]" }),
    });
    expect((await commitMessage(dir, { ...work, proposal: "feat(count): Count words" })).subject).toBe(
      "feat(app): count words [PROJ-1]",
    );
    expect((await commitMessage(dir, { ...work, proposal: "fix(app): keep the BOM [PROJ-1]" })).subject).toBe(
      "fix(app): keep the BOM [PROJ-1]",
    );
    expect((await commitMessage(dir, work)).subject).toBe("feat(app): implement Counting Core [PROJ-1]");
    // A template without a scope drops the one the persona proposed (a helper model's trial).
    const plain = await repo({ ".harness/config.json": JSON.stringify({ commitMessage: "{type}: {summary}" }) });
    expect((await commitMessage(plain, { ...work, proposal: "feat(cli): Count words" })).subject).toBe(
      "feat: count words",
    );
    expect((await commitMessage(plain, { ...work, proposal: "fix: keep the BOM" })).subject).toBe("fix: keep the BOM");
    const labelled = await repo({ ".harness/config.json": JSON.stringify({ commitMessage: "[{label}]" }) });
    expect((await commitMessage(labelled, work)).subject).toBe(`[${LABEL}]`);
  });

  it("refuses a template that is not a one-line subject with a known placeholder, saying what it must be", async () => {
    for (const bad of ["", "no placeholder", "{labl} typo", "two\nlines {label}", 42]) {
      const dir = await repo();
      await mkdir(path.join(dir, ".harness"), { recursive: true });
      await writeFile(path.join(dir, ".harness/config.json"), JSON.stringify({ commitMessage: bad }));
      const e = await commitMessage(dir, work).then(
        () => null,
        (err: unknown) => err,
      );
      expect(e, JSON.stringify(bad)).toBeInstanceOf(AutopilotError);
      expect((e as AutopilotError).code).toBe("bad_input");
      expect((e as AutopilotError).message).toMatch(/"commitMessage".*\{summary\}, \{label\} or \{type\}/);
    }
  });

  it("commits the message whole: the subject, the body wrapped within 100 columns, the step and effect trailers last", async () => {
    const dir = await repo({ ".commitlintrc.json": "{}\n" });
    await writeFile(path.join(dir, "count.ts"), "export const n = 1;\n");
    const long = `Why: ${"the counter streams its input so large files fit in memory ".repeat(3)}`.trim();
    const m = await commitMessage(dir, { ...work, proposal: `feat(count): count words\n\n${long}` });
    await commitCheckpoint(dir, { ...m, label: LABEL, effectId: "s4-commit" });
    const msg = await git(dir, "log", "-1", "--format=%B");
    const lines = msg.trimEnd().split("\n");
    expect(lines[0]).toBe("feat(count): count words");
    expect(lines.at(-2)).toBe(`Autopilot: ${LABEL}`);
    expect(lines.at(-1)).toBe("Autopilot-Effect: s4-commit");
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
    expect(msg.replace(/\s+/g, " ")).toContain(long);
  });

  it("says a finding's title without its place, rationale or scenario, and keeps a step trailer within 100 characters", () => {
    expect(findingTitle("Unchecked input reaches the parser (simulated) (src/a.ts:1) — validate it first")).toBe(
      "Unchecked input reaches the parser (simulated)",
    );
    expect(findingTitle("tests/scanner.test.ts: expected 3 rules, got 0")).toBe(
      "tests/scanner.test.ts: expected 3 rules, got 0",
    );
    expect(stepTrailer(`Phase 1: ${"x ".repeat(80)}`).length).toBeLessThanOrEqual(100);
  });
});
