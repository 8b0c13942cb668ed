import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { it } from "vitest";
import { fileURLToPath } from "node:url";

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const fixtures = path.join(projectRoot, "tests/fixtures");
export const corpus = path.resolve(projectRoot, "../shared/corpus");
export const corpusPresent = existsSync(path.join(corpus, "upstream"));

export function fixture(rel: string): string {
  return readFileSync(path.join(fixtures, rel), "utf8");
}

/** Say out loud why corpus tests did not run, rather than passing silently. */
export function warnIfCorpusMissing(what: string): void {
  if (corpusPresent) return;
  const reason = `${what}: upstream corpus not found at ${path.join(corpus, "upstream")}`;
  console.warn(`[skip] ${reason}`);
  it.skip(reason, () => {});
}
