// What a spec says its change is for, in its author's words: the summary quoted under its title
// (`> …`), else the first paragraph of its overview (a section headed Overview, Summary, Goal,
// Problem, Motivation, Background, Context or Introduction), else the first paragraph before its
// first section. Lines of metadata (`**Status:** Draft`, `**Keywords:** …`) are not a summary. The
// pull request's title and opening come from it; a spec with none gives null.
import type { RootContent } from "mdast";
import { parseMarkdown, plainText, sectionEnd } from "./mdast.js";

const OVERVIEW = /^(overview|summary|goals?|problem|motivation|background|context|introduction)\b/i;
/** `Status: Draft`, `Keywords: a, b`: a label and its value, not prose. */
const METADATA = /^[A-Z][\w &/-]{0,30}:(\s|$)/;

function prose(node: RootContent | undefined): string | null {
  if (!node || (node.type !== "paragraph" && node.type !== "blockquote")) return null;
  const text = plainText(node).replace(/\s+/g, " ").trim();
  return text && !METADATA.test(text) ? text : null;
}

function firstProse(children: RootContent[], from: number, to: number): string | null {
  for (const c of children.slice(from, to)) {
    const text = c.type === "paragraph" ? prose(c) : null;
    if (text) return text;
  }
  return null;
}

/** The spec's summary, on one line; null when it has none. */
export function specOverview(text: string): string | null {
  const children = parseMarkdown(text).children;
  const title = children.findIndex((c) => c.type === "heading" && c.depth === 1);
  const section = children.findIndex((c, i) => i > title && c.type === "heading");
  const head = children.slice(title + 1, section < 0 ? children.length : section);
  const quoted = head.find((c) => c.type === "blockquote");
  if (quoted) {
    const text = prose(quoted);
    if (text) return text;
  }
  const at = children.findIndex((c) => c.type === "heading" && OVERVIEW.test(plainText(c).trim()));
  if (at >= 0) {
    const found = firstProse(children, at + 1, sectionEnd(children, at, (children[at] as { depth: number }).depth));
    if (found) return found;
  }
  return firstProse(children, title + 1, section < 0 ? children.length : section);
}

/** Its first sentence, without the full stop. */
export function firstSentence(paragraph: string): string {
  const first = paragraph.split(/(?<=[.!?])\s+(?=[A-Z0-9`"'(])/)[0] ?? paragraph;
  return first.replace(/[.:\s]+$/, "");
}
