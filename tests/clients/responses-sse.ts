// The OpenAI Responses API as Codex CLI (0.169) calls it, on loopback, with the scripted brain as
// the model: `POST <base_url>/responses` with the whole conversation in `input`, answered as
// server-sent events (`response.created`, `response.output_item.added`/`.done` per item,
// `response.completed`). MCP tools are offered as a namespace `mcp__<server>` and called with
// that namespace; the subagent tools as the namespace `multi_agent_v1`. The brain sees MCP tools
// as `mcp__autopilot__<tool>` (as Claude Code names them) and every other tool by its own name.
import type { Conversation, Decision, Message, Part } from "./brain/types.js";
import { newId, startLoopback, type LoopbackModel, type LoopbackOptions } from "./loopback.js";

interface ToolRef {
  name: string;
  namespace?: string;
  /** A freeform tool (Codex's code mode `exec`): called with raw text, not JSON arguments. */
  custom?: boolean;
}

/**
 * The tools a request offers, by the name the brain uses, with how Codex expects each called: the
 * body's `tools`, and those of an `additional_tools` input item (Codex 0.169 declares them there for
 * a model of its catalog whose tool mode is code mode: `exec` runs JavaScript that calls the nested
 * tools, e.g. `tools.exec_command`).
 */
export function toolTable(tools: unknown, input?: unknown): Map<string, ToolRef> {
  const table = new Map<string, ToolRef>();
  const extra = (Array.isArray(input) ? input : []).flatMap((i) =>
    i?.type === "additional_tools" && Array.isArray(i.tools) ? i.tools : [],
  );
  for (const t of [...(Array.isArray(tools) ? tools : []), ...extra]) {
    if (t?.type === "namespace" && Array.isArray(t.tools)) {
      for (const inner of t.tools)
        table.set(flatName(inner.name, t.name), {
          name: String(inner.name),
          // "functions" (of additional_tools) is the top level: its tools are called by their own name.
          ...(t.name !== "functions" ? { namespace: String(t.name) } : {}),
          ...(inner.type === "custom" ? { custom: true } : {}),
        });
    } else if (typeof t?.name === "string")
      table.set(t.name, { name: t.name, ...(t.type === "custom" ? { custom: true } : {}) });
    else if (typeof t?.type === "string") table.set(t.type, { name: t.type });
  }
  return table;
}

function flatName(name: unknown, namespace: unknown): string {
  return typeof namespace === "string" && namespace.startsWith("mcp__")
    ? `${namespace}__${String(name)}`
    : String(name);
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((c) => (typeof c === "string" ? c : typeof c?.text === "string" ? c.text : "")).join("\n");
  if (content && typeof content === "object") {
    const o = content as { content?: unknown; text?: unknown };
    if (o.content !== undefined) return textOf(o.content);
    if (typeof o.text === "string") return o.text;
    return JSON.stringify(content);
  }
  return "";
}

function args(raw: unknown): Record<string, unknown> {
  if (raw && typeof raw === "object") return raw as Record<string, unknown>;
  try {
    const v = JSON.parse(typeof raw === "string" ? raw : "{}");
    return v && typeof v === "object" ? v : { value: v };
  } catch {
    return { raw: String(raw) };
  }
}

/** A Responses request body in the neutral form. Consecutive items of one role make one message. */
export function responsesConversation(body: any): Conversation {
  const system: string[] = typeof body.instructions === "string" && body.instructions ? [body.instructions] : [];
  const messages: Message[] = [];
  const push = (role: "user" | "assistant", part: Part) => {
    const last = messages.at(-1);
    if (last?.role === role) last.parts.push(part);
    else messages.push({ role, parts: [part] });
  };
  for (const item of Array.isArray(body.input) ? body.input : []) {
    switch (item?.type) {
      case "message": {
        const text = textOf(item.content);
        if (item.role === "developer" || item.role === "system") system.push(text);
        else push(item.role === "assistant" ? "assistant" : "user", { type: "text", text });
        break;
      }
      case "function_call":
        push("assistant", {
          type: "tool_call",
          call: { id: String(item.call_id), name: flatName(item.name, item.namespace), args: args(item.arguments) },
        });
        break;
      case "custom_tool_call":
        push("assistant", {
          type: "tool_call",
          call: { id: String(item.call_id), name: String(item.name), args: { input: item.input } },
        });
        break;
      case "function_call_output":
      case "custom_tool_call_output": {
        const out = item.output;
        const isError = typeof out === "object" && out !== null && (out as { success?: boolean }).success === false;
        push("user", { type: "tool_result", result: { callId: String(item.call_id), text: textOf(out), isError } });
        break;
      }
      default:
        break; // reasoning and compaction items: nothing the brain reads
    }
  }
  return {
    system: system.join("\n\n"),
    messages,
    tools: [...toolTable(body.tools, body.input).keys()],
    model: body.model,
  };
}

function event(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** The brain's decision as the Responses SSE stream Codex reads. */
export function responsesEvents(d: Decision, body: any): string[] {
  const table = toolTable(body.tools, body.input);
  const output: Array<Record<string, unknown>> = [];
  const text = d.kind === "reply" ? d.text : d.text;
  if (text) {
    output.push({
      type: "message",
      id: newId("msg"),
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text, annotations: [] }],
    });
  }
  for (const c of d.kind === "tool_calls" ? d.calls : []) {
    const ref = table.get(c.name);
    if (!ref) throw new Error(`the brain called ${c.name}, which this request does not offer`);
    if (ref.custom) {
      output.push({
        type: "custom_tool_call",
        id: newId("ctc"),
        call_id: newId("call"),
        name: ref.name,
        input: typeof c.args.input === "string" ? c.args.input : "",
        status: "completed",
      });
      continue;
    }
    output.push({
      type: "function_call",
      id: newId("fc"),
      call_id: newId("call"),
      name: ref.name,
      ...(ref.namespace ? { namespace: ref.namespace } : {}),
      arguments: JSON.stringify(c.args),
      status: "completed",
    });
  }
  const id = newId("resp");
  const bytes = JSON.stringify(body.input ?? []).length;
  const usage = {
    input_tokens: Math.ceil(bytes / 4),
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: Math.ceil(JSON.stringify(output).length / 4),
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: Math.ceil(bytes / 4) + Math.ceil(JSON.stringify(output).length / 4),
  };
  return [
    event("response.created", { response: { id, status: "in_progress", output: [] } }),
    ...output.flatMap((item, i) => [
      event("response.output_item.added", { output_index: i, item: { ...item, status: "in_progress" } }),
      event("response.output_item.done", { output_index: i, item }),
    ]),
    event("response.completed", { response: { id, status: "completed", output, usage } }),
  ];
}

export async function startResponsesModel(o: LoopbackOptions): Promise<LoopbackModel> {
  return startLoopback(
    o,
    (rec, ask) => {
      if (!/\/responses(\?|$)/.test(rec.url)) return null;
      const d = ask(responsesConversation(rec.body));
      return { status: 200, sse: responsesEvents(d, rec.body) };
    },
    (message) => ({ error: { type: "invalid_request_error", message: `loopback model: ${message}` } }),
  );
}
