import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AutopilotError } from "../../src/protocol/errors.js";
import { sessionDirRel, sessionPaths, sessionPathsAt } from "../../src/session/paths.js";
import { assertSafeSlug, resolveSpecPath, slugFromSpecPath } from "../../src/session/slug.js";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof AutopilotError) return e.code;
    throw e;
  }
  return undefined;
}

describe("a spec path names its session the way the skill does", () => {
  it.each([
    ["docs/changes/security-scanner/proposal.md", "changes--security-scanner--proposal"],
    [
      "docs/changes/runtime-enforcement-extensions/iteration-1.md",
      "changes--runtime-enforcement-extensions--iteration-1",
    ],
    ["docs/changes/context-efficiency-pipeline.md", "changes--context-efficiency-pipeline"],
    ["specs/Auth.Flow/PLAN.md", "specs--auth--flow--plan"],
    ["proposal.md", "proposal"],
    ["docs/v1.2/spec.md", "v1--2--spec"],
    ["notes/spec.markdown", "notes--spec--markdown"],
    ["my-docs/docs/spec.md", "my-docs--docs--spec"],
    ["./docs/changes/x/proposal.md", "changes--x--proposal"],
  ])("%s → %s", (spec, slug) => {
    expect(slugFromSpecPath(spec)).toBe(slug);
  });

  // One real session (changes--context-efficiency-pipeline) lives in a folder that is not its spec's
  // slug; its sessionDir names the folder, which is why the store trusts where a file lives.
  it("every real session folder in the corpus is its specPath's slug or the folder its sessionDir names", async () => {
    const { readdirSync, readFileSync, existsSync } = await import("node:fs");
    const dir = path.resolve(process.cwd(), "../shared/corpus/upstream/sessions");
    if (!existsSync(dir)) return console.log(`skipped: no corpus at ${dir}`);
    for (const slug of readdirSync(dir)) {
      const file = path.join(dir, slug, "autopilot-state.json");
      if (!existsSync(file)) continue;
      const { specPath, sessionDir } = JSON.parse(readFileSync(file, "utf8")) as {
        specPath: string;
        sessionDir?: string;
      };
      expect([slugFromSpecPath(specPath), sessionDir?.replace(".harness/sessions/", "")], file).toContain(slug);
    }
  });
});

describe("a spec outside the project is refused", () => {
  let root: string;
  let outside: string;
  beforeAll(() => {
    const base = mkdtempSync(path.join(tmpdir(), "autopilot-slug-"));
    root = path.join(base, "project");
    outside = path.join(base, "elsewhere");
    mkdirSync(path.join(root, "docs/changes/x"), { recursive: true });
    mkdirSync(outside, { recursive: true });
    writeFileSync(path.join(root, "docs/changes/x/proposal.md"), "# x\n");
    writeFileSync(path.join(outside, "secret.md"), "# not yours\n");
    symlinkSync(path.join(outside, "secret.md"), path.join(root, "docs/linked-out.md"));
    symlinkSync(path.join(root, "docs/changes/x/proposal.md"), path.join(root, "docs/linked-in.md"));
  });
  afterAll(() => rmSync(path.dirname(root), { recursive: true, force: true }));

  it("resolves a relative spec against the project root, POSIX rel", () => {
    const r = resolveSpecPath(root, "docs/changes/x/proposal.md");
    expect(r.rel).toBe("docs/changes/x/proposal.md");
    expect(r.abs).toBe(path.join(root, "docs/changes/x/proposal.md"));
  });

  it("accepts an absolute path inside the project", () => {
    expect(resolveSpecPath(root, path.join(root, "docs/changes/x/proposal.md")).rel).toBe("docs/changes/x/proposal.md");
  });

  it("accepts a symlink that stays inside, keeping the name the user gave", () => {
    expect(resolveSpecPath(root, "docs/linked-in.md").rel).toBe("docs/linked-in.md");
  });

  it.each([["../elsewhere/secret.md"], ["docs/../../elsewhere/secret.md"], ["docs/linked-out.md"]])(
    "%s → outside_project",
    (spec) => {
      expect(codeOf(() => resolveSpecPath(root, spec))).toBe("outside_project");
    },
  );

  it("an absolute path outside the project → outside_project", () => {
    expect(codeOf(() => resolveSpecPath(root, path.join(outside, "secret.md")))).toBe("outside_project");
  });

  it("a missing spec → spec_not_found with the path and what to check", () => {
    try {
      resolveSpecPath(root, "docs/changes/nope/proposal.md");
      expect.unreachable();
    } catch (e) {
      expect((e as AutopilotError).code).toBe("spec_not_found");
      expect((e as Error).message).toMatch(/docs\/changes\/nope\/proposal\.md/);
      expect((e as Error).message).toMatch(/relative to the project root/);
    }
  });

  it("a directory or an empty path → spec_not_found", () => {
    expect(codeOf(() => resolveSpecPath(root, "docs"))).toBe("spec_not_found");
    expect(codeOf(() => resolveSpecPath(root, ""))).toBe("spec_not_found");
  });
});

describe("session names from clients cannot leave .harness/sessions", () => {
  it.each([["../x"], ["a/b"], ["a\\b"], [".."], ["x..y"]])("%s → outside_project", (slug) => {
    expect(codeOf(() => assertSafeSlug(slug))).toBe("outside_project");
  });
  it.each([[""], ["."], ["a\0b"], [42]])("%j → unknown_session", (slug) => {
    expect(codeOf(() => assertSafeSlug(slug))).toBe("unknown_session");
  });
  it("a real slug passes", () => {
    expect(codeOf(() => assertSafeSlug("changes--security-scanner--proposal"))).toBeUndefined();
  });
});

describe("session paths", () => {
  it("puts every session file under .harness/sessions/<slug> and project files under .harness", () => {
    const p = sessionPaths("/proj", "changes--x--proposal");
    const d = "/proj/.harness/sessions/changes--x--proposal";
    expect(sessionDirRel("changes--x--proposal")).toBe(".harness/sessions/changes--x--proposal");
    expect(p.sessionDirRel).toBe(".harness/sessions/changes--x--proposal");
    expect(p.sessionDir).toBe(d);
    expect(p.state).toBe(`${d}/autopilot-state.json`);
    expect(p.lastGood).toBe(`${d}/autopilot-state.last-good.json`);
    expect(p.lock).toBe(`${d}/autopilot.lock`);
    expect(p.handoff).toBe(`${d}/handoff.json`);
    expect(p.summary).toBe(`${d}/summary.md`);
    expect(p.sessionLearnings).toBe(`${d}/learnings.md`);
    expect(p.baseline).toBe(`${d}/baseline.json`);
    expect(p.worktreePointer).toBe(`${d}/worktree.json`);
    expect(p.scratchpadDir).toBe(`${d}/scratchpad`);
    expect(p.review(1)).toBe(`${d}/phase-1-review.json`);
    expect(p.learnings).toBe("/proj/.harness/learnings.md");
    expect(p.failures).toBe("/proj/.harness/failures.md");
    expect(p.config).toBe("/proj/.harness/config.json");
    expect(p.roadmap).toBe("/proj/docs/roadmap.md");
    expect(p.sessionsIndex).toBe("/proj/.harness/sessions/index.md");
    expect(p.worktreesDir).toBe("/proj/.harness/worktrees");
  });
  it("a state's sessionDir gives that session's paths, and one outside the sessions folder is refused", () => {
    expect(sessionPathsAt("/proj", ".harness/sessions/changes--x--proposal/").state).toBe(
      sessionPaths("/proj", "changes--x--proposal").state,
    );
    expect(codeOf(() => sessionPathsAt("/proj", "../elsewhere"))).toBe("outside_project");
    expect(codeOf(() => sessionPathsAt("/proj", ".harness/sessions/../../etc"))).toBe("outside_project");
  });
  it("refuses an unsafe slug", () => {
    expect(codeOf(() => sessionPaths("/proj", "../../etc"))).toBe("outside_project");
  });
});
