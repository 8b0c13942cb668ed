// Plays the host model against a built MCP server over stdio (the SDK Client + StdioClientTransport,
// as tests/helpers/mcp-client.ts does) and counts what the host would read and write.
import { readFileSync, readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tokensOf } from "./claude-view.js";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Step } from "../src/protocol/step.js";
import type { PersonaTask } from "../src/runners/types.js";
import { ScriptedRunner } from "../src/runners/scripted.js";
import { taskOfStep } from "../src/runners/step-task.js";
import { bytes } from "./stats.js";
import { upstreamStateText } from "./upstream-state.js";
import { git, gitEnv } from "./repo.js";

export interface Spawned {
  client: Client;
  /** The server process (for its CPU time in /proc). */
  pid: number | null;
  /** ms from spawn to the first tools/list answer (initialize included, as a host sees it). */
  coldMs: number;
  toolsJson: string;
  tools: Array<{ name: string; description?: string; inputSchema: unknown; _meta?: Record<string, unknown> }>;
  instructions: string;
  /** The server declares resources (Claude Code then adds its resource tools). */
  resources: boolean;
  close(): Promise<void>;
}

export async function spawnServer(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  clientName = "autopilot-bench-host",
): Promise<Spawned> {
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd,
    env: { ...gitEnv(), ...env },
    stderr: "pipe",
  });
  transport.stderr?.on("data", () => {});
  const client = new Client({ name: clientName, version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  const tools = await client.listTools();
  const coldMs = performance.now() - t0;
  return {
    client,
    pid: transport.pid,
    coldMs,
    toolsJson: JSON.stringify(tools),
    tools: tools.tools,
    resources: !!client.getServerCapabilities()?.resources,
    instructions: client.getInstructions() ?? "",
    close: async () => {
      await client.close().catch(() => {});
    },
  };
}

/** What the host model sees of one tool result. */
export function resultBytes(r: CallToolResult): { text: number; structured: number } {
  const text = r.content.reduce((n, c) => n + (c.type === "text" ? bytes(c.text) : 0), 0);
  const structured = r.structuredContent ? bytes(JSON.stringify(r.structuredContent)) : 0;
  return { text, structured };
}

export interface ReportSample {
  ms: number;
  kind: string; // the result kind reported: planned, executed, ...
  committed: boolean; // HEAD moved during the call (a checkpoint commit)
  /** HEAD after the call, when it moved. */
  commit?: string;
  stateBytes: number; // the state file after the call
  /** The call's start and end on the monotonic clock (µs; the server's CPU profile uses the same clock). */
  startUs: number;
  endUs: number;
  /** CPU time during the call (ms): the server's threads, and the processes it started (git, the validation). */
  cpu?: { server: number; children: number };
}

/**
 * CPU time a process has used so far (ms): its threads' on-CPU time from /proc/<pid>/task/x/schedstat
 * (nanoseconds, unlike the 10 ms ticks of /proc/<pid>/stat), and its waited-for children's user +
 * system time (ticks, summed: exact over many calls). Linux only; null elsewhere.
 */
export function processCpu(pid: number | null | undefined): { server: number; children: number } | null {
  if (!pid) return null;
  try {
    let ns = 0;
    for (const t of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
    // Fields after the command name (which may hold spaces): cutime and cstime are the 14th and 15th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(f[13]) + Number(f[14]);
    return { server: ns / 1e6, children: (ticks * 1000) / 100 };
  } catch {
    return null;
  }
}

export interface SessionStats {
  slug: string;
  /** The server's pid, when each call's CPU time is wanted (processCpu). */
  pid?: number | null;
  steps: Step[];
  calls: number;
  readText: number;
  readStructured: number;
  write: number;
  /** Host → subagent: the dispatch prompts the host copies into its Agent tool (not an MCP argument). */
  dispatchPromptBytes: number;
  /** Each result's structuredContent and each call's arguments, in order (for the Claude Code view). */
  structured: unknown[];
  args: unknown[];
  /** The tool each call named, in order. */
  names: string[];
  /** Σ over transitions of the state file's size right after it: what a skill-driven host re-reads. */
  stateReadsBytes: number;
  stateSizes: number[];
  /** When set, Σ of the state file's tokens after each transition (slow on big files). */
  stateReadsTokens?: number;
  /** The same for the file the upstream skill would keep at that moment (bench/upstream-state.ts). */
  upstreamReadsBytes: number;
  upstreamSizes: number[];
  upstreamReadsTokens?: number;
  reports: ReportSample[];
  decides: number[];
  last: Step;
}

export function newStats(): SessionStats {
  return {
    slug: "",
    steps: [],
    calls: 0,
    readText: 0,
    readStructured: 0,
    write: 0,
    dispatchPromptBytes: 0,
    structured: [],
    args: [],
    names: [],
    stateReadsBytes: 0,
    stateSizes: [],
    upstreamReadsBytes: 0,
    upstreamSizes: [],
    reports: [],
    decides: [],
    last: undefined as unknown as Step,
  };
}

export function stateFile(root: string, slug: string): string {
  return path.join(root, ".harness/sessions", slug, "autopilot-state.json");
}

async function timedCall(client: Client, st: SessionStats, name: string, args: Record<string, unknown>) {
  st.write += bytes(JSON.stringify(args));
  st.args.push(args);
  st.names.push(name);
  const c0 = processCpu(st.pid);
  const t0 = performance.now();
  const startUs = Number(process.hrtime.bigint() / 1000n);
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
  const endUs = Number(process.hrtime.bigint() / 1000n);
  const dt = performance.now() - t0;
  const c1 = processCpu(st.pid);
  const cpu = c0 && c1 ? { server: c1.server - c0.server, children: c1.children - c0.children } : undefined;
  st.calls += 1;
  const b = resultBytes(r);
  st.readText += b.text;
  st.readStructured += b.structured;
  st.structured.push(r.structuredContent);
  if (r.isError)
    throw new Error(`${name} failed: ${r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n")}`);
  // Claude Code's Step after a report or a decision leaves out the session the call named (or the
  // connection's, when the call left it out): the host knows it (st.structured keeps what the
  // model was shown).
  const sc = r.structuredContent as Record<string, unknown>;
  const session = typeof args.session === "string" ? args.session : st.slug;
  const step = (typeof sc.session === "string" || !session ? sc : { session, ...sc }) as unknown as Step;
  return { step, ms: dt, startUs, endUs, cpu };
}

async function afterTransition(root: string, st: SessionStats, step: Step): Promise<number> {
  st.steps.push(step);
  st.slug = step.session;
  const text = await readFile(stateFile(root, step.session), "utf8");
  const size = Buffer.byteLength(text);
  st.stateSizes.push(size);
  st.stateReadsBytes += size;
  if (st.stateReadsTokens !== undefined) st.stateReadsTokens += tokensOf(text);
  const upstream = upstreamStateText(text);
  st.upstreamSizes.push(Buffer.byteLength(upstream));
  st.upstreamReadsBytes += Buffer.byteLength(upstream);
  if (st.upstreamReadsTokens !== undefined) st.upstreamReadsTokens += tokensOf(upstream);
  return size;
}

function taskFor(root: string, step: Step): PersonaTask {
  return taskOfStep(root, step);
}

const agreeable = (options: string[]) => {
  for (const pick of ["yes", "confirm", "done", "fix", "retry", "continue", "move on"])
    if (options.includes(pick)) return pick;
  return options[0];
};

export async function startSession(
  client: Client,
  root: string,
  specPath: string,
  st: SessionStats,
  flags?: string,
): Promise<Step> {
  const { step } = await timedCall(client, st, "autopilot_start", { spec: specPath, ...(flags ? { flags } : {}) });
  await afterTransition(root, st, step);
  st.last = step;
  return step;
}

/**
 * The host loop: dispatch → run the scripted persona in-process, then autopilot_report (timed);
 * ask → autopilot_decide with an agreeable answer. Stops at done/wait, or when `until` says so.
 */
export async function play(
  client: Client,
  root: string,
  first: Step,
  st: SessionStats,
  runner = new ScriptedRunner(),
  until?: (s: Step) => boolean,
  /**
   * As Claude Code's todo says: report only the step (the persona wrote its result file), and
   * leave the session to the connection in autopilot_report and autopilot_decide.
   */
  lean = false,
): Promise<Step> {
  let step = first;
  for (let i = 0; i < 10_000; i++) {
    if (step.next.kind === "done" || step.next.kind === "wait" || until?.(step)) break;
    if (step.next.kind === "dispatch") {
      const task = taskFor(root, step);
      st.dispatchPromptBytes += bytes(task.prompt) + bytes(task.description);
      const { result } = await runner.run(task);
      const before = (await git(root, "rev-parse", "HEAD")).trim();
      const out = await timedCall(client, st, "autopilot_report", {
        ...(lean ? {} : { session: step.session }),
        stepId: step.stepId,
        ...(lean ? {} : { result }),
      });
      const after = (await git(root, "rev-parse", "HEAD")).trim();
      const size = await afterTransition(root, st, out.step);
      st.reports.push({
        ms: out.ms,
        kind: result.kind,
        committed: before !== after,
        ...(before !== after ? { commit: after } : {}),
        stateBytes: size,
        startUs: out.startUs,
        endUs: out.endUs,
        cpu: out.cpu,
      });
      step = out.step;
    } else {
      const answer = agreeable(step.next.options);
      const out = await timedCall(client, st, "autopilot_decide", {
        ...(lean ? {} : { session: step.session }),
        stepId: step.stepId,
        answer,
      });
      await afterTransition(root, st, out.step);
      st.decides.push(out.ms);
      step = out.step;
    }
  }
  st.last = step;
  return step;
}
