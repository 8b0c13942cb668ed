// A real npm registry on loopback for the install tests: verdaccio (from the npm registry, pinned,
// installed into the client cache, never committed) with its storage in a temporary folder. This
// checkout's `npm pack` tarball is published to it with `npm publish`; every other package is
// proxied from the public registry. Clients then install autopilot as a user would once it is
// published: `npm_config_registry` points npm and npx at this registry.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import lockfile from "proper-lockfile";
import { clientsCacheDir, type Installed } from "./claude-code.js";
import { packedTarball } from "./autopilot-package.js";
import { projectRoot } from "../helpers/build.js";

const execFileP = promisify(execFile);

/**
 * 6.8.0, not the newest: 6.10 wants Node 22. Its node-fetch is pinned to 2.7.0 (an override), since
 * the range verdaccio asks for does not install. Override: AUTOPILOT_VERDACCIO_VERSION.
 */
export const VERDACCIO_VERSION = process.env.AUTOPILOT_VERDACCIO_VERSION || "6.8.0";

/** verdaccio@VERSION in the client cache (once, under a lock): its bin, or why it could not be had. */
export async function ensureVerdaccio(): Promise<Installed> {
  const dir = path.join(clientsCacheDir(), `verdaccio@${VERDACCIO_VERSION}`);
  const bin = path.join(dir, "node_modules", ".bin", "verdaccio");
  mkdirSync(dir, { recursive: true });
  const release = await lockfile.lock(dir, {
    lockfilePath: path.join(dir, ".install.lock"),
    realpath: false,
    stale: 600_000,
    retries: { retries: 600, minTimeout: 1000, maxTimeout: 1000 },
  });
  try {
    if (!existsSync(bin)) {
      writeFileSync(
        path.join(dir, "package.json"),
        JSON.stringify({ name: "autopilot-test-client", private: true, overrides: { "node-fetch": "2.7.0" } }) + "\n",
      );
      try {
        await execFileP(
          "npm",
          ["install", "--no-audit", "--no-fund", "--loglevel=error", `verdaccio@${VERDACCIO_VERSION}`],
          { cwd: dir, timeout: 600_000, maxBuffer: 16 << 20 },
        );
      } catch (e) {
        return {
          skip: `could not install verdaccio@${VERDACCIO_VERSION} from the npm registry: ${String(
            (e as any).stderr || (e as Error).message,
          )
            .trim()
            .split("\n")
            .slice(-3)
            .join(" ")}`,
        };
      }
    }
    const { stdout } = await execFileP(bin, ["--version"], { timeout: 60_000 });
    return { bin, version: stdout.trim() };
  } finally {
    await release();
  }
}

export interface LocalRegistry {
  url: string;
  /** What a user's shell would have for npm and npx to use this registry (and one npm cache for the run). */
  env: Record<string, string>;
  /** The version published (package.json's). */
  version: string;
  /**
   * Writes `<home>/.npmrc` naming this registry (and the run's npm cache), as a user who set their
   * registry with `npm config set registry` has it: for clients that start MCP servers with only a
   * few of their own environment variables (Codex), so `npm_config_registry` never reaches npx.
   */
  writeNpmrc(home: string): void;
  /** How long starting verdaccio, publishing and the first npx download took (ms). */
  timings: { start: number; publish: number; warm: number };
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts verdaccio on 127.0.0.1 with its storage in a temporary folder, publishes this checkout's
 * packed tarball to it, then runs `npx -y autopilot-mcp@<version> --version` once with the same npm
 * cache (the first npx start downloads the package and its dependencies; a client waiting for the
 * server would otherwise time the download, not the server).
 */
export async function startLocalRegistry(): Promise<LocalRegistry | { skip: string }> {
  const verdaccio = await ensureVerdaccio();
  if ("skip" in verdaccio) return verdaccio;
  const t0 = Date.now();
  const dir = mkdtempSync(path.join(tmpdir(), "autopilot-registry-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const pkg = JSON.parse(readFileSync(path.join(projectRoot, "package.json"), "utf8")) as {
    name: string;
    version: string;
  };
  writeFileSync(
    path.join(dir, "config.yaml"),
    [
      `storage: ${JSON.stringify(path.join(dir, "storage"))}`,
      "auth:",
      "  htpasswd:",
      `    file: ${JSON.stringify(path.join(dir, "htpasswd"))}`,
      "uplinks:",
      "  npmjs:",
      "    url: https://registry.npmjs.org/",
      "    timeout: 60s",
      "packages:",
      // ours is served from here only, never looked up upstream
      `  ${JSON.stringify(pkg.name)}:`,
      "    access: $all",
      "    publish: $authenticated",
      "  '**':",
      "    access: $all",
      "    proxy: npmjs",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const log: string[] = [];
  const child: ChildProcess = spawn(
    verdaccio.bin,
    ["--config", path.join(dir, "config.yaml"), "--listen", `127.0.0.1:${port}`],
    {
      env: { ...process.env, NODE_NO_WARNINGS: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout!.on("data", (d: Buffer) => log.push(d.toString()));
  child.stderr!.on("data", (d: Buffer) => log.push(d.toString()));
  const close = async () => {
    if (child.exitCode === null) {
      const gone = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null)
        throw new Error(`verdaccio exited (${child.exitCode}): ${log.join("").slice(-1500)}`);
      const ok = await fetch(`${url}-/ping`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) break;
      if (i > 300) throw new Error(`verdaccio did not answer on ${url} within 30 s: ${log.join("").slice(-1500)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const start = Date.now() - t0;

    // A publisher account, as `npm adduser` makes it; its token goes into a userconfig of our own.
    const user = await fetch(`${url}-/user/org.couchdb.user:autopilot-test`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "autopilot-test", password: "loopback-only-password" }),
    });
    const { token } = (await user.json()) as { token?: string };
    if (!token) throw new Error(`verdaccio gave no token (HTTP ${user.status})`);
    const npmrc = path.join(dir, "publisher.npmrc");
    writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
    const env = {
      npm_config_registry: url,
      npm_config_cache: path.join(dir, "npm-cache"),
      npm_config_update_notifier: "false",
      npm_config_audit: "false",
      npm_config_fund: "false",
    };
    const t1 = Date.now();
    const tarball = await packedTarball();
    await execFileP("npm", ["publish", tarball, "--userconfig", npmrc, "--registry", url, "--loglevel=error"], {
      env: { ...process.env, ...env },
      timeout: 300_000,
      maxBuffer: 16 << 20,
    });
    const publish = Date.now() - t1;
    const t2 = Date.now();
    const { stdout } = await execFileP("npx", ["-y", `${pkg.name}@${pkg.version}`, "--version"], {
      cwd: dir,
      env: { ...process.env, ...env },
      timeout: 600_000,
      maxBuffer: 16 << 20,
    });
    if (stdout.trim() !== pkg.version)
      throw new Error(`npx ${pkg.name}@${pkg.version} --version printed ${stdout.trim()}`);
    const writeNpmrc = (home: string) =>
      writeFileSync(
        path.join(home, ".npmrc"),
        `registry=${url}\ncache=${env.npm_config_cache}\nupdate-notifier=false\naudit=false\nfund=false\n`,
      );
    return { url, env, version: pkg.version, writeNpmrc, timings: { start, publish, warm: Date.now() - t2 }, close };
  } catch (e) {
    await close();
    const msg = String((e as any).stderr || (e as Error).message).trim();
    // Without the public registry (offline), the dependencies cannot be proxied: skip, saying so.
    if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|getaddrinfo/i.test(msg))
      return {
        skip: `the local registry could not reach the npm registry for autopilot's dependencies: ${msg.split("\n").slice(-3).join(" ")}`,
      };
    throw e;
  }
}
