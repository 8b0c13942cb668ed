// `npm pack` / `npm publish` run this (the `prepack` script): compile, then delete compiled files
// whose TypeScript source is gone, so a stale file from an earlier build never ships. It does not
// empty dist/ first, so tests running from dist/ at the same time are not disturbed.
// `npm ci` does not run it (there is no `prepare` script): installing stays fast.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve("typescript/bin/tsc");
} catch {
  console.error("prepack: typescript is not installed. Run `npm ci` first, then `npm pack`.");
  process.exit(1);
}
execFileSync(process.execPath, [tsc, "-p", path.join(root, "tsconfig.json")], { cwd: root, stdio: "inherit" });

let removed = 0;
function prune(distDir, srcDir) {
  if (!existsSync(distDir)) return;
  for (const e of readdirSync(distDir, { withFileTypes: true })) {
    const d = path.join(distDir, e.name);
    if (e.isDirectory()) {
      prune(d, path.join(srcDir, e.name));
      if (readdirSync(d).length === 0) rmSync(d, { recursive: true });
      continue;
    }
    const m = /^(.*)\.js(\.map)?$/.exec(e.name);
    if (m && !existsSync(path.join(srcDir, `${m[1]}.ts`))) {
      rmSync(d);
      removed++;
    }
  }
}
for (const top of ["src", "machines", "bench"]) prune(path.join(root, "dist", top), path.join(root, top));
if (removed > 0) console.error(`prepack: removed ${removed} compiled file(s) whose source is gone`);
// The bin and its chunks (they have no source of their own, so they go last, after the pruning).
execFileSync(process.execPath, [path.join(root, "scripts/bundle.mjs")], { cwd: root, stdio: "inherit" });
for (const need of [
  "dist/src/cli/main.js",
  "personas/harness-planner.md",
  "skills/harness-autopilot/SKILL.md",
  "examples/word-count/proposal.md",
]) {
  if (!existsSync(path.join(root, need))) {
    console.error(`prepack: ${need} is missing; the package would not work`);
    process.exit(1);
  }
}
