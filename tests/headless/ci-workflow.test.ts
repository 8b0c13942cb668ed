// The example GitHub Actions workflow (examples/ci/autopilot.yml), exercised: its `run:` steps are
// taken from the YAML and executed in order, as the runner would (bash -eo pipefail, the step's
// env with its ${{ }} expressions evaluated, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, `if:`
// conditions), in temp git repositories with the scripted runner. `uses:` steps are GitHub's own
// actions and are not run; the install step is replaced by the CLI built from this tree (the
// package it installs is checked to be this one).
import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { TempRepo } from "../helpers/git.js";
import { RunEvent } from "../../src/headless/events.js";
import { assertBuilt, CLI, ROOT, SPEC_REL, specRepo } from "./_cli.js";

const WORKFLOW = path.join(ROOT, "examples/ci/autopilot.yml");

interface WorkflowStep {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Ctx {
  matrix: Record<string, string>;
  inputs: Record<string, string>;
  vars: Record<string, string>;
  secrets: Record<string, string>;
  strategy: Record<string, string | number>;
  github: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string> }>;
}

/** A GitHub expression, for the forms the workflow uses: context paths, 'strings', ||, &&, !=, ==, always(). */
function evaluate(expr: string, ctx: Ctx): unknown {
  const js = expr
    .replace(/\balways\(\)/g, "true")
    .replace(/'([^']*)'/g, (_m, s: string) => JSON.stringify(s))
    .replace(
      /\b(matrix|inputs|vars|secrets|strategy|github|steps)((?:\.[A-Za-z_][\w-]*)+)/g,
      (_m, root: string, rest: string) => {
        let v: unknown = (ctx as unknown as Record<string, unknown>)[root];
        for (const k of rest.slice(1).split("."))
          v = v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
        return JSON.stringify(v ?? "");
      },
    );
  if (/[^\s"\w|&!=().$,/:-]/.test(js.replace(/"(?:[^"\\]|\\.)*"/g, "")))
    throw new Error(`unsupported expression: ${expr}`);
  // The expression was checked above to hold only literals, operators and the context's values.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  return new Function(`return (${js});`)() as unknown;
}
const interpolate = (s: string, ctx: Ctx) =>
  s.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_m, e: string) => {
    const v = evaluate(e, ctx);
    return typeof v === "string" ? v : JSON.stringify(v ?? "");
  });

interface JobRun {
  ran: { name: string; code: number; stdout: string; stderr: string }[];
  skipped: string[];
  uploads: string[];
  summary: string;
  outputs: Ctx["steps"];
  failed: boolean;
}

let bin: string;
const repos: TempRepo[] = [];
const workflow = parse(await readFile(WORKFLOW, "utf8")) as {
  jobs: Record<string, { strategy: { matrix: { include: Record<string, string>[] } }; steps: WorkflowStep[] }>;
};
const job = workflow.jobs.run;

beforeAll(async () => {
  assertBuilt();
  // `npm install --global autopilot-mcp` puts `autopilot` on PATH; here it is this tree's build.
  bin = await mkdtemp(path.join(tmpdir(), "autopilot-ci-bin-"));
  await writeFile(path.join(bin, "autopilot"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  await chmod(path.join(bin, "autopilot"), 0o755);
});
afterAll(async () => {
  await Promise.all(repos.map((r) => r.cleanup()));
  if (bin) await rm(bin, { recursive: true, force: true });
});

/** Run the job's steps in `dir` as GitHub Actions would, for one matrix entry. */
async function runJob(dir: string, given: Omit<Ctx, "steps" | "strategy" | "github">): Promise<JobRun> {
  const ctx: Ctx = { ...given, strategy: { "job-index": 0 }, github: { repository: "me/project" }, steps: {} };
  const files = await mkdtemp(path.join(tmpdir(), "autopilot-ci-files-"));
  const summaryFile = path.join(files, "summary.md");
  await writeFile(summaryFile, "");
  const out: JobRun = { ran: [], skipped: [], uploads: [], summary: "", outputs: ctx.steps, failed: false };
  for (const [i, step] of job.steps.entries()) {
    const name = step.name ?? step.uses ?? `step ${i}`;
    const cond = step.if ?? "success()";
    const run = cond.includes("always()")
      ? evaluate(cond, ctx)
      : !out.failed && (cond === "success()" || evaluate(cond, ctx));
    if (!run) {
      out.skipped.push(name);
      continue;
    }
    if (step.uses) {
      if (step.uses.startsWith("actions/upload-artifact")) out.uploads.push(interpolate(step.with!.path, ctx));
      continue;
    }
    if (name === "Install autopilot") {
      const pkg = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8"));
      expect(step.run!.trim()).toBe('npm install --global "$AUTOPILOT_PACKAGE"');
      expect(interpolate(step.env!.AUTOPILOT_PACKAGE, ctx)).toBe(pkg.name);
      expect(pkg.bin.autopilot).toBeTruthy();
      continue;
    }
    const outputFile = path.join(files, `output-${i}`);
    await writeFile(outputFile, "");
    const env: NodeJS.ProcessEnv = {
      PATH: `${bin}${path.delimiter}${process.env.PATH}`,
      HOME: process.env.HOME,
      GIT_CONFIG_NOSYSTEM: "1",
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      CI: "true",
    };
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = interpolate(String(v), ctx);
    const script = path.join(files, `step-${i}.sh`);
    await writeFile(script, interpolate(step.run!, ctx));
    const r = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
      cwd: dir,
      env,
      encoding: "utf8",
      timeout: 180_000,
    });
    out.ran.push({ name, code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr });
    if (step.id) {
      const outputs: Record<string, string> = {};
      for (const line of (await readFile(outputFile, "utf8")).split("\n")) {
        const m = /^([^=]+)=(.*)$/.exec(line);
        if (m) outputs[m[1]] = m[2];
      }
      ctx.steps[step.id] = { outputs };
    }
    if (r.status !== 0) out.failed = true;
  }
  out.summary = await readFile(summaryFile, "utf8");
  await rm(files, { recursive: true, force: true });
  return out;
}

async function repo(opts: Parameters<typeof specRepo>[0] = {}) {
  const r = await specRepo(opts);
  repos.push(r);
  return r;
}

function events(text: string) {
  return text
    .trim()
    .split("\n")
    .map((l) => RunEvent.parse(JSON.parse(l)));
}

describe("examples/ci/autopilot.yml", () => {
  it("is a matrix over specs and repositories, one autopilot process per job", () => {
    const include = job.strategy.matrix.include;
    expect(include.length).toBeGreaterThanOrEqual(3);
    expect(new Set(include.map((m) => m.spec)).size).toBe(include.length);
    expect(include.some((m) => m.repo)).toBe(true);
    const checkout = job.steps.find((s) => s.uses?.startsWith("actions/checkout"))!;
    expect(checkout.with!.repository).toContain("matrix.repo");
    expect(job.steps.filter((s) => /^\s*autopilot run /m.test(s.run ?? ""))).toHaveLength(1);
  });

  it("runs a spec to DONE in each of two repositories, uploading each one's HTML decision log and events", async () => {
    for (const name of ["first", "second"]) {
      const r = await repo();
      const res = await runJob(r.dir, {
        matrix: { spec: SPEC_REL, repo: `me/${name}` },
        inputs: { budget: "2M" },
        vars: { AUTOPILOT_RUNNER: "scripted" },
        secrets: {},
      });
      expect(res.failed, JSON.stringify(res.ran, null, 2)).toBe(false);
      expect(res.ran.map((s) => s.name)).toEqual([
        "Git identity for autopilot's commits",
        "Run the spec",
        "Decision log",
        "Fail unless done or waiting for a person",
      ]);
      expect(res.outputs.run.outputs).toMatchObject({
        "exit-code": "0",
        outcome: "done",
        session: "changes--word-count--proposal",
      });
      expect(res.uploads).toEqual(["autopilot-out/"]);
      const uploaded = path.join(r.dir, res.uploads[0]);
      expect((await readdir(uploaded)).sort()).toEqual(["decision-log.html", "events.jsonl"]);
      const html = await readFile(path.join(uploaded, "decision-log.html"), "utf8");
      expect(html).toMatch(/<title>Decision log: [^<]+<\/title>/);
      expect(html).toContain("Session total");
      const ev = events(await readFile(path.join(uploaded, "events.jsonl"), "utf8"));
      expect(ev.at(-1)).toMatchObject({ event: "outcome", outcome: "done", exitCode: 0 });
      expect(res.summary).toContain(`### ${SPEC_REL}\n\n**done** (exit 0): The session is DONE.`);
      expect(res.summary).toContain("Cost: ");
      // autopilot's commits were made with the identity the workflow set.
      const log = spawnSync("git", ["log", "-1", "--format=%an"], { cwd: r.dir, encoding: "utf8" });
      expect(log.stdout.trim()).toBe("autopilot (CI)");
    }
  });

  it("a budget smaller than the session: exit 5, the decision log still uploaded, the job fails saying why", async () => {
    const r = await repo({ config: { scripted: { usage: { totalTokens: 10_000 } } } });
    const res = await runJob(r.dir, {
      matrix: { spec: SPEC_REL },
      inputs: { budget: "25k" },
      vars: { AUTOPILOT_RUNNER: "scripted" },
      secrets: {},
    });
    expect(res.outputs.run.outputs).toMatchObject({ "exit-code": "5", outcome: "budget" });
    expect(existsSync(path.join(r.dir, "autopilot-out/decision-log.html"))).toBe(true);
    expect(res.uploads).toEqual(["autopilot-out/"]);
    const last = res.ran.at(-1)!;
    expect(last.name).toBe("Fail unless done or waiting for a person");
    expect(last.code).toBe(5);
    expect(last.stdout).toContain("::error::autopilot ended with budget (exit 5)");
    expect(res.summary).toContain("**budget** (exit 5): Stopped: the budget (25k tokens) is spent (30k tokens).");
  });

  it("a session waiting for a person (exit 3) passes with a warning", async () => {
    const r = await repo({
      spec: "# X\n\n## Implementation Order\n\n### Phase 1: Big One\n<!-- complexity: high -->\nHard.\n",
    });
    const res = await runJob(r.dir, {
      matrix: { spec: SPEC_REL },
      inputs: {},
      vars: { AUTOPILOT_RUNNER: "scripted" },
      secrets: {},
    });
    expect(res.failed).toBe(false);
    expect(res.outputs.run.outputs).toMatchObject({ "exit-code": "3", outcome: "waiting" });
    expect(res.ran.at(-1)!.stdout).toContain("::warning::waiting for a human");
  });
});
