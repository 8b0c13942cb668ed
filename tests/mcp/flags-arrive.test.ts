// Every flag reaches the server, whatever a client does with what the user typed. Over stdio with
// the SDK client against the built server, the `start` prompt is filled the way each real client
// fills it (Claude Code: words mapped in order onto the listed arguments, the rest dropped; Gemini
// CLI: the whole line in the first required argument, quotes removed), and the autopilot_start
// call the prompt then asks for starts a session with every flag. autopilot_start itself reads
// flags out of `spec` too, so a host that passes "docs/spec.md --fast" as the spec is understood.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Prompt } from "@modelcontextprotocol/sdk/types.js";
import { call, openSession, SCANNER_PATH, SCANNER_SLUG, specWith, type Session } from "../helpers/mcp-client.js";

let s: Session;
let prompt: Prompt;
beforeAll(async () => {
  s = await openSession({ files: { "docs/my spec.md": specWith([{ name: "Only", complexity: "low" }]) } });
  prompt = (await s.srv.client.listPrompts()).prompts.find((p) => p.name === "start")!;
});
afterAll(async () => {
  await s.dispose();
});

/** Claude Code 2.1: `line.split(/\s+/)`, word i to argument i, words past the last argument dropped. */
function claudeCodeArgs(line: string): Record<string, string> {
  const words = line.split(/\s+/).filter(Boolean);
  const out: Record<string, string> = {};
  prompt.arguments!.forEach((a, i) => {
    if (words[i] !== undefined) out[a.name] = words[i];
  });
  return out;
}

/** Gemini CLI 0.61 (McpPromptLoader.parseArgs): one unfilled required argument takes every positional word, unquoted, joined by a space. */
function geminiArgs(line: string): Record<string, string> {
  const words = [...line.matchAll(/(?:"((?:\\.|[^"\\])*)"|([^ ]+))/g)].map((m) =>
    (m[1] ?? m[2]).replace(/\\(.)/g, "$1"),
  );
  const required = prompt.arguments!.filter((a) => a.required);
  expect(required.map((a) => a.name)).toEqual(["spec"]);
  return { spec: words.join(" ") };
}

async function promptText(args: Record<string, string>): Promise<string> {
  const got = await s.srv.client.getPrompt({ name: "start", arguments: args });
  return (got.messages[0].content as { text: string }).text;
}

/** The arguments the prompt tells the host to pass to autopilot_start. */
function startCallIn(text: string): { spec: string; flags?: string } {
  const m = /Call autopilot_start with (\{.*\})\./.exec(text);
  expect(m, text).not.toBeNull();
  return JSON.parse(m![1]);
}

describe("flags always arrive", () => {
  it("the prompt is named start, not autopilot (Gemini CLI renames both of two commands sharing a name)", async () => {
    const names = (await s.srv.client.listPrompts()).prompts.map((p) => p.name);
    expect(names).toEqual(["start"]);
    expect(prompt.arguments!.map((a) => a.name)).toEqual(["spec", "flags", "flag2", "flag3", "flag4"]);
  });

  it("Claude Code's word-by-word mapping: the second flag is not dropped", async () => {
    const args = claudeCodeArgs(`${SCANNER_PATH} --fast --review-plans`);
    expect(args).toEqual({ spec: SCANNER_PATH, flags: "--fast", flag2: "--review-plans" });
    expect(startCallIn(await promptText(args))).toEqual({ spec: SCANNER_PATH, flags: "--fast --review-plans" });
  });

  it("Claude Code: a spec path with a space comes back whole", async () => {
    const args = claudeCodeArgs("docs/my spec.md --thorough --review-plans");
    expect(startCallIn(await promptText(args))).toEqual({
      spec: "docs/my spec.md",
      flags: "--thorough --review-plans",
    });
  });

  it("Gemini CLI's whole line in spec: flags are read out of it", async () => {
    const args = geminiArgs(`${SCANNER_PATH} --fast --review-plans`);
    expect(args).toEqual({ spec: `${SCANNER_PATH} --fast --review-plans` });
    expect(startCallIn(await promptText(args))).toEqual({ spec: SCANNER_PATH, flags: "--fast --review-plans" });
    // Quoted on the command line: Gemini removes the quotes, the words still make the path.
    const quoted = geminiArgs(`"docs/my spec.md" --review-plans`);
    expect(startCallIn(await promptText(quoted))).toEqual({ spec: "docs/my spec.md", flags: "--review-plans" });
  });

  it("flags before the spec, and comma-separated, count too", async () => {
    expect(startCallIn(await promptText({ spec: `--review-plans ${SCANNER_PATH}`, flags: "--fast" }))).toEqual({
      spec: SCANNER_PATH,
      flags: "--review-plans --fast",
    });
    expect(startCallIn(await promptText({ spec: SCANNER_PATH, flags: "--fast,--review-plans" }))).toEqual({
      spec: SCANNER_PATH,
      flags: "--fast --review-plans",
    });
  });

  it("an unknown flag in the prompt is refused with a suggestion", async () => {
    await expect(promptText(geminiArgs(`${SCANNER_PATH} --fsat`))).rejects.toThrow(
      /Unknown flag --fsat \(did you mean --fast\?\)/,
    );
    await expect(promptText(claudeCodeArgs(`${SCANNER_PATH} --fast --review`))).rejects.toThrow(
      /did you mean --review-plans/,
    );
    await expect(promptText({ spec: "--fast" })).rejects.toThrow(/No spec path/);
  });

  it("autopilot_start with the whole line as spec starts with every flag", async () => {
    const out = await call(s.srv.client, "autopilot_start", { spec: `${SCANNER_PATH} --fast --review-plans` });
    expect(out.error, out.text).toBeUndefined();
    expect(out.step).toMatchObject({ session: SCANNER_SLUG, rigor: "fast", reviewPlans: true });
    const state = await s.state();
    expect(state).toMatchObject({ specPath: SCANNER_PATH, rigorLevel: "fast", reviewPlans: true });
  });

  it("autopilot_start: unknown flags and conflicts are clear errors with a next step", async () => {
    const typo = await call(s.srv.client, "autopilot_start", { spec: "docs/my spec.md", flags: "--thorogh" });
    expect(typo.error).toMatchObject({
      code: "bad_input",
      message: expect.stringContaining("did you mean --thorough?"),
    });
    expect(typo.error!.todo).toMatch(/call again/);
    const bare = await call(s.srv.client, "autopilot_start", { spec: "docs/my spec.md", flags: "fast" });
    expect(bare.error?.message).toContain("Unknown flag fast (did you mean --fast?)");
    const both = await call(s.srv.client, "autopilot_start", { spec: "docs/my spec.md --fast", flags: "--thorough" });
    expect(both.error).toMatchObject({ code: "flag_conflict" });
    // Nothing was started by the refused calls.
    const status = await call(s.srv.client, "autopilot_status", {});
    expect(
      (status.result.structuredContent as { sessions: Array<{ session: string }> }).sessions.map((x) => x.session),
    ).toEqual([SCANNER_SLUG]);
  });

  it("a spec path with spaces works as it is, quoted, or followed by flags", async () => {
    const plain = await call(s.srv.client, "autopilot_start", { spec: `"docs/my spec.md" --thorough` });
    expect(plain.error, plain.text).toBeUndefined();
    expect(plain.step).toMatchObject({ session: "my spec", rigor: "thorough", reviewPlans: false });
    // The same session again, named exactly: a resume, which says the new flag is ignored.
    const again = await call(s.srv.client, "autopilot_start", { spec: "docs/my spec.md", flags: "--review-plans" });
    expect(again.step?.session).toBe("my spec");
    expect(again.step?.report).toContain("Flags --review-plans ignored");
  });
});
