// Hostile and broken input, generated (fast-check) and hand-made, against the Engine API as any
// host or client could call it (`as any`: the MCP layer's schemas are not relied on here). Every
// refusal is an AutopilotError with a code, the session folder is byte-identical afterwards, and
// the engine keeps working. Figures: RELIABILITY_RUNS scales the generated runs (default 40).
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { mkdir, readFile, readdir, readlink, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { autopilotCommits, git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { AutopilotError, ERROR_CODES } from "../../src/protocol/errors.js";
import { commitCheckpoint } from "../../src/effects/git.js";
import { writeScratchpad } from "../../src/effects/scratchpad.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { PolicyGate, drive } from "../../src/headless/drive.js";
import { SEED, SPEC, SPEC_PATH, SLUG } from "./harness.js";
import { sessionPathsAt } from "../../src/session/paths.js";

const RUNS = Number(process.env.RELIABILITY_RUNS ?? 40);
// The suites' seed drives the generated inputs, so a failure found by the soak reruns with its seed.
fc.configureGlobal({ seed: SEED });
// Time limits of the generated tests grow with RUNS: the soak's 500 runs on a loaded 2-CPU machine
// took more than the fixed 2 minutes CI's 40 need.
const GEN_LIMIT_MS = Math.max(180_000, RUNS * 2_400);
const DAY = Date.UTC(2026, 2, 19);
const now = () => new Date(DAY + (Date.now() % 86_400_000));
const tally = { generated: 0, handMade: 0, refusedWithCode: 0, accepted: 0, crashes: 0 };

let repo: TempRepo;
let engine: Engine;

beforeEach(async () => {
  repo = await makeRepo({ files: { "README.md": "# t\n", [SPEC_PATH]: SPEC } });
  engine = new Engine(repo.dir, { now });
});
afterEach(async () => repo.cleanup());
afterAll(() => {
  console.log(
    `[reliability] hostile input: ${tally.generated} generated + ${tally.handMade} hand-made inputs; ${tally.refusedWithCode} refused with a code, ${tally.accepted} accepted, ${tally.crashes} crashes (uncoded errors or changed files)`,
  );
});

/** Every file under .harness, path → bytes (base64): what a refused call must leave untouched. */
async function harnessBytes(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(dir: string) {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      // Lock bookkeeping (the lock folder, its owner record) is not session data.
      if (/^autopilot\.lock/.test(e.name)) continue;
      if (e.isSymbolicLink()) out[path.relative(root, p)] = `link:${await readlink(p)}`;
      else if (e.isDirectory()) await walk(p);
      else out[path.relative(root, p)] = (await readFile(p)).toString("base64");
    }
  }
  await walk(path.join(root, ".harness"));
  out["HEAD"] = (await git(root, "rev-parse", "HEAD")).trim();
  return out;
}

/**
 * Call; a refusal must be a coded AutopilotError and leave .harness byte-identical. Anything else
 * thrown (a TypeError, a raw git error) is a crash.
 */
async function refusedOrOk<T>(
  call: () => Promise<T>,
  kind: "generated" | "handMade" = "generated",
): Promise<{ ok: true; value: T } | { ok: false; code: string }> {
  tally[kind]++;
  const before = await harnessBytes(repo.dir);
  try {
    const value = await call();
    tally.accepted++;
    return { ok: true, value };
  } catch (e) {
    if (!(e instanceof AutopilotError) || !(ERROR_CODES as readonly string[]).includes(e.code)) {
      tally.crashes++;
      throw new Error(`uncoded error: ${(e as Error)?.stack ?? String(e)}`, { cause: e });
    }
    expect(e.message.length).toBeGreaterThan(10);
    const after = await harnessBytes(repo.dir);
    const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => before[k] !== after[k]);
    if (changed.length) tally.crashes++;
    expect(changed.join(" | "), `${e.code}: files changed by a refused call`).toBe("");
    tally.refusedWithCode++;
    return { ok: false, code: e.code };
  }
}

async function expectCode(code: string, call: () => Promise<unknown>) {
  const r = await refusedOrOk(call, "handMade");
  expect(r.ok ? "accepted" : r.code).toBe(code);
}

const weird = [
  "\u202Eevil\u202C",
  "zero\u200Bwidth\u200D",
  "emoji 🚀🔥👩‍👩‍👧",
  "--amend",
  "-m x",
  "$(rm -rf /)",
  "`touch pwned`",
  "a; rm -rf ~",
  "ÄÖÜ ß 中文 עברית",
];

describe("specs", () => {
  it("hand-made: empty, binary, huge, deeply nested, no phases, 500 phases, odd Unicode", async () => {
    const cases: [string, string | Buffer, string | null][] = [
      ["empty", "", "no_phases"],
      ["binary", Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)), "no_phases"],
      ["huge", "# Big\n\n" + "lorem ipsum dolor sit amet ".repeat(100_000), "bad_input"],
      [
        "huge but under the limit",
        "# Big\n\n## Implementation Order\n\n### Phase 1: Only\n<!-- complexity: low -->\n" +
          "lorem ipsum dolor sit amet\n".repeat(60_000),
        null,
      ],
      [
        "nested",
        "# Deep\n\n" + Array.from({ length: 3000 }, (_, i) => "  ".repeat(i) + "- item").join("\n"),
        "bad_input",
      ],
      [
        "nested quotes",
        "# Deep\n\n" + Array.from({ length: 300 }, (_, i) => ">".repeat(i) + " q").join("\n"),
        "bad_input",
      ],
      [
        "nested 60 deep",
        "# Deep\n\n## Implementation Order\n\n### Phase 1: Only\n" +
          Array.from({ length: 60 }, (_, i) => "  ".repeat(i) + "- item").join("\n"),
        null,
      ],
      ["no phases", "# Plain\n\n1. do a thing\n2. another\n", "no_phases"],
      [
        "500 phases",
        "# Many\n\n## Implementation Order\n\n" +
          Array.from({ length: 500 }, (_, i) => `### Phase ${i + 1}: Part ${i + 1}\n<!-- complexity: low -->\n`).join(
            "\n",
          ),
        null,
      ],
      [
        "odd unicode",
        "# Odd\n\n## Implementation Order\n\n" +
          weird.map((w, i) => `### Phase ${i + 1}: ${w}\n<!-- complexity: low -->\n`).join("\n"),
        null,
      ],
    ];
    for (const [name, content, code] of cases) {
      const rel = `docs/hostile/${name.replace(/\W+/g, "-")}.md`;
      await mkdir(path.join(repo.dir, "docs/hostile"), { recursive: true });
      await writeFile(path.join(repo.dir, rel), content);
      const r = await refusedOrOk(() => engine.start(rel), "handMade");
      expect(r.ok ? null : r.code, name).toBe(code);
      // The spec is untracked, so the first Step asks about it (changes autopilot did not make): the
      // phases are in the session.
      if (r.ok)
        expect((await engine.read(r.value.step.session)).phases.length, name).toBe(
          name === "500 phases" ? 500 : name === "odd unicode" ? weird.length : 1,
        );
    }
  }, 60_000);

  it(
    "generated: any text or bytes as a spec gives a session or a coded error",
    async () => {
      await mkdir(path.join(repo.dir, "docs/gen"), { recursive: true });
      const spec = fc.oneof(
        fc.string({ unit: "grapheme", maxLength: 400 }),
        fc.uint8Array({ maxLength: 2000 }).map((b) => Buffer.from(b)),
        fc
          .array(
            fc.tuple(
              fc.constantFrom("### Phase 1: ", "## ", "- ", "<!-- complexity: high -->", "```", "**Phase 2:** "),
              fc.string({ unit: "grapheme", maxLength: 30 }),
            ),
            { maxLength: 30 },
          )
          .map((parts) => "# T\n\n## Implementation Order\n\n" + parts.map(([a, b]) => a + b).join("\n")),
      );
      let i = 0;
      await fc.assert(
        fc.asyncProperty(spec, async (content) => {
          const rel = `docs/gen/s${i++}.md`;
          await writeFile(path.join(repo.dir, rel), content);
          await refusedOrOk(() => engine.start(rel));
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    },
    GEN_LIMIT_MS,
  );

  it("paths that escape the project: .., absolute, symlinks, NUL, wrong types", async () => {
    await symlink("/etc/passwd", path.join(repo.dir, "docs/passwd.md"));
    await symlink("/etc", path.join(repo.dir, "docs/etc"));
    for (const p of [
      "../outside.md",
      "../../etc/passwd",
      "/etc/passwd",
      "docs/passwd.md",
      "docs/etc/hosts",
      `${repo.dir}/../x.md`,
    ])
      await expectCode("outside_project", () => engine.start(p));
    for (const p of ["", "docs/x\0.md", 42, null, undefined, {}, ["docs/a.md"], "docs"] as any[])
      await expectCode("spec_not_found", () => engine.start(p));
    expect(await engine.sessions()).toEqual([]);
  });
});

describe("tool arguments", () => {
  it("session names that escape, or are not names", async () => {
    await engine.start(SPEC_PATH);
    for (const s of ["../x", "..", "a/b", "a\\b", "/etc", "../../.git"])
      await expectCode("outside_project", () => engine.next(s));
    for (const s of ["", ".", 42, null, undefined, {}, "x\0y"] as any[])
      await expectCode("unknown_session", () => engine.next(s));
    await expectCode("unknown_session", () => engine.report("nope", 1, { kind: "planned" }));
  });

  it(
    "generated: any result, stepId and answer is accepted only when valid, and refused with a code otherwise",
    async () => {
      const { step } = await engine.start(SPEC_PATH, "--review-plans");
      const stateFile = path.join(repo.dir, ".harness/sessions", SLUG, "autopilot-state.json");
      const saved = await readFile(stateFile);
      const big = "x".repeat(200_000);
      const anyResult = fc.oneof(
        fc.anything(),
        fc.record(
          {
            kind: fc.constantFrom("planned", "executed", "verified", "reviewed", "fixed", "nope"),
            outcome: fc.anything(),
            verdict: fc.anything(),
            findings: fc.anything(),
            planPath: fc.anything(),
            checkpoint: fc.anything(),
            concerns: fc.anything(),
            error: fc.anything(),
          },
          { requiredKeys: ["kind"] },
        ),
        fc.constant({ kind: "planned", planPath: big }),
        fc.constant({ kind: "planned", summary: big, unknownField: 1 }),
      );
      const anyStep = fc.oneof(
        fc.constant(step.stepId),
        fc.integer(),
        fc.constantFrom(NaN, Infinity, -1, 1e12),
        fc.anything(),
      );
      const pristine = await harnessBytes(repo.dir);
      await fc.assert(
        fc.asyncProperty(anyResult, anyStep, async (result, stepId) => {
          const r = await refusedOrOk(() => engine.report(SLUG, stepId as any, result as any));
          // No plan file exists, so no "planned" result can be accepted here, except the one the
          // contract allows any kind (docs/mcp.md): `error: "why"`, the persona could not do its job,
          // answered by a question to retry or stop. Seed 175962098 generated one.
          if (!r.ok) return;
          const res = result as Record<string, unknown>;
          expect(
            stepId === step.stepId && res.kind === "planned" && typeof res.error === "string" && res.error.length > 0,
            JSON.stringify(result),
          ).toBe(true);
          const asked = r.value.next;
          expect(asked.kind === "ask" ? asked.options : [], JSON.stringify(asked)).toContain("retry");
          // Back to the planner step for the next input: the session files as they were.
          for (const [rel, b64] of Object.entries(pristine))
            if (!b64.startsWith("link:")) await writeFile(path.join(repo.dir, rel), Buffer.from(b64, "base64"));
          for (const rel of Object.keys(await harnessBytes(repo.dir)))
            if (!(rel in pristine)) await rm(path.join(repo.dir, rel), { force: true });
        }),
        { numRuns: RUNS * 3, endOnFailure: true },
      );
      const anyAnswer = fc.oneof(fc.anything(), fc.string(), fc.constantFrom("yes", "YES", " y", big));
      await fc.assert(
        fc.asyncProperty(anyAnswer, anyStep, fc.anything(), async (answer, stepId, rationale) => {
          const r = await refusedOrOk(() => engine.decide(SLUG, stepId as any, answer as any, rationale as any));
          expect(r.ok).toBe(false); // the planner step asks nothing
        }),
        { numRuns: RUNS * 2, endOnFailure: true },
      );
      expect(await readFile(stateFile)).toEqual(saved);
      // And the session still works: a real planner's result is taken.
      const runner = new ScriptedRunner();
      if (step.next.kind !== "dispatch") throw new Error("expected dispatch");
      const out = await runner.run({
        ...step.next,
        projectRoot: repo.dir,
        session: SLUG,
        phaseIndex: 0,
        phaseName: "Core Scanner",
      });
      const asked = await engine.report(SLUG, step.stepId, out.result);
      expect(asked.next.kind).toBe("ask");
      // Answers not offered, on a step that does ask.
      const OFFERED = /^\s*(y|ye|yes|r|re|rev|revi|revis|revise|s|sk|ski|skip|st|sto|stop|n|no)\b/i;
      await fc.assert(
        // fc.anything() yields strings too ("y" with seed 175962098): an offered answer or its prefix
        // is not "not offered", whichever generator made it.
        fc.asyncProperty(
          fc.oneof(fc.anything(), fc.string({ minLength: 1 })).filter((a) => typeof a !== "string" || !OFFERED.test(a)),
          async (answer) => {
            const r = await refusedOrOk(() => engine.decide(SLUG, asked.stepId, answer as any));
            if (r.ok) {
              // A prefix of a real option may be accepted; undo by restoring the saved state.
              throw new Error(`accepted ${JSON.stringify(answer)}`);
            }
            expect(r.code).toMatch(/bad_answer|bad_input/);
          },
        ),
        { numRuns: RUNS, endOnFailure: true },
      );
      const done = await engine.decide(SLUG, asked.stepId, "yes");
      expect(done.state).toBe("EXECUTE");
    },
    GEN_LIMIT_MS,
  );

  it("a value whose toString or valueOf is not a function is refused with a code at every entry point", async () => {
    // Plain JSON can carry these ({"toString": 1}); String() or a template literal on one throws a
    // TypeError. The soak's generated answers hit it on a real ask step.
    const noString: unknown[] = [
      { toString: 1 },
      { valueOf: 1, toString: 1 },
      [{ toString: 1 }],
      { toString: "x", valueOf: null },
    ];
    const { step } = await engine.start(SPEC_PATH, "--review-plans");
    if (step.next.kind !== "dispatch") throw new Error("expected dispatch");
    for (const v of noString) {
      await expectCode("spec_not_found", () => engine.start(v as any));
      await expectCode("bad_input", () => engine.start(SPEC_PATH, v as any));
      await expectCode("unknown_session", () => engine.next(v as any));
      await expectCode("bad_input", () => engine.report(SLUG, v as any, { kind: "planned" }));
      await expectCode("bad_result", () => engine.report(SLUG, step.stepId, v));
      await expectCode("bad_result", () => engine.report(SLUG, step.stepId, { kind: v }));
      await expectCode("bad_result", () =>
        engine.report(SLUG, step.stepId, { kind: "planned", planPath: v, summary: v }),
      );
      await refusedOrOk(() => engine.report(SLUG, step.stepId, { kind: "planned" }, v as any), "handMade").then((r) =>
        expect(r.ok).toBe(false),
      );
      await expectCode("bad_input", () =>
        engine.report(
          SLUG,
          step.stepId,
          { kind: "planned" },
          {
            total_tokens: v,
            usage: { input_tokens: "many" },
          },
        ),
      );
    }
    const out = await new ScriptedRunner().run({
      ...step.next,
      projectRoot: repo.dir,
      session: SLUG,
      phaseIndex: 0,
      phaseName: "Core Scanner",
    });
    const asked = await engine.report(SLUG, step.stepId, out.result);
    expect(asked.next.kind).toBe("ask");
    for (const v of noString) {
      await expectCode("bad_input", () => engine.decide(SLUG, asked.stepId, v as any));
      await expectCode("bad_input", () => engine.decide(SLUG, v as any, "yes"));
      await expectCode("bad_input", () => engine.decide(SLUG, asked.stepId, "yes", v as any));
      await expectCode("bad_input", () => engine.decide(SLUG, asked.stepId, "yes", "why", v as any));
      await expectCode("bad_input", () =>
        writeScratchpad(sessionPathsAt(repo.dir, `.harness/sessions/${SLUG}`), v as any, "x.md", "data"),
      );
      await expectCode("bad_input", () =>
        writeScratchpad(sessionPathsAt(repo.dir, `.harness/sessions/${SLUG}`), 1, v as any, "data"),
      );
      await expectCode("bad_input", () =>
        writeScratchpad(sessionPathsAt(repo.dir, `.harness/sessions/${SLUG}`), 1, "x.md", v as any),
      );
    }
    expect((await engine.decide(SLUG, asked.stepId, "yes")).state).toBe("EXECUTE");
  });

  it("a planPath outside the project or a symlink to /etc/passwd is refused", async () => {
    const { step } = await engine.start(SPEC_PATH);
    await mkdir(path.join(repo.dir, "docs/plans"), { recursive: true });
    await symlink("/etc/passwd", path.join(repo.dir, "docs/plans/evil-plan.md"));
    await expectCode("outside_project", () =>
      engine.report(SLUG, step.stepId, { kind: "planned", planPath: "../../etc/passwd" }),
    );
    await expectCode("outside_project", () =>
      engine.report(SLUG, step.stepId, { kind: "planned", planPath: "/etc/passwd" }),
    );
    await expectCode("outside_project", () =>
      engine.report(SLUG, step.stepId, { kind: "planned", planPath: "docs/plans/evil-plan.md" }),
    );
    expect((await engine.next(SLUG)).stepId).toBe(step.stepId);
  });

  it("a scratchpad that escapes by phase, file name or a symlinked folder is refused", async () => {
    await engine.start(SPEC_PATH);
    const sessionDir = `.harness/sessions/${SLUG}`;
    // A phase "../../.." is only a name: it becomes a folder inside the scratchpad, never a path.
    const inside = await writeScratchpad(sessionPathsAt(repo.dir, sessionDir), "../../..", "x.md", "data");
    expect(path.relative(path.join(repo.dir, sessionDir, "scratchpad"), inside)).toMatch(/^phase-[0-9a-f]{10}\/x\.md$/);
    for (const [phase, file] of [
      ["1", "../../../../x.md"],
      ["1", "/etc/passwd"],
      ["1", "a/b.md"],
      ["1", ""],
      ["1", ".."],
    ] as const) {
      const r = await refusedOrOk(
        () => writeScratchpad(sessionPathsAt(repo.dir, sessionDir), phase, file, "data"),
        "handMade",
      );
      expect(r.ok, `${phase} ${file}`).toBe(false);
    }
    await mkdir(path.join(repo.dir, sessionDir, "scratchpad"), { recursive: true });
    await symlink("/tmp", path.join(repo.dir, sessionDir, "scratchpad", "phase-9"));
    const r = await refusedOrOk(
      () => writeScratchpad(sessionPathsAt(repo.dir, sessionDir), 9, "x.md", "data"),
      "handMade",
    );
    expect(r.ok ? "accepted" : r.code).toBe("outside_project");
  });
});

describe("state files and handoffs", () => {
  it(
    "generated: a truncated, retyped or garbage state file gives corrupt_state and is left byte-identical",
    async () => {
      const { step } = await engine.start(SPEC_PATH);
      const file = path.join(repo.dir, ".harness/sessions", SLUG, "autopilot-state.json");
      const good = await readFile(file, "utf8");
      const parsed = JSON.parse(good);
      const broken = fc.oneof(
        fc.integer({ min: 0, max: good.length - 3 }).map((n) => good.slice(0, n)),
        fc
          .constantFrom(
            "phases",
            "currentState",
            "currentPhase",
            "decisions",
            "history",
            "retryBudget",
            "finalReview",
            "schemaVersion",
            "stepId",
            "outbox",
          )
          .chain((k) => fc.anything().map((v) => JSON.stringify({ ...parsed, [k]: v }))),
        fc.string().map((s) => JSON.stringify({ ...parsed, currentState: "LIMBO_" + s })),
        fc.integer({ min: 6, max: 1e6 }).map((v) => JSON.stringify({ ...parsed, schemaVersion: v })),
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString("latin1")),
      );
      await fc.assert(
        fc.asyncProperty(broken, async (text) => {
          await writeFile(file, text);
          const r = await refusedOrOk(() => engine.next(SLUG));
          if (!r.ok) expect(r.code).toMatch(/corrupt_state|unknown_session/);
          await writeFile(file, good);
        }),
        { numRuns: RUNS * 3, endOnFailure: true },
      );
      for (const v of [7, 99, 1e9, null, "six"]) {
        await writeFile(file, JSON.stringify({ ...parsed, schemaVersion: v }));
        await expectCode("corrupt_state", () => engine.next(SLUG));
      }
      await writeFile(file, good);
      // The same Step (autopilot_next's report starts with where the session stands).
      expect({ ...(await engine.next(SLUG)), report: undefined }).toEqual({ ...step, report: undefined });
    },
    GEN_LIMIT_MS,
  );

  it("a valid-looking v5 file inside a phase that lists no phases gives corrupt_state and is left byte-identical", async () => {
    // The soak's counterexample was {"currentState": "PLAN", "phases": []}: a TypeError reading
    // planPath. Every state that works on a phase needs phases[currentPhase].
    await engine.start(SPEC_PATH);
    const file = path.join(repo.dir, ".harness/sessions", SLUG, "autopilot-state.json");
    const good = await readFile(file, "utf8");
    const parsed = JSON.parse(good);
    const inPhase = ["ASSESS", "PLAN", "APPROVE_PLAN", "EXECUTE", "VERIFY", "REVIEW", "PHASE_COMPLETE"];
    for (const currentState of inPhase)
      for (const stage of [null, "running"])
        for (const currentPhase of [0, 2]) {
          await writeFile(file, JSON.stringify({ ...parsed, currentState, stage, currentPhase, phases: [] }, null, 2));
          for (const call of [
            () => engine.next(SLUG) as Promise<unknown>,
            () => engine.start(SPEC_PATH),
            () => engine.peek(SLUG),
            () => engine.report(SLUG, parsed.stepId, { kind: "planned" }),
            () => engine.decide(SLUG, parsed.stepId, "yes"),
          ]) {
            const r = await refusedOrOk(call, "handMade");
            expect(r.ok ? "accepted" : r.code, `${currentState}.${stage} phase ${currentPhase}`).toBe("corrupt_state");
          }
        }
    await writeFile(file, good);
    expect((await engine.next(SLUG)).state).toBe("PLAN");
  });

  it(
    "generated: a garbage handoff or plan never crashes the planner report",
    async () => {
      const { step } = await engine.start(SPEC_PATH);
      if (step.next.kind !== "dispatch") throw new Error("expected dispatch");
      const planPath = step.next.expects.artifacts.plan!;
      const handoff = path.join(repo.dir, ".harness/sessions", SLUG, "handoff.json");
      const stateFile = path.join(repo.dir, ".harness/sessions", SLUG, "autopilot-state.json");
      const saved = await readFile(stateFile);
      await mkdir(path.dirname(path.join(repo.dir, planPath)), { recursive: true });
      const text = fc.oneof(
        fc.string({ unit: "grapheme", maxLength: 300 }),
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.uint8Array({ maxLength: 500 }).map((b) => Buffer.from(b).toString("latin1")),
      );
      await fc.assert(
        fc.asyncProperty(text, text, fc.boolean(), async (h, plan, writePlan) => {
          await writeFile(handoff, h);
          if (writePlan) await writeFile(path.join(repo.dir, planPath), plan);
          else await rm(path.join(repo.dir, planPath), { force: true });
          const r = await refusedOrOk(() => engine.report(SLUG, step.stepId, { kind: "planned" }));
          // With the plan file there, a plan is a plan (however odd); without, bad_result.
          if (!writePlan) expect(r.ok ? "accepted" : r.code).toBe("bad_result");
          await writeFile(stateFile, saved); // back to the planner step
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    },
    GEN_LIMIT_MS,
  );
});

describe("phase names that look like options or shell", () => {
  it("are data in commit messages: one line, no option taken, no command run", async () => {
    const headBefore = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const labels = [
      "--amend",
      "-m x",
      "$(touch pwned)",
      "`touch pwned2`",
      "--author=evil <e@x>",
      "x\n\n--amend\nSigned-off-by: evil",
      "-",
      "--",
      "\u202Eevil",
      "",
    ];
    for (const [i, label] of labels.entries()) {
      await writeFile(path.join(repo.dir, `f${i}.txt`), label || "empty");
      const r = await commitCheckpoint(repo.dir, { label, effectId: `hostile-${i}` });
      expect(r.committed).toBe(true);
    }
    const subjects = (await git(repo.dir, "log", "--format=%s")).trim().split("\n");
    expect(subjects).toHaveLength(labels.length + 1);
    expect(subjects.at(-1)).toBe("initial commit");
    expect((await git(repo.dir, "rev-list", "--max-count=1", "--skip", String(labels.length), "HEAD")).trim()).toBe(
      headBefore,
    );
    // Each label is one line of text, and each commit ends with its effect trailer: nothing became an option or a trailer of its own.
    const bodies = (await git(repo.dir, "log", `-${labels.length}`, "--format=%B%x1e"))
      .split("\x1e")
      .filter((b) => b.trim());
    for (const b of bodies) expect(b.trim().split("\n").at(-1)).toMatch(/^Autopilot-Effect: hostile-\d+$/);
    expect(subjects).toContain("x --amend Signed-off-by: evil");
    expect(
      (await git(repo.dir, "log", "--format=%an"))
        .trim()
        .split("\n")
        .every((a) => a === "Test User"),
    ).toBe(true);
    await expect(readFile(path.join(repo.dir, "pwned"))).rejects.toThrow();
    await expect(readFile(path.join(repo.dir, "pwned2"))).rejects.toThrow();
    tally.handMade += labels.length;
    tally.accepted += labels.length;
  });

  it("a whole run whose phases are named like options and shell ends with one commit per checkpoint", async () => {
    const names = ["--amend", "-m x", "$(rm -rf /)", "emoji 🚀 \u200B\u202Eltr", "中文", "🚀🔥"];
    const spec =
      "# Hostile\n\n## Implementation Order\n\n" +
      names.map((n, i) => `### Phase ${i + 1}: ${n}\n<!-- complexity: low -->\n`).join("\n");
    await writeFile(path.join(repo.dir, "docs/hostile.md"), spec);
    await git(repo.dir, "add", "-A");
    await git(repo.dir, "commit", "-qm", "hostile spec");
    const { final } = await drive(
      engine,
      (await engine.start("docs/hostile.md")).step,
      new ScriptedRunner(),
      new PolicyGate(),
    );
    expect(final.state).toBe("DONE");
    const subjects = (await git(repo.dir, "log", "--format=%s")).trim().split("\n");
    const own = await autopilotCommits(repo.dir);
    for (const [i, n] of names.entries())
      expect(own.map((c) => c.step)).toContain(`Phase ${i + 1}: ${n} — execution complete`);
    expect(subjects.slice(-2)).toEqual(["hostile spec", "initial commit"]);
    tally.handMade += 1;
    tally.accepted += 1;
  }, 60_000);
});
