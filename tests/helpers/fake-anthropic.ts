// A local stand-in for the Messages API, good enough for the real @anthropic-ai/sdk client: POST
// /v1/messages (non-streaming) answered from a script. Each script entry is a function of the
// request, so a test can both check what the model was sent and decide what it "says" next.
import http from "node:http";
import { listenOnLoopback } from "./listen.js";

export interface FakeRequest {
  body: {
    model: string;
    max_tokens: number;
    system?: unknown;
    tools?: Array<{ name: string; input_schema: unknown; cache_control?: unknown }>;
    messages: Array<{ role: "user" | "assistant"; content: string | Array<Record<string, any>> }>;
    [k: string]: unknown;
  };
  headers: http.IncomingHttpHeaders;
}

export type FakeBlock =
  { type: "text"; text: string } | { type: "tool_use"; id?: string; name: string; input: unknown };

export interface FakeReply {
  content: FakeBlock[];
  stop_reason?: "end_turn" | "tool_use" | "max_tokens";
  usage?: Partial<{
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
  }>;
}

/** An HTTP error response instead of a message (e.g. 401, 429, 500). */
export interface FakeError {
  status: number;
  type: string;
  message: string;
}

export type ScriptEntry = (req: FakeRequest) => FakeReply | FakeError | Promise<FakeReply | FakeError>;

export interface FakeAnthropic {
  url: string;
  requests: FakeRequest[];
  /** Errors thrown by script entries (failed assertions): a test should expect none. */
  errors: Error[];
  close(): Promise<void>;
}

let ids = 0;

/** Replies to the n-th request with script[n]; past the end, a 400 that fails the run visibly. */
export async function startFakeAnthropic(script: ScriptEntry[]): Promise<FakeAnthropic> {
  const requests: FakeRequest[] = [];
  const errors: Error[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => void answer());
    const answer = async () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json", "request-id": `req_fake_${++ids}` });
        res.end(JSON.stringify(body));
      };
      if (req.method !== "POST" || !req.url?.startsWith("/v1/messages")) {
        return send(404, {
          type: "error",
          error: { type: "not_found_error", message: `no route ${req.method} ${req.url}` },
        });
      }
      let body: FakeRequest["body"];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return send(400, { type: "error", error: { type: "invalid_request_error", message: "body is not JSON" } });
      }
      // The SDK deep-copies nothing; keep our own copy so later mutation cannot rewrite history.
      const request: FakeRequest = { body: structuredClone(body), headers: req.headers };
      const n = requests.length;
      requests.push(request);
      const entry = script[n];
      if (!entry) {
        errors.push(new Error(`fake-anthropic: unexpected request ${n + 1}`));
        return send(400, {
          type: "error",
          error: { type: "invalid_request_error", message: `fake-anthropic: script has no reply for request ${n + 1}` },
        });
      }
      let reply: FakeReply | FakeError;
      try {
        reply = await entry(request);
      } catch (e) {
        errors.push(e as Error);
        // An assertion failing inside a script entry: surface it as a 400 the test will see.
        return send(400, {
          type: "error",
          error: { type: "invalid_request_error", message: `script entry ${n + 1} threw: ${(e as Error).message}` },
        });
      }
      if ("status" in reply) {
        return send(reply.status, { type: "error", error: { type: reply.type, message: reply.message } });
      }
      const content = reply.content.map((b) =>
        b.type === "tool_use"
          ? { type: "tool_use", id: b.id ?? `toolu_fake_${++ids}`, name: b.name, input: b.input }
          : { ...b, citations: null },
      );
      send(200, {
        id: `msg_fake_${++ids}`,
        type: "message",
        role: "assistant",
        model: body.model,
        content,
        stop_reason: reply.stop_reason ?? (content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"),
        stop_sequence: null,
        usage: {
          input_tokens: 100,
          output_tokens: 20,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          ...reply.usage,
        },
      });
    };
  });
  return { ...(await listenOnLoopback(server)), requests, errors };
}

/** The tool_result blocks of the last user message of a request, by tool_use id order. */
export function toolResults(req: FakeRequest): Array<{ tool_use_id: string; content: string; is_error?: boolean }> {
  const last = req.body.messages[req.body.messages.length - 1];
  if (!last || typeof last.content === "string") return [];
  return last.content
    .filter((b) => b.type === "tool_result")
    .map((b) => ({
      tool_use_id: b.tool_use_id,
      content:
        typeof b.content === "string"
          ? b.content
          : (b.content ?? []).map((c: { text?: string }) => c.text ?? "").join(""),
      is_error: b.is_error,
    }));
}

/** Shorthands for script entries. */
export const reply = {
  tool: (name: string, input: unknown, usage?: FakeReply["usage"]): FakeReply => ({
    content: [{ type: "tool_use", name, input }],
    usage,
  }),
  tools: (...calls: Array<[string, unknown]>): FakeReply => ({
    content: calls.map(([name, input]) => ({ type: "tool_use" as const, name, input })),
  }),
  text: (text: string): FakeReply => ({ content: [{ type: "text", text }], stop_reason: "end_turn" }),
};
