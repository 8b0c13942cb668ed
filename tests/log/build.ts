// The CLI tests run the compiled JavaScript, as a user does. Build once (under the same lock the
// session tests use, so parallel test files never run two compilers into dist/ at once).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import lockfile from "proper-lockfile";

export const projectRoot = fileURLToPath(new URL("../../", import.meta.url));
export const distCli = path.join(projectRoot, "dist/src/cli/main.js");

const OUTPUTS = [distCli, path.join(projectRoot, "dist/src/cli/commands/log.js"), path.join(projectRoot, "dist/src/log/html.js")];

function sources(): string[] {
  const dir = path.join(projectRoot, "src/log");
  return [
    ...readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => path.join(dir, f)),
    path.join(projectRoot, "src/cli/commands/log.ts"),
    path.join(projectRoot, "src/cli/main.ts"),
    path.join(projectRoot, "machines/autopilot.machine.ts"),
    path.join(projectRoot, "machines/reports.ts"),
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
