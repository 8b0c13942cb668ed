// Reading flags out of a command line, as every client's words arrive (tests/mcp/flags-arrive.test.ts
// plays the clients over stdio; these are the edge cases of the reading itself).
import { describe, expect, it } from "vitest";
import { splitCommandLine, suggestFlag } from "../../src/engine/flags.js";

describe("splitCommandLine", () => {
  it("flags anywhere, the other words are the path", () => {
    expect(splitCommandLine("docs/a.md --fast --review-plans")).toEqual({
      spec: "docs/a.md",
      flags: ["--fast", "--review-plans"],
    });
    expect(splitCommandLine("--review-plans docs/my spec.md --thorough")).toEqual({
      spec: "docs/my spec.md",
      flags: ["--review-plans", "--thorough"],
    });
    expect(splitCommandLine("docs/a.md --fast,--review-plans")).toEqual({
      spec: "docs/a.md",
      flags: ["--fast", "--review-plans"],
    });
  });

  it("quotes group a path and keep a dash word in it; an apostrophe inside a word is a character", () => {
    expect(splitCommandLine(`"docs/my  spec.md" --fast`)).toEqual({ spec: "docs/my  spec.md", flags: ["--fast"] });
    expect(splitCommandLine(`'docs/--odd.md' --fast`)).toEqual({ spec: "docs/--odd.md", flags: ["--fast"] });
    expect(splitCommandLine("docs/bob's spec.md --fast")).toEqual({ spec: "docs/bob's spec.md", flags: ["--fast"] });
  });

  it("a typed dash (— or –) counts as --", () => {
    expect(splitCommandLine("docs/a.md —fast –review-plans").flags).toEqual(["--fast", "--review-plans"]);
  });

  it("unknown flags: bad_input naming each, with a suggestion where one is close", () => {
    expect(() => splitCommandLine("docs/a.md --fsat --slow")).toThrow(
      /Unknown flags --fsat \(did you mean --fast\?\), --slow\. The flags are --fast, --thorough, --review-plans/,
    );
    expect(() => splitCommandLine("docs/a.md --fast --thorough")).toThrow(/Cannot use --fast and --thorough together/);
  });
});

describe("suggestFlag", () => {
  it("close typos and prefixes, nothing for unrelated words", () => {
    expect(suggestFlag("--thorugh")).toBe("--thorough");
    expect(suggestFlag("--wroktere")).toBe("--worktree"); // a swap and a typo: two edits
    expect(suggestFlag("--review")).toBe("--review-plans");
    expect(suggestFlag("--review_plans")).toBe("--review-plans");
    expect(suggestFlag("-fast")).toBe("--fast");
    expect(suggestFlag("--verbose")).toBeNull();
  });
});
