// The three renderings, in Node: the state diagram comes from the machine definition, every piece
// of user text is escaped, the page loads nothing from anywhere.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMachine } from "xstate";
import { finishedSession, SLUG, type FinishedSession } from "./session-helper.js";
import { HOSTILE_NAME, hostileState, midPhaseState } from "./fixtures.js";
import { buildDecisionLog, renderHtml, renderMarkdown, stateGraph, type DecisionLog } from "../../src/log/index.js";
import { renderStateDiagram } from "../../src/log/diagram.js";
import { autopilotMachine } from "../../machines/autopilot.machine.js";
import { STATE_NAMES, type AutopilotState } from "../../src/session/schema.js";
import { SessionStore } from "../../src/session/store.js";
import { parseMarkdown, plainText } from "../../src/markdown/mdast.js";

/** Every node of an mdast tree, depth first. */
type Node = { type: string; value?: unknown; children?: unknown[] };
function visit(n: Node, f: (n: Node) => unknown): void {
  f(n);
  for (const c of (n.children ?? []) as Node[]) visit(c, f);
}

let done: FinishedSession;
let state: AutopilotState;
let log: DecisionLog;

beforeAll(async () => {
  done = await finishedSession();
  state = (await new SessionStore(done.repo.dir).read(SLUG)).state;
  log = buildDecisionLog(state, SLUG);
});
afterAll(async () => done?.repo.cleanup());

describe("the state graph is read from the machine definition", () => {
  const g = stateGraph(autopilotMachine);
  const edge = (from: string, to: string) => g.edges.find((e) => e.from === from && e.to === to);

  it("has the machine's top-level states in definition order, the initial one and the final one", () => {
    expect(g.nodes.map((n) => n.id)).toEqual([...STATE_NAMES]);
    expect(g.nodes.filter((n) => n.initial).map((n) => n.id)).toEqual(["INIT"]);
    expect(g.nodes.filter((n) => n.final).map((n) => n.id)).toEqual(["DONE"]);
    expect(g.nodes.find((n) => n.id === "EXECUTE")!.children).toEqual([
      "running",
      "waveOpen",
      "wave",
      "waveMerge",
      "waveCheckpoint",
      "waveTask",
      "fixing",
      "checkpoint",
      "exhausted",
      "personaFailed",
      "commitFix",
      "commitBlocked",
      "budgetRunning",
      "budgetFixing",
      "budgetCommitFix",
      "budgetWave",
      "budgetWaveRetry",
    ]);
  });

  it("maps nested sources and targets to their top-level states", () => {
    // ASSESS targets PLAN.planning and PLAN.awaitingInteractivePlan: one edge to PLAN.
    expect(edge("ASSESS", "PLAN")!.details).toHaveLength(2);
    expect(edge("ASSESS", "APPROVE_PLAN")!.labels).toEqual(["plan already exists"]);
    // The executor's plan_defect (serial, or in a wave), and the answer "revise plan" at EXECUTE.exhausted.
    expect(edge("EXECUTE", "PLAN")!.labels).toEqual([
      "plan defect within budget",
      "wave sends plan back",
      "“revise plan”",
    ]);
    expect(edge("VERIFY", "EXECUTE")!.labels).toEqual(["“fix” / “fix these”"]);
    expect(edge("REVIEW", "EXECUTE")!.labels).toEqual([
      "“fix” / “fix blocking and warnings” / “fix these”",
      "“fix warnings” / “fix these”",
    ]);
    expect(edge("REVIEW", "PHASE_COMPLETE")!.labels).toEqual(["no blocking findings", "“override”", "“move on”"]);
    expect(edge("PHASE_COMPLETE", "FINAL_REVIEW")!.labels).toEqual(["no more phases"]);
    expect(edge("PHASE_COMPLETE", "ASSESS")!.labels).toEqual(["“yes”"]);
    expect(edge("APPROVE_PLAN", "PHASE_COMPLETE")!.labels).toEqual(["“skip phase”"]);
    // Nothing skips from PLAN straight to EXECUTE: the plan gate cannot be bypassed.
    expect(edge("PLAN", "EXECUTE")).toBeUndefined();
    expect(g.edges.every((e) => e.from !== e.to)).toBe(true);
    // Retries and checkpoints stay inside EXECUTE.
    expect(g.nodes.find((n) => n.id === "EXECUTE")!.internal.some((t) => t.includes("retryBudgetLeft"))).toBe(true);
    // A plan edited after its approval sends EXECUTE, VERIFY and REVIEW back to the plan gate.
    for (const from of ["EXECUTE", "VERIFY", "REVIEW"])
      expect(edge(from, "APPROVE_PLAN")!.labels).toEqual(["PLAN_CHANGED"]);
    // "revise" with notes sends the plan back to the planner.
    expect(edge("APPROVE_PLAN", "PLAN")!.labels).toEqual(["“reviseWithNotes”"]);
    expect(g.edges).toHaveLength(19);
  });

  it("follows the definition it is given, not a drawing", () => {
    const tiny = createMachine({
      id: "tiny",
      initial: "A",
      states: {
        A: { on: { GO: "B.inner" } },
        B: { initial: "inner", states: { inner: { on: { BACK: "#tiny.A", STAY: "other" } }, other: {} } },
        C: { type: "final" },
      },
    });
    const t = stateGraph(tiny);
    expect(t.nodes.map((n) => [n.id, n.initial, n.final])).toEqual([
      ["A", true, false],
      ["B", false, false],
      ["C", false, true],
    ]);
    expect(t.edges.map((e) => [e.from, e.to, e.labels])).toEqual([
      ["A", "B", ["GO"]],
      ["B", "A", ["BACK"]],
    ]);
    const svg = renderStateDiagram(t, { current: "B", stage: "inner" });
    expect(svg.match(/data-state="/g)).toHaveLength(3);
    expect(svg).toContain('data-state="B" data-current="true"');
  });
});

describe("HTML", () => {
  it("is one self-contained page: no script, no external resource, a CSP that forbids both", () => {
    const html = renderHtml(log);
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\s(src|href)\s*=/i);
    expect(html).not.toMatch(/@import|url\((?!#)/i); // url(#marker) is a reference inside the page
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
    // The only URL is the SVG namespace, which is a name, not a request.
    expect(html.match(/https?:\/\/[^\s"'<>]+/g)).toEqual(["http://www.w3.org/2000/svg"]);
  });

  it("has the header, the timeline, the diagram with the current state, and a signal table per plan decision", () => {
    const html = renderHtml(log);
    expect(html).toContain("<h1>Security Scanner</h1>");
    expect(html).toContain("Done: 3 of 3 phases complete; final review passed.");
    expect(html.match(/<li class="seg /g)).toHaveLength(4); // three phases and the final review
    expect(html).toContain("↻ 2 retries");
    expect(html).toContain("⚑ review overridden");
    expect(html.match(/class="sd-node[^"]*" data-state="/g)).toHaveLength(10);
    expect(html).toMatch(/class="sd-node current[^"]*" data-state="DONE" data-current="true"/);
    expect(html.match(/<table class="signals">/g)).toHaveLength(3);
    expect(html).toContain('<span class="fire">● fired</span>');
    for (const h of ["Timeline", "State machine", "Plan approvals", "Every decision", "Final review", "Commits"])
      expect(html).toMatch(new RegExp(`<h2 id="[a-z-]+">${h}</h2>`));
  });

  it("marks the current state and its stage mid-session", () => {
    const html = renderHtml(buildDecisionLog(midPhaseState(state), SLUG));
    expect(html).toMatch(/data-state="EXECUTE" data-current="true"/);
    expect(html).toContain("▼ current state");
    expect(html).toContain('<text class="sd-stage"');
    expect(html).toContain('class="seg o-in-progress"');
    expect(html).toContain('class="seg o-pending"');
    expect(html.match(/data-current="true"/g)).toHaveLength(1);
  });

  it("renders hostile phase names, rationales and findings as text", () => {
    const html = renderHtml(buildDecisionLog(hostileState(state), SLUG));
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img|<iframe|<svg onload|<a href|<b>/i);
    // Real tags (escaped text has no "<") carry no fetching or event attributes.
    const tags = html.match(/<[a-z][^>]*>/gi)!;
    expect(tags.filter((t) => /\s(src|href|on[a-z]+)\s*=/i.test(t))).toEqual([]);
    expect(html).toContain("&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;");
    expect(html).toContain("&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;");
  });
});

describe("Markdown", () => {
  it("is a report with the decisions, plan signals, phases, final review and commits as tables", () => {
    const md = renderMarkdown(log);
    expect(md.split("\n")[0]).toBe("# Decision log: Security Scanner");
    for (const h of [
      "## Decisions",
      "## Plan approvals: the signals behind each",
      "## Phases",
      "## Final review",
      "## Commits",
    ])
      expect(md).toContain(h);
    expect(md).toContain(
      '| 3 | 2026-03-19T10:02:13.000Z | 2. Rule Engine | APPROVE_PLAN | Plan approved after review | terminal | plannerConcerns | yes | the user\'s words (at a terminal): "Concerns are noted; the rule syntax is settled in task 1." |',
    );
    expect(md).toContain(
      '| 3 | 2. Rule Engine | off | medium | none | 1: rule syntax undecided ✱ | 5 | none | paused → terminal answered "yes" (approved) |',
    );
    expect(md).toContain("| 2 | Rule Engine | medium | complete | 5 | 2 | pass | 0 blocking, 0 warning, 1 note |");
    expect(md).toContain("Status: **passed** · 0 blocking, 1 warning, 0 note · 1 fix round");
  });

  it("keeps hostile text inside its cell and inert, and shows it as text, not as HTML entities", () => {
    const md = renderMarkdown(buildDecisionLog(hostileState(state), SLUG));
    // A Markdown parser finds no HTML in it, only the text: what a renderer would show.
    const tree = parseMarkdown(md);
    const html: string[] = [];
    visit(tree, (n) => n.type === "html" && html.push(String(n.value)));
    expect(html).toEqual([]);
    expect(plainText(tree)).toContain('<script>document.title="pwned"</script><img src=');
    expect(plainText(tree)).toContain("</td></tr></table><script>alert(1)</script> it's <b>fine</b>");
    // A reader of the plain file sees the characters, escaped only where HTML could start.
    expect(md).toContain('\\<script>document.title="pwned"\\</script>');
    expect(md).not.toMatch(/&lt;|&gt;|&amp;/);
    // A signature reads as written, in a code span or not.
    const typed = structuredClone(state);
    for (const d of typed.decisions) if (d.rationale) d.rationale = "count: () => number & `<T>() => T` stays <T>";
    const shown = renderMarkdown(buildDecisionLog(typed, SLUG));
    expect(shown).toContain("count: () => number & `<T>() => T` stays \\<T>");
    expect(plainText(parseMarkdown(shown))).toContain("count: () => number & <T>() => T stays <T>");
    // Every table row still has the header's number of cells: pipes in text are escaped.
    for (const block of md.split("\n\n").filter((b) => b.startsWith("| "))) {
      const rows = block.split("\n").filter(Boolean);
      const cells = (r: string) => r.replace(/\\\|/g, "").split("|").length;
      for (const r of rows) expect(cells(r), r).toBe(cells(rows[0]));
    }
    expect(md).toContain(HOSTILE_NAME.includes("|") ? "\\| pipes" : "pipes");
  });
});
