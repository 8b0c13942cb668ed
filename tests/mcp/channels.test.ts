// Who answered each gate, end to end over stdio: a client without elicitation answers through
// autopilot_decide, and the state file, the decision log (json and Markdown), the session summary
// and the PR text all say the host model answered, and that no person may have seen the question.
import { afterEach, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { renderMarkdown } from "../../src/log/index.js";
import { agreeable, call, openSession, playHost, specWith, type Session } from "../helpers/mcp-client.js";

const SPEC_PATH = "docs/specs/feature.md";
const SLUG = "specs--feature";
const HOST = "answered by the host model; no person may have seen it";

let s: Session | undefined;
afterEach(async () => {
  await s?.dispose();
  s = undefined;
});

describe("decision channels over MCP", () => {
  it("a host that answers through autopilot_decide is recorded as host everywhere the decisions are shown", async () => {
    s = await openSession({
      spec: specWith([
        { name: "Parser", complexity: "low" },
        { name: "Printer", complexity: "low" },
      ]),
      specPath: SPEC_PATH,
    });
    const end = await playHost(
      s.srv.client,
      s.root,
      await s.start("--review-plans"),
      new ScriptedRunner({}),
      agreeable,
    );
    expect(end.state).toBe("DONE");
    const state = await s.state(SLUG);
    const answered = state.decisions.filter((d: any) => d.answer !== undefined);
    // Two plan approvals and one "continue?" between the phases.
    expect(answered.map((d: any) => [d.decision, d.by])).toEqual([
      ["approved_plan", "host"],
      ["continued", "host"],
      ["approved_plan", "host"],
    ]);
    expect(state.decisions.some((d: any) => d.by === "human")).toBe(false);

    const log = JSON.parse((await call(s.srv.client, "autopilot_decisions", { session: SLUG })).text);
    expect(log.logVersion).toBe(2);
    expect(log.totals.decisions).toMatchObject({ total: 3, host: 3, elicited: 0, terminal: 0 });
    expect(log.decisions.every((d: any) => d.who === "host" && d.byPerson === false && d.whoText === HOST)).toBe(true);
    const md = renderMarkdown(log);
    expect(md).toContain(`| Plan approved after review | host: ${HOST} |`);
    expect(md).toContain("3 decisions (3 host)");

    const summary = await readFile(path.join(s.root, ".harness/sessions", SLUG, "summary.md"), "utf8");
    expect(summary).toContain("3 by the host model (no person may have seen it)");
    expect(state.pullRequest.body).toContain("## Assumptions and decisions\n\nWho answered each gate:");
    expect(state.pullRequest.body).toContain(`- Phase 1: Plan approved after review "yes" — ${HOST}`);
    expect(state.pullRequest.body).toContain(`- Phase 2: Plan approved after review "yes" — ${HOST}`);
  });
});
