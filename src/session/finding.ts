// A review finding, in our canonical severity vocabulary (`critical|important|suggestion` are
// mapped on read by normalizeSeverity in schema.ts). Its own module so the state schema and the
// effect union (effects.ts) can both use it without importing each other.
import { z } from "zod";

/** Severity in our canonical vocabulary; `critical|important|suggestion` are mapped on read. */
export const Severity = z.enum(["blocking", "warning", "note"]);
export type Severity = z.infer<typeof Severity>;

export const Finding = z.looseObject({
  severity: Severity,
  title: z.string(),
  file: z.string().optional(),
  line: z.number().int().optional(),
  rationale: z.string().optional(),
  /** The concrete input or sequence that triggers the problem (required of a blocking finding). */
  scenario: z.string().optional(),
});
export type Finding = z.infer<typeof Finding>;
