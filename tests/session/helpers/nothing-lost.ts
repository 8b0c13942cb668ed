// "Never lose a field": every value in the file we read is still in the migrated state, either in
// place or kept beside its replacement as `original<Field>`.
import { isDeepStrictEqual } from "node:util";

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const cap = (k: string) => k.charAt(0).toUpperCase() + k.slice(1);

/** Returns the paths of values that were lost (empty when nothing was). */
export function lostValues(
  before: unknown,
  after: unknown,
  at = "$",
  allowed: (path: string) => boolean = () => false,
): string[] {
  if (isDeepStrictEqual(before, after) || allowed(at)) return [];
  if (Array.isArray(before)) {
    if (!Array.isArray(after) || after.length !== before.length) return [at];
    return before.flatMap((b, i) => lostValues(b, after[i], `${at}[${i}]`, allowed));
  }
  if (isRec(before)) {
    if (!isRec(after)) return [at];
    return Object.keys(before).flatMap((k) => {
      const p = `${at}.${k}`;
      if (Object.hasOwn(after, k) && lostValues(before[k], after[k], p, allowed).length === 0) return [];
      if (isDeepStrictEqual(after[`original${cap(k)}`], before[k])) return [];
      return lostValues(before[k], after[k], p, allowed);
    });
  }
  // A scalar that became an object: a string decision or history entry wrapped with its text kept.
  if (isRec(after) && Object.values(after).some((v) => isDeepStrictEqual(v, before))) return [];
  return [at];
}
