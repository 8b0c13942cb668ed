// Gates on the terminal: each question with numbered options, an answer read as one line of input
// (the option's number or its text, optionally followed by the reason: `2 because the tests cover
// it`), asked again until it names an option. Without a terminal, answers may still come down a
// pipe; when the input ends first the run stops at the question, saved and resumable.
import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { AskNext, Step } from "../protocol/step.js";
import { matchAnswer } from "../engine/step.js";
import { NoAnswer, type Gate, type GateAnswer } from "./gate.js";

export { NoAnswer };

const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, " ");
const cleanReason = (s: string) => s.replace(/^[\s,;:.)\]—–-]+/, "").trim();

/** Reads "2", "2 because ...", "yes", "skip phase: not needed", "fix man" onto an option. */
export function parseAnswer(line: string, options: readonly string[]): { answer: string; rationale?: string } | null {
  const text = line.trim();
  if (!text) return null;
  const withReason = (answer: string, rest: string) => {
    const r = cleanReason(rest);
    return r ? { answer, rationale: r } : { answer };
  };
  const num = /^(\d+)(?=$|[\s.,;:)\]—–-])(.*)$/s.exec(text);
  if (num) {
    const i = Number(num[1]);
    return i >= 1 && i <= options.length ? withReason(options[i - 1], num[2]) : null;
  }
  // Whole line names an option (exactly or by a unique prefix).
  const whole = matchAnswer(text, options);
  if (whole) return { answer: whole };
  // The longest option the line starts with, the rest is the reason.
  const lower = norm(text);
  for (const o of [...options].sort((a, b) => b.length - a.length)) {
    const no = norm(o);
    if (lower.startsWith(no) && (lower.length === no.length || /[^a-z0-9]/.test(lower[no.length]))) {
      return withReason(o, text.replace(/\s+/g, " ").slice(no.length));
    }
  }
  // The first word as a unique prefix ("y looks fine").
  const m = /^(\S+)(.*)$/s.exec(text);
  if (m) {
    const first = matchAnswer(m[1].replace(/[,;:.]+$/, ""), options);
    if (first) return withReason(first, m[2]);
  }
  return null;
}

/** Lines of an input stream, one at a time; null once the input has ended. */
export class LineReader {
  private rl: Interface | null = null;
  private lines: string[] = [];
  private waiting: ((l: string | null) => void) | null = null;
  private ended = false;
  constructor(
    private readonly input: Readable,
    signal?: AbortSignal,
  ) {
    // An interrupted run stops waiting for an answer as if the input had ended.
    signal?.addEventListener("abort", () => this.end(), { once: true });
  }

  private end(): void {
    this.ended = true;
    const w = this.waiting;
    this.waiting = null;
    w?.(null);
  }

  private open(): Interface {
    if (!this.rl) {
      this.rl = createInterface({ input: this.input, terminal: false, crlfDelay: Infinity });
      this.rl.on("line", (l) => {
        if (this.waiting) {
          const w = this.waiting;
          this.waiting = null;
          w(l);
        } else this.lines.push(l);
      });
      this.rl.on("close", () => this.end());
    }
    return this.rl;
  }

  next(): Promise<string | null> {
    this.open();
    if (this.lines.length) return Promise.resolve(this.lines.shift()!);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  close(): void {
    this.rl?.close();
    this.rl = null;
    // Let the process exit although stdin was read from.
    (this.input as Readable & { unref?: () => void }).unref?.();
    this.input.pause?.();
  }
}

export class TerminalGate implements Gate {
  constructor(
    private readonly reader: LineReader,
    private readonly out: Writable,
    private readonly interactive: boolean,
  ) {}

  async answer(step: Step, ask: AskNext): Promise<GateAnswer> {
    const w = (s: string) => this.out.write(s + "\n");
    w("");
    w(`  ? ${ask.question}`);
    if (ask.context) for (const l of ask.context.split("\n")) w(`    ${l}`);
    ask.options.forEach((o, i) => w(`    ${i + 1}) ${o}`));
    w(`  Answer with a number or an option, optionally followed by your reason (e.g. "1 looks good").`);
    for (;;) {
      if (this.interactive) this.out.write("  > ");
      const line = await this.reader.next();
      if (line === null) {
        if (this.interactive) w("");
        throw new NoAnswer(step);
      }
      const parsed = parseAnswer(line, ask.options);
      if (parsed) {
        if (!this.interactive) w(`  > ${line.trim()}`);
        // Only an interactive terminal is a person for sure; piped input may be a script.
        return { ...parsed, by: this.interactive ? "terminal" : "piped" };
      }
      w(
        `  "${line.trim()}" is not one of the options. Type 1-${ask.options.length} or one of: ${ask.options.join(" / ")}.`,
      );
    }
  }
}
