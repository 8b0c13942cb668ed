import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { EXTERNAL } from "./vitest.external.config.js";

/**
 * Test files that replace a module with vi.mock: they need a fresh module registry, so they run
 * isolated (a new process per file). Every other file shares its worker's imported modules with the
 * files that ran there before (isolate: false): the suite then imports src/, the MCP SDK, xstate
 * and zod once per worker instead of once per file.
 */
function mockingFiles(dir = "tests"): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...mockingFiles(p));
    else if (e.name.endsWith(".test.ts") && /\bvi\.(mock|doMock)\(/.test(readFileSync(p, "utf8")))
      out.push(p.split(path.sep).join("/"));
  }
  return out;
}
const MOCKING = mockingFiles();

/**
 * True when the file starts processes (the built CLI or server, git, a pty), itself or through a
 * test helper it imports: such files take seconds per test, the others milliseconds.
 */
const SPAWNS = /node:child_process|node-pty|StdioClientTransport/;
function spawnsProcesses(file: string, seen = new Set<string>()): boolean {
  seen.add(file);
  const text = readFileSync(file, "utf8");
  if (SPAWNS.test(text)) return true;
  for (const m of text.matchAll(/from "(\.{1,2}\/[^"]+)\.js"/g)) {
    // Helpers that import helpers (tests/headless/_resume.ts imports _cli.ts) count too.
    const helper = path.resolve(path.dirname(file), `${m[1]}.ts`);
    if (
      helper.includes(`${path.sep}tests${path.sep}`) &&
      !seen.has(helper) &&
      existsSync(helper) &&
      spawnsProcesses(helper, seen)
    )
      return true;
  }
  return false;
}

/**
 * Which files start first. With timings from an earlier run (node_modules/.vite) vitest's own order
 * stands: longest first. Without them (a fresh clone, CI) vitest runs the largest files first, and
 * small files that spawn the CLI per test (30-60 s each) were left for the end, running alone on a
 * core while the other waited: the files that start processes go first (largest first among them),
 * and the quick in-process files fill the end.
 */
class SpawningFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const timed = (f: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${path.relative(this.ctx.config.root, f.moduleId)}`) !==
      undefined;
    if (sorted.some(timed)) return sorted;
    const heavy = new Map(sorted.map((f) => [f, spawnsProcesses(f.moduleId)]));
    // Per project, in the order vitest gives the projects: spawning files, then the others.
    const projects = [...new Set(sorted.map((f) => f.project.name))];
    return projects.flatMap((name) => {
      const mine = sorted.filter((f) => f.project.name === name);
      return [...mine.filter((f) => heavy.get(f)), ...mine.filter((f) => !heavy.get(f))];
    });
  }
}

export default defineConfig({
  test: {
    // The real-client, package, real-repository and reliability suites are slow and have their own
    // configs: npm run test:clients, test:repos, test:reliability, test:external (.ci/run runs all of them). The
    // exhaustive walk of the machine (tests/machine/graph.test.ts, ~43,000 states, CPU-bound) runs
    // with the reliability suites.
    exclude: [
      "tests/clients/**",
      "tests/package/**",
      "tests/repos/**",
      "tests/reliability/**",
      "tests/machine/graph.test.ts",
      ...EXTERNAL,
      "**/node_modules/**",
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Every test, and every server and CLI it starts, checks the state the server keeps between calls
    // against the file, freezes what it keeps and the Markdown trees it shares (src/session/state-memo.ts).
    // The reliability suites run without: they kill and race the code as users run it.
    env: { AUTOPILOT_CHECK_STATE: "1" },
    pool: "forks",
    globalSetup: ["tests/helpers/global-setup.ts"],
    // Vitest runs cores - 1 files at once: one on a 2-core machine, where much test time is spent
    // waiting on spawned servers, git and CLIs. Four at once keeps both cores busy: on a quiet 2-core
    // machine, clean clone, 98 files: 271 s with three, 250 s with four (212 s vs 254 s for three
    // vs two on the smaller suite before). No test compiles into dist/ while others run the CLI from
    // it (a module caught mid-write fails to import).
    maxWorkers: 4,
    sequence: { sequencer: SpawningFilesFirst },
    projects: [
      // (extends: true merges these lists into the exclude above.)
      { extends: true, test: { name: "shared", include: ["tests/**/*.test.ts"], exclude: MOCKING, isolate: false } },
      { extends: true, test: { name: "isolated", include: MOCKING, isolate: true } },
    ],
  },
});
