// The plugin, extension and registry manifests the repository ships: each checked-in file is exactly
// what `npm run manifests` makes from package.json and the install templates (so a file that drifts
// fails here), every version is the package's, the persona and command texts are the ones
// `autopilot install` writes, and server.json is valid against the MCP Registry's schema, kept in
// tests/fixtures/registry/ (a byte-for-byte copy of
// https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json, sha256 below; the
// test never fetches it). The clients' own validators run in the client suite (tests/clients/).
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { afterAll, describe, expect, it } from "vitest";
import { buildManifests, PLUGIN_DIRS, REGISTRY_SCHEMA_URL } from "../../src/install/manifests.js";
import { planInstall } from "../../src/install/clients.js";
import { projectRoot } from "../helpers/build.js";
import { PERSONAS } from "../../src/vocabulary.js";

const execFileP = promisify(execFile);
const root = projectRoot;
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  name: string;
  version: string;
  mcpName: string;
};
const SCHEMA = path.join(root, "tests", "fixtures", "registry", "server.schema.2025-12-11.json");
const SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0";
const readJson = (rel: string) => JSON.parse(readFileSync(path.join(root, rel), "utf8"));
const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

describe("the checked-in manifests", () => {
  it("are exactly what the generator makes from package.json and the install templates", () => {
    const stale = buildManifests(root).filter((f) => {
      const file = path.join(root, f.path);
      return !existsSync(file) || readFileSync(file, "utf8") !== f.content;
    });
    expect(
      stale.map((f) => f.path),
      "out of date: run `npm run manifests` and commit the result",
    ).toEqual([]);
  });

  it("pin every version and the server's npx command to package.json's version", () => {
    const claude = readJson(`${PLUGIN_DIRS.claude}/.claude-plugin/plugin.json`);
    const codex = readJson(`${PLUGIN_DIRS.codex}/.codex-plugin/plugin.json`);
    const gemini = readJson(`${PLUGIN_DIRS.gemini}/gemini-extension.json`);
    const server = readJson("server.json");
    expect([
      claude.version,
      codex.version,
      gemini.version,
      server.version,
      server.packages[0].version,
      readJson(".claude-plugin/marketplace.json").plugins[0].version,
    ]).toEqual(Array(6).fill(pkg.version));
    const npx = ["-y", `${pkg.name}@${pkg.version}`, "serve"];
    expect(claude.mcpServers.autopilot).toEqual({
      type: "stdio",
      command: "npx",
      args: [...npx, "--agent-prefix", "autopilot:"],
    });
    expect(readJson(`${PLUGIN_DIRS.codex}/.mcp.json`).mcpServers.autopilot).toMatchObject({
      command: "npx",
      args: npx,
      required: true,
    });
    expect(gemini.mcpServers.autopilot).toEqual({ command: "npx", args: npx });
    expect(server.packages[0]).toMatchObject({
      registryType: "npm",
      identifier: pkg.name,
      transport: { type: "stdio" },
    });
  });

  it("carry the persona and command texts `autopilot install` writes, from the same templates", () => {
    const plan = (client: "claude" | "gemini") =>
      planInstall({
        client,
        global: false,
        project: "/nonexistent-project",
        home: "/nonexistent-home",
        root,
        server: { command: "autopilot", args: ["serve"], source: "", machineLocal: false },
      });
    const byName = (files: { path: string; after: string }[], dir: string) =>
      Object.fromEntries(
        files
          .filter((f) => f.path.includes(`/${dir}/`) && f.path.endsWith(".md"))
          .map((f) => [path.basename(f.path), f.after]),
      );
    const claudeAgents = byName(plan("claude").files, "agents");
    const geminiAgents = byName(plan("gemini").files, "agents");
    expect(Object.keys(claudeAgents).sort()).toEqual(PERSONAS.map((p) => `${p}.md`).sort());
    // The agents: install's text, with the persona's tool (autopilot_result) named as Claude Code names a plugin's tools.
    for (const [name, text] of Object.entries(claudeAgents))
      expect(readFileSync(path.join(root, PLUGIN_DIRS.claude, "agents", name), "utf8"), name).toBe(
        text.replace("mcp__autopilot__autopilot_result", "mcp__plugin_autopilot_autopilot__autopilot_result"),
      );
    for (const [name, text] of Object.entries(geminiAgents))
      expect(readFileSync(path.join(root, PLUGIN_DIRS.gemini, "agents", name), "utf8"), name).toBe(text);
    // The command: install's text, with the tool named as Claude Code names a plugin's tools.
    const command = plan("claude").files.find((f) => f.path.endsWith("commands/autopilot.md"))!.after;
    expect(readFileSync(path.join(root, PLUGIN_DIRS.claude, "commands", "autopilot.md"), "utf8")).toBe(
      command.replace("mcp__autopilot__autopilot_start", "mcp__plugin_autopilot_autopilot__autopilot_start"),
    );
  });

  it("carry the SessionStart hook install writes, run from the plugin's own folder (no project install)", () => {
    const script = readFileSync(path.join(root, "hooks", "autopilot-session-start.mjs"), "utf8");
    // Each client's variable for the folder its plugin or extension was installed into.
    const rootVar = {
      claude: "${CLAUDE_PLUGIN_ROOT}/hooks/",
      codex: "${PLUGIN_ROOT}/hooks/",
      gemini: "${extensionPath}${/}hooks${/}",
    };
    for (const client of ["claude", "codex", "gemini"] as const) {
      const dir = PLUGIN_DIRS[client];
      expect(readFileSync(path.join(root, dir, "hooks", "autopilot-session-start.mjs"), "utf8"), client).toBe(script);
      const groups = readJson(`${dir}/hooks/hooks.json`).hooks.SessionStart;
      expect(groups, client).toHaveLength(1);
      expect(
        groups[0].hooks.map((h: { command: string }) => h.command),
        client,
      ).toEqual([`node "${rootVar[client]}autopilot-session-start.mjs"${client === "gemini" ? " --json" : ""}`]);
      // The sources install's hook fires on (Gemini CLI has no matcher for them: it fires on all).
      if (client !== "gemini") expect(groups[0].matcher, client).toBe("startup|resume|clear|compact");
    }
  });

  it("`manifests --check` names each file that no longer matches package.json, and exits 1", async () => {
    // A copy of what the generator reads and writes, with the version bumped as a release would.
    const copy = mkdtempSync(path.join(tmpdir(), "autopilot-manifests-"));
    temps.push(copy);
    for (const f of ["package.json", "personas", "skills", "hooks", ...buildManifests(root).map((m) => m.path)])
      cpSync(path.join(root, f), path.join(copy, f), { recursive: true });
    const script = path.join(root, "scripts", "manifests.mjs");
    await expect(execFileP(process.execPath, [script, "--check", "--root", copy])).resolves.toMatchObject({
      stdout: "manifests: up to date\n",
    });
    const bumped = readJson("package.json");
    bumped.version = "9.9.9";
    writeFileSync(path.join(copy, "package.json"), JSON.stringify(bumped, null, 2) + "\n");
    const r = await execFileP(process.execPath, [script, "--check", "--root", copy]).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(r.code).toBe(1);
    for (const f of [
      ".claude-plugin/marketplace.json",
      `${PLUGIN_DIRS.claude}/.claude-plugin/plugin.json`,
      `${PLUGIN_DIRS.codex}/.mcp.json`,
      `${PLUGIN_DIRS.gemini}/gemini-extension.json`,
      "server.json",
    ]) {
      expect(r.stderr).toContain(`outdated  ${f}`);
    }
    expect(r.stderr).toContain("Run `npm run manifests`");
    // Writing brings them in line with the new version.
    await execFileP(process.execPath, [script, "--root", copy]);
    expect(JSON.parse(readFileSync(path.join(copy, "server.json"), "utf8")).version).toBe("9.9.9");
    await expect(execFileP(process.execPath, [script, "--check", "--root", copy])).resolves.toMatchObject({
      stdout: "manifests: up to date\n",
    });
  });
});

describe("the MCP Registry entry", () => {
  const schemaText = readFileSync(SCHEMA, "utf8");
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
  const validate = ajv.compile(JSON.parse(schemaText));

  it("keeps the registry's schema 2025-12-11 byte for byte, and server.json names it", () => {
    expect(createHash("sha256").update(schemaText).digest("hex")).toBe(SCHEMA_SHA256);
    expect(JSON.parse(schemaText).$id).toBe(REGISTRY_SCHEMA_URL);
    expect(readJson("server.json").$schema).toBe(REGISTRY_SCHEMA_URL);
  });

  it("server.json is valid against it, and package.json's mcpName is its name (the registry's ownership check)", () => {
    const server = readJson("server.json");
    expect(validate(server), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(server.name).toBe(pkg.mcpName);
  });

  it("the schema refuses what the registry refuses (so a passing check means something)", () => {
    const server = readJson("server.json");
    expect(validate({ ...server, description: "x".repeat(101) })).toBe(false);
    expect(validate({ ...server, name: "autopilot" })).toBe(false);
    expect(validate({ ...server, packages: [{ ...server.packages[0], version: "latest" }] })).toBe(false);
  });
});
