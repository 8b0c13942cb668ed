// In-band human decisions: unless turned off, when the client declares form elicitation an `ask`
// Step is put to the user as a form (the options as an enum) instead of going back to the host
// model, and the answer is recorded with channel `elicited`.
// Anything but an accepted answer (decline, cancel, an error, a time-out) leaves the ask Step to
// be returned as usual, so the host can still ask and call autopilot_decide.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Step } from "../protocol/step.js";

/**
 * No time-out on a person: the longest timer Node allows (2^31-1 ms, about 24.8 days; a longer one
 * fires at once). The SDK's default 60 s would turn every gate into a fallback.
 */
const ELICIT_TIMEOUT_MS = 2_147_483_647;

export function clientCanElicit(server: Server): boolean {
  const e = server.getClientCapabilities()?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!e) return false;
  // An empty capability object predates modes and means form.
  return e.form !== undefined || e.url === undefined;
}

export interface InBandAnswer {
  answer: string;
  rationale?: string;
}

/**
 * The form's text. A client may show only its first lines until the user expands it (Claude Code
 * 2.1.33x: two lines, then "… (+N more lines)"), so the facts the answer depends on come first: the
 * question's context (the plan and what paused it, the blocking findings, the changed files, ...),
 * else the report; then the report, and where the session is. The question itself is the answer
 * field's description, next to the options, which it does not repeat.
 */
function elicitMessage(step: Step): string {
  if (step.next.kind !== "ask") return "";
  const where = step.phase ? `Phase ${step.phase.number}/${step.phase.total}: ${step.phase.name}` : step.state;
  return [step.next.context, step.report, `autopilot · ${where}`].filter((p): p is string => !!p?.trim()).join("\n\n");
}

export async function askInBand(
  server: Server,
  step: Step,
  opts: { signal?: AbortSignal; timeoutMs?: number; onWaiting?: () => void } = {},
): Promise<InBandAnswer | null> {
  if (step.next.kind !== "ask") return null;
  const options = step.next.options;
  try {
    opts.onWaiting?.();
    const res = await server.elicitInput(
      {
        mode: "form",
        message: elicitMessage(step),
        requestedSchema: {
          type: "object",
          properties: {
            answer: { type: "string", title: "Answer", enum: options, description: step.next.question },
            rationale: { type: "string", title: "Why (optional)" },
          },
          required: ["answer"],
        },
      },
      { timeout: opts.timeoutMs ?? ELICIT_TIMEOUT_MS, signal: opts.signal },
    );
    if (res.action !== "accept" || !res.content) return null;
    const answer = res.content.answer;
    if (typeof answer !== "string" || !options.includes(answer)) return null;
    const rationale =
      typeof res.content.rationale === "string" && res.content.rationale.trim()
        ? res.content.rationale.trim()
        : undefined;
    return { answer, ...(rationale ? { rationale } : {}) };
  } catch {
    return null;
  }
}
