// `autopilot approve SLUG [--project DIR]`: a person answers the question a session waits on, in
// their own terminal. It shows the question with its context (the Step's report: the signals that
// paused the plan, the findings, the plan file) and records the answer with channel `terminal`,
// the one way besides the client's form past a gate under --human-gates.
//
// It refuses to run without an interactive terminal: stdin and stdout must both be a TTY. A model's
// shell tool runs commands with pipes, not a terminal, so it cannot answer here; a model that has a
// real pseudo-terminal tool could (docs/rigor-and-signals.md says so).
import { Engine } from "../../engine/engine.js";
import { AutopilotError } from "../../protocol/errors.js";
import { LineReader, NoAnswer, TerminalGate } from "../../headless/terminal-gate.js";
import { projectRoot, UsageError } from "../usage.js";
import { lastRunCommand } from "../../session/run-command.js";

const USAGE = "usage: autopilot approve SLUG [--project DIR]";

export async function run(argv: string[]): Promise<number> {
  let project: string | undefined;
  let slug: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--help" || a === "-h") {
      process.stdout.write(`${USAGE}\n  Answer the question session SLUG waits on, as a person at this terminal.\n`);
      return 0;
    }
    if (a === "--project" || a.startsWith("--project=")) {
      project = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      if (!project) throw new UsageError(`--project takes a directory. ${USAGE}`);
    } else if (a.startsWith("-")) throw new UsageError(`unknown option "${a}". ${USAGE}`);
    else if (slug) throw new UsageError(`one session at a time. ${USAGE}`);
    else slug = a;
  }
  if (!slug) throw new UsageError(`which session? ${USAGE} (autopilot status lists them)`);
  if (!process.stdin.isTTY || !process.stdout.isTTY)
    throw new AutopilotError(
      "no_tty",
      "autopilot approve needs an interactive terminal (stdin and stdout must be a TTY): a person runs it in their own terminal. Nothing was changed.",
    );
  const root = projectRoot(project);
  const engine = new Engine(root);
  const step = await engine.next(slug);
  const out = process.stdout;
  const w = (s: string) => out.write(s + "\n");
  if (step.next.kind !== "ask") {
    w(
      `Session ${slug} is not waiting for an answer: it is at ${step.state} (${step.next.kind === "wait" ? step.next.reason : step.next.kind === "done" ? "done" : `the host should dispatch ${step.next.persona}`}).`,
    );
    return 1;
  }
  const where = step.phase ? `phase ${step.phase.number}/${step.phase.total}: ${step.phase.name}` : step.state;
  w(`autopilot approve · session ${slug} · step ${step.stepId} · ${step.state} · ${where}`);
  if (step.report) {
    w("");
    for (const l of step.report.split("\n")) w(`  ${l}`);
  }
  if (step.next.humanOnly?.length)
    w(
      `\n  This is a human gate: ${step.next.humanOnly.map((o) => `"${o}"`).join(" and ")} can only be answered by a person (here, or in the client's form).`,
    );
  const reader = new LineReader(process.stdin);
  try {
    const got = await new TerminalGate(reader, out, true).answer(step, step.next);
    const next = await engine.decide(slug, step.stepId, got.answer, got.rationale, "terminal");
    w("");
    w(
      `Recorded "${got.answer}"${got.rationale ? ` (${got.rationale})` : ""}, answered at this terminal. The session is now at ${next.state} (step ${next.stepId}).`,
    );
    const command = lastRunCommand(root, slug);
    w(
      command
        ? `To go on: run \`${command}\` again (the command that ran this session), or tell the chat client that drives it to continue (autopilot_next).`
        : `To go on: tell your chat client to continue (it calls autopilot_next).`,
    );
    return 0;
  } catch (e) {
    if (e instanceof NoAnswer) {
      w("No answer given; nothing was changed.");
      return 1;
    }
    throw e;
  } finally {
    reader.close();
  }
}
