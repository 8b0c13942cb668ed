// What a session hands back, in the state file: the pull request (src/effects/pull-request.ts
// writes it at DONE), and what each finished phase keeps for it beside its counts in the history
// entry: the planner's assumptions and how the phase was tested. The phase's working data
// (`phaseRun`) is reset for the next phase, so without these the description could only count.
import { z } from "zod";

export const PhaseNotes = {
  /** The planner's assumptions where the spec was silent (absent: none, or a file from before). */
  assumptions: z.array(z.string()).optional(),
  /**
   * What was run to test the phase and what it showed: the executor's evidence when it last
   * reported its work done, and the last verification's (the verifier's, or the validation run at
   * --fast).
   */
  tested: z.looseObject({ executor: z.array(z.string()), verification: z.array(z.string()) }).optional(),
};

/** The pull request written at DONE; `spec`: the spec's own name, the decision log's title (absent in older files). */
export const PullRequest = z.looseObject({ title: z.string(), body: z.string(), spec: z.string().optional() });
export type PullRequest = z.infer<typeof PullRequest>;
