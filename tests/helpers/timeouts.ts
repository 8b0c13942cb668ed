/**
 * The time-out of a test that runs beside the others of its file (describe.concurrent, each with
 * its own repository and processes): they share their worker's part of the CPU, so each takes
 * longer than it would alone, most on a loaded machine. It is there to catch a hang, not to check
 * speed (vitest.config.ts's 60 s is for tests that run one at a time).
 */
export const SIDE_BY_SIDE = 120_000;
