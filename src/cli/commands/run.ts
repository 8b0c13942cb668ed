// `autopilot run SPEC [--fast|--thorough] [--review-plans] [--worktree] [--runner scripted|anthropic|command]
//  [--budget TOKENS|$USD] [--yes] [--pr] [--project DIR] [--json]`: the machine headless, personas run by a runner, gates on the
// terminal (or by policy with --yes). The same command resumes the session where it stopped.
import path from "node:path";
import { UsageError, parseCliArgs } from "../usage.js";
import { readHeadlessConfig } from "../../headless/config.js";
import { chooseRunnerName, createRunner } from "../../headless/runners.js";
import { runHeadless } from "../../headless/run.js";
import { parseBudget } from "../../session/usage.js";
import { EventWriter, EXIT_CODES } from "../../headless/events.js";
import { AutopilotError } from "../../protocol/errors.js";
import { shellWord } from "../../protocol/words.js";

export const USAGE =
  "usage: autopilot run SPEC [--fast|--thorough] [--review-plans] [--human-gates] [--worktree] [--parallel [--jobs N]] [--runner scripted|anthropic|command] [--budget TOKENS|$USD] [--yes] [--pr] [--project DIR] [--json]";

function parse(argv: string[]) {
  return parseCliArgs(
    {
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        fast: { type: "boolean" },
        thorough: { type: "boolean" },
        "review-plans": { type: "boolean" },
        "human-gates": { type: "boolean" },
        worktree: { type: "boolean" },
        parallel: { type: "boolean" },
        jobs: { type: "string" },
        runner: { type: "string" },
        budget: { type: "string" },
        yes: { type: "boolean", short: "y" },
        pr: { type: "boolean" },
        project: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    },
    USAGE,
  );
}

/** A word as the user would type it back into a POSIX shell. */
export async function run(argv: string[]): Promise<number> {
  const { values: v, positionals } = parse(argv);
  if (v.help) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  // --json: one event per line on stdout (docs/headless.md); a run that fails says so there too.
  const events = v.json ? new EventWriter((l) => process.stdout.write(l)) : undefined;
  try {
    return await runCommand(v, positionals, events, argv);
  } catch (e) {
    if (events) {
      const usage = e instanceof UsageError;
      const error =
        e instanceof AutopilotError
          ? { code: e.code, message: e.message }
          : { code: usage ? "usage" : "internal", message: (e as Error)?.message ?? String(e) };
      events.emit({
        event: "outcome",
        outcome: usage ? "usage" : "failed",
        exitCode: usage ? EXIT_CODES.usage : EXIT_CODES.failed,
        reason: error.message.split("\n")[0],
        state: null,
        stepId: null,
        cost: null,
        resume: null,
        step: null,
        error,
      });
    }
    throw e;
  }
}

async function runCommand(
  v: ReturnType<typeof parse>["values"],
  positionals: string[],
  events: EventWriter | undefined,
  argv: string[],
): Promise<number> {
  if (positionals.length !== 1)
    throw new UsageError(`${positionals.length ? "one spec at a time" : "which spec?"}\n${USAGE}`);
  if (v.fast && v.thorough) throw new UsageError("Cannot use --fast and --thorough together. Choose one.");
  const cwd = process.cwd();
  const root = path.resolve(cwd, v.project ?? ".");
  // The spec is given as the user sees it: relative to where they are.
  const spec = path.relative(root, path.resolve(cwd, positionals[0])) || positionals[0];

  let jobs: number | undefined;
  if (v.jobs !== undefined) {
    if (!/^\d+$/.test(v.jobs) || Number(v.jobs) < 1 || Number(v.jobs) > 32)
      throw new UsageError(
        `--jobs takes a whole number from 1 to 32 (how many of a wave's executors run at once), not "${v.jobs}".\n${USAGE}`,
      );
    jobs = Number(v.jobs);
  }
  const config = await readHeadlessConfig(root);
  const runnerName = chooseRunnerName(v.runner, config);
  const runner = await createRunner(runnerName, config);

  const flags = [
    v.fast && "--fast",
    v.thorough && "--thorough",
    v["review-plans"] && "--review-plans",
    v["human-gates"] && "--human-gates",
    v.worktree && "--worktree",
    v.parallel && "--parallel",
  ].filter(Boolean) as string[];
  if (v.budget !== undefined) {
    try {
      parseBudget(v.budget);
    } catch (e) {
      throw new UsageError(`${(e as Error).message}\n${USAGE}`);
    }
    flags.push("--budget", v.budget);
  }
  // The command the user typed, every flag kept (--yes, --runner, --json …): what they run to
  // continue after an interrupt, a question or a wait.
  const resumeCommand = ["autopilot", "run", ...argv].map(shellWord).join(" ");

  const out = v.json ? process.stderr : process.stdout;
  const ctrl = new AbortController();
  let interrupts = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    out.write(`\n${sig}: stopping after the current step (again to quit at once)…\n`);
    ctrl.abort(new Error(`interrupted by ${sig}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const r = await runHeadless({
      root,
      spec,
      flags,
      runner,
      yes: !!v.yes,
      out,
      events,
      input: process.stdin,
      interactive: !!process.stdin.isTTY,
      resumeCommand,
      signal: ctrl.signal,
      pr: !!v.pr,
      ...(jobs ? { jobs } : {}),
    });
    if (r.error) process.stderr.write(`autopilot run: ${r.error.message} [${r.error.code}]\n`);
    return r.code;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
