// A shell command for a persona's tools and the command runner: its own process group, so a time
// limit or an abort kills everything it started, and a bounded tail of its output.
import { spawn } from "node:child_process";

export interface ShellResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  output: string;
  droppedChars: number;
}

/**
 * Runs a shell command in its own process group so a time limit or an abort kills everything it
 * started, keeping only the last `maxChars` characters of its combined output.
 */
export function runShell(
  command: string,
  o: {
    cwd: string;
    env?: NodeJS.ProcessEnv;
    timeoutMs: number;
    maxChars: number;
    signal?: AbortSignal;
    stdin?: string;
  },
): Promise<ShellResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn("/bin/sh", ["-c", command], {
      cwd: o.cwd,
      env: o.env ?? process.env,
      detached: true,
      stdio: [o.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const tail = new TailBuffer(o.maxChars);
    // setEncoding keeps a multi-byte character split across chunks intact.
    child.stdout!.setEncoding("utf8").on("data", (d: string) => tail.push(d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => tail.push(d));
    if (o.stdin !== undefined) {
      child.stdin!.on("error", () => {});
      child.stdin!.end(o.stdin);
    }
    let timedOut = false;
    const kill = () => killGroup(child.pid);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, o.timeoutMs);
    const onAbort = () => kill();
    o.signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", (e) => {
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
      if (o.signal?.aborted) return reject(abortReason(o.signal));
      resolvePromise({ code, signal, timedOut, output: tail.text(), droppedChars: tail.dropped });
    });
  });
}

export function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, "SIGTERM");
  } catch {
    return;
  }
  // A process that ignores SIGTERM still goes; the timer must not keep the event loop alive.
  setTimeout(() => {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      /* already gone */
    }
  }, 2000).unref();
}

/** Keeps the last `max` characters pushed into it. */
export class TailBuffer {
  private chunks: string[] = [];
  private len = 0;
  dropped = 0;
  constructor(private readonly max: number) {}
  push(s: string) {
    this.chunks.push(s);
    this.len += s.length;
    if (this.len > this.max * 2) this.compact();
  }
  private compact() {
    const all = this.chunks.join("");
    const cut = Math.max(0, all.length - this.max);
    this.dropped += cut;
    this.chunks = [all.slice(cut)];
    this.len = this.chunks[0].length;
  }
  text(): string {
    this.compact();
    return this.chunks.join("");
  }
}

/** Why an aborted run stopped, as an Error (an AbortSignal's reason may be any value). */
export function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error
    ? r
    : new Error(r === undefined ? "aborted" : typeof r === "string" ? r : JSON.stringify(r));
}
