// `autopilot log` as a user runs it: the built CLI, in a project with a real finished session.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { distCli, ensureBuilt } from "../helpers/build.js";
import { finishedSession, SLUG, type FinishedSession } from "./session-helper.js";
import { buildDecisionLog } from "../../src/log/index.js";
import { SessionStore } from "../../src/session/store.js";

const CORPUS = "/work/shared/corpus/upstream/sessions";

let done: FinishedSession;
let elsewhere: string;

beforeAll(async () => {
  await ensureBuilt();
  done = await finishedSession();
  elsewhere = await mkdtemp(path.join(tmpdir(), "autopilot-log-cwd-"));
});
afterAll(async () => {
  await done?.repo.cleanup();
  if (elsewhere) await rm(elsewhere, { recursive: true, force: true });
});

function cli(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [distCli, "log", ...args], { cwd, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("autopilot log", () => {
  it("--format json prints the model, exactly what the MCP tool returns", async () => {
    const r = cli(done.repo.dir, SLUG, "--format", "json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const { state } = await new SessionStore(done.repo.dir).read(SLUG);
    expect(JSON.parse(r.stdout)).toEqual(buildDecisionLog(state, SLUG));
  });

  it("prints Markdown by default", () => {
    const r = cli(done.repo.dir, SLUG);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe("# Decision log: Security Scanner");
    expect(r.stdout).toContain("## Decisions");
    expect(r.stdout).toContain("| 2 | Rule Engine | medium | complete | 5 | 2 | pass |");
  });

  it("--format html --out FILE writes the page; --project runs it from anywhere", async () => {
    const out = path.join(elsewhere, "nested/log.html");
    const r = cli(elsewhere, SLUG, "--format", "html", "--out", "nested/log.html", "--project", done.repo.dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Wrote the html decision log of ${SLUG} to ${out}\n`);
    const html = await readFile(out, "utf8");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain('data-state="DONE" data-current="true"');
  });

  it("takes the format from the --out file's extension", async () => {
    const r = cli(elsewhere, SLUG, "-o", "log.json", "--project", done.repo.dir);
    expect(r.code).toBe(0);
    expect(JSON.parse(await readFile(path.join(elsewhere, "log.json"), "utf8")).session).toBe(SLUG);
  });

  it("never changes the state file", async () => {
    const file = path.join(done.repo.dir, ".harness/sessions", SLUG, "autopilot-state.json");
    const before = await readFile(file, "utf8");
    cli(done.repo.dir, SLUG, "--format", "html");
    expect(await readFile(file, "utf8")).toBe(before);
  });

  it("an unknown session: exit 1, listing the sessions there are", () => {
    const r = cli(done.repo.dir, "changes--nope");
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`no session "changes--nope"`);
    expect(r.stderr).toContain(`Known sessions:\n  ${SLUG}`);
    const unsafe = cli(done.repo.dir, "../../etc");
    expect(unsafe.code).toBe(1);
    const empty = cli(elsewhere, "x");
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("No autopilot sessions in");
  });

  it("bad usage: exit 2 with the usage line", () => {
    for (const args of [[], [SLUG, "--format", "pdf"], [SLUG, "--verbose"], [SLUG, "other"], [SLUG, "--format"]]) {
      const r = cli(done.repo.dir, ...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain("Usage: autopilot log SLUG [--format md|json|html]");
    }
  });

  const corpusPresent = existsSync(
    path.join(CORPUS, "changes--i18n-localization-skills--proposal/autopilot-state.json"),
  );
  if (!corpusPresent) console.warn(`[skip] autopilot log on an upstream file: ${CORPUS} is absent`);
  it.skipIf(!corpusPresent)("reads an upstream state file from the corpus", async () => {
    const slug = "changes--i18n-localization-skills--proposal";
    const project = path.join(elsewhere, "upstream");
    await cp(
      path.join(CORPUS, slug, "autopilot-state.json"),
      path.join(project, ".harness/sessions", slug, "autopilot-state.json"),
    );
    const r = cli(project, slug, "--format", "json");
    expect(r.code).toBe(0);
    const log = JSON.parse(r.stdout);
    expect(log.decisions).toHaveLength(10);
    expect(log.decisions[0]).toMatchObject({
      decision: "note",
      who: "unknown",
      what: "Phase 1 plan approved by human",
    });
    const md = cli(project, slug);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("Phase 1 plan approved by human");
  });
});
