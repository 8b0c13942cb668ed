import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { resolveValidation, resolveValidationCommands, runValidation } from "../../src/effects/validation.js";
import { run as validateCli } from "../../src/cli/commands/validate.js";
import { tmpProject } from "./_env.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tmpProject()));
afterEach(() => cleanup());

async function config(value: unknown) {
  await mkdir(path.join(dir, ".harness"), { recursive: true });
  await writeFile(path.join(dir, ".harness/config.json"), JSON.stringify(value));
}
async function pkg(scripts: Record<string, string>) {
  await writeFile(path.join(dir, "package.json"), JSON.stringify({ name: "x", scripts }));
}

describe("which validation commands run", () => {
  it("uses .harness/config.json validation.commands first", async () => {
    await pkg({ test: "vitest" });
    await config({ validation: { commands: ["make check", " npm test "] } });
    expect(await resolveValidation(dir)).toEqual({ commands: ["make check", "npm test"], source: "harness-config" });
  });

  it("accepts a plain array, both as validation and as the whole file", async () => {
    await config({ validation: ["a"] });
    expect(await resolveValidationCommands(dir)).toEqual(["a"]);
    await config(["b", "c"]);
    expect(await resolveValidationCommands(dir)).toEqual(["b", "c"]);
  });

  it("falls back to the package.json typecheck, lint and test scripts that exist, in that order", async () => {
    await config({ somethingElse: true });
    await pkg({ test: "vitest run", build: "tsc", typecheck: "tsc --noEmit" });
    expect(await resolveValidation(dir)).toEqual({
      commands: ["npm run typecheck", "npm run test"],
      source: "package.json",
    });
  });

  it("an invalid config is reported with the fix, not silently ignored", async () => {
    await mkdir(path.join(dir, ".harness"), { recursive: true });
    await writeFile(path.join(dir, ".harness/config.json"), "{ nope");
    await expect(resolveValidation(dir)).rejects.toMatchObject({ code: "bad_input" });
    await config({ validation: { commands: "npm test" } });
    await expect(resolveValidation(dir)).rejects.toMatchObject({ code: "bad_input" });
  });

  it("nothing configured → passes and says so", async () => {
    const r = await runValidation(dir);
    expect(r).toMatchObject({ passed: true, results: [], source: "none" });
    expect(r.summary).toMatch(/No validation commands are configured/);
  });
});

describe("running validation", () => {
  it("passes when every command exits 0, running in the project root with a shell", async () => {
    await config({ validation: { commands: ["pwd", "echo one && echo two | tr a-z A-Z"] } });
    const r = await runValidation(dir);
    expect(r.passed).toBe(true);
    expect(r.results[0].output.trim()).toBe(dir);
    expect(r.results[1]).toMatchObject({ exitCode: 0, timedOut: false, output: "one\nTWO\n" });
  });

  it("fails honestly when a command fails, and still runs the others", async () => {
    await config({ validation: { commands: ["echo bad >&2; exit 3", "echo after"] } });
    const r = await runValidation(dir);
    expect(r.passed).toBe(false);
    expect(r.results.map((x) => x.exitCode)).toEqual([3, 0]);
    expect(r.results[0].output).toBe("bad\n");
    expect(r.summary).toMatch(/1 failed/);
    expect(r.summary).toMatch(/exited 3/);
  });

  it("kills a command at the time limit, with its whole process group", async () => {
    const marker = path.join(dir, "grandchild-survived");
    await config({ validation: { commands: [`sh -c 'sleep 3; touch ${marker}' & sleep 30`] } });
    // The command sleeps 30 s: this returns well before only because the limit killed it.
    const t0 = Date.now();
    const r = await runValidation(dir, { timeoutMs: 300 });
    expect(Date.now() - t0).toBeLessThan(25_000);
    expect(r.passed).toBe(false);
    expect(r.results[0]).toMatchObject({ timedOut: true, exitCode: null });
    expect(r.results[0].output).toMatch(/killed after 300 ms/);
    expect(r.summary).toMatch(/timed out/);
    await new Promise((res) => setTimeout(res, 3500));
    const { existsSync } = await import("node:fs");
    expect(existsSync(marker)).toBe(false);
  });

  it("keeps only the tail of a large output", async () => {
    await config({ validation: { commands: ["i=0; while [ $i -lt 5000 ]; do echo line-$i; i=$((i+1)); done"] } });
    const r = await runValidation(dir, { maxOutputBytes: 1000 });
    const out = r.results[0].output;
    expect(out).toMatch(/^\[… \d+ earlier bytes omitted\]\n/);
    expect(out.endsWith("line-4999\n")).toBe(true);
    expect(Buffer.byteLength(out.replace(/^\[[^\]]+\]\n/, ""))).toBeLessThanOrEqual(1000);
  });

  it("stops when aborted", async () => {
    await config({ validation: { commands: ["sleep 30", "echo never"] } });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const r = await runValidation(dir, { signal: ac.signal });
    expect(r.passed).toBe(false);
    expect(r.results).toHaveLength(1);
    expect(r.summary).toMatch(/not run: echo never/);
  });
});

describe("autopilot validate", () => {
  async function cli(args: string[]): Promise<{ code: number; out: string }> {
    const cwd = process.cwd();
    const chunks: string[] = [];
    const orig = process.stdout.write.bind(process.stdout);
    process.stdout.write = (s: string | Uint8Array) => {
      chunks.push(String(s));
      return true;
    };
    process.chdir(dir);
    try {
      return { code: await validateCli(args), out: chunks.join("") };
    } finally {
      process.chdir(cwd);
      process.stdout.write = orig;
    }
  }

  it("exits 0 when validation passes and 1 when it fails; --json prints the result", async () => {
    await config({ validation: { commands: ["true"] } });
    expect((await cli([])).code).toBe(0);
    await config({ validation: { commands: ["echo broken; false"] } });
    const r = await cli(["--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({
      passed: false,
      results: [{ command: "echo broken; false", exitCode: 1 }],
    });
    const human = await cli([]);
    expect(human.out).toMatch(/✗ echo broken; false \(exit 1\)/);
    expect(human.out).toMatch(/FAIL: /);
  });

  it("rejects unknown options as a usage error", async () => {
    await expect(cli(["--nope"])).rejects.toThrow(/unknown option/);
  });
});
