// The layers of docs/architecture.md are held by dependency-cruiser (.dependency-cruiser.cjs, run by
// npm run lint): these tests run the real tool on src/ and machines/ and on a planted tree, so the rules are known
// to catch what they claim. The file size limit is checked here, the one thing the tool cannot say.
import { execFile } from "node:child_process";
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/mcp-client.js";

const run = promisify(execFile);
const DEPCRUISE = path.join(REPO_ROOT, "node_modules", ".bin", "depcruise");
const CONFIG = path.join(REPO_ROOT, ".dependency-cruiser.cjs");

async function depcruise(cwd: string, ...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await run(DEPCRUISE, ["src", "machines", "--config", CONFIG, "--output-type", "err", ...args], { cwd });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: x.code ?? 1, out: `${x.stdout ?? ""}${x.stderr ?? ""}` };
  }
}

describe("the dependency rules", () => {
  it("hold on src/ and machines/: no circle, no import of a layer above", async () => {
    const r = await depcruise(REPO_ROOT);
    expect(r.out).toMatch(/no dependency violations found/);
    expect(r.code).toBe(0);
  }, 120_000);

  it("catch a planted circle, upward imports, a vocabulary that imports and a statechart that does I/O", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "autopilot-layers-"));
    try {
      const files: Record<string, string> = {
        "src/vocabulary.ts": 'import { a } from "./session/a.js";\nexport const v = a;\n',
        "src/session/a.ts": 'import { b } from "../../machines/b.js";\nexport const a = 1 + b;\n',
        "machines/b.ts": 'import { a } from "../src/session/a.js";\nexport const b = 2;\nexport const c = a;\n',
        "machines/io.ts":
          'import { readFileSync } from "node:fs";\nimport { step } from "../src/engine/step.js";\nexport const io = [readFileSync, step];\n',
        "src/engine/step.ts": "export const step = 1;\n",
        "src/rules/r.ts": 'import { a } from "../session/a.js";\nexport const r = a;\n',
        "tsconfig.json": JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" } }),
      };
      for (const [f, text] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(dir, f)), { recursive: true });
        await writeFile(path.join(dir, f), text);
      }
      const r = await depcruise(dir);
      expect(r.code).not.toBe(0);
      expect(r.out).toContain("vocabulary-imports-nothing-of-ours: src/vocabulary.ts → src/session/a.ts");
      expect(r.out).toContain("no-import-above-session: src/session/a.ts → machines/b.ts");
      expect(r.out).toContain("no-import-above-rules: src/rules/r.ts → src/session/a.ts");
      expect(r.out).toContain("machines-are-pure: machines/io.ts → fs");
      expect(r.out).toContain("machines-are-pure: machines/io.ts → src/engine/step.ts");
      expect(r.out).toMatch(/no-circular: (src\/session\/a|machines\/b)\.ts → /);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sourceFiles(p)));
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}

describe("file size", () => {
  // Measured after Prettier (120 columns).
  const LIMIT = 500;
  it(`no source file is above ${LIMIT} lines, except the statechart`, async () => {
    const big: string[] = [];
    for (const f of [
      ...(await sourceFiles(path.join(REPO_ROOT, "src"))),
      ...(await sourceFiles(path.join(REPO_ROOT, "machines"))),
    ]) {
      const file = path.relative(REPO_ROOT, f).split(path.sep).join("/");
      const lines = (await readFile(f, "utf8")).trimEnd().split("\n").length;
      if (lines > LIMIT && !/autopilot\.machine\.ts$/.test(file)) big.push(`${file}: ${lines} lines`);
    }
    expect(big).toEqual([]);
  });
});
