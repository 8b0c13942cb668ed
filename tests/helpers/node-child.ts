// A separate node process running an ES module script (the built code, as a user runs it), with
// a way to wait for what it prints. Used by the tests that need real processes to hold, lose and
// race for locks.
import { spawn, type ChildProcess } from "node:child_process";

export interface NodeChild {
  proc: ChildProcess;
  /** Resolves with the first match of `pattern` in stdout; rejects after `ms` or once the process exits without it. */
  waitFor: (pattern: RegExp, ms?: number) => Promise<string>;
  exited: Promise<void>;
}

/** Spawns `node -e script args...`; the process is added to `spawned` so the test can kill what is left. */
export function nodeChild(script: string, args: string[], spawned: ChildProcess[]): NodeChild {
  const proc = spawn(process.execPath, ["--input-type=module", "-e", script, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  spawned.push(proc);
  let out = "";
  let err = "";
  proc.stdout.on("data", (d) => (out += d));
  proc.stderr.on("data", (d) => (err += d));
  const waitFor = (pattern: RegExp, ms = 15_000) =>
    new Promise<string>((resolve, reject) => {
      const started = Date.now();
      const tick = () => {
        const m = out.match(pattern);
        if (m) return resolve(m[0]);
        if (Date.now() - started > ms || (proc.exitCode !== null && !pattern.test(out))) {
          return reject(new Error(`child did not print ${pattern} (stdout: ${out}, stderr: ${err})`));
        }
        setTimeout(tick, 20);
      };
      tick();
    });
  const exited = new Promise<void>((r) => proc.on("exit", () => r()));
  return { proc, waitFor, exited };
}
