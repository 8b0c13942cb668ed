// The real-repository matrix (`npm run test:repos`): autopilot in repositories set up as teams set
// them up, with the real tools (husky, commitlint, lint-staged from npm, installed into the
// test-client cache; the pre-commit framework, git-lfs and gpg from Debian). Slow: kept out of
// `npm test`; .ci/run runs it. One file, its tests one at a time.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/repos/**/*.test.ts"],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    pool: "forks",
    fileParallelism: false,
    globalSetup: ["tests/helpers/global-setup.ts"],
  },
});
