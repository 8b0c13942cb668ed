// The pure merge functions and helpers behind install, on edge cases the CLI tests do not reach.
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { mergeJsonServer, mergeTomlServer } from "../../src/install/merge.js";
import { resolveServerCommand, splitCommandLine } from "../../src/install/server-command.js";
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
  it("refuses JSON with comments and says what to add by hand", () => {
    expect(() => mergeJsonServer("mcp.json", '{ /* x */ "servers": {} }', "servers", "autopilot", entry)).toThrow(/comments[\s\S]*"servers"/);
  });

  it("refuses when the servers key is not an object", () => {
    expect(() => mergeJsonServer("mcp.json", '{ "servers": [] }', "servers", "autopilot", entry)).toThrow(/not an object/);
  });

  it("treats an empty file as empty config", () => {
    const r = mergeJsonServer("mcp.json", "\n", "servers", "autopilot", entry);
    expect(JSON.parse(r.text)).toEqual({ servers: { autopilot: entry } });
  });
});

describe("server command", () => {
  it("splits a --command line with quotes", () => {
    expect(splitCommandLine(`node "/My Apps/autopilot/main.js" serve`)).toEqual(["node", "/My Apps/autopilot/main.js", "serve"]);
    expect(splitCommandLine(`npx -y 'autopilot-mcp@0.1.0' serve`)).toEqual(["npx", "-y", "autopilot-mcp@0.1.0", "serve"]);
  });

  it("uses npx when the package runs from npx's cache", () => {
    expect(resolveServerCommand("/home/u/.npm/_npx/abc/node_modules/autopilot-mcp").command).toBe("npx");
  });
});

describe("unifiedDiff", () => {
  it("shows one hunk with context around an insertion", () => {
    const d = unifiedDiff("f", "a\nb\nc\nd\n", "a\nb\nX\nc\nd\n");
    expect(d.split("\n")).toEqual(["--- a/f", "+++ b/f", "@@ -1,4 +1,5 @@", " a", " b", "+X", " c", " d"]);
  });
});
