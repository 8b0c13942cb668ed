// The multi-process suites run the engine in child processes, which cannot load TypeScript: they
// use a private copy of the build (not the shared dist/ itself, which a developer's `npm run build`
// may rewrite mid-run). The copy is keyed by a hash of the sources, so the suites share one per change.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureBuilt } from "../helpers/build.js";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
export const CRASH_DRIVER = path.join(REPO_ROOT, "tests/helpers/crash-driver.mjs");

async function sourceFiles(dir: string, out: string[] = []): Promise<string[]> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await sourceFiles(p, out);
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}

/**
 * `driver.js` beside the copy's src/: what tests/helpers/crash-driver.mjs runs (the engine, the
 * scripted runner, the --yes gate, the fault counter) in one bundle, as scripts/bundle.mjs makes the
 * bin: the suites start the driver about a thousand times, and each start then reads and compiles
 * one file instead of some 500 modules (0.39 -> 0.17 CPU-s per start).
 */
async function bundleDriver(dir: string): Promise<void> {
  const entry = path.join(dir, "driver-entry.js");
  const from = (rel: string) => JSON.stringify(`./${rel}`);
  await (
    await import("node:fs/promises")
  ).writeFile(
    entry,
    [
      `export { Engine } from ${from("src/engine/engine.js")};`,
      `export { ScriptedRunner } from ${from("src/runners/scripted.js")};`,
      `export { PolicyGate } from ${from("src/headless/drive.js")};`,
      `export { faultCounts } from ${from("src/engine/faults.js")};`,
    ].join("\n") + "\n",
  );
  const { rolldown } = await import("rolldown");
  const bundle = await rolldown({
    input: { driver: entry },
    platform: "node",
    // As in scripts/bundle.mjs: packages that must stay packages.
    external: ["write-file-atomic", "jsonc-parser"],
    logLevel: "warn",
    checks: { eval: false },
  });
  await bundle.write({ dir, format: "esm", entryFileNames: "[name].js", chunkFileNames: "driver-[hash].js" });
  await bundle.close();
}

/** The directory holding `src/engine/engine.js` etc. (and `driver.js`), built if needed. */
export async function builtDist(): Promise<string> {
  const files = [
    ...(await sourceFiles(path.join(REPO_ROOT, "src"))),
    ...(await sourceFiles(path.join(REPO_ROOT, "machines"))),
  ].sort();
  // The layout of the copy (driver.js beside src/) is part of its key.
  const h = createHash("sha256").update("copy with driver.js\n");
  for (const f of files) h.update(f).update(await readFile(f));
  const key = h.digest("hex").slice(0, 16);
  const base = path.join(tmpdir(), "autopilot-reliability-build");
  const out = path.join(base, key);
  if (existsSync(path.join(out, "driver.js"))) return out;
  await mkdir(base, { recursive: true });
  const tmp = `${out}.tmp-${process.pid}-${Date.now()}`;
  // A copy of the shared dist/ (built by `npm test`, or here when a source is newer): one
  // compile per change for every suite, not one more.
  await ensureBuilt();
  await cp(path.join(REPO_ROOT, "dist"), tmp, { recursive: true, filter: (src) => !src.endsWith(".map") });
  // package.json "type": "module" must be visible from the build for Node to load ESM.
  await (await import("node:fs/promises")).writeFile(path.join(tmp, "package.json"), '{ "type": "module" }\n');
  await rm(path.join(tmp, "node_modules"), { force: true, recursive: true });
  await (
    await import("node:fs/promises")
  ).symlink(path.join(REPO_ROOT, "node_modules"), path.join(tmp, "node_modules"));
  await bundleDriver(tmp);
  try {
    await rename(tmp, out);
  } catch {
    // Another suite finished the same build first.
    await rm(tmp, { recursive: true, force: true });
  }
  await stat(path.join(out, "driver.js"));
  return out;
}
