// gray-matter, loaded on first use: it brings js-yaml's full schema and esprima, about 0.1 CPU-s
// of start-up, which `autopilot run` and `autopilot serve` spent in every process although only a
// roadmap sync or an API runner's persona prompt reads front matter (docs/performance.md, Start-up).
import { createRequire } from "node:module";
import type grayMatter from "gray-matter";

let loaded: typeof grayMatter | undefined;

/** gray-matter's parse. Always with `{}` as options: without them it caches by input string and hands back shared objects. */
export function matter(text: string): grayMatter.GrayMatterFile<string> {
  loaded ??= createRequire(import.meta.url)("gray-matter") as typeof grayMatter;
  return loaded(text, {});
}
