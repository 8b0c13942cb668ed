// A loopback Anthropic Messages API server whose "model" is the scripted brain. It speaks what real
// clients send: POST /v1/messages (streaming SSE, as Claude Code always asks, or plain JSON, as
// autopilot's own anthropic runner asks) and POST /v1/messages/count_tokens. Side requests that carry
// no tools (titles, summaries a client asks a small model for) get a short text answer. Listens on
// 127.0.0.1 only; bounded by a request limit so a client that loops fails instead of spinning.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Conversation, Decision, Dialect, Message, Part } from "./brain/types.js";
import {
  describeDecision,
  newId,
  startLoopback,
  type LoopbackModel,
  type RecordedRequest,
  type Routed,
} from "./loopback.js";

export type { RecordedRequest };

export interface ModelServerOptions {
  /** Decides the next turn. */
  decide: (conv: Conversation) => Decision;
  /** Used to tell a subagent's request from the host's, for the records. */
  dialect: Dialect;
  /** Refuse (HTTP 400) after this many requests (default 1000). */
  maxRequests?: number;
  /**
   * Write a JSON summary of what the client sends the model (system prompt parts, tools with their
   * byte sizes; the full text for the first request of each kind) to this file after every request.
   * Default: `<env AUTOPILOT_CAPTURE_MODEL_REQUESTS>/<label>.json` when that variable names a folder.
   */
  captureFile?: string;
  /** Names this server's capture file (default "model"). */
  label?: string;
  log?: (line: string) => void;
}

export type ModelServer = LoopbackModel;

type Block = Record<string, any>;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b: Block) => (b.type === "text" ? b.text : b.type === "image" ? "[image]" : "")).join("");
}

/** A Messages API request body in the neutral form. */
export function toConversation(body: any): Conversation {
  const system =
    typeof body.system === "string"
      ? body.system
      : Array.isArray(body.system)
        ? body.system.map((b: Block) => b.text ?? "").join("\n\n")
        : "";
  const messages: Message[] = (body.messages ?? []).map((m: any) => {
    const parts: Part[] = [];
    const blocks: Block[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
    for (const b of blocks) {
      if (b.type === "text") parts.push({ type: "text", text: b.text });
      else if (b.type === "tool_use")
        parts.push({ type: "tool_call", call: { id: b.id, name: b.name, args: b.input ?? {} } });
      else if (b.type === "tool_result")
        parts.push({
          type: "tool_result",
          result: { callId: b.tool_use_id, text: textOf(b.content), isError: b.is_error === true },
        });
      // thinking, images, documents: nothing the brain reads
    }
    return { role: m.role, parts };
  });
  const tools: string[] = (body.tools ?? [])
    .map((t: Block) => t.name)
    .filter((n: unknown): n is string => typeof n === "string");
  return { system, messages, tools, model: body.model };
}

interface OutBlock {
  type: "text" | "tool_use";
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

function blocksOf(d: Decision): OutBlock[] {
  if (d.kind === "reply") return [{ type: "text", text: d.text }];
  return [
    ...(d.text ? [{ type: "text" as const, text: d.text }] : []),
    ...d.calls.map((c) => ({ type: "tool_use" as const, id: newId("toolu"), name: c.name, input: c.args })),
  ];
}

function usage(bytes: number, out: number) {
  return {
    input_tokens: Math.ceil(bytes / 4),
    output_tokens: out,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

/** The assistant message for these blocks: SSE events when the request streams, else one JSON body. */
function message(body: any, blocks: OutBlock[], bytes: number): Routed {
  const stop = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  const outTokens = Math.ceil(JSON.stringify(blocks).length / 4);
  const id = newId("msg");
  const headers = { "request-id": newId("req") };
  if (!body.stream) {
    return {
      status: 200,
      headers,
      json: {
        id,
        type: "message",
        role: "assistant",
        model: body.model,
        content: blocks.map((b) => (b.type === "text" ? { type: "text", text: b.text, citations: null } : b)),
        stop_reason: stop,
        stop_sequence: null,
        usage: usage(bytes, outTokens),
      },
    };
  }
  const sse: string[] = [];
  const ev = (type: string, data: unknown) => sse.push(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  ev("message_start", {
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model: body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(bytes, 1),
    },
  });
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      ev("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      // In a few chunks, as a real stream arrives.
      const t = b.text ?? "";
      const step = Math.max(1, Math.ceil(t.length / 3));
      for (let i = 0; i < t.length; i += step) {
        ev("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text: t.slice(i, i + step) },
        });
      }
    } else {
      ev("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: b.id, name: b.name, input: {} },
      });
      const json = JSON.stringify(b.input ?? {});
      const step = Math.max(1, Math.ceil(json.length / 2));
      for (let i = 0; i < json.length; i += step) {
        ev("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: json.slice(i, i + step) },
        });
      }
    }
    ev("content_block_stop", { type: "content_block_stop", index });
  });
  ev("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: outTokens },
  });
  ev("message_stop", { type: "message_stop" });
  return { status: 200, headers, sse };
}

/** The capture file: what the client sends per request, for measuring. */
function capture(file: string, requests: RecordedRequest[]): void {
  const firstOfKind = new Set<string>();
  const out = requests
    .filter((r) => r.kind !== "other")
    .map((r) => {
      const b = r.body ?? {};
      const key = `${r.kind}:${r.persona ?? ""}`;
      const full = !firstOfKind.has(key);
      firstOfKind.add(key);
      const system = typeof b.system === "string" ? [{ type: "text", text: b.system }] : (b.system ?? []);
      return {
        n: r.n,
        url: r.url,
        kind: r.kind,
        ...(r.persona ? { persona: r.persona } : {}),
        model: b.model,
        bytes: r.bytes,
        systemBytes: Buffer.byteLength(JSON.stringify(b.system ?? "")),
        toolsBytes: Buffer.byteLength(JSON.stringify(b.tools ?? [])),
        messagesBytes: Buffer.byteLength(JSON.stringify(b.messages ?? [])),
        messages: (b.messages ?? []).length,
        system: system.map((s: Block) => ({
          bytes: Buffer.byteLength(s.text ?? ""),
          ...(full ? { text: s.text } : {}),
        })),
        tools: (b.tools ?? []).map((t: Block) => ({
          name: t.name ?? t.type,
          bytes: Buffer.byteLength(JSON.stringify(t)),
          ...(full ? { definition: t } : {}),
        })),
      };
    });
  writeFileSync(file, JSON.stringify({ capturedAt: new Date().toISOString(), requests: out }, null, 1) + "\n");
}

export async function startModelServer(o: ModelServerOptions): Promise<ModelServer> {
  const captureDir = process.env.AUTOPILOT_CAPTURE_MODEL_REQUESTS;
  if (captureDir && !o.captureFile) mkdirSync(captureDir, { recursive: true });
  const captureFile = o.captureFile ?? (captureDir ? path.join(captureDir, `${o.label ?? "model"}.json`) : undefined);
  // Debugging: every request body as sent, one file each.
  const dumpDir = process.env.AUTOPILOT_DUMP_MODEL_REQUESTS;
  if (dumpDir) mkdirSync(dumpDir, { recursive: true });
  return startLoopback(
    {
      ...o,
      onRequest: dumpDir
        ? (rec) =>
            writeFileSync(
              path.join(dumpDir, `req-${String(rec.n).padStart(4, "0")}.json`),
              JSON.stringify({ url: rec.url, headers: rec.headers, body: rec.body }, null, 1),
            )
        : undefined,
      afterRequest: captureFile ? (requests) => capture(captureFile, requests) : undefined,
    },
    (rec, ask) => {
      if (rec.url.startsWith("/v1/messages/count_tokens")) {
        rec.kind = "count_tokens";
        return { status: 200, json: { input_tokens: Math.ceil(rec.bytes / 4) } };
      }
      if (!rec.url.startsWith("/v1/messages")) return null;
      const conv = toConversation(rec.body);
      let decision: Decision;
      if (!conv.tools.length) {
        // A side request (a title, a summary): a short plain answer.
        rec.conv = conv;
        rec.kind = "side";
        rec.decision = decision = { kind: "reply", text: "Autopilot session" };
        o.log?.(`#${rec.n} side: ${describeDecision(decision)}`);
      } else decision = ask(conv);
      return message(rec.body, blocksOf(decision), rec.bytes);
    },
    (msg, status) => ({
      type: "error",
      error: { type: status === 404 ? "not_found_error" : "invalid_request_error", message: `loopback model: ${msg}` },
    }),
  );
}
