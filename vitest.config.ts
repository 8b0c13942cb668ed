import { defineConfig } from "vitest/config";
import { EXTERNAL } from "./vitest.external.config.js";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
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
  },
});
