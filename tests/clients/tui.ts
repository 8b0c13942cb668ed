// A terminal the test controls: tmux, on a socket of the test's own, one window of a fixed size
// running one program (the real Claude Code TUI). The test reads the screen as text
// (`capture-pane`), types and presses keys (`send-keys`), and waits for what it expects to
// appear, never for a fixed time. Every screen it acted on is kept, and written out as files
// when the test fails.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const execFileP = promisify(execFile);

/** Why the terminal tests cannot run here (no tmux), or null. */
export async function tmuxMissing(): Promise<string | null> {
  try {
    await execFileP("tmux", ["-V"], { timeout: 10_000 });
    return null;
  } catch (e) {
    return `tmux is not installed (${(e as Error).message.split("\n")[0]}); .ci/run installs it from Debian (apt-get install tmux)`;
  }
}

export interface Snapshot {
  label: string;
  at: number;
  screen: string;
}

export class WaitTimeout extends Error {}

export class Terminal {
  readonly dir = mkdtempSync(path.join(tmpdir(), "autopilot-tui-"));
  private readonly socket = path.join(this.dir, "tmux.sock");
  /** Every screen the test looked at and acted on, oldest first. */
  readonly steps: Snapshot[] = [];
  private readonly started = Date.now();

  constructor(
    readonly cols = 120,
    readonly rows = 45,
  ) {
    writeFileSync(
      path.join(this.dir, "tmux.conf"),
      [
        'set -g default-terminal "xterm-256color"',
        "set -g history-limit 20000",
        // Keep the last screen of a program that exited or was killed, to read and to keep.
        "set -g remain-on-exit on",
        "set -g focus-events on",
        "set -g status off",
        "",
      ].join("\n"),
    );
  }

  private tmux(args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
    return execFileP("tmux", ["-S", this.socket, "-f", path.join(this.dir, "tmux.conf"), ...args], {
      timeout: 30_000,
      maxBuffer: 16 * 1024 * 1024,
      ...(env ? { env } : {}),
    }).then((r) => r.stdout);
  }

  /** Start `bin args` in a new window; `env` is all it gets (the tmux server starts with it). */
  async start(bin: string, args: string[], o: { cwd: string; env: NodeJS.ProcessEnv }): Promise<void> {
    await this.tmux(["kill-server"]).catch(() => {});
    await this.tmux(
      [
        "new-session",
        "-d",
        "-s",
        "tui",
        "-x",
        String(this.cols),
        "-y",
        String(this.rows),
        "-c",
        o.cwd,
        "--",
        bin,
        ...args,
      ],
      o.env,
    );
    await this.record(`start ${path.basename(bin)} ${args.join(" ")}`);
  }

  /** The visible screen as text, wrapped lines joined. */
  async screen(): Promise<string> {
    return this.tmux(["capture-pane", "-p", "-J", "-t", "tui"]);
  }

  /** The whole scrollback and screen. */
  async history(): Promise<string> {
    return this.tmux(["capture-pane", "-p", "-J", "-S", "-", "-t", "tui"]);
  }

  /** The pid of the program in the window. */
  async pid(): Promise<number> {
    return Number((await this.tmux(["display-message", "-p", "-t", "tui", "#{pane_pid}"])).trim());
  }

  async dead(): Promise<boolean> {
    return (await this.tmux(["display-message", "-p", "-t", "tui", "#{pane_dead}"]).catch(() => "1")).trim() === "1";
  }

  /** Press keys (tmux names: Enter, Escape, Up, Down, Left, Right, BTab, Space, C-c ...). */
  async keys(...keys: string[]): Promise<void> {
    await this.tmux(["send-keys", "-t", "tui", ...keys]);
  }

  /** Type text literally. */
  async type(text: string): Promise<void> {
    await this.tmux(["send-keys", "-t", "tui", "-l", text]);
  }

  /** Keep the current screen under a label (what the test saw when it acted). */
  async record(label: string): Promise<string> {
    const screen = await this.screen().catch((e) => `(no screen: ${(e as Error).message})`);
    this.steps.push({ label, at: Date.now() - this.started, screen });
    return screen;
  }

  /**
   * Poll the screen until `test` returns a value other than undefined/false, and return it.
   * Throws WaitTimeout (with the screen) after `timeoutMs`.
   */
  async waitFor<T>(
    what: string,
    test: (screen: string) => T | undefined | false | Promise<T | undefined | false>,
    timeoutMs = 120_000,
  ): Promise<T> {
    const end = Date.now() + timeoutMs;
    let screen: string;
    for (;;) {
      screen = await this.screen();
      const got = await test(screen);
      if (got !== undefined && got !== false) return got;
      if (Date.now() > end) {
        this.steps.push({ label: `TIMED OUT waiting for ${what}`, at: Date.now() - this.started, screen });
        throw new WaitTimeout(`timed out after ${timeoutMs / 1000} s waiting for ${what}; the screen:\n${screen}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Wait until the screen is no longer `before` (a key took effect). */
  async changed(before: string, timeoutMs = 15_000): Promise<string> {
    return this.waitFor("the screen to change", (s) => (s !== before ? s : undefined), timeoutMs);
  }

  /** Write every kept screen (and the whole scrollback) into `dir`, one file each. */
  async saveArtifacts(dir: string, extra: Record<string, string> = {}): Promise<void> {
    mkdirSync(dir, { recursive: true });
    this.steps.forEach((s, i) =>
      writeFileSync(
        path.join(dir, `${String(i + 1).padStart(3, "0")}-${s.label.replace(/[^\w.-]+/g, "_").slice(0, 60)}.txt`),
        `${s.label} (+${(s.at / 1000).toFixed(1)} s)\n\n${s.screen}`,
      ),
    );
    writeFileSync(
      path.join(dir, "scrollback.txt"),
      await this.history().catch((e) => `(none: ${(e as Error).message})`),
    );
    for (const [name, text] of Object.entries(extra)) writeFileSync(path.join(dir, name), text);
  }

  async close(): Promise<void> {
    await this.tmux(["kill-server"]).catch(() => {});
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}
