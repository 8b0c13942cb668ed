// Words people type: a command line taken apart, and how far a mistyped word is from a known one.
// The flags of a start (src/engine/flags.ts), `install --command` (src/install/server-command.ts)
// and the CLI's "did you mean" (src/cli/usage.ts) all read words through here.

export interface Word {
  text: string;
  /** Written in quotes: never a flag, whatever it starts with. */
  quoted: boolean;
}

/**
 * Words of a command line: whitespace separates; quotes group and are removed.
 * - `paths` (the default, for a spec and its flags): a quote groups only at the start of a word, so
 *   `bob's spec.md` keeps its apostrophe; no escapes, so Windows paths keep their backslashes.
 * - `shell` (for a command to run): quotes group anywhere in a word (`--x="a b"`), and a backslash
 *   escapes the next character outside single quotes, as a POSIX shell reads it.
 * `unclosed` is the quote left open at the end (its text runs to the end of the line).
 */
export function splitWords(
  line: string,
  mode: "paths" | "shell" = "paths",
): { words: Word[]; unclosed: string | null } {
  const words: Word[] = [];
  let cur = "";
  let quoted = false;
  let started = false;
  let quote: string | null = null;
  const chars = [...line];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    const escapes = mode === "shell" && ch === "\\" && i + 1 < chars.length && quote !== "'";
    if (quote) {
      if (ch === quote) quote = null;
      else if (escapes && quote === '"') cur += chars[++i];
      else cur += ch;
    } else if ((ch === '"' || ch === "'") && (!started || mode === "shell")) {
      quote = ch;
      quoted = started = true;
    } else if (escapes) {
      cur += chars[++i];
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) words.push({ text: cur, quoted });
      cur = "";
      quoted = started = false;
    } else {
      cur += ch;
      started = true;
    }
  }
  if (started) words.push({ text: cur, quoted });
  return { words, unclosed: quote };
}

/** Edit distance with adjacent transpositions counted as one edit ("thorugh" is 1 from "through"). Small inputs only. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

/** A word (a spec path, a session slug) as a POSIX shell reads it back: quoted when it needs to be. */
export function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}
