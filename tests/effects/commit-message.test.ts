// Commit subjects in the repository's convention: the template of .harness/config.json, else
// Conventional Commits wherever commitlint is configured (any file name it reads, or the key in
// package.json), else `[autopilot] <label>`.
import { afterEach, describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { makeRepo, type TempRepo } from "../helpers/git.js";
import {
  COMMITLINT_FILES,
  commitSubject,
  commitlintConfig,
  conventionalSummary,
} from "../../src/effects/commit-message.js";
import { AutopilotError } from "../../src/protocol/errors.js";

const repos: TempRepo[] = [];
async function repo(files: Record<string, string> = {}): Promise<string> {
  const r = await makeRepo({ files: { "README.md": "# r\n", ...files } });
  repos.push(r);
  return r.dir;
}
afterEach(async () => {
  while (repos.length) await repos.pop()!.cleanup();
});

const LABEL = "Phase 1: Counting Core — execution complete";

describe("the subject of autopilot's commits", () => {
  it("is `[autopilot] <label>` in a repository without a convention", async () => {
    const dir = await repo();
    expect(await commitSubject(dir, { label: LABEL })).toBe(`[autopilot] ${LABEL}`);
    expect(await commitSubject(dir, { label: "Phase 2: Rules — recovery at task 4", recovery: true })).toBe(
      "[autopilot][recovery] Phase 2: Rules — recovery at task 4",
    );
    expect(await commitSubject(dir, { label: "Work in progress before autopilot (s)", userWork: true })).toBe(
      "Work in progress before autopilot (s)",
    );
  });

  it.each(COMMITLINT_FILES)("is a Conventional Commits subject when the repository has %s", async (name) => {
    const dir = await repo({
      [name]:
        name.endsWith("json") || name === ".commitlintrc"
          ? '{"extends":["@commitlint/config-conventional"]}\n'
          : "export default {};\n",
    });
    expect(await commitSubject(dir, { label: LABEL })).toBe(
      "chore(autopilot): phase 1 Counting Core, execution complete",
    );
  });

  it("reads a `commitlint` key in package.json, and looks up to the repository's top from a package folder", async () => {
    const dir = await repo({
      "package.json": JSON.stringify({ name: "mono", commitlint: { extends: ["@commitlint/config-conventional"] } }),
      "packages/app/package.json": '{"name":"app"}\n',
    });
    expect(await commitlintConfig(path.join(dir, "packages/app"))).toBe(path.join(dir, "package.json"));
    expect(await commitSubject(path.join(dir, "packages/app"), { label: "Final review fixes (round 1)" })).toBe(
      "chore(autopilot): final review fixes (round 1)",
    );
    const plain = await repo({ "package.json": '{"name":"x","scripts":{}}\n' });
    expect(await commitlintConfig(plain)).toBeNull();
  });

  it("keeps a conventional header within commitlint's 100 characters", async () => {
    const dir = await repo({ ".commitlintrc.json": "{}\n" });
    const subject = await commitSubject(dir, { label: `Checkpoint 3: ${"a very long checkpoint label ".repeat(8)}` });
    expect(subject.length).toBeLessThanOrEqual(100);
    expect(subject.startsWith("chore(autopilot): checkpoint 3 a very long")).toBe(true);
  });

  it("follows the `commitMessage` template of .harness/config.json, over any convention", async () => {
    const dir = await repo({
      ".commitlintrc.json": "{}\n",
      ".harness/config.json": JSON.stringify({ commitMessage: "feat(app): {summary} [{label}]" }),
    });
    expect(await commitSubject(dir, { label: LABEL })).toBe(
      `feat(app): phase 1 Counting Core, execution complete [${LABEL}]`,
    );
  });

  it("refuses a template that is not a one-line subject with a known placeholder, saying what it must be", async () => {
    for (const bad of ["", "no placeholder", "{labl} typo", "two\nlines {label}", 42]) {
      const dir = await repo();
      await mkdir(path.join(dir, ".harness"), { recursive: true });
      await writeFile(path.join(dir, ".harness/config.json"), JSON.stringify({ commitMessage: bad }));
      const e = await commitSubject(dir, { label: LABEL }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(e, JSON.stringify(bad)).toBeInstanceOf(AutopilotError);
      expect((e as AutopilotError).code).toBe("bad_input");
      expect((e as AutopilotError).message).toMatch(/"commitMessage".*\{label\} or \{summary\}/);
    }
  });

  it("words a label as a Conventional Commits subject: no colon, a lower-case start, no full stop", () => {
    expect(conventionalSummary("Checkpoint 2: Counting Core step 2")).toBe("checkpoint 2 Counting Core step 2");
    expect(conventionalSummary("Phase 3: CLI — recovery at task 1.")).toBe("phase 3 CLI, recovery at task 1");
    expect(conventionalSummary("API: keep the case of an acronym")).toBe("API keep the case of an acronym");
  });
});
