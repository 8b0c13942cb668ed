// Tests that spawn real processes (the CLI, lock holders, a writer killed mid-write) need the
// compiled JavaScript. Build once, under a lock, because vitest runs test files in parallel.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import lockfile from "proper-lockfile";

export const projectRoot = fileURLToPath(new URL("../../../", import.meta.url));
export const distCli = path.join(projectRoot, "dist/src/cli/main.js");
export const distStore = path.join(projectRoot, "dist/src/session/store.js");

const OUTPUTS = [distCli, distStore, path.join(projectRoot, "dist/src/cli/commands/state.js"), path.join(projectRoot, "dist/src/session/migrate.js")];

function sources(): string[] {
  const dir = path.join(projectRoot, "src/session");
  return [
    ...readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => path.join(dir, f)),
    path.join(projectRoot, "src/cli/commands/state.ts"),
    path.join(projectRoot, "src/cli/main.ts"),
    path.join(projectRoot, "src/protocol/errors.ts"),
  ];
}

function fresh(): boolean {
  if (!OUTPUTS.every((f) => existsSync(f))) return false;
  const built = Math.min(...OUTPUTS.map((f) => statSync(f).mtimeMs));
  return sources().every((f) => statSync(f).mtimeMs <= built);
}

export async function ensureBuilt(): Promise<void> {
  if (fresh()) return;
  const lockDir = path.join(projectRoot, "node_modules", ".cache");
  mkdirSync(lockDir, { recursive: true });
  const release = await lockfile.lock(lockDir, {
    lockfilePath: path.join(lockDir, "autopilot-session-tests-build.lock"),
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
      // Type errors elsewhere in the tree (files mid-edit by others) still emit JavaScript.
      output = String((e as { stdout?: string }).stdout ?? e);
    }
    if (!OUTPUTS.every((f) => existsSync(f))) throw new Error(`build produced no ${OUTPUTS.join(", ")}:\n${output}`);
  } finally {
    await release();
  }
}
