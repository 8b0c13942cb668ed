// The HTML decision log in real headless Chromium (Debian's `chromium`): it renders with no
// console errors and no requests beyond its own file, the key elements are visible, hostile text
// stays text, and screenshots are written for a person to look at.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { finishedSession, SLUG, type FinishedSession } from "./session-helper.js";
import { HOSTILE_NAME, hostileState, midPhaseState } from "./fixtures.js";
import { buildDecisionLog, renderHtml } from "../../src/log/index.js";
import { SessionStore } from "../../src/session/store.js";
import type { AutopilotState } from "../../src/session/schema.js";

const CHROMIUM = process.env.AUTOPILOT_CHROMIUM ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.warn(
    `[skip] browser tests: no Chromium at ${CHROMIUM} (apt-get install chromium, or set AUTOPILOT_CHROMIUM)`,
  );

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Screenshots land here; the path is printed so a person can open them. */
export const SHOT_DIR = path.join(tmpdir(), "autopilot-log-screenshots");

let browser: Browser;
let done: FinishedSession;
let state: AutopilotState;
let dir: string;

async function page(html: string, name: string, viewport = { width: 1360, height: 900 }) {
  const file = path.join(dir, `${name}.html`);
  await writeFile(file, html);
  const p: Page = await browser.newPage({ viewport });
  const problems: string[] = [];
  const requests: string[] = [];
  p.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console.${m.type()}: ${m.text()}`);
  });
  p.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  p.on("requestfailed", (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText ?? ""}`));
  p.on("request", (r) => requests.push(r.url()));
  p.on("dialog", (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  const url = pathToFileURL(file).href;
  const res = await p.goto(url, { waitUntil: "load" });
  expect(res?.ok() ?? true).toBe(true);
  return { p, problems, requests, url };
}

describe.skipIf(!haveChromium)("the HTML decision log in headless Chromium", () => {
  beforeAll(async () => {
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
    done = await finishedSession();
    state = (await new SessionStore(done.repo.dir).read(SLUG)).state;
    dir = await mkdtemp(path.join(tmpdir(), "autopilot-log-html-"));
    await mkdir(SHOT_DIR, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await done?.repo.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("a finished session: no errors, nothing fetched, timeline, diagram with DONE marked, signal tables", async () => {
    const { p, problems, requests, url } = await page(renderHtml(buildDecisionLog(state, SLUG)), "finished");
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    expect(await p.title()).toBe("Decision log: Security Scanner");
    await expect(p.getByRole("heading", { level: 1, name: "Security Scanner" }).isVisible()).resolves.toBe(true);

    // Timeline: three phases and the final review, widths follow the time each took.
    const segs = p.locator("ol.timeline > li.seg");
    expect(await segs.count()).toBe(4);
    for (let i = 0; i < 4; i++) expect(await segs.nth(i).isVisible()).toBe(true);
    const boxes = await Promise.all([0, 1, 2, 3].map((i) => segs.nth(i).boundingBox()));
    expect(boxes.every((b) => b && b.width > 100 && b.height > 40)).toBe(true);
    expect(boxes[1]!.width).toBeGreaterThan(boxes[0]!.width); // 63 s against 56 s
    await expect(p.locator("li.seg", { hasText: "Rule Engine" }).locator(".mark-retry").innerText()).resolves.toBe(
      "↻ 2 retries",
    );
    await expect(
      p.locator("li.seg", { hasText: "CLI Integration" }).locator(".mark-override").isVisible(),
    ).resolves.toBe(true);

    // The state diagram: an SVG with the ten states, the current one marked and styled.
    const svg = p.locator("svg.state-diagram");
    expect(await svg.isVisible()).toBe(true);
    const svgBox = (await svg.boundingBox())!;
    expect(svgBox.width).toBeGreaterThan(900);
    expect(await p.locator("svg.state-diagram g.sd-node").count()).toBe(10);
    const current = p.locator('svg.state-diagram g[data-current="true"]');
    expect(await current.count()).toBe(1);
    expect(await current.getAttribute("data-state")).toBe("DONE");
    expect(await current.isVisible()).toBe(true);
    const fill = await current.locator("rect.sd-box").evaluate((el) => getComputedStyle(el).fill);
    expect(fill).toBe("rgb(29, 78, 216)");
    // Every state box sits inside the drawing, none overlapping the next.
    const nodeBoxes = await p
      .locator("svg.state-diagram rect.sd-box")
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ x: r.x, w: r.width })));
    for (let i = 1; i < nodeBoxes.length; i++)
      expect(nodeBoxes[i].x).toBeGreaterThan(nodeBoxes[i - 1].x + nodeBoxes[i - 1].w);
    expect(nodeBoxes.at(-1)!.x + nodeBoxes.at(-1)!.w).toBeLessThanOrEqual(svgBox.x + svgBox.width + 1);

    // A signal table per plan decision; the paused one shows the concern that fired.
    const tables = p.locator("table.signals");
    expect(await tables.count()).toBe(3);
    const paused = p.locator("article.gate", { hasText: "Rule Engine" });
    expect(await paused.locator("table.signals").isVisible()).toBe(true);
    await expect(paused.locator(".verdict").innerText()).resolves.toContain('paused → terminal answered "yes"');
    const fired = paused.locator("tr.fired");
    expect(await fired.count()).toBe(1);
    await expect(fired.locator("th").innerText()).resolves.toContain("Planner concerns");
    await expect(fired.locator(".fire").isVisible()).resolves.toBe(true);
    expect(await paused.locator('th[scope="col"]').allInnerTexts()).toEqual(["SIGNAL", "VALUE", "FIRED"]);

    // Text contrast: every text element against the first opaque background behind it.
    const low = await p.evaluate(() => {
      const rgb = (s: string) => (s.match(/[\d.]+/g) ?? []).map(Number);
      const lum = ([r, g, b]: number[]) => {
        const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
      };
      const bgOf = (el: Element | null): number[] => {
        for (let e = el; e; e = e.parentElement) {
          const c = rgb(getComputedStyle(e).backgroundColor);
          if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
        }
        return [255, 255, 255];
      };
      const bad: string[] = [];
      let checked = 0;
      for (const el of document.querySelectorAll("main *:not(svg *), footer *")) {
        const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent!.trim());
        if (!own) continue;
        checked++;
        const fg = rgb(getComputedStyle(el).color).slice(0, 3);
        const [a, b] = [lum(fg), lum(bgOf(el))].sort((x, y) => y - x);
        const ratio = (a + 0.05) / (b + 0.05);
        if (ratio < 4.5)
          bad.push(`${el.tagName}.${el.className}: ${ratio.toFixed(2)} "${el.textContent.trim().slice(0, 30)}"`);
      }
      return { bad, checked };
    });
    expect(low.bad).toEqual([]);
    expect(low.checked).toBeGreaterThan(200);

    // Headings in order, no page-level horizontal scrolling.
    expect(await p.locator("h2").allInnerTexts()).toEqual([
      "Timeline",
      "State machine",
      "Plan approvals",
      "Every decision",
      "Checks and findings",
      "Final review",
      "Models",
      "Commits",
    ]);
    expect(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await p.screenshot({ path: path.join(SHOT_DIR, "finished.png"), fullPage: true });
    await svg.screenshot({ path: path.join(SHOT_DIR, "finished-diagram.png") });
    console.log(`screenshots: ${SHOT_DIR}`);
    await p.close();
  });

  it("mid-phase: the current state EXECUTE is marked, the phase shows as in progress", async () => {
    const { p, problems } = await page(renderHtml(buildDecisionLog(midPhaseState(state), SLUG)), "mid-phase");
    expect(problems).toEqual([]);
    const current = p.locator('svg.state-diagram g[data-current="true"]');
    expect(await current.getAttribute("data-state")).toBe("EXECUTE");
    await expect(current.locator("text.sd-here").textContent()).resolves.toBe("▼ current state");
    expect(await p.locator("li.seg.o-in-progress").isVisible()).toBe(true);
    expect(await p.locator("li.seg.o-pending").count()).toBe(2); // phase 3 and the final review
    await expect(p.locator("figcaption").innerText()).resolves.toContain(
      "The session is at EXECUTE (running), phase 2: Rule Engine.",
    );
    await p.screenshot({ path: path.join(SHOT_DIR, "mid-phase.png"), fullPage: true });
    await p.locator("svg.state-diagram").screenshot({ path: path.join(SHOT_DIR, "mid-phase-diagram.png") });
    await p.close();
  });

  it("hostile phase names and rationales render as text: no script runs, nothing is fetched", async () => {
    const { p, problems, requests, url } = await page(
      renderHtml(buildDecisionLog(hostileState(state), SLUG)),
      "hostile",
    );
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    expect(await p.title()).not.toContain("pwned");
    expect(
      await p.evaluate(
        () => document.querySelectorAll("script, img, iframe, a[href], main svg:not(.state-diagram)").length,
      ),
    ).toBe(0);
    const seg = p.locator("li.seg").nth(1).locator(".seg-name");
    expect(await seg.innerText()).toBe(HOSTILE_NAME);
    expect(await seg.isVisible()).toBe(true);
    // The injected "</td></tr></table>" did not end the decisions table early: all rows present.
    expect(await p.locator("#decisions-h ~ div table tbody tr").count()).toBe(7);
    expect(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await p.screenshot({ path: path.join(SHOT_DIR, "hostile.png"), fullPage: true });
    await p.close();
  });

  it("every decision shows who answered: a visible channel chip per row, host answers marked as such", async () => {
    // The finished session's decisions, answered through every channel (and one legacy "human").
    const channels = ["auto", "policy", "host", "elicited", "auto", "terminal", "piped"] as const;
    const mixed = structuredClone(state);
    mixed.decisions = [
      ...mixed.decisions.map((d, i) => ({ ...d, by: channels[i] })),
      { ...mixed.decisions[2], by: "human" as const },
    ];
    const { p, problems } = await page(renderHtml(buildDecisionLog(mixed, SLUG)), "channels");
    expect(problems).toEqual([]);
    const rows = p.locator("#decisions-h ~ div table tbody tr");
    expect(await rows.count()).toBe(8);
    const shown: string[] = [];
    for (let i = 0; i < 8; i++) {
      const chip = rows.nth(i).locator(".who");
      expect(await chip.isVisible()).toBe(true);
      shown.push(`${await chip.getAttribute("data-channel")}:${(await chip.innerText()).toLowerCase()}`);
    }
    expect(shown).toEqual([...channels, "human"].map((c) => `${c}:${c}`));
    // Host answers say no person may have seen the question; person answers do not.
    const hostRow = rows.nth(2);
    await expect(hostRow.locator(".who-note").innerText()).resolves.toBe(
      "answered by the host model; no person may have seen it",
    );
    expect(await hostRow.locator(".who-note").isVisible()).toBe(true);
    expect(await rows.nth(3).locator(".who-note").count()).toBe(0);
    expect(await rows.nth(5).locator(".who-note").count()).toBe(0);
    await expect(rows.nth(7).locator(".who-note").innerText()).resolves.toContain(
      "did not tell a person from the host model",
    );
    // The legend explains every channel, and the totals count them.
    await expect(p.locator("#decisions-h + p.hint").innerText()).resolves.toContain(
      "no person may have seen the question",
    );
    await expect(p.locator(".stats").innerText()).resolves.toContain(
      "1 elicited · 1 terminal · 1 host · 1 piped · 1 policy · 2 auto · 1 human",
    );
    // Chips stay readable: colour contrast of each chip against its own background.
    const ratios = await p.locator(".who, .who-note").evaluateAll((els) => {
      const rgb = (s: string) => (s.match(/[\d.]+/g) ?? []).map(Number).slice(0, 3);
      const lum = ([r, g, b]: number[]) => {
        const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
      };
      return els.map((el) => {
        let bg = [255, 255, 255];
        for (let e: Element | null = el; e; e = e.parentElement) {
          const c = (getComputedStyle(e).backgroundColor.match(/[\d.]+/g) ?? []).map(Number);
          if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) {
            bg = c.slice(0, 3);
            break;
          }
        }
        const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(bg)].sort((x, y) => y - x);
        return (a + 0.05) / (b + 0.05);
      });
    });
    expect(Math.min(...ratios)).toBeGreaterThanOrEqual(4.5);
    await p.screenshot({ path: path.join(SHOT_DIR, "channels.png"), fullPage: true });
    await p.close();
  });

  it("on a phone-sized screen the page does not scroll sideways (the diagram scrolls in its box)", async () => {
    const { p, problems } = await page(renderHtml(buildDecisionLog(state, SLUG)), "narrow", {
      width: 390,
      height: 844,
    });
    expect(problems).toEqual([]);
    expect(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await p.locator("svg.state-diagram").isVisible()).toBe(true);
    expect(await p.locator("ol.timeline > li.seg").first().isVisible()).toBe(true);
    await p.screenshot({ path: path.join(SHOT_DIR, "narrow.png"), fullPage: true });
    await p.close();
  });
});
