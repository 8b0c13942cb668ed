// The record of how a parallel session runs a plan's tasks (issue 27): kept in the state file
// (`phaseRun.waves`) and in the plan gate's notice. Computed by src/markdown/waves.ts.
import { z } from "zod";

export const WavePlan = z.looseObject({
  /** Whether tasks run at the same time; false: one at a time, in the order of `waves`. */
  parallel: z.boolean(),
  /** Task numbers per wave, in order. */
  waves: z.array(z.array(z.string())),
  /** Why the plan runs this way (one line of the plan gate's report). */
  reason: z.string(),
  /** Tasks that share files and so run one after the other. */
  serialized: z.array(z.string()),
});
export type WavePlan = z.infer<typeof WavePlan>;

/** `--parallel` (or `"parallel": true` in the config) when the session started; absent: serial. */
export const ParallelSettings = z.looseObject({ minIndependent: z.number().int().min(2) });
export type ParallelSettings = z.infer<typeof ParallelSettings>;
