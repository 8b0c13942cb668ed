// `autopilot demo`: a complete run of a bundled three-phase spec in a fresh temporary git
// repository, personas simulated by the scripted runner, gates answered by the --yes policy. No
// configuration, no network, and the current directory is never touched.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { UsageError } from "../usage.js";
import { parseScript } from "../../headless/config.js";
import { decisionTable } from "../../headless/decision-log.js";
import { buildDecisionLog } from "../../log/model.js";
import { runHeadless } from "../../headless/run.js";
import { ScriptedRunner } from "../../runners/scripted.js";
import { projectPaths } from "../../session/paths.js";

const execFileP = promisify(execFile);
const SPEC_REL = "docs/changes/word-count/proposal.md";

/** The package's bundled examples folder, from src/ (tests) or dist/src/ (the built CLI). */
export function examplesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, "examples", "word-count", "proposal.md"))) return path.join(dir, "examples");
    dir = path.dirname(dir);
  }
  throw new Error("the bundled examples/ folder is missing from this installation");
}

async function git(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileP("git", args, {
    cwd: dir,
    env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
    maxBuffer: 8 * 1024 * 1024,
  });
  return stdout;
}

export async function run(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write("usage: autopilot demo\n");
    return 0;
  }
  if (argv.length)
    throw new UsageError(`autopilot demo takes no arguments (got ${argv.join(" ")})\nusage: autopilot demo`);
  const out = process.stdout;
  const w = (s = "") => out.write(s + "\n");
  const t0 = Date.now();

  w("autopilot demo — personas are simulated by the scripted runner: no model is called, no network is used.");
  w("The repository, files, commits, gates and decision log are real. Gates are answered by the --yes policy.");
  w();

  const examples = examplesDir();
  const script = parseScript(
    JSON.parse(await readFile(path.join(examples, "word-count", "script.json"), "utf8")),
    "examples/word-count/script.json",
  );
  const specText = await readFile(path.join(examples, "word-count", "proposal.md"), "utf8");

  const dir = await realpath(await mkdtemp(path.join(tmpdir(), "autopilot-demo-")));
  // A local identity and no hooks or signing: the demo must work on a machine with no git setup.
  await git(dir, "-c", "init.defaultBranch=main", "init", "-q");
  await git(dir, "config", "user.name", "Autopilot Demo");
  await git(dir, "config", "user.email", "demo@autopilot.invalid");
  await git(dir, "config", "commit.gpgsign", "false");
  await mkdir(path.join(dir, ".git", "no-hooks"), { recursive: true });
  await git(dir, "config", "core.hooksPath", path.join(dir, ".git", "no-hooks"));
  await mkdir(path.join(dir, path.dirname(SPEC_REL)), { recursive: true });
  await mkdir(projectPaths(dir).harnessDir, { recursive: true });
  await writeFile(
    path.join(dir, "README.md"),
    "# wc-lite\n\nA demo project for autopilot: see docs/changes/word-count/proposal.md.\n",
  );
  await writeFile(path.join(dir, SPEC_REL), specText);
  // So that `autopilot run` in this repository continues with the same simulated personas.
  await writeFile(projectPaths(dir).config, JSON.stringify({ runner: "scripted", scripted: script }, null, 2) + "\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", "Add the word-count spec");
  w(`Created a git repository at ${dir} with the spec ${SPEC_REL} (3 phases: low, medium, low).`);
  w();

  const r = await runHeadless({
    root: dir,
    spec: SPEC_REL,
    flags: [],
    runner: new ScriptedRunner(script),
    yes: true,
    out,
    input: process.stdin,
    interactive: false,
    resumeCommand: `cd ${dir} && autopilot run ${SPEC_REL} --yes`,
    quietBanner: true,
  });

  w();
  w("Decision log (every decision with who made it, why, and the plan signals that fired):");
  if (r.state)
    w(decisionTable(buildDecisionLog(r.state, r.slug), Math.max(100, Math.min(process.stdout.columns ?? 130, 160))));
  w();
  w("git log --oneline:");
  w((await git(dir, "log", "--oneline")).trimEnd().replace(/^/gm, "  "));
  w();
  w(`Repository: ${dir}`);
  w(`  cd ${dir} && git log --stat          # what each phase changed`);
  w(`  cat ${dir}/.harness/sessions/${r.slug}/summary.md`);
  w(`  rm -rf ${dir}                         # when you are done looking`);
  w(`Demo finished in ${((Date.now() - t0) / 1000).toFixed(1)}s (simulated personas).`);
  return r.outcome === "done" ? 0 : 1;
}
