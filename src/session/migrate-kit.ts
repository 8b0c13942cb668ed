// What the migration's field rules share (src/session/migrate.ts and the rules in
// migrate-position.ts and migrate-records.ts): reading a record from a file without trusting it
// (a "__proto__" key stays a key), the notes that say what changed, the original kept beside a
// replaced value, and a field fitted to its type or set aside.
import { z } from "zod";
import { AutopilotError } from "../protocol/errors.js";
import { Complexity } from "./schema.js";

export type Rec = Record<string, unknown>;

export function corrupt(reason: string): never {
  throw new AutopilotError("corrupt_state", reason);
}

export function isRec(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function has(o: Rec, k: string): boolean {
  return Object.hasOwn(o, k) && o[k] !== undefined;
}

// Assignment through `o[k] = v` would treat a "__proto__" key from a file as the prototype.
export function put(o: Rec, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

export function cap(k: string): string {
  return k.charAt(0).toUpperCase() + k.slice(1);
}

/** Collects notes; repeated messages (one per phase, per finding) are folded into one line with a count. */
export class Notes {
  private readonly counts = new Map<string, number>();
  add(message: string): void {
    this.counts.set(message, (this.counts.get(message) ?? 0) + 1);
  }
  list(): string[] {
    return [...this.counts].map(([m, n]) => (n > 1 ? `${m} (${n} times)` : m));
  }
}

/** Keep a value we are about to replace, beside it, so a person can see what the file said. */
export function keepOriginal(o: Rec, key: string, value: unknown): void {
  const name = `original${cap(key)}`;
  // The first migration's record is the one that matters; a later one would overwrite it with our own value.
  if (!Object.hasOwn(o, name)) put(o, name, value);
}

// Built once: a zod schema is costly to construct, and fit() runs for every field of every
// decision and history entry (at 5,000 decisions, building them inline cost ~80 ms per read).
export const STR = z.string();
export const INT = z.number().int();
export const BOOL = z.boolean();
export const STRINGS = z.array(STR);
export const COUNTS = z.record(z.string(), z.number());
export const COMPLEXITY_OR_NULL = Complexity.nullable();

/** An optional field that does not fit its schema moves aside rather than failing the whole file. */
export function fit(o: Rec, key: string, schema: z.ZodType, notes: Notes, where: string): void {
  if (!has(o, key)) return;
  if (schema.safeParse(o[key]).success) return;
  keepOriginal(o, key, o[key]);
  delete o[key];
  notes.add(`${where}: "${key}" had an unexpected value; kept as "original${cap(key)}"`);
}

export function asInt(v: unknown): number | null {
  if (typeof v === "number" && Number.isInteger(v)) return v;
  if (typeof v === "string" && /^\s*-?\d+\s*$/.test(v)) return Number.parseInt(v, 10);
  return null;
}

export function nonEmptyString(v: unknown): v is string {
  return typeof v === "string" && v.trim() !== "";
}

export function looksLikeDate(v: unknown): v is string {
  return typeof v === "string" && /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v.slice(0, 10)));
}
