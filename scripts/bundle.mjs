// The second half of the build (after tsc): bundles dist/src/cli/cli.js, each command it imports and
// the packages they use into dist/src/cli/main.js (the package's bin, what every client and test
// starts) and shared chunks beside it, dist/src/cli/chunk-*.js, one per group of commands that need
// them (serve's MCP SDK, run's engine...). Node then reads and links a few files instead of some 500
// modules, the largest part of a process's start-up (docs/performance.md, Start-up). Everything
// else in dist/ stays tsc's output, module per module (tests and the bench import those).
// The chunks sit in the same folder as main.js, three levels under the package root like every
// compiled module, so code that walks up from its own file to the package's personas/, skills/ or
// examples/ finds them as before.
import { readFileSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "dist", "src", "cli");

const bundle = await rolldown({
  input: { main: path.join(out, "cli.js") },
  platform: "node",
  // Packages that stay packages, imported at run time: CommonJS that reads its own __filename
  // (write-file-atomic hashes it into temp names), which an ES module bundle has not, and a UMD
  // build that requires its own files by computed paths (jsonc-parser). The check below finds others.
  external: ["write-file-atomic", "jsonc-parser"],
  logLevel: "warn",
  // gray-matter's JavaScript front-matter engine calls eval: its own business, not a build problem.
  checks: { eval: false },
});
// Chunks of an earlier build: their names carry a hash of their content.
for (const f of readdirSync(out)) if (/^chunk-.*\.js(\.map)?$/.test(f)) rmSync(path.join(out, f));
await bundle.write({
  dir: out,
  format: "esm",
  entryFileNames: "[name].js",
  chunkFileNames: "chunk-[hash].js",
  // Maps beside the chunks, not linked from them (nothing at run time reads them) and left out of the
  // package: the bench maps a CPU profile of the bin back to the source file of each sample.
  sourcemap: "hidden",
  sourcemapExcludeSources: true,
});
await bundle.close();

for (const f of readdirSync(out)) {
  if (f !== "main.js" && !/^chunk-.*\.js$/.test(f)) continue;
  const text = readFileSync(path.join(out, f), "utf8");
  const m = /\b__(?:filename|dirname)\b|\brequire\(\s*["']\.\.?\/[^"']*["']\s*\)/.exec(text);
  if (m) {
    console.error(
      `bundle: dist/src/cli/${f} has ${m[0]}, which fails at run time (no __filename in an ES module; a relative require the bundler left unresolved): add its package to external in scripts/bundle.mjs`,
    );
    process.exit(1);
  }
}
