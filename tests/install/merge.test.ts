// The pure merge functions and helpers behind install, on edge cases the CLI tests do not reach.
import { parse as parseToml } from "smol-toml";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JSONC, mergeJsonServer, mergeTomlServer } from "../../src/install/merge.js";
import { cliWords, resolveServerCommand, commandWords } from "../../src/install/server-command.js";
import { renderHarnessFiles } from "../../src/session/notices-done.js";
import { todoFor } from "../../src/protocol/host-view.js";
import { unifiedDiff } from "../../src/install/apply.js";

const entry = { command: "node", args: ["/opt/autopilot/dist/src/cli/main.js", "serve"] };

describe("mergeTomlServer", () => {
  it("replaces only our table (and its subtables), keeping comments around it", () => {
    const before = [
      "# top",
      "[mcp_servers.autopilot]",
      'command = "old"',
      "args = [",
      '  "x",',
      "]",
      "",
      "[mcp_servers.autopilot.env]",
      'A = "1"',
      "",
      "# about git",
      "[mcp_servers.git]",
      'command = "uvx"',
      "",
    ].join("\n");
    const r = mergeTomlServer("config.toml", before, "autopilot", entry);
    expect(r.changed).toBe(true);
    const doc = parseToml(r.text) as any;
    expect(doc.mcp_servers.autopilot).toEqual({ ...entry, env: { A: "1" } });
    expect(doc.mcp_servers.git).toEqual({ command: "uvx" });
    expect(r.text).toContain("# top");
    expect(r.text).toContain("# about git");
    expect(mergeTomlServer("config.toml", r.text, "autopilot", entry)).toEqual({ text: r.text, changed: false });
  });

  it("refuses an entry written as an inline table rather than guessing", () => {
    const before = 'mcp_servers = { autopilot = { command = "old" } }\n';
    expect(() => mergeTomlServer("config.toml", before, "autopilot", entry)).toThrow(/Nothing was changed/);
  });

  it("refuses to append where mcp_servers is an inline table", () => {
    const before = 'mcp_servers = { git = { command = "uvx" } }\n';
    expect(() => mergeTomlServer("config.toml", before, "autopilot", entry)).toThrow(/Nothing was changed/);
  });

  it("keeps CRLF line endings", () => {
    const before = 'model = "o3"\r\n';
    const r = mergeTomlServer("config.toml", before, "autopilot", entry);
    expect(r.text).not.toMatch(/[^\r]\n/);
    expect((parseToml(r.text) as any).model).toBe("o3");
  });
});

describe("mergeJsonServer", () => {
  it("refuses comments where the client reads strict JSON, and says what to add by hand", () => {
    expect(() => mergeJsonServer(".mcp.json", '{ /* x */ "servers": {} }', "servers", "autopilot", entry)).toThrow(
      /a comment[\s\S]*line 1[\s\S]*"servers"/,
    );
  });

  it("keeps comments and trailing commas in JSONC, adding only our entry", () => {
    const before = '{ /* x */ "servers": {\n  "git": {}, // git\n},\n}';
    const r = mergeJsonServer("mcp.json", before, "servers", "autopilot", entry, JSONC);
    expect(r.text).toBe(
      '{ /* x */ "servers": {\n  "git": {}, // git\n  "autopilot": {\n    "command": "node",\n    "args": [\n      "/opt/autopilot/dist/src/cli/main.js",\n      "serve"\n    ]\n  },\n},\n}',
    );
  });

  it("keeps a byte order mark", () => {
    const r = mergeJsonServer("mcp.json", '\uFEFF{"servers": {}}', "servers", "autopilot", entry);
    expect(r.text.startsWith('\uFEFF{"servers": {"autopilot": ')).toBe(true);
  });

  it("refuses when the servers key is not an object", () => {
    expect(() => mergeJsonServer("mcp.json", '{ "servers": [] }', "servers", "autopilot", entry)).toThrow(
      /not an object/,
    );
  });

  it("treats an empty file as empty config", () => {
    const r = mergeJsonServer("mcp.json", "\n", "servers", "autopilot", entry);
    expect(JSON.parse(r.text)).toEqual({ servers: { autopilot: entry } });
  });
});

describe("server command", () => {
  it("splits a --command line with quotes", () => {
    expect(commandWords(`node "/My Apps/autopilot/main.js" serve`)).toEqual([
      "node",
      "/My Apps/autopilot/main.js",
      "serve",
    ]);
    expect(commandWords(`npx -y 'autopilot-mcp@0.1.0' serve`)).toEqual(["npx", "-y", "autopilot-mcp@0.1.0", "serve"]);
    // As a shell reads it: quotes inside a word, backslash escapes, an empty quoted word.
    expect(commandWords(`node --title="my server" /My\\ Apps/main.js "" serve`)).toEqual([
      "node",
      "--title=my server",
      "/My Apps/main.js",
      "",
      "serve",
    ]);
    expect(() => commandWords(`node "main.js serve`)).toThrow(/unclosed " quote/);
  });

  it("uses npx with the exact version when the package runs from npx's cache or is a dependency", () => {
    for (const root of ["/home/u/.npm/_npx/abc/node_modules/autopilot-mcp", "/work/app/node_modules/autopilot-mcp"]) {
      const c = resolveServerCommand(root, undefined, { PATH: "" });
      expect(c.command).toBe("npx");
      expect(c.args).toEqual(["-y", "autopilot-mcp@latest", "serve"]); // no package.json at these fake roots
      expect(c.machineLocal).toBe(false);
    }
  });
});

describe("server command: the exact version", () => {
  it("pins npx to the version of the package that runs install", () => {
    const root = join(mkdtempSync(join(tmpdir(), "autopilot-npx-")), "_npx", "abc", "node_modules", "autopilot-mcp");
    mkdirSync(join(root, "dist", "src", "cli"), { recursive: true });
    writeFileSync(join(root, "package.json"), JSON.stringify({ name: "autopilot-mcp", version: "9.8.7" }));
    writeFileSync(join(root, "dist", "src", "cli", "main.js"), "");
    expect(resolveServerCommand(root, undefined, { PATH: "" })).toMatchObject({
      command: "npx",
      args: ["-y", "autopilot-mcp@9.8.7", "serve"],
      machineLocal: false,
    });
    // The commands a report names run the CLI the same way (no `autopilot` on PATH under npx).
    expect(cliWords(root, { PATH: "" })).toEqual(["npx", "-y", "autopilot-mcp@9.8.7"]);
    const done = renderHarnessFiles({
      kind: "harnessFiles",
      commit: [],
      sessionsIgnored: true,
      session: "word count spec",
      cli: cliWords(root, { PATH: "" }),
    });
    expect(done).toContain("Decision log: `npx -y autopilot-mcp@9.8.7 log 'word count spec'`");
    // A human gate's Step names the terminal command the same way.
    const gate = {
      session: "word count spec",
      stepId: 3,
      next: {
        kind: "ask" as const,
        name: "approvePlan",
        question: "Approve?",
        options: ["yes", "stop"],
        humanOnly: ["yes"],
      },
    };
    for (const host of ["claude-code", "other"] as const)
      expect(todoFor(gate, { host, cli: cliWords(root, { PATH: "" }) })).toContain(
        "`npx -y autopilot-mcp@9.8.7 approve 'word count spec'`",
      );
  });

  it("a checkout run without the bin on PATH names the plain command", () => {
    expect(cliWords(process.cwd(), { PATH: "" })).toEqual(["autopilot"]);
  });
});

describe("unifiedDiff", () => {
  it("shows one hunk with context around an insertion", () => {
    const d = unifiedDiff("f", "a\nb\nc\nd\n", "a\nb\nX\nc\nd\n");
    expect(d.split("\n")).toEqual(["--- a/f", "+++ b/f", "@@ -1,4 +1,5 @@", " a", " b", "+X", " c", " d"]);
  });
});
