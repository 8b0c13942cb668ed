#!/usr/bin/env node
// The opt-in long run of the reliability suites (`npm run soak`): the same tests as CI with many
// more kills, generated inputs and racing hosts, and a fresh seed each time (printed, so a failure
// can be rerun with RELIABILITY_SEED=<seed>). Override any size through the environment.
import { spawnSync } from "node:child_process";

const env = {
  RELIABILITY_SEED: String(Date.now() % 2 ** 31),
  RELIABILITY_CHAINS: "24",
  RELIABILITY_KILLS: "5",
  RELIABILITY_RUNS: "500",
  RELIABILITY_HOSTS: "8",
  ...process.env,
};
console.log(
  `soak: seed ${env.RELIABILITY_SEED}, ${env.RELIABILITY_CHAINS} sessions per kill point x ${env.RELIABILITY_KILLS} kills, ` +
    `${env.RELIABILITY_RUNS} generated runs, ${env.RELIABILITY_HOSTS} racing hosts`,
);
const r = spawnSync("npx", ["vitest", "run", "--config", "vitest.reliability.config.ts", "--reporter=verbose"], {
  stdio: "inherit",
  env,
});
process.exit(r.status ?? 1);
