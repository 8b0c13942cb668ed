// `autopilot note SLUG WORDS... [--project DIR]`: a person gives a direction or a correction to a
// session at any step, from their own terminal (a headless `autopilot run` has no host to tell).
// The words are recorded as theirs (channel `terminal`) and reach the next persona's brief, as words
// given with an answer at a gate do; nothing else changes. Like `autopilot approve`, it needs an
// interactive terminal: a model's shell is no person (it passes the user's words with
// autopilot_decide and userWords instead).
import { Engine } from "../../engine/engine.js";
import { AutopilotError } from "../../protocol/errors.js";
import { projectRoot, UsageError } from "../usage.js";

const USAGE = "usage: autopilot note SLUG WORDS... [--project DIR]";

export async function run(argv: string[]): Promise<number> {
  let project: string | undefined;
  let slug: string | undefined;
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--help" || a === "-h") {
      process.stdout.write(
        `${USAGE}\n  Give session SLUG a direction or a correction, as a person at this terminal: it reaches the next persona's brief.\n`,
      );
      return 0;
    }
    if (a === "--project" || a.startsWith("--project=")) {
      project = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      if (!project) throw new UsageError(`--project takes a directory. ${USAGE}`);
    } else if (!slug) slug = a;
    else words.push(a);
  }
  if (!slug) throw new UsageError(`which session? ${USAGE} (autopilot status lists them)`);
  const text = words.join(" ").trim();
  if (!text) throw new UsageError(`what should the next persona be told? ${USAGE}`);
  if (!process.stdin.isTTY || !process.stdout.isTTY)
    throw new AutopilotError(
      "no_tty",
      "autopilot note needs an interactive terminal (stdin and stdout must be a TTY): a person runs it in their own terminal. A host model passes the user's words with autopilot_decide and userWords. Nothing was changed.",
    );
  const root = projectRoot(project);
  const engine = new Engine(root);
  const step = await engine.next(slug);
  const after = await engine.decide(slug, step.stepId, undefined, text, "terminal");
  process.stdout.write(`${after.report ?? "Recorded."}\n`);
  return 0;
}
