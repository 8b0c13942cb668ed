// Writes the plugin, extension and registry manifests (src/install/manifests.ts) from package.json
// and the install templates; `--check` writes nothing and exits 1 naming each file that is missing
// or out of date. Runs on the build (`npm run manifests` builds first).
//   node scripts/manifests.mjs [--check] [--root DIR]
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const check = args.includes("--check");
const at = args.indexOf("--root");
const root = at >= 0 ? path.resolve(args[at + 1] ?? ".") : here;
const built = path.join(here, "dist", "src", "install", "manifests.js");
if (!existsSync(built)) {
  console.error("manifests: dist/ is not built. Run `npm run manifests` (it builds first).");
  process.exit(1);
}
const { buildManifests } = await import(built);
const stale = [];
for (const f of buildManifests(root)) {
  const file = path.join(root, f.path);
  const now = existsSync(file) ? readFileSync(file, "utf8") : null;
  if (now === f.content) continue;
  stale.push(`${now === null ? "missing " : "outdated"}  ${f.path}`);
  if (!check) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, f.content);
  }
}
if (check) {
  if (stale.length > 0) {
    console.error(
      `manifests: ${stale.length} file(s) differ from package.json and the install templates:\n  ${stale.join("\n  ")}\nRun \`npm run manifests\` and commit the result.`,
    );
    process.exit(1);
  }
  console.log("manifests: up to date");
} else {
  console.log(stale.length > 0 ? `manifests: wrote\n  ${stale.join("\n  ")}` : "manifests: up to date");
}
