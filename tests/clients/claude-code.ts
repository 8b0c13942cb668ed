// The real Claude Code CLI for the client tests: installed from the npm registry at a pinned
// version into a cache outside the repository (never committed), and run headless in print mode
// against the loopback model server.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import lockfile from "proper-lockfile";

const execFileP = promisify(execFile);

export const CLAUDE_CODE_PACKAGE = "@anthropic-ai/claude-code";
/**
 * The version these tests were verified with (docs/clients.md). Override:
 * AUTOPILOT_CLAUDE_CODE_VERSION, a version or `latest` (the registry's newest, looked up when the
 * tests start: `npm run test:clients:latest`).
 */
export const CLAUDE_CODE_VERSION = process.env.AUTOPILOT_CLAUDE_CODE_VERSION || "2.1.332";

export function clientsCacheDir(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), ".cache"), "autopilot-test-clients");
}

export type Installed = { bin: string; version: string } | { skip: string };

/**
 * Install `pkg@version` into `<cache>/<pkg with / as +>@<version>` (once; under a lock, as test files
 * run in parallel) and return the path of its bin, or why it could not be installed. `withPackages`
 * (exact `name@version` specs) are installed beside it, into a folder of their own.
 */
export async function ensureNpmClient(
  pkg: string,
  version: string,
  binName: string,
  withPackages: string[] = [],
): Promise<Installed> {
  const dir = path.join(
    clientsCacheDir(),
    `${pkg.replace("/", "+")}@${version}${withPackages.map((p) => `+${p.replace("/", "+")}`).join("")}`,
  );
  const bin = path.join(dir, "node_modules", ".bin", binName);
  mkdirSync(dir, { recursive: true });
  const release = await lockfile.lock(dir, {
    lockfilePath: path.join(dir, ".install.lock"),
    realpath: false,
    stale: 600_000,
    retries: { retries: 600, minTimeout: 1000, maxTimeout: 1000 },
  });
  try {
    if (!existsSync(bin)) {
      if (!existsSync(path.join(dir, "package.json")))
        writeFileSync(
          path.join(dir, "package.json"),
          JSON.stringify({ name: "autopilot-test-client", private: true }) + "\n",
        );
      try {
        await execFileP(
          "npm",
          ["install", "--no-audit", "--no-fund", "--loglevel=error", `${pkg}@${version}`, ...withPackages],
          {
            cwd: dir,
            timeout: 600_000,
            maxBuffer: 16 * 1024 * 1024,
          },
        );
      } catch (e) {
        return {
          skip: `could not install ${[`${pkg}@${version}`, ...withPackages].join(" ")} from the npm registry: ${String(
            (e as any).stderr || (e as Error).message,
          )
            .trim()
            .split("\n")
            .slice(-3)
            .join(" ")}`,
        };
      }
    }
    try {
      // In the cache folder, never in this repository: a tool may act on the git repository it runs in.
      const { stdout } = await execFileP(bin, ["--version"], { timeout: 60_000, cwd: dir });
      return { bin, version: stdout.trim() };
    } catch (e) {
      return {
        skip: `${pkg}@${version} is installed in ${dir} but does not run here: ${(e as Error).message.split("\n")[0]}`,
      };
    }
  } finally {
    await release();
  }
}

export async function ensureClaudeCode(): Promise<Installed> {
  let version = CLAUDE_CODE_VERSION;
  if (version === "latest") {
    try {
      version = (await execFileP("npm", ["view", CLAUDE_CODE_PACKAGE, "version"], { timeout: 120_000 })).stdout.trim();
    } catch (e) {
      return {
        skip: `could not ask the npm registry for the latest ${CLAUDE_CODE_PACKAGE}: ${(e as Error).message.split("\n")[0]}`,
      };
    }
  }
  return ensureNpmClient(CLAUDE_CODE_PACKAGE, version, "claude");
}

/**
 * The environment Claude Code runs in: its own HOME (no user settings, credentials or history
 * leak in or out), the loopback model, no update checks, telemetry or other network traffic.
 */
export function claudeEnv(home: string, modelUrl: string): NodeJS.ProcessEnv {
  return {
    ...isolatedEnv(home),
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: "sk-ant-loopback-test",
    // As root Claude Code refuses to skip permission prompts unless it is told it is sandboxed.
    IS_SANDBOX: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: "1",
    // Print mode connects MCP servers in the background by default, so the first turn may not
    // see the server's tools or prompts (a /mcp__autopilot__start typed at once is "not
    // available"). Wait for them, as an interactive user does before typing.
    MCP_CONNECTION_NONBLOCKING: "0",
    // Tool calls (the MCP server's validation commands) may take a while on a loaded machine.
    MCP_TIMEOUT: "60000",
    MCP_TOOL_TIMEOUT: "600000",
  };
}

/** The environment any client runs in: its own HOME, nothing of the developer's leaking in. */
export function isolatedEnv(home: string): NodeJS.ProcessEnv {
  const keep = ["PATH", "LANG", "TERM", "TMPDIR", "SHELL", "USER", "LOGNAME"];
  const env: NodeJS.ProcessEnv = {};
  for (const k of keep) if (process.env[k]) env[k] = process.env[k];
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_DATA_HOME: path.join(home, ".local/share"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
  };
}

export interface ClaudeRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The stream-json events printed on stdout. */
  events: any[];
  /** The final `result` event. */
  result: any;
}

/** Run `claude` once, killed (with its children) after `timeoutMs`. */
export function runClaude(
  bin: string,
  args: string[],
  o: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; input?: string; onSpawn?: (kill: () => void) => void },
): Promise<ClaudeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: o.cwd, env: o.env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    // The client with every process it started (its MCP servers), as when the host machine stops.
    o.onSpawn?.(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* gone */
      }
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* gone */
      }
    }, o.timeoutMs ?? 300_000);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const events = stdout
        .split("\n")
        .filter((l) => l.trim().startsWith("{"))
        .flatMap((l) => {
          try {
            return [JSON.parse(l)];
          } catch {
            return [];
          }
        });
      resolve({
        code,
        signal,
        stdout,
        stderr,
        events,
        result: events.filter((e) => e.type === "result").at(-1) ?? null,
      });
    });
    child.stdin.end(o.input ?? "");
  });
}
