// Tests that drive programs outside autopilot (`npm run test:external`): the decision log in real
// headless Chromium, the MCP Inspector's CLI against the built server, the example GitHub Actions
// workflow's steps executed in order, and the parsers over the real upstream corpus. They are the
// default suite's slowest files, so they run beside it (.ci/run runs them) to keep `npm test` under
// five minutes on two cores.
import { defineConfig } from "vitest/config";

export const EXTERNAL = [
  "tests/log/browser.test.ts",
  "tests/mcp/inspector-cli.test.ts",
  "tests/headless/ci-workflow.test.ts",
  "tests/session/corpus.test.ts",
];

export default defineConfig({
  test: {
    include: EXTERNAL,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    globalSetup: ["tests/helpers/global-setup.ts"],
  },
});
