import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureBuilt } from "../helpers/build.js";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const MAIN = join(REPO, "dist", "src", "cli", "main.js");

/**
 * The built CLI, as a user runs it: compiled only when a source is newer than dist/ (the shared,
 * locked build of tests/helpers/build.ts). It used to run tsc in every install test file, which
 * cost about 15 CPU-seconds each and rewrote dist/ while other test files were running it.
 */
export async function build(): Promise<void> {
  await ensureBuilt();
  if (!existsSync(join(REPO, "dist", "src", "cli", "commands", "install.js")))
    throw new Error("build did not produce install.js");
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `autopilot-${prefix}-`));
}

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

let linkedBin: string | null = null;
/** A folder holding only an `autopilot` symlink to the built CLI: what `npm link` or `npm i -g` puts on PATH. */
export function linkedBinDir(): string {
  if (linkedBin) return linkedBin;
  linkedBin = tempDir("bin");
  symlinkSync(MAIN, join(linkedBin, "autopilot"));
  return linkedBin;
}

/**
 * Runs the built `autopilot install`. PATH holds only a folder with the `autopilot` command linked to
 * this build (as after `npm link`), or, with `onPath: false`, only an empty folder (a checkout run
 * by path, nothing on PATH).
 */
export function install(
  args: string[],
  opts: { cwd: string; home: string; env?: Record<string, string>; onPath?: boolean },
): Run {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  delete env.XDG_CONFIG_HOME;
  delete env.CODEX_HOME;
  const path = opts.onPath === false ? tempDir("nobin") : linkedBinDir();
  Object.assign(env, { HOME: opts.home, USERPROFILE: opts.home, PATH: path }, opts.env ?? {});
  const r = spawnSync(process.execPath, [MAIN, "install", ...args], { cwd: opts.cwd, env, encoding: "utf8" });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Every file under dir, relative path → bytes (as a latin1 string so any byte compares). */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, "latin1");
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

export function readJson(path: string): any {
  return JSON.parse(readFileSync(path, "utf8"));
}
