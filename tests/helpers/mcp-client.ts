// Plays the host against the BUILT server over stdio: spawns `node dist/src/cli/main.js serve` in a
// project, calls tools with the SDK's Client, and runs the scripted personas in-process on the same
// repository for each dispatch Step (they write what a real persona would).
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type CallToolResult, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { Step } from "../../src/protocol/step.js";
import type { ErrorPayload } from "../../src/mcp/render.js";
import type { PersonaRunner, PersonaTask } from "../../src/runners/types.js";
import { git, makeRepo, type TempRepo } from "./git.js";
import { taskOfStep } from "../../src/runners/step-task.js";

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(here, "../..");
export const MAIN_JS = path.join(REPO_ROOT, "dist/src/cli/main.js");

export function assertBuilt(): void {
  if (!existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: build first (npx tsc -p .), or run npm test.`);
}

export interface ServerHandle {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  stderr: () => string;
  close(): Promise<void>;
  /** SIGKILL the server process and wait until it is gone. */
  kill(): Promise<void>;
}

export interface StartServerOptions {
  cwd: string;
  args?: string[];
  env?: Record<string, string>;
  /** Declare form elicitation and answer with this function. */
  onElicit?: (params: { message: string; requestedSchema: unknown }) => Promise<ElicitResult> | ElicitResult;
  name?: string;
}

export async function startServer(opts: StartServerOptions): Promise<ServerHandle> {
  // Other work in this tree may be rebuilding dist/ at this moment (tsc rewrites files in place);
  // a server that dies while connecting read a half-written file, and a second try reads it whole.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(opts);
    } catch (e) {
      if (attempt >= 3 || !/Connection closed/i.test(String((e as Error)?.message))) throw e;
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

async function startServerOnce(opts: StartServerOptions): Promise<ServerHandle> {
  assertBuilt();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN_JS, "serve", ...(opts.args ?? [])],
    cwd: opts.cwd,
    env: { ...(process.env as Record<string, string>), GIT_CONFIG_NOSYSTEM: "1", ...(opts.env ?? {}) },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const client = new Client(
    { name: opts.name ?? "autopilot-test-host", version: "1.0.0" },
    { capabilities: opts.onElicit ? { elicitation: { form: {} } } : {} },
  );
  if (opts.onElicit) {
    const handler = opts.onElicit;
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      const p = req.params as { message: string; requestedSchema: unknown };
      return handler({ message: p.message, requestedSchema: p.requestedSchema });
    });
  }
  await client.connect(transport);
  const pid = transport.pid!;
  return {
    client,
    transport,
    pid,
    stderr: () => err,
    close: async () => {
      await client.close().catch(() => {});
    },
    kill: async () => {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0);
          await new Promise((r) => setTimeout(r, 20));
        } catch {
          break;
        }
      }
      await client.close().catch(() => {});
    },
  };
}

export interface CallOutcome {
  result: CallToolResult;
  text: string;
  step?: Step;
  /** The test clients are not Claude Code: an error's Step is the whole one, as `step` is. */
  error?: Omit<ErrorPayload, "step"> & { step?: Step };
}

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  opts: { timeout?: number; onprogress?: (p: { progress: number; message?: string }) => void } = {},
): Promise<CallOutcome> {
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: opts.timeout ?? 60_000,
    ...(opts.onprogress ? { onprogress: opts.onprogress, resetTimeoutOnProgress: true } : {}),
  })) as CallToolResult;
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  const sc = result.structuredContent;
  if (result.isError) return { result, text, error: sc?.error as CallOutcome["error"] };
  // Claude Code's Step after a report or a decision leaves out the session the call named; the
  // caller knows it, as the model does (result.structuredContent stays as sent).
  const step =
    sc && typeof sc.session !== "string" && typeof args.session === "string" ? { session: args.session, ...sc } : sc;
  return { result, text, step: step as unknown as Step };
}

/** A Step tool call that must succeed. */
export async function stepCall(client: Client, name: string, args: Record<string, unknown>): Promise<Step> {
  const out = await call(client, name, args);
  if (out.error || !out.step) throw new Error(`${name} failed: ${out.text}`);
  return out.step;
}

export function taskFor(root: string, step: Step): PersonaTask {
  return taskOfStep(root, step);
}

export type Answer = string | { answer: string; rationale?: string };
export type Answerer = (step: Step & { next: { kind: "ask" } }) => Answer;

export interface Trace {
  steps: Step[];
}

/**
 * The host loop over MCP: dispatch → run the persona in-process, autopilot_report; ask →
 * autopilot_decide with `answer(step)`. Returns at done or wait, or when `until(step)` is true.
 */
export async function playHost(
  client: Client,
  root: string,
  first: Step,
  runner: PersonaRunner,
  answer: Answerer,
  opts: { until?: (s: Step) => boolean; trace?: Trace; max?: number; usage?: (s: Step) => unknown } = {},
): Promise<Step> {
  let step = first;
  for (let i = 0; ; i++) {
    opts.trace?.steps.push(step);
    if (step.next.kind === "done" || step.next.kind === "wait") return step;
    if (opts.until?.(step)) return step;
    if (i > (opts.max ?? 300)) throw new Error("the session did not finish");
    if (step.next.kind === "dispatch") {
      const { result } = await runner.run(taskFor(root, step));
      const usage = opts.usage?.(step);
      step = await stepCall(client, "autopilot_report", {
        session: step.session,
        stepId: step.stepId,
        result,
        ...(usage !== undefined ? { usage } : {}),
      });
    } else {
      const a = answer(step as Step & { next: { kind: "ask" } });
      const { answer: ans, rationale } = typeof a === "string" ? { answer: a, rationale: undefined } : a;
      step = await stepCall(client, "autopilot_decide", {
        session: step.session,
        stepId: step.stepId,
        answer: ans,
        ...(rationale ? { rationale } : {}),
      });
    }
  }
}

/** Say yes to plans and phase transitions, confirm checkpoints, fix blocking findings, leave warnings. */
export const agreeable: Answerer = (step) => {
  const o = step.next.options;
  for (const pick of ["yes", "confirm", "done", "fix", "retry", "continue", "move on"])
    if (o.includes(pick)) return pick;
  return o[0];
};

export const SCANNER_SPEC = `# Security Scanner

A scanner for secrets and unsafe patterns.

## Implementation Order

### Phase 1: Core Scanner
<!-- complexity: low -->
Walk files and report matches.

### Phase 2: Rule Engine
<!-- complexity: high -->
Load and evaluate rules.

### Phase 3: CLI Integration
<!-- complexity: low -->
A command-line front end.
`;

export const SCANNER_PATH = "docs/changes/security-scanner/proposal.md";
export const SCANNER_SLUG = "changes--security-scanner--proposal";

export function specWith(phases: Array<{ name: string; complexity: "low" | "medium" | "high" }>): string {
  const body = phases
    .map((p, i) => `### Phase ${i + 1}: ${p.name}\n<!-- complexity: ${p.complexity} -->\nWork.\n`)
    .join("\n");
  return `# Feature\n\n## Implementation Order\n\n${body}`;
}

/** A temporary git repository holding a spec (committed) and a passing validation command. */
export async function makeProject(
  opts: { spec?: string; specPath?: string; files?: Record<string, string>; validation?: string[] } = {},
): Promise<TempRepo> {
  const repo = await makeRepo({
    files: {
      "README.md": "# project\n",
      ".harness/config.json":
        JSON.stringify({ validation: { commands: opts.validation ?? ['node -e "process.exit(0)"'] } }) + "\n",
      [opts.specPath ?? SCANNER_PATH]: opts.spec ?? SCANNER_SPEC,
      ...(opts.files ?? {}),
    },
  });
  return repo;
}

/** A plan in the format the planner persona writes: `### Task N:` headings. */
export function planText(name: string, tasks: number, checkpoints: Record<number, string> = {}): string {
  const lines = [`# Plan: ${name}`, "", `**Tasks:** ${tasks}`, "", "## Tasks", ""];
  for (let t = 1; t <= tasks; t++) {
    const cp = checkpoints[t];
    // The shape the server's plan check wants: files, a step and a verification line per task.
    lines.push(
      `### Task ${t}: ${name} step ${t}${cp ? ` [checkpoint:${cp}]` : ""}`,
      "",
      `**Files:** src/task-${t}.ts`,
      "",
      `1. Write src/task-${t}.ts.`,
      "",
      `**Verify:** \`node src/task-${t}.ts\` → exits 0`,
      "",
    );
  }
  return lines.join("\n");
}

export async function writeProjectFile(root: string, rel: string, content: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await writeFile(path.join(root, rel), content);
}

export async function logSubjects(root: string): Promise<string[]> {
  return (await git(root, "log", "--format=%s")).trim().split("\n");
}

export interface Session {
  repo: TempRepo;
  srv: ServerHandle;
  root: string;
  start(flags?: string, spec?: string): Promise<Step>;
  /** Read the saved state file as the engine wrote it. */
  state(slug?: string): Promise<Record<string, any>>;
  dispose(): Promise<void>;
}

export async function openSession(
  opts: Parameters<typeof makeProject>[0] & { server?: Omit<StartServerOptions, "cwd"> } = {},
): Promise<Session> {
  const repo = await makeProject(opts);
  const srv = await startServer({ cwd: repo.dir, ...(opts.server ?? {}) });
  const { readFile } = await import("node:fs/promises");
  const session: Session = {
    repo,
    srv,
    root: repo.dir,
    start: (flags, spec) =>
      stepCall(srv.client, "autopilot_start", {
        spec: spec ?? opts.specPath ?? SCANNER_PATH,
        ...(flags ? { flags } : {}),
      }),
    state: async (slug = SCANNER_SLUG) =>
      JSON.parse(await readFile(path.join(repo.dir, ".harness/sessions", slug, "autopilot-state.json"), "utf8")),
    dispose: async () => {
      await session.srv.close();
      await repo.cleanup();
    },
  };
  return session;
}

/** Everything that must match between two runs of the same script, without clocks or hashes. */
export function comparable(state: Record<string, any>) {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (/^(timestamp|startedAt|completedAt|updatedAt|sha)$/.test(k)) continue;
        out[k] = strip(x);
      }
      return out;
    }
    // Commit hashes and dates inside report text differ between runs by design.
    return typeof v === "string"
      ? v.replace(/\b[0-9a-f]{7,40}\b/g, "<sha>").replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, "<time>")
      : v;
  };
  return strip({
    decisions: state.decisions,
    history: state.history,
    finalReview: state.finalReview,
    phases: state.phases,
    currentState: state.currentState,
  });
}
