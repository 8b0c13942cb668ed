// Shared test plumbing for the effect tests: temp project folders and the upstream corpus location.
import { existsSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const corpusDir = path.resolve(projectRoot, "../shared/corpus");
export const upstreamDir = path.join(corpusDir, "upstream");
export const haveCorpus = existsSync(upstreamDir);
export const fixturesDir = path.join(projectRoot, "tests/fixtures/effects");

if (!haveCorpus) {
  // Printed once per file that imports this: why the corpus tests are skipped.
  console.warn(`[effects tests] corpus not found at ${corpusDir}: corpus tests are skipped; fixture tests still run.`);
}

export async function tmpProject(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), "autopilot-fx-")));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
