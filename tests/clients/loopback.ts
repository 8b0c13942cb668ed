// What the loopback model servers for Codex (Responses API) and Gemini CLI (Gemini API) share: an
// HTTP server on 127.0.0.1 with a request limit, and a record of every request with the
// conversation the brain saw and what it decided (the same record as ./anthropic-sse.ts keeps).
import http from "node:http";
import { listenOnLoopback } from "../helpers/listen.js";
import type { Conversation, Decision, Dialect } from "./brain/types.js";

/** One request as the server saw it, with the conversation the brain read and what it decided. */
export interface RecordedRequest {
  n: number;
  url: string;
  kind: "host" | "subagent" | "side" | "count_tokens" | "other";
  persona?: string | null;
  bytes: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  conv?: Conversation;
  decision?: Decision;
}

export interface LoopbackOptions {
  decide: (conv: Conversation) => Decision;
  dialect: Dialect;
  /** Refuse after this many requests (default 1000): a client that loops fails instead of spinning. */
  maxRequests?: number;
  log?: (line: string) => void;
  /** Called with each request as it arrives (before it is answered). */
  onRequest?: (rec: RecordedRequest) => void;
  /** Called after each request is answered, with all requests so far. */
  afterRequest?: (requests: RecordedRequest[]) => void;
}

export interface LoopbackModel {
  url: string;
  requests: RecordedRequest[];
  /** Failures inside the server (a brain that threw, a request it cannot read): a test expects none. */
  errors: Error[];
  close(): Promise<void>;
}

/** What a route does with one request. */
export interface Routed {
  status: number;
  headers?: Record<string, string>;
  /** SSE events already formatted, or one JSON body. */
  sse?: string[];
  json?: unknown;
}

export type Route = (rec: RecordedRequest, ask: (conv: Conversation) => Decision) => Routed | null;

export function describeDecision(d: Decision): string {
  return d.kind === "reply" ? `reply ${JSON.stringify(d.text.slice(0, 100))}` : d.calls.map((c) => c.name).join(", ");
}

/** `errorBody` gives the API's error JSON for a message and the HTTP status it goes with. */
export async function startLoopback(
  o: LoopbackOptions,
  route: Route,
  errorBody: (message: string, status: number) => unknown,
): Promise<LoopbackModel> {
  const requests: RecordedRequest[] = [];
  const errors: Error[] = [];
  const max = o.maxRequests ?? 1000;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const url = req.url ?? "";
      let body: any = null;
      try {
        body = raw.length ? JSON.parse(raw.toString("utf8")) : null;
      } catch {
        /* not JSON */
      }
      const rec: RecordedRequest = {
        n: requests.length + 1,
        url,
        kind: "other",
        bytes: raw.length,
        headers: req.headers,
        body,
      };
      requests.push(rec);
      o.onRequest?.(rec);
      const send = (r: Routed) => {
        if (r.sse) {
          res.writeHead(r.status, { "content-type": "text/event-stream", "cache-control": "no-cache", ...r.headers });
          for (const e of r.sse) res.write(e);
          res.end();
        } else {
          res.writeHead(r.status, { "content-type": "application/json", ...r.headers });
          res.end(JSON.stringify(r.json ?? {}));
        }
      };
      if (requests.length > max) {
        errors.push(new Error(`loopback model: more than ${max} requests`));
        return send({ status: 400, json: errorBody(`request limit ${max} reached`, 400) });
      }
      try {
        const ask = (conv: Conversation): Decision => {
          rec.conv = conv;
          const sub = o.dialect.subagent(conv);
          rec.kind = sub ? "subagent" : "host";
          rec.persona = sub?.persona ?? null;
          rec.decision = o.decide(conv);
          o.log?.(`#${rec.n} ${rec.kind}${rec.persona ? `(${rec.persona})` : ""}: ${describeDecision(rec.decision)}`);
          return rec.decision;
        };
        const routed = body ? route(rec, ask) : null;
        if (!routed) return send({ status: 404, json: errorBody(`no route ${req.method} ${url}`, 404) });
        send(routed);
      } catch (e) {
        errors.push(e as Error);
        o.log?.(`#${rec.n} error: ${(e as Error).stack}`);
        send({ status: 400, json: errorBody(`loopback model failed: ${(e as Error).message}`, 400) });
      } finally {
        o.afterRequest?.(requests);
      }
    });
  });
  return { ...(await listenOnLoopback(server)), requests, errors };
}

let ids = 0;
export function newId(prefix: string): string {
  return `${prefix}_brain_${++ids}`;
}
