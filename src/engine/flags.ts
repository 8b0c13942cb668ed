// The flags of a start, wherever a client puts them. Clients pass a command line differently:
// Claude Code splits it on spaces and maps the words onto a prompt's arguments in order; Gemini CLI
// puts the whole string, flags included, into the first argument; a host model may pass
// "docs/spec.md --fast" as the spec. So flags are read out of the spec too, and a command line is
// taken apart the same way wherever it comes from.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { AutopilotError } from "../protocol/errors.js";
import { requireString } from "../protocol/input.js";
import type { RigorLevel } from "../session/schema.js";
import { parseBudget } from "../session/usage.js";
import { editDistance, splitWords, type Word } from "../protocol/words.js";

const FLAGS = ["--fast", "--thorough", "--review-plans", "--human-gates", "--worktree", "--parallel"] as const;
/** The one flag that takes a value: `--budget 200k`, `--budget $5`, `--budget=5usd`. */
const BUDGET_FLAG = "--budget";
const FLAG_LIST = [...FLAGS, `${BUDGET_FLAG} <tokens or $>`].join(", ");

export interface Flags {
  rigorLevel: RigorLevel;
  reviewPlans: boolean;
  /** `--human-gates` was given (the session default also depends on --thorough and the config). */
  humanGates: boolean;
  /** `--budget`, when given. */
  budget: { tokens: number | null; usd: number | null } | null;
  /** Run a fresh session in its own git worktree on `autopilot/<slug>` (docs/cli.md). */
  worktree: boolean;
  /** Run independent plan tasks at the same time, each in its own worktree. */
  parallel: boolean;
}

type Token = Word;

/** Words of a spec and its flags (src/protocol/words.ts, `paths`: no escapes, an unclosed quote runs to the end). */
function tokenize(line: string): Token[] {
  return splitWords(line).words;
}

/** Typed dashes (— or –, as some keyboards autocorrect `--`) count as `--`. */
function normalizeDashes(word: string): string {
  return word.replace(/^[—–]+/, "--");
}

function isFlagLike(t: Token): boolean {
  return !t.quoted && /^[-—–]/.test(t.text);
}

/** The known flag a mistyped word most likely meant, or null. */
export function suggestFlag(word: string): string | null {
  const bare = word
    .replace(/^[-—–]+/, "")
    .toLowerCase()
    .replace(/_/g, "-");
  if (!bare) return null;
  let best: { flag: string; d: number } | null = null;
  for (const flag of [...FLAGS, BUDGET_FLAG]) {
    const name = flag.slice(2);
    const d = name.startsWith(bare) || bare.startsWith(name) ? 0 : editDistance(bare, name);
    if (!best || d < best.d) best = { flag, d };
  }
  return best && best.d <= 2 ? best.flag : null;
}

function unknownFlags(words: string[]): AutopilotError {
  const parts = words.map((w) => {
    const s = suggestFlag(w);
    return s ? `${w} (did you mean ${s}?)` : w;
  });
  return new AutopilotError(
    "bad_input",
    `Unknown flag${words.length > 1 ? "s" : ""} ${parts.join(", ")}. The flags are ${FLAG_LIST}; call autopilot_start again with the right ones.`,
  );
}

/** Split flag words at commas ("--fast,--review-plans") and normalise their dashes. */
function flagWords(tokens: Token[]): string[] {
  return tokens
    .flatMap((t) => t.text.split(","))
    .map((w) => normalizeDashes(w.trim()))
    .filter(Boolean);
}

/** `--fast`, `--thorough`, `--review-plans`, `--worktree`, space or comma separated, from any number of strings. */
export function parseFlags(flags: string | string[] | undefined): Flags & { given: string[] } {
  return checkFlags(flagWords(tokenize(flagText(flags))));
}

/** Flags as one line. A caller may send anything, {"toString": 1} included: only strings pass. */
function flagText(flags: unknown): string {
  const list: unknown[] = Array.isArray(flags) ? flags : [flags ?? ""];
  for (const f of list)
    requireString(f, "flags", 'Pass them as one string, e.g. "--fast --review-plans", or leave them out.');
  return (list as string[]).join(" ");
}

/** Take `--budget X` / `--budget=X` out of the flag words. */
function takeBudget(all: string[]): { words: string[]; budget: Flags["budget"] } {
  let budget: Flags["budget"] = null;
  const words: string[] = [];
  for (let i = 0; i < all.length; i++) {
    const w = all[i];
    if (w === BUDGET_FLAG || w.startsWith(`${BUDGET_FLAG}=`)) {
      const value = w === BUDGET_FLAG ? all[++i] : w.slice(BUDGET_FLAG.length + 1);
      if (!value) throw new AutopilotError("bad_input", "--budget needs an amount: tokens (200k) or US dollars ($5).");
      budget = parseBudget(value);
    } else words.push(w);
  }
  return { words, budget };
}

function checkFlags(all: string[]): Flags & { given: string[] } {
  const { words, budget } = takeBudget(all);
  const known = new Set<string>(FLAGS);
  const unknown = words.filter((w) => !known.has(w));
  if (unknown.length) throw unknownFlags(unknown);
  const given = [...new Set(words)];
  const fast = given.includes("--fast");
  const thorough = given.includes("--thorough");
  if (fast && thorough)
    throw new AutopilotError("flag_conflict", "Cannot use --fast and --thorough together. Choose one.");
  return {
    rigorLevel: fast ? "fast" : thorough ? "thorough" : "standard",
    reviewPlans: given.includes("--review-plans"),
    humanGates: given.includes("--human-gates"),
    budget,
    worktree: given.includes("--worktree"),
    parallel: given.includes("--parallel"),
    given,
  };
}

export interface CommandLine {
  /** The spec path as the user meant it (quotes removed, words joined by one space). */
  spec: string;
  /** Every flag word found, in order. */
  flags: string[];
}

/**
 * Take a command line apart: flag words (unquoted, starting with a dash) wherever they stand, and
 * the rest as the spec path. Unknown flags are an error with a suggestion.
 */
export function splitCommandLine(line: string): CommandLine {
  const tokens = tokenize(line);
  // `--budget` takes the word after it as its value, whatever it looks like.
  const flagTokens: Token[] = [];
  const rest: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (!isFlagLike(t)) rest.push(t);
    else {
      flagTokens.push(t);
      if (normalizeDashes(t.text) === BUDGET_FLAG && tokens[i + 1]) flagTokens.push(tokens[++i]);
    }
  }
  const flags = flagWords(flagTokens);
  checkFlags(flags);
  const spec = rest.map((t) => t.text).join(" ");
  return { spec, flags };
}

/**
 * What `autopilot_start {spec, flags}` means. A spec naming an existing file is taken as it is
 * (a path may hold spaces, quotes or dashes); otherwise flags are read out of it too. Every word in
 * `flags` must be a flag.
 */
export function startArgs(
  root: string,
  spec: string,
  flags?: string | string[],
): CommandLine & Flags & { given: string[] } {
  // Every word, `--budget` and its value included (checked together below).
  const extra = flagWords(tokenize(flagText(flags)));
  let line: CommandLine;
  if (typeof spec === "string" && spec.trim() !== "" && isFile(root, spec)) line = { spec, flags: [] };
  else line = splitCommandLine(typeof spec === "string" ? spec : "");
  const parsed = checkFlags([...line.flags, ...extra]);
  return { spec: line.spec, flags: parsed.given, ...parsed };
}

function isFile(root: string, spec: string): boolean {
  try {
    const abs = path.resolve(root, spec);
    return existsSync(abs) && statSync(abs).isFile();
  } catch {
    return false;
  }
}
