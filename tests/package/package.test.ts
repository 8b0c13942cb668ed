// The package as a user gets it, following the README's tarball path word for word: a checkout
// without dist/ (only the tracked files, with this checkout's node_modules), `npm pack` (whose
// prepack step builds it), `npm install -g ./autopilot-mcp-<version>.tgz` into a prefix of its own,
// then the installed `autopilot`: --version, `install claude` in a fresh git repository, and the
// server that .mcp.json names answering tools/list over stdio through the MCP SDK client.
// Slow (a full tsc build and an npm install): it runs in `npm run test:clients`, not `npm test`.
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../helpers/build.js";
import { PERSONAS } from "../../src/vocabulary.js";

const execFileP = promisify(execFile);
const pkg = JSON.parse(readFileSync(path.join(projectRoot, "package.json"), "utf8")) as {
  name: string;
  version: string;
};
const work = mkdtempSync(path.join(tmpdir(), "autopilot-package-"));
const prefix = path.join(work, "prefix");
const binDir = process.platform === "win32" ? prefix : path.join(prefix, "bin");
const installedRoot =
  process.platform === "win32"
    ? path.join(prefix, "node_modules", pkg.name)
    : path.join(prefix, "lib", "node_modules", pkg.name);

let tarball = "";
let tarEntries: string[] = [];
let skip: string | null = null;

function env(extra: Record<string, string> = {}): Record<string, string> {
  const e: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) e[k] = v;
  return { ...e, PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ""}`, ...extra };
}

beforeAll(async () => {
  // 1. a checkout as `git clone` gives it: tracked (and new, not ignored) files only, no dist/
  const checkout = path.join(work, "checkout");
  const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], {
    cwd: projectRoot,
    encoding: "utf8",
  })
    .split("\0")
    .filter((f) => f.length > 0 && existsSync(path.join(projectRoot, f)));
  for (const f of files) {
    mkdirSync(path.dirname(path.join(checkout, f)), { recursive: true });
    cpSync(path.join(projectRoot, f), path.join(checkout, f));
  }
  expect(existsSync(path.join(checkout, "dist"))).toBe(false);
  symlinkSync(path.join(projectRoot, "node_modules"), path.join(checkout, "node_modules"), "junction");

  // 2. npm pack: prepack builds dist/ from nothing
  const out = path.join(work, "pack");
  mkdirSync(out);
  const { stdout } = await execFileP("npm", ["pack", "--pack-destination", out, "--loglevel=error"], {
    cwd: checkout,
    timeout: 600_000,
    maxBuffer: 64 << 20,
  });
  tarball = path.join(out, stdout.trim().split("\n").at(-1)!.trim());
  tarEntries = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.length > 0);

  // 3. npm install -g ./autopilot-mcp-<version>.tgz, into a prefix of its own
  try {
    await execFileP(
      "npm",
      ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", tarball],
      { timeout: 600_000, maxBuffer: 64 << 20 },
    );
  } catch (e) {
    skip = `npm install -g of the tarball failed (its dependencies come from the npm registry): ${String(
      (e as { stderr?: string }).stderr ?? e,
    )
      .trim()
      .split("\n")
      .slice(-3)
      .join(" ")}`;
    console.warn(`SKIP installed-package tests: ${skip}`);
  }
}, 1_200_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("npm pack", () => {
  it("is named after the package and version, and carries what the installed CLI needs", () => {
    expect(path.basename(tarball)).toBe(`${pkg.name}-${pkg.version}.tgz`);
    for (const need of [
      "package/package.json",
      "package/README.md",
      "package/LICENSE",
      "package/dist/src/cli/main.js",
      "package/dist/machines/autopilot.machine.js",
      "package/examples/word-count/proposal.md",
      "package/examples/word-count/script.json",
      ...PERSONAS.map((p) => `package/personas/${p}.md`),
      ...[
        "harness-autopilot",
        "harness-planning",
        "harness-execution",
        "harness-verification",
        "harness-code-review",
      ].map((s) => `package/skills/${s}/SKILL.md`),
    ]) {
      expect(tarEntries, need).toContain(need);
    }
  });

  it("ships no tests, no TypeScript sources, no source maps, no benchmarks", () => {
    const stray = tarEntries.filter(
      (e) =>
        e.startsWith("package/tests/") ||
        e.startsWith("package/src/") ||
        e.endsWith(".ts") ||
        e.endsWith(".map") ||
        e.includes("/bench/") ||
        e.includes("node_modules"),
    );
    expect(stray).toEqual([]);
  });

  it("npm publish --dry-run is clean: no warning about the package itself", async () => {
    const r = await execFileP("npm", ["publish", "--dry-run", "--ignore-scripts", tarball], {
      cwd: work,
      timeout: 300_000,
      maxBuffer: 64 << 20,
    }).catch((e: { stdout: string; stderr: string; code: number }) => e);
    const warnings = String(r.stderr)
      .split("\n")
      .filter((l) => /^npm (warn|error)/i.test(l))
      // the machine's own npm settings and the absent registry login are not the package's business
      .filter((l) => !/Unknown (user|project|env) config|requires you to be logged in/i.test(l));
    expect(warnings).toEqual([]);
    expect(String(r.stdout) + String(r.stderr)).toContain(`${pkg.name}@${pkg.version}`);
  });
});

describe("the globally installed package", () => {
  it("autopilot --version prints the package version", async (ctx) => {
    if (skip) return ctx.skip(skip);
    const { stdout } = await execFileP(path.join(binDir, "autopilot"), ["--version"], { env: env() });
    expect(stdout.trim()).toBe(pkg.version);
    expect(existsSync(path.join(installedRoot, "dist", "src", "cli", "main.js"))).toBe(true);
    expect(readdirSync(installedRoot)).not.toContain("tests");
  });

  it("`autopilot install claude` in a fresh git repository writes `autopilot serve`, and that server answers tools/list over stdio", async (ctx) => {
    if (skip) return ctx.skip(skip);
    const project = path.join(work, "project");
    mkdirSync(project);
    execFileSync("git", ["init", "-q"], { cwd: project });
    const { stdout, stderr } = await execFileP("autopilot", ["install", "claude"], { cwd: project, env: env() });
    expect(stderr).toBe("");
    expect(stdout).toContain("server command: autopilot serve  [the autopilot command on your PATH]");
    const entry = JSON.parse(readFileSync(path.join(project, ".mcp.json"), "utf8")).mcpServers.autopilot;
    expect(entry).toEqual({ type: "stdio", command: "autopilot", args: ["serve"] });
    for (const p of ["harness-planner", "harness-task-executor", "harness-verifier", "harness-code-reviewer"]) {
      expect(existsSync(path.join(project, ".claude", "agents", `${p}.md`))).toBe(true);
    }
    expect(existsSync(path.join(project, ".claude", "commands", "autopilot.md"))).toBe(true);

    // start the server exactly as Claude Code would from .mcp.json: command + args, in the project
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      cwd: project,
      env: env(),
      stderr: "pipe",
    });
    const client = new Client({ name: "package-test", version: "0" });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.version).toBe(pkg.version);
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const t of ["autopilot_start", "autopilot_report", "autopilot_decide", "autopilot_next", "autopilot_status"])
        expect(names).toContain(t);
    } finally {
      await client.close();
    }
  });

  it("autopilot demo runs the bundled example from the installed package", async (ctx) => {
    if (skip) return ctx.skip(skip);
    const { stdout } = await execFileP("autopilot", ["demo"], {
      cwd: work,
      env: env(),
      timeout: 300_000,
      maxBuffer: 64 << 20,
    });
    expect(stdout).toMatch(/DONE in [\d.]+s · 3 phases completed/);
  });
});
