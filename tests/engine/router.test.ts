// The router (src/engine/engine.ts) checks a call's session name once and hands the session engine
// a handle; it reads .harness/config.json at most once per call; and the check a front end asks
// for before a session changes (`beforeChange`: the MCP server's "is `autopilot run` driving it")
// runs once for every call that changes a session. Counted on a whole session run, in a real
// repository, with the scripted personas.
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from "vitest";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import type { SessionEngine } from "../../src/engine/session.js";
import type { SessionRef, SessionSlug } from "../../src/session/paths.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { PolicyGate, drive } from "../../src/headless/drive.js";

const counts = vi.hoisted(() => ({ slugChecks: 0, configReads: 0 }));
vi.mock("../../src/session/slug.js", async (importOriginal) => {
  const m = await importOriginal<typeof import("../../src/session/slug.js")>();
  return {
    ...m,
    assertSafeSlug: (slug: unknown) => {
      counts.slugChecks++;
      return m.assertSafeSlug(slug);
    },
  };
});
vi.mock("../../src/session/config.js", async (importOriginal) => {
  const m = await importOriginal<typeof import("../../src/session/config.js")>();
  return {
    ...m,
    readProjectConfig: (root: string) => {
      counts.configReads++;
      return m.readProjectConfig(root);
    },
  };
});

const SPEC_PATH = "docs/changes/counter/proposal.md";
const SLUG = "changes--counter--proposal";
const SPEC = `# Counter

## Implementation Order

### Phase 1: Core
<!-- complexity: low -->
Count things.

### Phase 2: CLI
<!-- complexity: low -->
Print the count.
`;

let repo: TempRepo;
beforeEach(async () => {
  repo = await makeRepo();
  await mkdir(path.join(repo.dir, "docs/changes/counter"), { recursive: true });
  await writeFile(path.join(repo.dir, SPEC_PATH), SPEC);
  // A config with validation commands and a commit template: read by the start, the validation
  // probes and every commit.
  await mkdir(path.join(repo.dir, ".harness"), { recursive: true });
  await writeFile(
    path.join(repo.dir, ".harness/config.json"),
    JSON.stringify({ validation: { commands: ["true"] }, commitMessage: "chore(autopilot): {summary}" }),
  );
  await git(repo.dir, "add", "-A");
  await git(repo.dir, "commit", "-qm", "spec");
});
afterEach(async () => repo.cleanup());

describe("the router", () => {
  it("checks the session name once per call, reads the config at most once per call, and runs beforeChange once per change", async () => {
    const changes: string[] = [];
    const engine = new Engine(repo.dir, {
      beforeChange: (ref) => {
        changes.push(ref.slug);
        return Promise.resolve();
      },
    });
    const perCall: Array<{ call: string; slugChecks: number; configReads: number; changes: number }> = [];
    // Count each call the driver makes on its own.
    for (const name of ["report", "decide", "next", "peek", "read", "rootFor"] as const) {
      const original = engine[name].bind(engine) as (...a: unknown[]) => Promise<unknown>;
      (engine as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
        const before = { ...counts, changes: changes.length };
        try {
          return await original(...args);
        } finally {
          perCall.push({
            call: name,
            slugChecks: counts.slugChecks - before.slugChecks,
            configReads: counts.configReads - before.configReads,
            changes: changes.length - before.changes,
          });
        }
      };
    }
    counts.slugChecks = 0;
    counts.configReads = 0;
    const { step } = await engine.start(SPEC_PATH);
    expect({ slugChecks: counts.slugChecks, configReads: counts.configReads, changes: changes.length }).toEqual({
      slugChecks: 1,
      configReads: 1,
      changes: 1,
    });
    const { final } = await drive(engine, step, new ScriptedRunner({ phases: { 0: { tasks: 2 } } }), new PolicyGate());
    expect(final.next.kind).toBe("done");
    const reports = perCall.filter((c) => c.call === "report");
    const decides = perCall.filter((c) => c.call === "decide");
    expect(reports.length).toBeGreaterThan(5);
    expect(decides.length).toBeGreaterThan(0);
    for (const c of perCall) {
      expect(c.slugChecks, JSON.stringify(c)).toBe(1);
      expect(c.configReads, JSON.stringify(c)).toBeLessThanOrEqual(1);
      expect(c.changes, JSON.stringify(c)).toBe(c.call === "report" || c.call === "decide" ? 1 : 0);
    }
    // The config was needed (validation, commits) and read: not skipped.
    expect(perCall.some((c) => c.configReads === 1)).toBe(true);
    expect((await git(repo.dir, "log", "--format=%s")).split("\n")[0]).toMatch(/^chore\(autopilot\): /);
  });

  it("gives one error for a name that is not a session's, from every call, before anything runs", async () => {
    const changes: string[] = [];
    const engine = new Engine(repo.dir, { beforeChange: (ref) => (changes.push(ref.slug), Promise.resolve()) });
    await engine.start(SPEC_PATH);
    const sessions = await readdir(path.join(repo.dir, ".harness/sessions"));
    for (const bad of ["../x", "a/b", "a\\b", ".."]) {
      const errors = await Promise.all(
        [
          () => engine.next(bad),
          () => engine.report(bad, 1, { kind: "planned" }),
          () => engine.decide(bad, 1, "yes"),
          () => engine.read(bad),
          () => engine.peek(bad),
          () => engine.writeScratchpad(bad, 0, "a.md", "x"),
          () => engine.rootFor(bad),
        ].map((f) =>
          f().then(
            () => null,
            (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
          ),
        ),
      );
      expect(new Set(errors.map((e) => JSON.stringify(e))).size, bad).toBe(1);
      expect(errors[0]).toMatchObject({ code: "outside_project" });
      expect(errors[0]!.message).toMatch(/call autopilot_status to list them/);
    }
    expect(changes).toEqual([SLUG]);
    expect(await readdir(path.join(repo.dir, ".harness/sessions"))).toEqual(sessions);
  });

  it("the session engine takes the handle, which only the check makes", () => {
    expectTypeOf<Parameters<SessionEngine["next"]>[0]>().toEqualTypeOf<SessionRef>();
    expectTypeOf<Parameters<SessionEngine["report"]>[0]>().toEqualTypeOf<SessionRef>();
    expectTypeOf<Parameters<SessionEngine["decide"]>[0]>().toEqualTypeOf<SessionRef>();
    expectTypeOf<Parameters<SessionEngine["start"]>[0]>().toEqualTypeOf<SessionRef>();
    expectTypeOf<Parameters<SessionEngine["peek"]>[0]>().toEqualTypeOf<SessionRef>();
    // A raw string is not a checked name.
    expectTypeOf<string>().not.toExtend<SessionSlug>();
  });
});
