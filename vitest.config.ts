import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { defineConfig } from "vitest/config";
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
    else if (e.name.endsWith(".test.ts") && /\bvi\.(mock|doMock)\(/.test(readFileSync(p, "utf8"))) out.push(p.split(path.sep).join("/"));
  }
  return out;
}
const MOCKING = mockingFiles();

export default defineConfig({
  test: {
    // The real-client, package, real-repository and reliability suites are slow and have their own
    // configs: npm run test:clients, test:repos, test:reliability, test:external (.ci/run runs all of them). The
    // exhaustive walk of the machine (tests/machine/graph.test.ts, ~43,000 states, CPU-bound) runs
    // with the reliability suites.
    exclude: ["tests/clients/**", "tests/package/**", "tests/repos/**", "tests/reliability/**", "tests/machine/graph.test.ts", ...EXTERNAL, "**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["tests/helpers/global-setup.ts"],
    // Vitest runs cores - 1 files at once: one on a 2-core machine, where much test time is spent
    // waiting on spawned servers, git and CLIs. Four at once keeps both cores busy: on a quiet 2-core
    // machine, clean clone, 98 files: 271 s with three, 250 s with four (212 s vs 254 s for three
    // vs two on the smaller suite before). No test compiles into dist/ while others run the CLI from
    // it (a module caught mid-write fails to import).
    maxWorkers: 4,
    projects: [
      // (extends: true merges these lists into the exclude above.)
      { extends: true, test: { name: "shared", include: ["tests/**/*.test.ts"], exclude: MOCKING, isolate: false } },
      { extends: true, test: { name: "isolated", include: MOCKING, isolate: true } },
    ],
  },
});
