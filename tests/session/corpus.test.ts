// Every autopilot-state.json our users already have (copied from the upstream project) reads,
// migrates to schemaVersion 5 with its phases, decisions and history intact, and passes
// `autopilot state check` through the built CLI.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { migrateState } from "../../src/session/migrate.js";
import { AutopilotState } from "../../src/session/schema.js";
import { distCli, ensureBuilt, projectRoot } from "../helpers/build.js";
import { lostValues } from "./helpers/nothing-lost.js";

type Rec = Record<string, any>;
const corpus = path.resolve(projectRoot, "../shared/corpus");
const upstream = path.join(corpus, "upstream");

function stateFiles(): string[] {
  if (!existsSync(upstream)) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith("autopilot-state.json")) out.push(p);
    }
  };
  for (const d of ["sessions", "legacy-v1", "state-variants"])
    if (existsSync(path.join(upstream, d))) walk(path.join(upstream, d));
  return out.sort();
}

const files = stateFiles();
if (files.length === 0)
  console.log(`corpus tests skipped: no state files under ${upstream} (the shared corpus is absent)`);

const read = (f: string): Rec => JSON.parse(readFileSync(f, "utf8")) as Rec;
const name = (f: string) => path.relative(upstream, f);

describe.skipIf(files.length === 0)("the real-world corpus", () => {
  beforeAll(async () => {
    await ensureBuilt();
  });

  it("has the files the README promises (sessions, legacy v1, hand-made variants)", () => {
    expect(files.length).toBeGreaterThanOrEqual(27);
    expect(files.some((f) => f.includes("legacy-v1"))).toBe(true);
    expect(files.filter((f) => f.includes("state-variants")).length).toBeGreaterThanOrEqual(3);
  });

  describe.each(files.map((f) => [name(f), f]))("%s", (_n, file) => {
    const raw = read(file);
    const { state, fromVersion } = migrateState(raw);
    const s = state as Rec;

    it("migrates to a valid schemaVersion 5 state", () => {
      expect(AutopilotState.safeParse(state).success).toBe(true);
      expect(s.schemaVersion).toBe(5);
      expect(fromVersion).toBe(raw.schemaVersion ?? null);
    });

    it("keeps every phase, in order, with its name", () => {
      expect(s.phases.map((p: Rec) => p.name)).toEqual(raw.phases.map((p: Rec) => p.name));
      expect(s.currentPhase).toBeGreaterThanOrEqual(0);
      expect(s.currentPhase).toBeLessThan(Math.max(1, s.phases.length));
    });

    it("keeps every decision with its content", () => {
      const before = (raw.decisions ?? []) as unknown[];
      expect(s.decisions).toHaveLength(before.length);
      expect(lostValues(before, s.decisions)).toEqual([]);
      for (const [i, d] of before.entries()) if (typeof d === "string") expect(s.decisions[i].note).toBe(d);
    });

    it("keeps every history entry", () => {
      const before = (raw.history ?? []) as unknown[];
      expect(s.history).toHaveLength(before.length);
      expect(lostValues(before, s.history)).toEqual([]);
    });

    it("loses no value anywhere in the file", () => {
      const allowed = (p: string) =>
        p === "$.schemaVersion" || (p === "$.retryBudget" && typeof raw.retryBudget === "number");
      expect(lostValues(raw, s, "$", allowed)).toEqual([]);
    });

    it("passes `autopilot state check --json`, printing the same migrated state", () => {
      const out = execFileSync(process.execPath, [distCli, "state", "check", file, "--json"], { encoding: "utf8" });
      expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(state)));
    });
  });

  it("`autopilot state check` without --json summarises and never writes the file", () => {
    const file = files.find((f) => f.includes("runtime-enforcement-extensions--proposal"))!;
    const before = readFileSync(file);
    const r = spawnSync(process.execPath, [distCli, "state", "check", file], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/schemaVersion 4 → 5/);
    expect(r.stdout).toMatch(/currentState "COMPLETE" read as "DONE"/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("known traps in the corpus read the way a careful person would", () => {
    const get = (part: string) => migrateState(read(files.find((f) => f.includes(part))!)).state as Rec;
    expect(get("runtime-enforcement-extensions--proposal").currentState).toBe("DONE");
    const graph = get("graph-anomaly-detection");
    expect(graph.phases[1].status).toBe("pending");
    expect(graph.phases[1].originalStatus).toBe("in-progress");
    expect(graph.currentPhase).toBe(1);
    expect(get("aggregate-telemetry-synthesis").phases[0].status).toBe("complete");
    expect(get("tsx-esbuild-dependency-refresh").retryBudget).toEqual({ maxAttempts: 3, currentTask: null });
    expect(get("webhook-ssrf-resolve-guard").currentPhase).toBe(0);
    expect(get("legacy-v1").sessionDir).toBe(".harness/sessions/changes--autopilot-session-scoping--proposal");
    expect(get("task-independence-detection").decisions[0].timestamp).toBe("2026-03-23");
  });
});

describe("autopilot state check: failures a user can act on", () => {
  beforeAll(async () => {
    await ensureBuilt();
  });
  const run = (...args: string[]) => spawnSync(process.execPath, [distCli, "state", ...args], { encoding: "utf8" });
  const fixture = (n: string) => path.join(projectRoot, "tests/fixtures/state", n);

  it("an unknown state name: exit 1, one line naming it", () => {
    const r = run("check", fixture("unknown-state.json"), "--json");
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/BRAINSTORM.*corrupt_state/);
  });
  it("a future schemaVersion: exit 1", () => {
    expect(run("check", fixture("future-version.json"), "--json").status).toBe(1);
  });
  it("a missing file: exit 1", () => {
    const r = run("check", fixture("no-such-file.json"));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/no such file/);
  });
  it("a file inside .harness/sessions/<slug>/ belongs to that session, whatever its sessionDir says", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "autopilot-check-"));
    try {
      const file = path.join(dir, ".harness/sessions/my-slug/autopilot-state.json");
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, readFileSync(fixture("v2-no-commit.json")));
      const r = run("check", file, "--json");
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout).sessionDir).toBe(".harness/sessions/my-slug");
      expect(JSON.parse(r.stdout).originalSessionDir).toBe(".harness/sessions/changes--conflict-prediction--proposal");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("usage mistakes: exit 2", () => {
    expect(run().status).toBe(2);
    expect(run("check").status).toBe(2);
    expect(run("fix", "x.json").status).toBe(2);
    expect(run("check", "a.json", "b.json").status).toBe(2);
    expect(run("check", "a.json", "--nope").status).toBe(2);
  });
});
