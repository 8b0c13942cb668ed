// Values that callers send (MCP arguments, Engine API callers, CLI input) are only data. Plain JSON
// can carry an object whose `toString` or `valueOf` is not a function ({"toString": 1}); String()
// or a template literal on one throws a TypeError instead of the coded refusal the contract
// promises (the reliability soak sends such values). Messages name them through `shown`, and
// inputs are checked for their type before any text is made of them.
import { AutopilotError, type ErrorCode } from "./errors.js";

/** A caller's value for an error message, at most `max` characters. Never throws. */
export function shown(v: unknown, max = 80): string {
  let s: string | undefined;
  try {
    s = typeof v === "bigint" ? `${v}n` : JSON.stringify(v);
  } catch {
    s = undefined;
  }
  if (s === undefined) s = v === undefined ? "undefined" : `a ${typeof v}`;
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** `v` is a string, or a coded refusal saying what was expected. */
export function requireString(
  v: unknown,
  what: string,
  hint: string,
  code: ErrorCode = "bad_input",
): asserts v is string {
  if (typeof v !== "string") throw new AutopilotError(code, `${what} must be a string, not ${shown(v)}. ${hint}`);
}
