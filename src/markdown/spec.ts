// Reads the phases of a spec: the `### Phase <id>: <name>` headings of its
// `## Implementation Order` section, with their `<!-- complexity: ... -->` annotations.
//
// Decision on other formats (numbered lists, bold paragraphs, tables, prose, "Step N"
// headings, Phase headings in some other section): they are reported, never turned into
// phases. Every one of the 44 specs-other in the upstream corpus is such a spec and yields a
// `no_phases` error that lists what was found. Guessing phases from a numbered list would
// make autopilot plan and commit work the author never framed as a phase (lists there are
// often tasks or steps of one phase), and a wrong phase list is worse than a clear request
// to add five headings.
import type { Heading, Html, Nodes, RootContent } from "mdast";
import { visit } from "unist-util-visit";
import { AutopilotError } from "../protocol/errors.js";
import { clip, endOffset, headingSource, parseMarkdown, plainText, sectionEnd, startOffset } from "./mdast.js";

type Complexity = "low" | "medium" | "high";

type SpecPhase = {
  id: string;
  name: string;
  complexity: Complexity;
  annotated: boolean;
  /** Markdown of the phase body, bounded, for planner prompts. */
  description: string;
};

export type ParsedSpec = { title: string | null; phases: SpecPhase[] };

/** What a spec without usable phases contains instead; carried in the no_phases error. */
type SpecFindings = {
  implementationOrderSections: string[];
  numberedItems: string[];
  bulletItems: string[];
  boldItems: string[];
  tableRows: string[];
  otherHeadings: string[];
  phaseHeadingsElsewhere: string[];
  fencedExample: boolean;
};

export const DESCRIPTION_MAX = 4000;

// "Implementation order (high-level phases)" and "Implementation order" occur upstream as
// well as the canonical title case; a numbered section ("7. Implementation Order") is the
// same section.
const SECTION_RE = /^(?:\d+[.)]?\s+)?implementation\s+order\b/i;

// Ids: 0, 1, 12, 5a, A, B2. The id must be followed by a separator, which keeps
// "### Phase Boundaries" (a real heading inside an upstream Implementation Order) out.
const PHASE_RE = /^phase\s+(\d+[a-z]?|[A-Z]\d*)\s*(?::|—|–|-)\s*(.*)$/i;

const COMPLEXITY_RE = /<!--\s*complexity\s*:\s*(low|medium|high)\s*-->/i;

type PhaseHeading = { index: number; heading: Heading; id: string };

function matchPhase(heading: Heading): { id: string } | null {
  const m = PHASE_RE.exec(plainText(heading).trim());
  if (!m) return null;
  // The case-insensitive flag is for the word "Phase"; a lowercase single-letter id would be
  // the start of a word ("Phase a-team"), not an id.
  if (/^[a-z]/.test(m[1])) return null;
  return { id: m[1] };
}

function phaseName(text: string, heading: Heading, id: string, fallback: string): string {
  // `### **Phase 1: Name**`: the prefix lives inside the emphasis.
  const only = heading.children.length === 1 ? heading.children[0] : null;
  const raw = headingSource(text, only && (only.type === "strong" || only.type === "emphasis") ? only : heading);
  const idRe = id.replace(/[^\w]/g, "\\$&");
  const prefix = new RegExp(`^phase\\s+${idRe}\\s*(?::|—|–|-)\\s*`, "i");
  if (prefix.test(raw)) {
    const name = raw.replace(prefix, "").trim();
    if (name) return name;
  }
  return fallback || `Phase ${id}`;
}

function complexityOf(nodes: Nodes[]): Complexity | null {
  let found: Complexity | null = null;
  for (const n of nodes) {
    visit(n, "html", (h: Html) => {
      if (found) return false;
      const m = COMPLEXITY_RE.exec(h.value);
      if (m) {
        found = m[1].toLowerCase() as Complexity;
        return false;
      }
      return undefined;
    });
    if (found) break;
  }
  return found;
}

function describe(text: string, from: number, to: number): string {
  const body = text.slice(from, to).replace(new RegExp(COMPLEXITY_RE.source, "gi"), "").trim();
  if (body.length <= DESCRIPTION_MAX) return body;
  const cut = body.lastIndexOf("\n", DESCRIPTION_MAX);
  return body.slice(0, cut > DESCRIPTION_MAX / 2 ? cut : DESCRIPTION_MAX).trimEnd() + "\n\n…(truncated)";
}

function phasesOfSection(
  text: string,
  children: RootContent[],
  start: number,
  end: number,
  sectionEndOffset: number,
): SpecPhase[] {
  const candidates: PhaseHeading[] = [];
  for (let i = start + 1; i < end; i++) {
    const c = children[i];
    if (c.type !== "heading") continue;
    const m = matchPhase(c);
    if (m) candidates.push({ index: i, heading: c, id: m.id });
  }
  if (candidates.length === 0) return [];
  // Sub-headings inside a phase that happen to say "Phase 2a: ..." under "### Phase 2" are
  // parts of that phase, not phases: only the shallowest level counts.
  const depth = Math.min(...candidates.map((c) => c.heading.depth));
  const phases: SpecPhase[] = [];
  for (const c of candidates.filter((x) => x.heading.depth === depth)) {
    const bodyEnd = Math.min(sectionEnd(children, c.index, depth), end);
    const body = children.slice(c.index + 1, bodyEnd);
    const complexity = complexityOf([c.heading, ...body]);
    const toOffset = bodyEnd < end ? startOffset(children[bodyEnd]) : sectionEndOffset;
    const m = PHASE_RE.exec(plainText(c.heading).trim());
    phases.push({
      id: c.id,
      name: phaseName(text, c.heading, c.id, (m?.[2] ?? "").trim()),
      complexity: complexity ?? "medium",
      annotated: complexity !== null,
      description: describe(text, endOffset(c.heading), toOffset),
    });
  }
  return phases;
}

function firstParagraphText(node: Nodes): string {
  if (node.type === "listItem") {
    const p = node.children.find((k) => k.type === "paragraph");
    return plainText(p ?? node);
  }
  return plainText(node);
}

function isPipeTable(src: string): boolean {
  const lines = src.split("\n");
  return (
    lines.length >= 2 && lines.every((l) => l.trimStart().startsWith("|")) && /^\s*\|?[\s:|-]+\|?\s*$/.test(lines[1])
  );
}

function collectFindings(text: string, children: RootContent[], sections: number[]): SpecFindings {
  const f: SpecFindings = {
    implementationOrderSections: [],
    numberedItems: [],
    bulletItems: [],
    boldItems: [],
    tableRows: [],
    otherHeadings: [],
    phaseHeadingsElsewhere: [],
    fencedExample: false,
  };
  const inSection = new Set<number>();
  for (const s of sections) {
    const h = children[s] as Heading;
    f.implementationOrderSections.push(plainText(h).trim());
    const end = sectionEnd(children, s, h.depth);
    for (let i = s + 1; i < end; i++) {
      inSection.add(i);
      const c = children[i];
      if (c.type === "list") {
        for (const item of c.children)
          (c.ordered ? f.numberedItems : f.bulletItems).push(clip(firstParagraphText(item), 70));
      } else if (c.type === "paragraph" && c.children[0]?.type === "strong") {
        f.boldItems.push(clip(plainText(c.children[0]), 70));
      } else if (c.type === "paragraph" && isPipeTable(text.slice(startOffset(c), endOffset(c)))) {
        // Without remark-gfm a pipe table is a paragraph; it is only reported, so reading
        // its rows from the source is enough.
        const rows = text.slice(startOffset(c), endOffset(c)).split("\n").slice(2);
        for (const row of rows) f.tableRows.push(clip(row.split("|")[1]?.replace(/\*\*/g, "") ?? row, 40));
      } else if (c.type === "heading") {
        f.otherHeadings.push(clip(plainText(c), 70));
      }
    }
  }
  children.forEach((c, i) => {
    // The document title ("# Phase 5: Visual Pipeline") names the whole spec, not a phase.
    if (c.type === "heading" && c.depth > 1 && !inSection.has(i) && matchPhase(c))
      f.phaseHeadingsElsewhere.push(clip(plainText(c), 70));
    if (c.type === "code" && /^#{1,6}\s*implementation\s+order/im.test(c.value)) f.fencedExample = true;
  });
  return f;
}

function examples(items: string[]): string {
  const shown = items
    .slice(0, 2)
    .map((s) => `"${s}"`)
    .join(", ");
  return items.length > 2 ? `${shown}, …` : shown;
}

function plural(n: number, one: string, many = one + "s"): string {
  return `${n} ${n === 1 ? one : many}`;
}

function describeFindings(f: SpecFindings): string {
  const parts: string[] = [];
  if (f.implementationOrderSections.length === 0) {
    parts.push("no Implementation Order section");
    if (f.fencedExample) parts.push("only an example of one inside a fenced code block (ignored)");
  } else {
    const inside: string[] = [];
    if (f.numberedItems.length)
      inside.push(`${plural(f.numberedItems.length, "numbered list item")} (${examples(f.numberedItems)})`);
    if (f.bulletItems.length)
      inside.push(`${plural(f.bulletItems.length, "bullet item")} (${examples(f.bulletItems)})`);
    if (f.boldItems.length) inside.push(`${plural(f.boldItems.length, "bold item")} (${examples(f.boldItems)})`);
    if (f.tableRows.length) inside.push(`a table with ${plural(f.tableRows.length, "row")} (${examples(f.tableRows)})`);
    if (f.otherHeadings.length)
      inside.push(
        `${plural(f.otherHeadings.length, "heading")} that are not "Phase <id>: <name>" (${examples(f.otherHeadings)})`,
      );
    const what = inside.length ? inside.join(", ") : "only prose";
    parts.push(`an "${f.implementationOrderSections[0]}" section with ${what} but no "### Phase" headings`);
  }
  if (f.phaseHeadingsElsewhere.length) {
    parts.push(
      `${plural(f.phaseHeadingsElsewhere.length, "Phase heading")} outside that section (${examples(f.phaseHeadingsElsewhere)}), which are not read`,
    );
  }
  return parts.join("; ");
}

function noPhasesMessage(f: SpecFindings): string {
  return (
    `no phases found: the spec has ${describeFindings(f)}. ` +
    `Add an "## Implementation Order" section with one "### Phase 1: Name" heading per phase ` +
    `(ids like 0, 1, 5a or A; separator ":", "—", "–" or "-"), each optionally followed by ` +
    `<!-- complexity: low|medium|high --> (default medium), then run again.`
  );
}

/**
 * The specs parsed last, by their text: a session's effects and briefs read the same spec at most
 * calls, and a long one takes tens of milliseconds to parse (the bench's 200 phases: ~50 ms).
 * Read-only for callers.
 */
const parsed = new Map<string, ParsedSpec>();

export function parseSpec(text: string): ParsedSpec {
  const known = parsed.get(text);
  if (known) return known;
  const spec = parseSpecText(text);
  if (parsed.size >= 8) parsed.delete(parsed.keys().next().value!);
  parsed.set(text, spec);
  return spec;
}

function parseSpecText(text: string): ParsedSpec {
  const root = parseMarkdown(text);
  const children = root.children;
  const titleNode = children.find((c): c is Heading => c.type === "heading" && c.depth === 1);
  const title = titleNode ? plainText(titleNode).trim() || null : null;

  const sections: number[] = [];
  children.forEach((c, i) => {
    if (c.type === "heading" && SECTION_RE.test(plainText(c).trim())) sections.push(i);
  });

  for (const s of sections) {
    const h = children[s] as Heading;
    const end = sectionEnd(children, s, h.depth);
    const endOff = end < children.length ? startOffset(children[end]) : text.length;
    const phases = phasesOfSection(text, children, s, end, endOff);
    if (phases.length > 0) return { title, phases };
  }

  const found = collectFindings(text, children, sections);
  throw new AutopilotError("no_phases", noPhasesMessage(found), { found });
}
