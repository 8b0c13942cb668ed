// The decision log: one model, three renderings. For the MCP `autopilot_decisions` tool and the
// `autopilot://sessions/{slug}/decisions` resource, call `readDecisionLog(projectRoot, slug)` (or
// `buildDecisionLog(state, slug)` with a state already read) and return the object as is.
import { SessionStore } from "../session/store.js";
import { buildDecisionLog, type DecisionLog } from "./model.js";

export * from "./model.js";
export { renderMarkdown } from "./markdown.js";
export { renderHtml } from "./html.js";
export { stateGraph } from "./diagram.js";

/**
 * Read `.harness/sessions/<slug>/autopilot-state.json` (migrated in memory, never rewritten; no
 * lock taken, so it is safe next to a running session) and build its decision log. Throws the
 * store's AutopilotError for an unsafe slug or an unreadable file; `null` when there is no such
 * session.
 */
export async function readDecisionLog(projectRoot: string, slug: string): Promise<DecisionLog | null> {
  const store = new SessionStore(projectRoot);
  if (!(await store.exists(slug))) return null;
  const { state } = await store.read(slug);
  return buildDecisionLog(state, slug);
}
