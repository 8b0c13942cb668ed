// gather_context: what a persona loads on startup, in one call and one bounded object, read from
// the session folder first so parallel workstreams stay isolated. Only the parts asked for are
// read; validation in particular runs commands and is never run unless asked.
import { readHandoff, type Handoff } from "./handoff.js";
import { readLearnings, type LearningItem } from "./learnings.js";
import { readTextOrNull } from "./fsutil.js";
import { sessionPaths } from "../session/paths.js";
import { runValidation, type ValidationResult } from "./validation.js";

export const CONTEXT_PARTS = ["state", "learnings", "handoff", "validation"] as const;
export type ContextPart = (typeof CONTEXT_PARTS)[number];

export interface GatheredContext {
  session: string;
  /** The raw autopilot-state.json (as written, not migrated); null when absent or unparsable. */
  state?: unknown;
  learnings?: LearningItem[];
  learningsTruncated?: boolean;
  handoff?: Handoff | null;
  validation?: ValidationResult | null;
  /** Parts that could not be read, with why; the rest of the context is still returned. */
  errors?: Partial<Record<ContextPart, string>>;
}

export interface GatherOptions {
  maxLearnings?: number;
  learningsChars?: number;
  validationTimeoutMs?: number;
  validationOutputBytes?: number;
  signal?: AbortSignal;
}

export async function gatherContext(
  root: string,
  slug: string,
  include: readonly ContextPart[] = CONTEXT_PARTS,
  opts: GatherOptions = {},
): Promise<GatheredContext> {
  const ws = sessionPaths(root, slug);
  const want = new Set(include);
  const out: GatheredContext = { session: slug };
  const errors: Partial<Record<ContextPart, string>> = {};

  if (want.has("state")) {
    const text = await readTextOrNull(ws.state).catch((e: Error) => {
      errors.state = e.message;
      return null;
    });
    out.state = null;
    if (text !== null) {
      try {
        out.state = JSON.parse(text.replace(/^\uFEFF/, ""));
      } catch (e) {
        errors.state = `autopilot-state.json is not valid JSON: ${(e as Error).message}`;
      }
    }
  }
  if (want.has("learnings")) {
    try {
      const l = await readLearnings(ws, { max: opts.maxLearnings ?? 20, maxChars: opts.learningsChars ?? 6000 });
      out.learnings = l.entries;
      out.learningsTruncated = l.truncated;
    } catch (e) {
      out.learnings = [];
      errors.learnings = (e as Error).message;
    }
  }
  if (want.has("handoff")) out.handoff = await readHandoff(ws);
  if (want.has("validation")) {
    try {
      out.validation = await runValidation(root, {
        timeoutMs: opts.validationTimeoutMs ?? 300_000,
        // Smaller than the CLI's: this lands in a model's context next to everything else.
        maxOutputBytes: opts.validationOutputBytes ?? 4000,
        signal: opts.signal,
      });
    } catch (e) {
      out.validation = null;
      errors.validation = (e as Error).message;
    }
  }
  if (Object.keys(errors).length) out.errors = errors;
  return out;
}
