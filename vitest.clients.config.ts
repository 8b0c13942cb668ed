// The real-client suite (`npm run test:clients`): real Claude Code / Codex / Gemini CLIs from the
// npm registry, and headless runs with real agents, against a loopback scripted model; and the
// package itself (tests/package: npm pack from a clean checkout, npm install -g, the installed CLI). Slow (each
// client run starts a real CLI), so it is kept out of `npm test`. One file at a time: each starts
// real CLIs and MCP servers, and the machine may have only two cores.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/clients/**/*.test.ts", "tests/package/**/*.test.ts"],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    pool: "forks",
    fileParallelism: false,
  },
});
