// A phase's complexity, as the spec annotates it (`<!-- complexity: low|medium|high -->`). Its own
// module so that the signal registry (machines/signals.ts) and the state schema can both use it.
import { z } from "zod";

export const Complexity = z.enum(["low", "medium", "high"]);
export type Complexity = z.infer<typeof Complexity>;
