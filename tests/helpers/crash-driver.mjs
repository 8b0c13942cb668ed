// A host in a child process, for the reliability suites: it drives one session with the compiled
// Engine, the scripted runner and the --yes policy, and can be SIGKILLed anywhere (AUTOPILOT_FAULT,
// or from outside). Usage: node crash-driver.mjs '<json options>'; prints one JSON line per event.
//
// modes:
//   drive   start (or, if the session exists, pick up with autopilot_next) and run to DONE/wait.
//           A persona's result is kept per stepId in the session folder before it is reported, so
//           a host restarted after a crash reports the same result again rather than running the
//           persona twice (the scripted runner's memory would otherwise move on, and the run would
//           differ from an uninterrupted one for reasons that are the runner's, not the engine's).
//   next    call engine.next once, print the Step.
//   report  wait until the file opts.barrier exists, then report opts.result for opts.stepId once.
//   decide  same, with engine.decide(opts.answer).
//   serve   take requests as JSON lines on stdin (see below), answer as JSON lines.
//   hold    take the session lock and keep it until killed.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

const opts = JSON.parse(process.argv[2]);
// The engine, the scripted runner, the --yes gate and the fault counter, bundled into one file by
// tests/reliability/build.ts as the bin is (one file to read and compile at each of the suite's
// thousand process starts, not some 500 modules).
const { Engine, ScriptedRunner, PolicyGate, faultCounts } = await import(
  pathToFileURL(path.join(opts.dist, "driver.js")).href
);

// A fixed day (file names carry the date) at the real time of day: timestamps differ between
// processes, as they would in life, and the suites compare files with timestamps removed.
const DAY = Date.UTC(2026, 2, 19);
const now = () => new Date(DAY + (Date.now() % 86_400_000));
const engine = new Engine(opts.root, { now, lock: opts.lock });
const print = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const sessionDir = path.join(opts.root, ".harness/sessions", opts.slug ?? "");

function errOut(e) {
  return {
    ok: false,
    code: e?.code ?? null,
    message: String(e?.message ?? e),
    stack: e?.code ? undefined : String(e?.stack ?? ""),
  };
}

async function waitFor(file) {
  while (!existsSync(file)) await new Promise((r) => setTimeout(r, 5));
}

const cacheFile = (stepId) => path.join(sessionDir, "driver-cache", `outcome-${stepId}.json`);

async function readCached(stepId) {
  try {
    return JSON.parse(await readFile(cacheFile(stepId), "utf8"));
  } catch {
    return undefined;
  }
}

async function writeCached(stepId, v) {
  const file = cacheFile(stepId);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file + ".tmp", JSON.stringify(v));
  await rename(file + ".tmp", file);
}

async function cached(stepId, compute) {
  const hit = await readCached(stepId);
  if (hit !== undefined) return hit;
  const v = await compute();
  await writeCached(stepId, v);
  return v;
}

async function drive() {
  const runner = new ScriptedRunner(opts.script ?? {});
  const gate = new PolicyGate(2, async (slug) => (await engine.read(slug)).decisions);
  let step;
  if (!existsSync(path.join(sessionDir, "autopilot-state.json")))
    step = (await engine.start(opts.spec, opts.flags)).step;
  else if (!opts.resumeWithStart) step = await engine.next(opts.slug);
  else if ((await engine.read(opts.slug)).currentState === "DONE") {
    // Killed after the session was finished: autopilot_start would archive it and begin a new
    // run of the spec (docs/mcp.md), which is not this session resumed. A host that restarts
    // asks for the finished session's Step instead (the soak's seed 173467419 ended there).
    step = await engine.next(opts.slug);
  } else {
    // A resume is a transition: it re-presents the pending dispatch under a new stepId. A result
    // the killed process got for the saved step was never reported (the session is still at that
    // step), so it belongs to the re-presented dispatch. Keyed by the old stepId alone, it would be
    // dropped and the persona run again with its memory moved on: one scripted failure would
    // never reach the engine (the soak's seed 156535247 lost a retry that way).
    // The resume itself can be killed after it saved the new stepId and before the result was
    // carried over (seed 591937271: before-save, then after-save 1 in the restart). So the step a
    // resume started from is written down first and cleared once the result is carried: a restart
    // that finds it knows the saved step re-presents that one, whatever stepId it now has.
    const intentFile = cacheFile("resume-from");
    const pending = await readCached("resume-from");
    const origin = pending?.stepId ?? (await engine.read(opts.slug)).stepId;
    if (!pending) await writeCached("resume-from", { stepId: origin });
    step = (await engine.start(opts.spec, opts.flags)).step;
    const had = await readCached(origin);
    if (
      step.next.kind === "dispatch" &&
      step.stepId !== origin &&
      had?.kind === step.next.expects.result &&
      (await readCached(step.stepId)) === undefined
    )
      await writeCached(step.stepId, had);
    await rm(intentFile, { force: true });
  }
  let steps = 0;
  for (;;) {
    const next = step.next;
    if (next.kind === "done" || next.kind === "wait") break;
    if (++steps > 500) throw new Error("no end after 500 steps");
    if (next.kind === "dispatch") {
      const result = await cached(
        step.stepId,
        async () =>
          (
            await runner.run({
              persona: next.persona,
              description: next.description,
              prompt: next.prompt,
              expects: next.expects,
              projectRoot: engine.root,
              session: step.session,
              phaseIndex: step.state === "FINAL_REVIEW" ? null : (step.phase?.index ?? null),
              phaseName: step.state === "FINAL_REVIEW" ? null : (step.phase?.name ?? null),
            })
          ).result,
      );
      step = await engine.report(step.session, step.stepId, result);
    } else {
      // An exhausted retry budget: the policy would stop; the suites answer as a human who fixed
      // it by hand would, so a run also writes a recovery commit and a failures.md entry.
      const a = next.options.includes("fix manually and continue")
        ? { answer: "fix manually and continue", rationale: "fixed by hand (reliability suite)", by: "terminal" }
        : await gate.answer(step, next);
      step = await engine.decide(step.session, step.stepId, a.answer, a.rationale, a.by);
    }
  }
  print({ event: "end", state: step.state, kind: step.next.kind, stepId: step.stepId, steps, counts: faultCounts() });
}

try {
  if (opts.mode === "drive") await drive();
  else if (opts.mode === "next") print({ ok: true, step: await engine.next(opts.slug) });
  else if (opts.mode === "report" || opts.mode === "decide") {
    if (opts.barrier) await waitFor(opts.barrier);
    const t0 = Date.now();
    try {
      const step =
        opts.mode === "report"
          ? await engine.report(opts.slug, opts.stepId, opts.result)
          : await engine.decide(opts.slug, opts.stepId, opts.answer, "concurrent test");
      print({ ok: true, stepId: step.stepId, state: step.state, ms: Date.now() - t0 });
    } catch (e) {
      print({ ...errOut(e), ms: Date.now() - t0 });
    }
  } else if (opts.mode === "serve") {
    // One request per stdin line: {id, op: "report"|"decide"|"next", slug, stepId, result, answer,
    // at}. Each waits until the wall clock reaches `at`, so several processes fire together.
    const { createInterface } = await import("node:readline");
    print({ event: "ready" });
    for await (const line of createInterface({ input: process.stdin })) {
      if (!line.trim()) continue;
      const req = JSON.parse(line);
      while (Date.now() < (req.at ?? 0)) await new Promise((r) => setTimeout(r, 1));
      const t0 = Date.now();
      try {
        const step =
          req.op === "report"
            ? await engine.report(req.slug, req.stepId, req.result)
            : req.op === "decide"
              ? await engine.decide(req.slug, req.stepId, req.answer, req.rationale, req.by ?? "terminal")
              : await engine.next(req.slug);
        print({ id: req.id, ok: true, stepId: step.stepId, state: step.state, ms: Date.now() - t0 });
      } catch (e) {
        print({ id: req.id, ...errOut(e), ms: Date.now() - t0 });
      }
    }
  } else if (opts.mode === "hold") {
    await engine.store.withLock(
      opts.slug,
      async () => {
        print({ event: "holding" });
        await new Promise(() => setInterval(() => {}, 1000));
      },
      opts.lock,
    );
  } else throw new Error(`unknown mode ${opts.mode}`);
  process.exit(0);
} catch (e) {
  print({ event: "error", ...errOut(e) });
  process.exit(1);
}
