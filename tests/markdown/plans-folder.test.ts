import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findPlanForPhase, kebab, planFileName, plansDirFor } from "../../src/markdown/plans-folder.js";

describe("where plans live", () => {
  it("puts plans beside a docs/changes proposal, and in docs/plans otherwise", () => {
    expect(plansDirFor("docs/changes/security-scanner/proposal.md")).toBe("docs/changes/security-scanner/plans");
    expect(plansDirFor("docs/changes/security-scanner/design.md")).toBe("docs/changes/security-scanner/plans");
    expect(plansDirFor("docs\\changes\\x\\proposal.md")).toBe("docs/changes/x/plans");
    expect(plansDirFor("docs/changes/x/sub/proposal.md")).toBe("docs/plans");
    expect(plansDirFor("docs/specs/scanner.md")).toBe("docs/plans");
    expect(plansDirFor("SPEC.md")).toBe("docs/plans");
  });

  it("names a plan by date and kebab-cased phase name", () => {
    expect(planFileName("2026-03-01", "Core loop — plan through execute")).toBe(
      "2026-03-01-core-loop-plan-through-execute-plan.md",
    );
    expect(planFileName("2026-03-01", "`BackendRouter.resolve()` rewrite (≈ 3 days)")).toBe(
      "2026-03-01-backendrouter-resolve-rewrite-3-days-plan.md",
    );
    expect(() => planFileName("March 1", "x")).toThrow(/YYYY-MM-DD/);
  });

  it("keeps kebab names short, whole-word and never empty", () => {
    const long = kebab("A very long phase name that goes on and on past the sixty character limit for files");
    expect(long.length).toBeLessThanOrEqual(60);
    expect(long).not.toMatch(/-$/);
    expect(kebab("Café déjà vu")).toBe("cafe-deja-vu");
    expect(kebab("——")).toBe("phase");
  });
});

describe("finding the plan for a phase", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "autopilot-plans-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const put = async (rel: string) => {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), "# plan\n");
  };

  it("finds the newest plan in the spec's plans folder by phase name", async () => {
    await put("docs/changes/scanner/plans/2026-01-05-phase3-cli-command.md");
    await put("docs/changes/scanner/plans/2026-02-01-cli-command-plan.md");
    await put("docs/changes/scanner/plans/2026-03-01-rule-engine-plan.md");
    await put("docs/plans/2026-04-01-cli-command-plan.md");
    expect(await findPlanForPhase(root, "docs/changes/scanner/proposal.md", "CLI command")).toBe(
      "docs/changes/scanner/plans/2026-02-01-cli-command-plan.md",
    );
  });

  it("falls back to docs/plans, and accepts an absolute spec path", async () => {
    await put("docs/plans/2026-04-01-cli-command-plan.md");
    expect(await findPlanForPhase(root, path.join(root, "docs/changes/scanner/proposal.md"), "CLI command")).toBe(
      "docs/plans/2026-04-01-cli-command-plan.md",
    );
  });

  it("returns null when no plan names the phase or the folders do not exist", async () => {
    expect(await findPlanForPhase(root, "docs/changes/scanner/proposal.md", "CLI command")).toBeNull();
    await put("docs/plans/2026-04-01-other-plan.md");
    await put("docs/plans/cli-command-notes.txt");
    expect(await findPlanForPhase(root, "SPEC.md", "CLI command")).toBeNull();
  });
});
