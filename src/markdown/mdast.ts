// Shared remark plumbing for the Markdown readers. Everything works on the mdast tree so that
// headings inside fenced code, front matter and HTML comments are told apart by the parser,
// not guessed at by regular expressions over the whole file.
import { unified } from "unified";
import remarkParse from "remark-parse";
import remarkFrontmatter from "remark-frontmatter";
import { toString } from "mdast-util-to-string";
import type { Nodes, PhrasingContent, Root, RootContent } from "mdast";

// YAML and TOML front matter both become their own nodes, so a `## Implementation Order`
// or `### Task 1` line inside front matter can never be mistaken for a heading.
const processor = unified().use(remarkParse).use(remarkFrontmatter, ["yaml", "toml"]);

/**
 * The texts parsed last and their trees: one call reads the same plan several ways (its counts, its
 * problems, its header) and the next calls often read it again; a plan takes milliseconds to parse.
 * The trees are shared: read-only for every caller (frozen with AUTOPILOT_CHECK_STATE=1, which the
 * test suite sets, so a change that wrote into one fails there).
 */
const trees = new Map<string, Root>();

export function parseMarkdown(text: string): Root {
  const known = trees.get(text);
  if (known) return known;
  const root = processor.parse(text);
  if (process.env.AUTOPILOT_CHECK_STATE === "1") freeze(root);
  if (trees.size >= 8) trees.delete(trees.keys().next().value!);
  trees.set(text, root);
  return root;
}

function freeze(value: unknown): void {
  if (!value || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) freeze(v);
}

/** Visible text of a node: HTML (comments included) is not text a reader sees. */
export function plainText(node: Nodes | Nodes[]): string {
  return toString(node, { includeHtml: false });
}

export function startOffset(node: { position?: { start: { offset?: number } } }): number {
  return node.position?.start.offset ?? 0;
}

export function endOffset(node: { position?: { end: { offset?: number } } }): number {
  return node.position?.end.offset ?? 0;
}

/**
 * The Markdown source of a heading's content (no `###`, no closing `#`s), with its HTML
 * nodes cut out. Names keep their inline Markdown (`code`, _emphasis_) because that is how
 * the author wrote them and how they read back in prompts and commit messages.
 */
export function headingSource(text: string, heading: { children: PhrasingContent[] }): string {
  const kids = heading.children;
  if (kids.length === 0) return "";
  const base = startOffset(kids[0]);
  let out = text.slice(base, endOffset(kids[kids.length - 1]));
  const htmlKids = kids.filter((k) => k.type === "html");
  for (const k of htmlKids.reverse()) {
    out = out.slice(0, startOffset(k) - base) + out.slice(endOffset(k) - base);
  }
  return out.replace(/\s+/g, " ").trim();
}

/** Index of the next top-level heading at or above `depth` after `from`, else `children.length`. */
export function sectionEnd(children: RootContent[], from: number, depth: number): number {
  for (let i = from + 1; i < children.length; i++) {
    const c = children[i];
    if (c.type === "heading" && c.depth <= depth) return i;
  }
  return children.length;
}

export function clip(s: string, max: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length <= max ? one : one.slice(0, max - 1).trimEnd() + "…";
}
