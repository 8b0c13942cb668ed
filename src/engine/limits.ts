// Bounds on the Markdown the engine parses while it holds a session lock. The Markdown parser's
// time grows steeply with nesting: a 90 KB list nested 300 deep took 2.3 s, one nested 1000 deep
// 80 s, and a spec like that held the session (and a server's tool call) for as long
// (tests/reliability/hostile.test.ts). Real specs and plans are far inside these limits.
import { AutopilotError } from "../protocol/errors.js";

const MAX_MARKDOWN_BYTES = 2 * 1024 * 1024;
/** Leading indentation in columns (a list nested 64 deep is 128). */
const MAX_INDENT_COLUMNS = 128;
const MAX_QUOTE_DEPTH = 32;

/** Throws bad_input naming the limit when `text` is too big or too deeply nested to parse safely. */
export function assertParseableMarkdown(text: string, what: string): void {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_MARKDOWN_BYTES)
    throw new AutopilotError(
      "bad_input",
      `${what} is ${(bytes / 1024 / 1024).toFixed(1)} MB; the limit is ${MAX_MARKDOWN_BYTES / 1024 / 1024} MB. Split it, or move bulky material into files it links to.`,
    );
  let lineNo = 0;
  for (const line of text.split("\n")) {
    lineNo++;
    let col = 0;
    let quotes = 0;
    for (const ch of line) {
      if (ch === " ") col += 1;
      else if (ch === "\t") col += 4 - (col % 4);
      else if (ch === ">") quotes += 1;
      else break;
    }
    if (col > MAX_INDENT_COLUMNS || quotes > MAX_QUOTE_DEPTH)
      throw new AutopilotError(
        "bad_input",
        `${what} nests too deeply at line ${lineNo} (${col > MAX_INDENT_COLUMNS ? `${col} columns of indentation; the limit is ${MAX_INDENT_COLUMNS}` : `${quotes} levels of quoting; the limit is ${MAX_QUOTE_DEPTH}`}). Flatten the nesting and try again.`,
      );
  }
}
