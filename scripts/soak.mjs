#!/usr/bin/env node
// The opt-in long run of the reliability suites (`npm run soak`): the same tests as CI with many
// more kills, generated inputs and racing hosts, and a fresh seed each time (printed, so a failure
// can be rerun with RELIABILITY_SEED=<seed>). Override any size through the environment. The
// exhaustive walk of the machine (tests/machine/graph.test.ts) is left out: it is the same walk
// whatever the seed and sizes, and CI's test:reliability runs it on every landing.
//
// `npm run soak -- --slice N`: one N-th of the soak with a seed of its own: the sessions per kill
// point and the generated runs at 1/N, never below the suites' CI defaults; the kills per session
// and the racing hosts as in CI. N slices (run one after the other, or one per landing as .ci/run
// does with --slice 8) try as many kill-point sessions and generated inputs as one whole soak,
// each with other random choices; not the whole soak's 8 racing hosts, nor all of its seeded
// wave kills (the wave suite's extra tries grow with the sessions above CI's 2).
import { spawnSync } from "node:child_process";

const SIZES = { RELIABILITY_CHAINS: 24, RELIABILITY_KILLS: 5, RELIABILITY_RUNS: 500, RELIABILITY_HOSTS: 8 };
/** Sizes a slice never goes below: the suites' own CI defaults. */
const FLOOR = { RELIABILITY_CHAINS: 2, RELIABILITY_KILLS: 5, RELIABILITY_RUNS: 40, RELIABILITY_HOSTS: 4 };

const at = process.argv.indexOf("--slice");
const slice = at >= 0 ? Number(process.argv[at + 1]) : 1;
if (!Number.isInteger(slice) || slice < 1) {
  console.error("usage: npm run soak [-- --slice N]   (N a whole number, 1 or more: one N-th of the soak)");
  process.exit(2);
}
const sized = Object.fromEntries(
  Object.entries(SIZES).map(([k, v]) => [k, String(Math.max(FLOOR[k], Math.ceil(v / slice)))]),
);
const env = { RELIABILITY_SEED: String(Date.now() % 2 ** 31), ...sized, ...process.env };
console.log(
  `soak${slice > 1 ? ` (1/${slice} of it)` : ""}: seed ${env.RELIABILITY_SEED}, ${env.RELIABILITY_CHAINS} sessions per kill point x ${env.RELIABILITY_KILLS} kills, ` +
    `${env.RELIABILITY_RUNS} generated runs, ${env.RELIABILITY_HOSTS} racing hosts`,
);
const vitest = ["vitest", "run", "--config", "vitest.reliability.config.ts", "--reporter=verbose"];
const r = spawnSync("npx", [...vitest, "--exclude", "tests/machine/graph.test.ts"], {
  stdio: "inherit",
  env,
});
process.exit(r.status ?? 1);
