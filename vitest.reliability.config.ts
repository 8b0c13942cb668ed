// The reliability suites (`npm run test:reliability`): SIGKILLs at every kill point, hosts racing
// one session, hostile input, loop safety. They run the engine in many child processes and are the
// largest share of test time, so they are kept out of `npm test`, with the exhaustive walk of the
// machine by @xstate/graph (tests/machine/graph.test.ts); .ci/run runs them, and
// `npm run soak` runs the same files, the graph walk aside (it does not depend on the sizes or the
// seed), with larger sizes and a fresh seed.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/reliability/**/*.test.ts", "tests/machine/graph.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks",
    maxWorkers: 2,
    globalSetup: ["tests/helpers/global-setup.ts"],
  },
});
