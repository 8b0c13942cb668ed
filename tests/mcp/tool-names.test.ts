// docs/mcp.md is the contract: its tool table names exactly the tools of src/mcp/tools/names.ts,
// and what it says Claude Code is listed follows each tool's entry there.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/mcp-client.js";
import { TOOL_NAMES, TOOLS } from "../../src/mcp/tools/names.js";

const doc = readFileSync(path.join(REPO_ROOT, "docs", "mcp.md"), "utf8");
const section = doc.slice(doc.indexOf("\n## Tools\n"), doc.indexOf("\n### Flags\n"));
const sentences = section.replace(/\s+/g, " ").split(/(?<=\.) /);
const sentence = (words: string) => sentences.find((s) => s.includes(words)) ?? "";
/** The tool names a text puts in backticks. */
const named = (text: string) => [...text.matchAll(/`(\w+)`/g)].map((m) => m[1]).sort();
const listed = (listing: string) => TOOL_NAMES.filter((t) => TOOLS[t].claudeCode === listing).sort();
const WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"];

describe("docs/mcp.md's tools", () => {
  it("the table has one row per tool", () => {
    const rows = [...section.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual([...TOOL_NAMES].sort());
  });

  it("the tools Claude Code is not listed, and those it always loads, are the ones names.ts says", () => {
    expect(named(sentence("are left out of its `tools/list`").split(" are left out")[0])).toEqual(listed("not listed"));
    expect(named(sentence("alwaysLoad").split(" carry ")[0])).toEqual(listed("always loaded"));
    expect(sentence("Every other client gets")).toBe(`Every other client gets all ${WORDS[TOOL_NAMES.length]}.`);
  });
});
