// Tests that spawn real processes (the CLI, lock holders, a writer killed mid-write) run the
// compiled JavaScript, as a user does. `npm test` builds first; when a test file runs on its own
// this builds once if any source is newer than dist/, under a lock because vitest runs test
// files in parallel.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import lockfile from "proper-lockfile";

export const projectRoot = fileURLToPath(new URL("../../", import.meta.url));
export const distCli = path.join(projectRoot, "dist/src/cli/main.js");
export const distStore = path.join(projectRoot, "dist/src/session/store.js");

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}

function fresh(): boolean {
  if (!existsSync(distCli) || !existsSync(distStore)) return false;
  const built = Math.min(statSync(distCli).mtimeMs, statSync(distStore).mtimeMs);
  return [...sources(path.join(projectRoot, "src")), ...sources(path.join(projectRoot, "machines"))].every(
    (f) => statSync(f).mtimeMs <= built,
  );
}

export async function ensureBuilt(): Promise<void> {
  if (fresh()) return;
  const lockDir = path.join(projectRoot, "node_modules", ".cache");
  mkdirSync(lockDir, { recursive: true });
  const release = await lockfile.lock(lockDir, {
    lockfilePath: path.join(lockDir, "autopilot-tests-build.lock"),
    realpath: false,
    stale: 120_000,
    retries: { retries: 600, minTimeout: 200, maxTimeout: 200 },
  });
  try {
    if (fresh()) return;
    let output = "";
    try {
      execFileSync(process.execPath, [path.join(projectRoot, "node_modules/typescript/bin/tsc"), "-p", projectRoot], {
        cwd: projectRoot,
        encoding: "utf8",
        stdio: "pipe",
      });
    } catch (e) {
      // A type error still emits JavaScript; the tests then say what is wrong.
      output = String((e as { stdout?: string }).stdout ?? e);
    }
    // The bin, dist/src/cli/main.js, is the bundle of tsc's dist/src/cli/cli.js (scripts/bundle.mjs).
    execFileSync(process.execPath, [path.join(projectRoot, "scripts/bundle.mjs")], { cwd: projectRoot, stdio: "pipe" });
    if (!existsSync(distCli)) throw new Error(`the build produced no ${distCli}:\n${output}`);
  } finally {
    await release();
  }
}
