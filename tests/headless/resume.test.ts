// A headless run SIGKILLed in the middle resumes with the same `autopilot run` and ends exactly like
// a run that was never interrupted (tests/headless/_resume.ts). Here one kill, in phase 2's retries;
// the kills early in phase 1 and in the final review run in `npm run test:reliability`
// (tests/reliability/resume-cli.test.ts), beside the engine's kills at every fault point
// (tests/reliability/crash.test.ts), which a resumed CLI run goes through the same way.
import { killAndResume } from "./_resume.js";

killAndResume([12]);
