// What a session cost and a budget that pauses it, over MCP as a chat client drives it: the built
// server on stdio, the scripted runner doing the persona work, and reports that carry the usage
// block Claude Code's subagent tool result ends with (as text and as an object). The cost shows in
// `autopilot status`, autopilot_status, the decision log (HTML checked in headless Chromium) and
// the PR text; a session whose reports carry no usage shows "unknown", never 0.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Step } from "../../src/protocol/step.js";
import { formatCount } from "../../src/session/usage.js";
import {
  agreeable,
  call,
  MAIN_JS,
  openSession,
  playHost,
  specWith,
  stepCall,
  taskFor,
  type Session,
} from "../helpers/mcp-client.js";

const SPEC = specWith([
  { name: "Core Scanner", complexity: "low" },
  { name: "Rule Engine", complexity: "low" },
]);
const SLUG = "changes--security-scanner--proposal";
const PER_RUN = 10_000;
/** Claude Code's subagent usage block, alternately as its text and as an object. */
let n = 0;
const usageBlock = () =>
  n++ % 2 === 0
    ? `<usage>total_tokens: ${PER_RUN}\ntool_uses: 4\nduration_ms: 30000</usage>`
    : { total_tokens: PER_RUN, tool_uses: 4, duration_ms: 30000 };

const CHROMIUM = process.env.AUTOPILOT_CHROMIUM ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.warn(
    `[skip] Chromium checks: no Chromium at ${CHROMIUM} (apt-get install chromium, or set AUTOPILOT_CHROMIUM)`,
  );

function cli(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [MAIN_JS, ...args], { cwd, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let paid: Session;
let unpaid: Session;
let outDir: string;
let browser: Browser | undefined;

beforeAll(async () => {
  paid = await openSession({ spec: SPEC });
  unpaid = await openSession({ spec: SPEC });
  const a = await playHost(paid.srv.client, paid.root, await paid.start(), new ScriptedRunner({}), agreeable, {
    usage: usageBlock,
  });
  const b = await playHost(unpaid.srv.client, unpaid.root, await unpaid.start(), new ScriptedRunner({}), agreeable);
  expect(a.next.kind).toBe("done");
  expect(b.next.kind).toBe("done");
  outDir = await mkdtemp(path.join(tmpdir(), "autopilot-cost-"));
  if (haveChromium) {
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
      headless: true,
    });
  }
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await paid?.dispose();
  await unpaid?.dispose();
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

/** The phase table's cost column, row by row, as Chromium shows it. */
async function costCells(root: string, name: string) {
  const file = path.join(outDir, `${name}.html`);
  const r = cli(root, "log", SLUG, "--format", "html", "--out", file);
  expect(r.code).toBe(0);
  const p = await browser!.newPage({ viewport: { width: 1360, height: 900 } });
  const problems: string[] = [];
  p.on("pageerror", (e) => problems.push(e.message));
  p.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  await p.goto(pathToFileURL(file).href, { waitUntil: "load" });
  const table = p.locator("table.data", { has: p.locator("caption", { hasText: "Per-phase history" }) });
  const heads = await table.locator("thead th").allInnerTexts();
  const costCol = heads.map((h) => h.toLowerCase()).indexOf("cost");
  const rows = await table.locator("tbody tr").evaluateAll((trs) =>
    trs.map((tr) => ({
      head: tr.querySelector("th")?.textContent?.trim() ?? "",
      cost: tr.querySelector("td.cost")?.textContent?.trim() ?? "",
    })),
  );
  const visible = await table.locator("td.cost").first().isVisible();
  const stat = await p.locator('[data-stat="cost"] .stat-value').innerText();
  await p.close();
  return { costCol, rows, visible, stat, problems };
}

describe("a session whose reports carry usage", () => {
  it("keeps per-phase, per-persona and session totals in the state, counting every report", async () => {
    const state = await paid.state();
    const u = state.usage;
    const dispatches = u.total.dispatches;
    expect(dispatches).toBeGreaterThanOrEqual(9); // 2 phases × 4 personas + the final review
    expect(u.total).toMatchObject({
      reported: dispatches,
      tokens: dispatches * PER_RUN,
      toolUses: dispatches * 4,
      durationMs: dispatches * 30000,
      costUsd: null,
    });
    expect(u.byPhase["1"]).toMatchObject({ name: "Core Scanner", dispatches: 4, tokens: 4 * PER_RUN });
    expect(u.byPhase["2"]).toMatchObject({ name: "Rule Engine", tokens: u.byPhase["2"].dispatches * PER_RUN });
    expect(u.byPhase.final).toMatchObject({ name: "final review" });
    const phaseSum = Object.values(u.byPhase as Record<string, { tokens: number }>).reduce((a, p) => a + p.tokens, 0);
    expect(phaseSum).toBe(u.total.tokens);
    expect(u.byPersona["harness-planner"]).toMatchObject({ dispatches: 2, tokens: 2 * PER_RUN });
  });

  it("shows the cost in `autopilot status`, per phase and in total, and in autopilot_status", async () => {
    const state = await paid.state();
    const total = `${formatCount(state.usage.total.tokens)} tokens`;
    const r = cli(paid.root, "status", SLUG);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`cost: ${total}\n`);
    expect(r.stdout).toContain(`  phase 1: Core Scanner: ${formatCount(4 * PER_RUN)} tokens\n`);
    expect(r.stdout).toMatch(/ {2}final review: \d+k? tokens\n/);
    expect(r.stdout).toContain(`  harness-planner: ${formatCount(2 * PER_RUN)} tokens\n`);
    const list = cli(paid.root, "status");
    expect(list.stdout).toContain(`· cost ${total} ·`);
    const tool = await call(paid.srv.client, "autopilot_status", { session: SLUG });
    expect(tool.result.structuredContent).toMatchObject({
      cost: total,
      budget: null,
      usage: { total: { tokens: state.usage.total.tokens } },
    });
  });

  it.skipIf(!haveChromium)(
    "shows a cost column per phase and the session total in the HTML log (Chromium)",
    async () => {
      const state = await paid.state();
      const got = await costCells(paid.root, "paid");
      expect(got.problems).toEqual([]);
      expect(got.costCol).toBeGreaterThan(0);
      expect(got.visible).toBe(true);
      expect(got.rows).toEqual([
        { head: "1. Core Scanner", cost: `${formatCount(state.usage.byPhase["1"].tokens)} tokens` },
        { head: "2. Rule Engine", cost: `${formatCount(state.usage.byPhase["2"].tokens)} tokens` },
        { head: "Final review", cost: `${formatCount(state.usage.byPhase.final.tokens)} tokens` },
        { head: "Session total", cost: `${formatCount(state.usage.total.tokens)} tokens` },
      ]);
      expect(got.stat).toBe(`${formatCount(state.usage.total.tokens)} tokens`);
    },
  );

  it("puts the cost in the markdown and JSON logs and in the PR text", async () => {
    const state = await paid.state();
    const total = `${formatCount(state.usage.total.tokens)} tokens`;
    const md = cli(paid.root, "log", SLUG);
    expect(md.stdout).toContain(`Cost: ${total}`);
    expect(md.stdout).toMatch(/\| Commits \| Cost \|/);
    const json = JSON.parse(cli(paid.root, "log", SLUG, "--format", "json").stdout);
    expect(json.cost.display).toBe(total);
    expect(json.phases[0].cost).toMatchObject({
      display: `${formatCount(4 * PER_RUN)} tokens`,
      usage: { tokens: 4 * PER_RUN },
    });
    expect(state.pullRequest.body).toContain(`## Cost\n\nPersona runs: ${total}.`);
    expect(state.pullRequest.body).toContain(`- Phase 1: Core Scanner: ${formatCount(4 * PER_RUN)} tokens`);
  });
});

describe("a session whose reports carry no usage", () => {
  it("counts the dispatches but shows the cost as unknown everywhere, never 0", async () => {
    const state = await unpaid.state();
    expect(state.usage.total).toMatchObject({ reported: 0, tokens: null, costUsd: null });
    expect(state.usage.total.dispatches).toBeGreaterThanOrEqual(9);
    const r = cli(unpaid.root, "status", SLUG);
    expect(r.stdout).toContain("cost: unknown\n");
    expect(r.stdout).toContain("  phase 1: Core Scanner: unknown\n");
    expect(r.stdout).not.toMatch(/\b0 tokens/);
    const tool = await call(unpaid.srv.client, "autopilot_status", { session: SLUG });
    expect(tool.result.structuredContent).toMatchObject({ cost: "unknown" });
    expect(state.pullRequest.body).toMatch(/## Cost\n\nCost unknown: \d+ persona runs reported, none with its usage/);
    if (haveChromium) {
      const got = await costCells(unpaid.root, "unpaid");
      expect(got.problems).toEqual([]);
      expect(got.rows.map((x) => x.cost)).toEqual(["unknown", "unknown", "unknown", "unknown"]);
      expect(got.stat).toBe("unknown");
    }
  });

  it("refuses a usage block that is not counts, and records nothing", async () => {
    const s = await openSession({ spec: SPEC });
    try {
      const first = await s.start();
      const { result } = await new ScriptedRunner({}).run(taskFor(s.root, first));
      const bad = await call(s.srv.client, "autopilot_report", {
        session: SLUG,
        stepId: first.stepId,
        result,
        usage: { total_tokens: "lots" },
      });
      expect(bad.error?.code).toBe("bad_input");
      expect(bad.error?.message).toMatch(/usage\.total_tokens must be a non-negative number/);
      expect((await s.state()).stepId).toBe(first.stepId);
      expect((await s.state()).usage).toBeUndefined();
    } finally {
      await s.dispose();
    }
  });
});

describe("a budget over MCP", () => {
  /** Play until the budget gate asks; machine asks are answered agreeably. */
  async function untilBudgetAsk(s: Session, from: Step): Promise<Step> {
    return playHost(s.srv.client, s.root, from, new ScriptedRunner({}), agreeable, {
      usage: () => ({ total_tokens: PER_RUN }),
      until: (x) => x.next.kind === "ask" && x.next.options.includes("continue once"),
    });
  }

  it("pauses before the next dispatch once spent; continue once, raise budget, both recorded as decisions", async () => {
    const s = await openSession({ spec: SPEC });
    try {
      const trace = { steps: [] as Step[] };
      const first = await s.start("--budget 25k");
      expect((await s.state()).budget).toEqual({ tokens: 25_000, usd: null, continueOnceAt: null });
      const ask = await playHost(s.srv.client, s.root, first, new ScriptedRunner({}), agreeable, {
        usage: () => ({ total_tokens: PER_RUN }),
        until: (x) => x.next.kind === "ask" && x.next.options.includes("continue once"),
        trace,
      });
      // Three reports of 10k reach 25k; the fourth dispatch is asked about instead.
      expect((await s.state()).usage.total).toMatchObject({ dispatches: 3, tokens: 30_000 });
      expect(trace.steps.filter((x) => x.next.kind === "dispatch")).toHaveLength(3);
      expect(ask.next).toMatchObject({
        kind: "ask",
        options: ["raise budget", "continue once", "stop"],
        question: expect.stringContaining("budget is spent (30k tokens spent of a 25k-token budget)"),
      });
      expect(ask.state).toBe("REVIEW");
      expect((await call(s.srv.client, "autopilot_status", { session: SLUG })).result.structuredContent).toMatchObject({
        waitingOn: "human",
        budget: "25k tokens",
        budgetSpent: "30k tokens spent of a 25k-token budget",
      });

      // continue once: exactly one more persona run, then the gate asks again.
      let step = await stepCall(s.srv.client, "autopilot_decide", {
        session: SLUG,
        stepId: ask.stepId,
        answer: "continue once",
      });
      expect(step.next).toMatchObject({ kind: "dispatch", persona: "harness-code-reviewer" });
      step = await untilBudgetAsk(s, step);
      expect((await s.state()).usage.total.dispatches).toBe(4);

      // raise budget: the amount in the reason.
      step = await stepCall(s.srv.client, "autopilot_decide", {
        session: SLUG,
        stepId: step.stepId,
        answer: "raise budget",
        rationale: "to 200k, the phase is nearly done",
      });
      expect(step.next.kind).not.toBe("ask");
      expect(step.report).toContain("Budget raised from 25k tokens to 200k tokens");
      const state = await s.state();
      expect(state.budget).toEqual({ tokens: 200_000, usd: null, continueOnceAt: null });
      const budgetDecisions = state.decisions.filter((d: { decision: string }) => /budget/.test(d.decision));
      expect(budgetDecisions).toEqual([
        expect.objectContaining({ decision: "budget_continue_once", answer: "continue once", by: "host", phase: 0 }),
        expect.objectContaining({
          decision: "raised_budget",
          answer: "raise budget",
          by: "host",
          rationale: "to 200k, the phase is nearly done",
        }),
      ]);
      const log = JSON.parse(cli(s.root, "log", SLUG, "--format", "json").stdout);
      expect(
        log.decisions.filter((d: { kind: string }) => d.kind === "budget").map((d: { what: string }) => d.what),
      ).toEqual(["Over budget: one more persona run", "Budget raised"]);
      expect(log.cost.budget).toMatchObject({ display: "200k tokens", spent: null });

      // The rest of the session fits the raised budget.
      const end = await playHost(s.srv.client, s.root, step, new ScriptedRunner({}), agreeable, {
        usage: () => ({ total_tokens: PER_RUN }),
      });
      expect(end.next.kind).toBe("done");
    } finally {
      await s.dispose();
    }
  });

  it("a budget from .harness/config.json; stop waits, and a resume with a larger --budget goes on", async () => {
    const s = await openSession({ spec: SPEC });
    try {
      await writeFile(
        path.join(s.root, ".harness/config.json"),
        JSON.stringify({ validation: { commands: ['node -e "process.exit(0)"'] }, budget: "$0.05" }) + "\n",
      );
      const ask = await playHost(s.srv.client, s.root, await s.start(), new ScriptedRunner({}), agreeable, {
        usage: () => ({ total_tokens: 1000, total_cost_usd: 0.02 }),
        until: (x) => x.next.kind === "ask" && x.next.options.includes("continue once"),
      });
      expect((await s.state()).usage.total).toMatchObject({ dispatches: 3 });
      expect(ask.next).toMatchObject({ question: expect.stringContaining("$0.06 spent of a $0.05 budget") });
      const stopped = await stepCall(s.srv.client, "autopilot_decide", {
        session: SLUG,
        stepId: ask.stepId,
        answer: "stop",
        rationale: "enough for today",
      });
      expect(stopped.next.kind).toBe("wait");
      const state = await s.state();
      expect(state.stopped).toBe(true);
      expect(state.decisions.at(-1)).toMatchObject({
        decision: "stopped_budget",
        answer: "stop",
        by: "host",
        rationale: "enough for today",
      });
      // Resuming without a new budget asks again; with a larger one it dispatches.
      const again = await s.start();
      expect(again.next).toMatchObject({ kind: "ask", options: ["raise budget", "continue once", "stop"] });
      const resumed = await s.start("--budget $1");
      expect(resumed.next.kind).toBe("dispatch");
      expect(resumed.report).toContain("Budget set to $1.00.");
    } finally {
      await s.dispose();
    }
  });

  it("a bad --budget is a bad_input error that names the forms", async () => {
    const s = await openSession({ spec: SPEC });
    try {
      const r = await call(s.srv.client, "autopilot_start", {
        spec: "docs/changes/security-scanner/proposal.md",
        flags: "--budget lots",
      });
      expect(r.error?.code).toBe("bad_input");
      expect(r.error?.message).toMatch(/"lots" is not a budget\. Give tokens \(200k, 1\.5M, 50000\) or US dollars/);
      expect(existsSync(path.join(s.root, ".harness/sessions", SLUG, "autopilot-state.json"))).toBe(false);
    } finally {
      await s.dispose();
    }
  });
});
