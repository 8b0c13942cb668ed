import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // The real-client and package suites are slow and have their own config: npm run test:clients.
    exclude: ["tests/clients/**", "tests/package/**", "**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest runs cores - 1 files at once: one on a 2-core machine, where most test time is spent
    // waiting on spawned servers, git and CLIs. Three at once keeps both cores busy: on a quiet
    // 2-core machine the suite took 297 s with two and 269 s with three (all passing).
    maxWorkers: 3,
  },
});
