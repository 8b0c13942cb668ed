// Edits to a user's JSON / JSONC file as pure insertions (or the replacement of a value that is
// ours), computed on jsonc-parser's syntax tree and applied with its applyEdits. jsonc-parser's own
// `modify` re-formats the whole lines it touches (a one-line sibling object gets spread over
// several lines), so the text we add is laid out here, in the file's own indentation and line
// endings, and nothing outside it changes, not even whitespace.
import {
  applyEdits,
  findNodeAtLocation,
  getNodeValue,
  parseTree,
  printParseErrorCode,
  type Edit,
  type Node,
  type ParseError,
} from "jsonc-parser";

/** What a client accepts in its JSON config besides strict JSON. */
export interface JsonDialect {
  comments: boolean;
  trailingCommas: boolean;
}

export const STRICT_JSON: JsonDialect = { comments: false, trailingCommas: false };
/** VS Code's JSON with comments: comments and trailing commas. */
export const JSONC: JsonDialect = { comments: true, trailingCommas: true };

export interface Formatting {
  /** One level of indentation: spaces or a tab. */
  unit: string;
  eol: string;
  /** The file is laid out on several lines (vs minified on one). */
  multiline: boolean;
}

/** The file's own indentation unit (from its first indented line; 2 spaces when none) and line ending. */
export function detectFormatting(text: string): Formatting {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const m = /\n([ \t]+)\S/.exec(text);
  const unit = m ? (m[1].startsWith("\t") ? "\t" : m[1]) : "  ";
  return { unit, eol, multiline: text.includes("\n") };
}

const PARSE_ERRORS: Record<string, string> = {
  InvalidCommentToken: "a comment, which this client does not accept in this file",
  PropertyNameExpected: "a property name expected (a trailing comma?)",
  ValueExpected: "a value expected (a trailing comma?)",
  CommaExpected: "a comma expected",
  ColonExpected: "a colon expected",
  CloseBraceExpected: "a closing } expected",
  CloseBracketExpected: "a closing ] expected",
  EndOfFileExpected: "end of file expected",
};

export interface ParsedJson {
  /** The text without a leading byte order mark. */
  body: string;
  bom: string;
  tree: Node | undefined;
  value: unknown;
  /** Why it cannot be read, with the line, or null. */
  error: string | null;
}

export function parseJsonFile(text: string, dialect: JsonDialect): ParsedJson {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = text.slice(bom.length);
  const errors: ParseError[] = [];
  const tree = parseTree(body, errors, {
    disallowComments: !dialect.comments,
    allowTrailingComma: dialect.trailingCommas,
  });
  if (errors.length > 0) {
    const e = errors[0];
    const name = printParseErrorCode(e.error);
    return {
      body,
      bom,
      tree,
      value: undefined,
      error: `${PARSE_ERRORS[name] ?? name} at line ${lineOf(body, e.offset)}`,
    };
  }
  return { body, bom, tree, value: tree ? getNodeValue(tree) : undefined, error: null };
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The whitespace that starts the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/** Whether only whitespace precedes `offset` on its line. */
function startsLine(text: string, offset: number): boolean {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*$/.test(text.slice(start, offset));
}

function spans(text: string, node: Node): boolean {
  return text.slice(node.offset, node.offset + node.length).includes("\n");
}

function render(value: unknown, indent: string, f: Formatting, multiline: boolean): string {
  if (!multiline) return JSON.stringify(value);
  return JSON.stringify(value, null, f.unit)
    .split("\n")
    .join(f.eol + indent);
}

/**
 * Adds one member (`"key": value` in an object, `value` in an array) after the container's last
 * member: on its own line with that member's indentation, after a comment that ends that line; a
 * trailing comma (JSONC) stays after ours. A container on one line gets the member on that line.
 */
function addMember(text: string, container: Node, key: string | null, value: unknown, f: Formatting): Edit[] {
  const member = (indent: string, multiline: boolean) =>
    (key === null ? "" : `${JSON.stringify(key)}: `) + render(value, indent, f, multiline);
  const children = container.children ?? [];
  if (children.length === 0) {
    if (!f.multiline) return [{ offset: container.offset + 1, length: 0, content: member("", false) }];
    const outer = lineIndent(text, container.offset);
    const inner = outer + f.unit;
    return [
      {
        offset: container.offset + 1,
        length: 0,
        content: f.eol + inner + member(inner, true) + (spans(text, container) ? "" : f.eol + outer),
      },
    ];
  }
  const last = children[children.length - 1];
  const end = last.offset + last.length;
  const comma = /^[ \t]*,/.exec(text.slice(end));
  const afterComma = comma ? end + comma[0].length : end;
  if (!spans(text, container)) {
    const m = member("", false);
    return [{ offset: afterComma, length: 0, content: comma ? ` ${m},` : `, ${m}` }];
  }
  const indent = startsLine(text, last.offset)
    ? lineIndent(text, last.offset)
    : lineIndent(text, container.offset) + f.unit;
  const rest = /^[^\r\n]*/.exec(text.slice(afterComma))![0];
  const at = /^[ \t]*(\/\/.*|\/\*.*\*\/[ \t]*)?$/.test(rest) ? afterComma + rest.length : afterComma;
  const insert = f.eol + indent + member(indent, true) + (comma ? "," : "");
  if (comma || at === end) return [{ offset: at, length: 0, content: (comma ? "" : ",") + insert }];
  return [
    { offset: end, length: 0, content: "," },
    { offset: at, length: 0, content: insert },
  ];
}

/**
 * Sets the value at `path` (object keys): replaces it when it is there (it is ours), else adds the
 * missing part of the path to the deepest object that exists. The caller has checked that every
 * existing step of the path is an object. Returns the new text.
 */
export function setJsonValue(text: string, tree: Node, path: string[], value: unknown, f: Formatting): string {
  const current = findNodeAtLocation(tree, path);
  if (current) {
    const holder = current.parent?.parent ?? tree;
    const content = render(value, lineIndent(text, current.parent!.offset), f, spans(text, holder));
    return applyEdits(text, [{ offset: current.offset, length: current.length, content }]);
  }
  let depth = path.length - 1;
  while (depth > 0 && findNodeAtLocation(tree, path.slice(0, depth)) === undefined) depth--;
  const container = depth === 0 ? tree : findNodeAtLocation(tree, path.slice(0, depth))!;
  const nested = path.slice(depth + 1).reduceRight<unknown>((v, k) => ({ [k]: v }), value);
  return applyEdits(text, addMember(text, container, path[depth], nested, f));
}

/** Replaces the value at `path` (keys and list indexes; it must exist), laid out like the line it starts on. */
export function replaceJsonValue(
  text: string,
  tree: Node,
  path: Array<string | number>,
  value: unknown,
  f: Formatting,
): string {
  const current = findNodeAtLocation(tree, path)!;
  const content = render(value, lineIndent(text, current.offset), f, spans(text, current.parent ?? tree));
  return applyEdits(text, [{ offset: current.offset, length: current.length, content }]);
}

/** Appends values to the array at `path` (creating it when absent). Returns the new text. */
export function appendJsonValues(text: string, tree: Node, path: string[], values: unknown[], f: Formatting): string {
  if (!findNodeAtLocation(tree, path)) return setJsonValue(text, tree, path, values, f);
  let out = text;
  for (const v of values) {
    const t = parseTree(out, [], { allowTrailingComma: true })!;
    out = applyEdits(out, addMember(out, findNodeAtLocation(t, path)!, null, v, f));
  }
  return out;
}
