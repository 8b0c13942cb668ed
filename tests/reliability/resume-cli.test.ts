// `autopilot run` SIGKILLed after 3 progress lines (early in phase 1) and after 21 (around the
// final review), resumed with the same command, ends exactly like an uninterrupted run
// (tests/headless/_resume.ts). Moved here from `npm test` for time: each is a whole session plus an
// uninterrupted reference one. `npm test` keeps the kill in phase 2's retries
// (tests/headless/resume.test.ts); the same resume path is killed at every fault point by
// tests/reliability/crash.test.ts.
import { killAndResume } from "../headless/_resume.js";

killAndResume([3, 21]);
