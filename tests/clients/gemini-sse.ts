// The Gemini API as Gemini CLI (0.61) calls it with an API key, on loopback
// (GOOGLE_GEMINI_BASE_URL), with the scripted brain as the model. The main model is called at
// `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (one GenerateContentResponse per
// event); side calls go to `:generateContent`: the model router expects a JSON object with
// `complexity_score`, other side calls get a short JSON answer. Tool calls are `functionCall`
// parts, results come back as `functionResponse` parts (for MCP tools: only the text content).
import type { Conversation, Decision, Message, Part } from "./brain/types.js";
import { newId, startLoopback, type LoopbackModel, type LoopbackOptions } from "./loopback.js";

function partsText(parts: unknown): string {
  return (Array.isArray(parts) ? parts : [])
    .filter((p) => typeof p?.text === "string" && !p.thought)
    .map((p) => p.text as string)
    .join("\n");
}

/** What a functionResponse showed the model, as text. */
function responseText(response: unknown): string {
  if (response === null || response === undefined) return "";
  if (typeof response === "string") return response;
  const r = response as { output?: unknown; error?: unknown; content?: unknown };
  if (typeof r.output === "string") return r.output;
  if (typeof r.error === "string") return r.error;
  if (Array.isArray(r.content)) return partsText(r.content);
  return JSON.stringify(response);
}

/** A generateContent request body in the neutral form. */
export function geminiConversation(body: any): Conversation {
  const si = body.systemInstruction;
  const system = typeof si === "string" ? si : partsText(si?.parts);
  const messages: Message[] = [];
  // Gemini pairs results with calls by name and order; ids are kept when the client sends them.
  const open: Array<{ id: string; name: string }> = [];
  for (const content of Array.isArray(body.contents) ? body.contents : []) {
    const parts: Part[] = [];
    for (const p of Array.isArray(content?.parts) ? content.parts : []) {
      if (p?.functionCall) {
        const id = String(p.functionCall.id ?? newId("gcall"));
        open.push({ id, name: String(p.functionCall.name) });
        parts.push({
          type: "tool_call",
          call: { id, name: String(p.functionCall.name), args: p.functionCall.args ?? {} },
        });
      } else if (p?.functionResponse) {
        const fr = p.functionResponse;
        let i = fr.id ? open.findIndex((c) => c.id === fr.id) : -1;
        if (i < 0) i = open.findIndex((c) => c.name === fr.name);
        const callId = i >= 0 ? open.splice(i, 1)[0].id : String(fr.id ?? "");
        const error = typeof fr.response?.error === "string";
        parts.push({
          type: "tool_result",
          result: { callId, name: String(fr.name), text: responseText(fr.response), isError: error },
        });
      } else if (typeof p?.text === "string" && !p.thought) {
        parts.push({ type: "text", text: p.text });
      }
    }
    if (parts.length) messages.push({ role: content.role === "model" ? "assistant" : "user", parts });
  }
  const tools: string[] = [];
  for (const t of Array.isArray(body.tools) ? body.tools : []) {
    for (const f of Array.isArray(t?.functionDeclarations) ? t.functionDeclarations : []) tools.push(String(f.name));
  }
  return { system, messages, tools };
}

function usage(body: unknown, out: unknown) {
  const i = Math.ceil(JSON.stringify(body).length / 4);
  const o = Math.ceil(JSON.stringify(out).length / 4);
  return { promptTokenCount: i, candidatesTokenCount: o, totalTokenCount: i + o };
}

/** The brain's decision as the one SSE event Gemini CLI reads. */
export function geminiEvents(d: Decision, conv: Conversation, body: any): string[] {
  const parts: Array<Record<string, unknown>> = [];
  if (d.text) parts.push({ text: d.text });
  for (const c of d.kind === "tool_calls" ? d.calls : []) {
    if (!conv.tools.includes(c.name)) throw new Error(`the brain called ${c.name}, which this request does not offer`);
    parts.push({ functionCall: { name: c.name, args: c.args } });
  }
  const chunk = {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: usage(body.contents ?? [], parts),
    modelVersion: "loopback-brain",
    responseId: newId("gresp"),
  };
  return [`data: ${JSON.stringify(chunk)}\n\n`];
}

/** A side call's answer: the router's complexity score, or an empty JSON object. */
function sideAnswer(body: any): unknown {
  const schema = JSON.stringify(
    body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema ?? {},
  );
  const text = schema.includes("complexity_score")
    ? JSON.stringify({ complexity_reasoning: "a scripted session", complexity_score: 1 })
    : schema.includes("next_speaker")
      ? JSON.stringify({ reasoning: "the model ended its turn", next_speaker: "user" })
      : "{}";
  return {
    candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: usage(body, text),
  };
}

export async function startGeminiModel(o: LoopbackOptions): Promise<LoopbackModel> {
  return startLoopback(
    o,
    (rec, ask) => {
      if (rec.url.includes(":streamGenerateContent")) {
        const conv = geminiConversation(rec.body);
        const d = ask(conv);
        return { status: 200, sse: geminiEvents(d, conv, rec.body) };
      }
      if (rec.url.includes(":generateContent")) {
        rec.kind = "side";
        return { status: 200, json: sideAnswer(rec.body) };
      }
      if (rec.url.includes(":countTokens")) {
        rec.kind = "count_tokens";
        return { status: 200, json: { totalTokens: Math.ceil(rec.bytes / 4) } };
      }
      return null;
    },
    (message) => ({ error: { code: 400, message: `loopback model: ${message}`, status: "INVALID_ARGUMENT" } }),
  );
}
