// Runs once, before any test file: brings dist/ up to date (a no-op after `npm test`'s build), so
// no test file compiles while another runs the CLI or server from dist/. A module caught
// mid-write fails to import, and the CLI then prints nothing.
import { ensureBuilt } from "./build.js";

export default async function setup(): Promise<void> {
  await ensureBuilt();
}
