// Who answered a decision, in words: one place for the phrases the decision log, the session
// summary, the PR text and the headless summary use, so they never disagree.
import type { DecisionBy } from "./schema.js";

/** The short phrase for a channel: "answered by the host model; no person may have seen it". */
export const CHANNEL_PHRASES: Record<DecisionBy, string> = {
  elicited: "answered by the user in the client's form",
  terminal: "answered by a person at a terminal",
  host: "answered by the host model; no person may have seen it",
  relayed: "relayed by the host model as the user's words (its claim; no person answered autopilot directly)",
  piped: "read from piped input to autopilot run (a script or a person; not a terminal)",
  policy: "answered by the --yes policy",
  auto: "decided automatically",
  human: "recorded as \"human\" by an earlier version, which did not tell a person from the host model",
};

export function channelPhrase(by: unknown): string {
  return typeof by === "string" && by in CHANNEL_PHRASES ? CHANNEL_PHRASES[by as DecisionBy] : "who answered was not recorded";
}

/** "2 by the user in the client's form, 1 by the host model (no person may have seen it), 3 automatic". */
export function channelCounts(decisions: readonly { by?: unknown }[]): string {
  const order: [DecisionBy | "unknown", string][] = [
    ["elicited", "in the client's form"],
    ["terminal", "at a terminal"],
    ["host", "by the host model (no person may have seen it)"],
    ["relayed", "relayed by the host model as the user's words"],
    ["piped", "from piped input"],
    ["policy", "by the --yes policy"],
    ["auto", "automatic"],
    ["human", "recorded as \"human\" (person or host model, not told apart)"],
    ["unknown", "not recorded"],
  ];
  const n = new Map<string, number>();
  for (const d of decisions) {
    const k = typeof d.by === "string" && d.by in CHANNEL_PHRASES ? d.by : "unknown";
    n.set(k, (n.get(k) ?? 0) + 1);
  }
  const parts = order.filter(([k]) => n.get(k)).map(([k, words]) => `${n.get(k)} ${words}`);
  return parts.length ? parts.join(", ") : "none";
}
