// autopilot as a user installs it: `npm pack` of this checkout, then `npm install -g` of the
// tarball into a prefix of its own (never the machine's global one). The install is cached by the
// tarball's hash under the client cache, so the test files of one run share it; installs unused for
// a day are removed.
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import lockfile from "proper-lockfile";
import { ensureBuilt, projectRoot } from "../helpers/build.js";
import { clientsCacheDir } from "./claude-code.js";

const execFileP = promisify(execFile);

export type PackedAutopilot = { bin: string; binDir: string } | { skip: string };

let once: Promise<PackedAutopilot> | undefined;

export function installPackedAutopilot(): Promise<PackedAutopilot> {
  once ??= pack();
  return once;
}

let packed: Promise<string> | undefined;

/** What `npm pack` builds from or ships (package.json `files`, the build's inputs). */
const PACKED_FROM = [
  "src/",
  "personas/",
  "skills/",
  "examples/",
  "scripts/prepack.mjs",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "README.md",
  "LICENSE",
];

/** A hash of those files in the checkout (tracked and new, not ignored). */
function sourceHash(): string {
  const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], {
    cwd: projectRoot,
    encoding: "utf8",
  })
    .split("\0")
    .filter(
      (f) =>
        PACKED_FROM.some((p) => (p.endsWith("/") ? f.startsWith(p) : f === p)) && existsSync(path.join(projectRoot, f)),
    )
    .sort();
  const h = createHash("sha256");
  for (const f of files)
    h.update(f)
      .update("\0")
      .update(readFileSync(path.join(projectRoot, f)))
      .update("\0");
  return h.digest("hex").slice(0, 16);
}

/**
 * `npm pack` of this checkout: the tarball's path. Packed once per state of the sources and kept in
 * the client cache, so the test files of one run share it (packing builds: about a minute).
 */
export function packedTarball(): Promise<string> {
  packed ??= (async () => {
    await ensureBuilt();
    const root = path.join(clientsCacheDir(), "autopilot-mcp-tarballs");
    mkdirSync(root, { recursive: true });
    const release = await lockfile.lock(root, {
      lockfilePath: path.join(root, ".pack.lock"),
      realpath: false,
      stale: 600_000,
      retries: { retries: 600, minTimeout: 1000, maxTimeout: 1000 },
    });
    try {
      const hash = sourceHash();
      const dir = path.join(root, hash);
      const existing = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith(".tgz")) : undefined;
      if (existing) return path.join(dir, existing);
      const out = mkdtempSync(path.join(root, ".packing-"));
      try {
        const { stdout } = await execFileP("npm", ["pack", "--pack-destination", out, "--loglevel=error"], {
          cwd: projectRoot,
          timeout: 300_000,
          maxBuffer: 16 * 1024 * 1024,
        });
        const name = stdout.trim().split("\n").at(-1)!.trim();
        if (!existsSync(path.join(out, name))) throw new Error(`npm pack printed ${name}, which is not in ${out}`);
        renameSync(out, dir);
        // Tarballs of other source states are removed after a day.
        const dayAgo = Date.now() - 24 * 3600 * 1000;
        for (const old of readdirSync(root)) {
          const p = path.join(root, old);
          if (old !== hash && statSync(p).mtimeMs < dayAgo) rmSync(p, { recursive: true, force: true });
        }
        return path.join(dir, name);
      } catch (e) {
        rmSync(out, { recursive: true, force: true });
        throw new Error(
          `npm pack failed in ${projectRoot}: ${String((e as any).stderr || (e as Error).message).trim()}`,
          { cause: e },
        );
      }
    } finally {
      await release();
    }
  })();
  return packed;
}

async function pack(): Promise<PackedAutopilot> {
  const tarball = await packedTarball();
  const sha = createHash("sha256").update(readFileSync(tarball)).digest("hex").slice(0, 16);
  // (Not "autopilot-mcp-packed": an earlier version of this file removed every other build's
  // install there, and checkouts still running it would remove ours mid-run.)
  const root = path.join(clientsCacheDir(), "autopilot-mcp-installs");
  const dir = path.join(root, sha);
  mkdirSync(root, { recursive: true });
  const release = await lockfile.lock(root, {
    lockfilePath: path.join(root, ".install.lock"),
    realpath: false,
    stale: 600_000,
    retries: { retries: 600, minTimeout: 1000, maxTimeout: 1000 },
  });
  try {
    const binDir = path.join(dir, "prefix", "bin");
    const bin = path.join(binDir, "autopilot");
    if (!existsSync(bin)) {
      rmSync(dir, { recursive: true, force: true });
      try {
        await execFileP(
          "npm",
          [
            "install",
            "-g",
            "--prefix",
            path.join(dir, "prefix"),
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            tarball,
          ],
          {
            timeout: 600_000,
            maxBuffer: 16 * 1024 * 1024,
          },
        );
      } catch (e) {
        rmSync(dir, { recursive: true, force: true });
        return {
          skip: `could not install the packed autopilot (its dependencies come from the npm registry): ${String(
            (e as any).stderr || (e as Error).message,
          )
            .trim()
            .split("\n")
            .slice(-3)
            .join(" ")}`,
        };
      }
    }
    // Installs of other builds are left to other checkouts' test runs for a day, then removed.
    const dayAgo = Date.now() - 24 * 3600 * 1000;
    for (const old of readdirSync(root)) {
      const p = path.join(root, old);
      if (old !== sha && !old.startsWith(".") && statSync(p).mtimeMs < dayAgo)
        rmSync(p, { recursive: true, force: true });
    }
    const now = new Date();
    utimesSync(dir, now, now);
    return { bin, binDir };
  } finally {
    await release();
  }
}
