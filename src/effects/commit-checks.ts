// The repository's own commit checks: what its hooks run when autopilot commits (husky, lint-staged,
// lefthook, the pre-commit framework, simple-git-hooks, a plain git hook, commitlint). Found from
// the files that configure them, so every executor brief can name them before a commit is refused,
// and autopilot can run the read-only ones over a commit's files before it attempts the commit.
//
// Read-only only: a check autopilot runs itself must not change a file. A command that rewrites
// (`prettier --write`, `stylelint --fix`) is the hook's to run at commit time (its rewrite is
// committed, docs/state-file.md); it is named, never run. `eslint --fix` runs as
// `eslint --fix-dry-run`, which reports what its fixes would leave without writing.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { minimatch } from "minimatch";
import { matter } from "../markdown/front-matter.js";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { gitDirs } from "./git-dir.js";
import { CommitRejected, gitRunner, trimOutput } from "./git.js";
import { failureTail, runValidation } from "./validation.js";
import { shellWord } from "../protocol/words.js";

interface CommitCheck {
  /** The git hook that runs it: `pre-commit`, `commit-msg`, ... */
  hook: string;
  /** Where it is configured, for people: `.husky/pre-commit`, `package.json "lint-staged"`, `.pre-commit-config.yaml`. */
  source: string;
  /** What it runs, as configured (a pre-commit framework hook: its id and name). */
  command: string;
  /** The files it gets (a glob: lint-staged, lefthook), or null: it checks what it checks itself. */
  glob: string | null;
  /** It is given the commit's files (lint-staged, `{staged_files}`), to append when autopilot runs it. */
  takesFiles: boolean;
  /** It rewrites files (a formatter, a fixer): at commit time its rewrite is committed. */
  rewrites: boolean;
  /** What autopilot runs before a commit (read-only), the files appended when `takesFiles`; null: not run. */
  readOnly: string | null;
  /**
   * A hook script with logic around its commands (variables, tests, messages, exits): its lines are
   * not checks one by one, so the brief shows the script whole (`command` is its file).
   */
  script?: string;
}

export interface CommitChecks {
  /** The tools found: `husky`, `lint-staged`, `lefthook`, `pre-commit`, `simple-git-hooks`, `git hook`, `commitlint`. */
  tools: string[];
  checks: CommitCheck[];
}

const HOOKS = ["pre-commit", "commit-msg"] as const;

async function read(file: string): Promise<string | null> {
  return readFile(file, "utf8").catch(() => null);
}

function yaml(text: string): unknown {
  try {
    return matter(`---\n${text}\n---\n`).data;
  } catch {
    return null;
  }
}

function json(text: string | null): unknown {
  try {
    return text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

function rec(v: unknown): Record<string, unknown> | null {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** The commands of a hook script: its lines, without the shebang, comments and husky's own plumbing. */
function scriptCommands(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(
      (l) =>
        l &&
        !l.startsWith("#") &&
        !/^\.\s/.test(l) &&
        !/husky\.sh|^exec\s*<\s*\/dev\/tty|^set -e$|^(if|fi|then|else)\b/.test(l),
    );
}

const RUNNERS = /^(?:npx(?:\s+--no(?:-install)?)?(?:\s+--)?|pnpm(?:\s+exec)?|yarn|bunx|npm\s+exec(?:\s+--)?)\s+/;

/**
 * The read-only form of a command (null: autopilot does not run it) and whether it rewrites files.
 * Only tools known to check without writing are run.
 */
export function readOnlyForm(command: string): { readOnly: string | null; rewrites: boolean } {
  const bare = command.trim().replace(RUNNERS, "");
  const tool = path.posix.basename(bare.split(/\s+/)[0] ?? "");
  const has = (re: RegExp) => re.test(` ${bare} `);
  const fix = has(/\s--fix(?:=\S+)?\s|\s--write\s|\s-w\s|\s--apply(?:-unsafe)?\s/);
  switch (tool) {
    case "prettier":
      if (has(/\s(?:--write|-w)\s/)) return { readOnly: null, rewrites: true };
      return { readOnly: has(/\s(?:--check|-c|--list-different|-l)\s/) ? command : null, rewrites: false };
    case "eslint":
      return has(/\s--fix\s/)
        ? { readOnly: command.replace(/(\s)--fix(?=\s|$)/, "$1--fix-dry-run"), rewrites: true }
        : { readOnly: fix ? null : command, rewrites: fix };
    case "stylelint":
    case "markdownlint":
    case "markdownlint-cli2":
    case "oxlint":
    case "biome":
    case "cspell":
      return { readOnly: fix || has(/\sformat\s/) ? null : command, rewrites: fix };
    case "ruff":
      if (has(/\sformat\s/) && !has(/\s--check\s/)) return { readOnly: null, rewrites: true };
      return { readOnly: fix ? null : command, rewrites: fix };
    case "black":
      return has(/\s--check\s/) ? { readOnly: command, rewrites: false } : { readOnly: null, rewrites: true };
    case "tsc":
      return { readOnly: has(/\s--noEmit\s/) ? command : null, rewrites: false };
    default:
      return { readOnly: null, rewrites: false };
  }
}

function check(hook: string, source: string, command: string, glob: string | null, takesFiles: boolean): CommitCheck {
  return { hook, source, command, glob, takesFiles, ...readOnlyForm(command) };
}

/** lint-staged's rules: from package.json's "lint-staged" or a .lintstagedrc file (a JS config is named, not run). */
async function lintStaged(dirs: string[], hook: string): Promise<CommitCheck[]> {
  for (const dir of dirs) {
    const pkg = rec(json(await read(path.join(dir, "package.json"))));
    const sources: [string, unknown][] = [[`package.json "lint-staged"`, pkg?.["lint-staged"]]];
    for (const f of [".lintstagedrc", ".lintstagedrc.json", ".lintstagedrc.yaml", ".lintstagedrc.yml"]) {
      const text = await read(path.join(dir, f));
      if (text !== null) sources.push([f, f.endsWith("json") || /^\s*\{/.test(text) ? json(text) : yaml(text)]);
    }
    for (const [source, value] of sources) {
      const rules = rec(value);
      if (!rules) continue;
      return Object.entries(rules).flatMap(([glob, cmds]) =>
        (Array.isArray(cmds) ? cmds : [cmds])
          .filter((c): c is string => typeof c === "string")
          .map((c) => check(hook, source, c, glob, true)),
      );
    }
    for (const f of ["lint-staged.config.js", "lint-staged.config.mjs", "lint-staged.config.cjs", ".lintstagedrc.js"])
      if ((await read(path.join(dir, f))) !== null)
        return [check(hook, f, "lint-staged (a JavaScript config: its commands are not read)", null, false)];
  }
  return [];
}

/** lefthook's commands (and jobs) for `hook`, with their globs; `{staged_files}` means the commit's files. */
async function lefthook(top: string, hook: string): Promise<CommitCheck[]> {
  for (const f of ["lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml"]) {
    const text = await read(path.join(top, f));
    if (text === null) continue;
    const h = rec(rec(yaml(text))?.[hook]);
    const jobs: unknown[] = Array.isArray(h?.jobs) ? (h.jobs as unknown[]) : [];
    const entries = [...Object.values(rec(h?.commands) ?? {}), ...jobs];
    return entries.flatMap((e) => {
      const r = rec(e);
      if (typeof r?.run !== "string") return [];
      const files = /\{(staged|all|push)_files\}/.test(r.run);
      const command = r.run.replace(/\s*\{(staged|all|push)_files\}/g, "");
      return [check(hook, f, command, typeof r.glob === "string" ? r.glob : null, files)];
    });
  }
  return [];
}

/** The pre-commit framework's hooks, by id and name: they run in their own environments; autopilot runs none. */
async function preCommitFramework(top: string, hook: string): Promise<CommitCheck[]> {
  const text = await read(path.join(top, ".pre-commit-config.yaml"));
  const repos = rec(yaml(text ?? ""))?.repos;
  if (!Array.isArray(repos)) return [];
  return repos.flatMap((r) =>
    (Array.isArray(rec(r)?.hooks) ? (rec(r)!.hooks as unknown[]) : []).flatMap((h) => {
      const x = rec(h);
      if (typeof x?.id !== "string") return [];
      const stages = Array.isArray(x.stages) ? x.stages.map(String) : null;
      if (stages && !stages.some((s) => s === hook || s === "commit")) return [];
      const name = typeof x.name === "string" && x.name !== x.id ? ` ("${x.name}")` : "";
      return [{ ...check(hook, ".pre-commit-config.yaml", `${x.id}${name}`, null, false), readOnly: null }];
    }),
  );
}

/** The longest hook script a brief shows whole. */
const SCRIPT_CHARS = 3000;

/** Lines that are a script's logic, not a command to run on its own: set a variable, test, print, exit. */
const LOGIC =
  /^(?:echo|printf|exit|return|case|esac|for|while|until|do|done|local|export|read|\[|test\s|[A-Za-z_]\w*=)|\$\(|\$\{?[A-Za-z_]/;

/**
 * One hook's checks: each command line when the script is a list of commands (husky's usual
 * `npx lint-staged`), else the script whole (its commands need the logic around them); what it
 * runs with its own configuration (lint-staged) is expanded either way.
 */
async function hookChecks(
  top: string,
  root: string,
  hook: string,
  source: string,
  file: string,
  text: string,
): Promise<CommitCheck[]> {
  const lines = scriptCommands(text);
  if (!lines.some((l) => LOGIC.test(l))) return expand(top, root, hook, source, lines);
  const script = text.length > SCRIPT_CHARS ? `${text.slice(0, SCRIPT_CHARS)}\n…` : text;
  const whole: CommitCheck = { ...check(hook, source, file, null, false), readOnly: null, rewrites: false, script };
  const staged = lines.some((l) => /\blint-staged\b/.test(l)) ? await lintStaged([...new Set([root, top])], hook) : [];
  return [whole, ...staged];
}

/** One hook's commands, each expanded where it runs a tool with its own configuration. */
async function expand(
  top: string,
  root: string,
  hook: string,
  source: string,
  lines: string[],
): Promise<CommitCheck[]> {
  const out: CommitCheck[] = [];
  for (const line of lines) {
    out.push({ ...check(hook, source, line, null, false) });
    if (/\blint-staged\b/.test(line)) out.push(...(await lintStaged([...new Set([root, top])], hook)));
  }
  return out;
}

/** `core.hooksPath` in a git config file's text, if it sets one. */
function hooksPathIn(config: string | null): string | null {
  const core = /^\s*\[core\]([^[]*)/im.exec(config ?? "")?.[1] ?? "";
  return /^\s*hookspath\s*=\s*(.+?)\s*$/im.exec(core)?.[1]?.replace(/^"(.*)"$/, "$1") ?? null;
}

/**
 * The work tree's top and the folder git runs hooks from: read from the git folder when the project
 * is a work tree's top (no git process: each costs a fork of the server), else asked of git.
 */
async function whereHooksAre(root: string): Promise<{ top: string; hooksDir: string }> {
  const dirs = gitDirs(root);
  if (dirs) {
    const set =
      hooksPathIn(await read(path.join(dirs.commonDir, "config"))) ??
      hooksPathIn(await read(path.join(homedir(), ".gitconfig")));
    const hooks = set ? path.resolve(root, set.replace(/^~(?=\/)/, homedir())) : path.join(dirs.commonDir, "hooks");
    return { top: root, hooksDir: hooks };
  }
  const git = gitRunner(root);
  const ask = (...a: string[]) =>
    git(a)
      .then((s) => s.trim())
      .catch(() => "");
  const top = (await ask("rev-parse", "--show-toplevel")) || root;
  return { top, hooksDir: path.resolve(root, (await ask("rev-parse", "--git-path", "hooks")) || ".git/hooks") };
}

/**
 * What the repository runs when autopilot commits in `root` (its project folder; the hooks are the
 * git repository's). Nothing found: no checks (a repository without hooks, or one git cannot read).
 */
export async function detectCommitChecks(root: string): Promise<CommitChecks> {
  const { top, hooksDir } = await whereHooksAre(root);
  const pkg = rec(json(await read(path.join(top, "package.json"))));
  const tools = new Set<string>();
  const checks: CommitCheck[] = [];
  for (const hook of HOOKS) {
    const script = await read(path.join(hooksDir, hook));
    const husky = await read(path.join(top, ".husky", hook));
    let found: CommitCheck[] = [];
    // husky runs only once installed: git's hooks path is its folder, or the hook script calls it.
    if (husky !== null && script !== null && (/husky/.test(script) || /\.husky/.test(hooksDir))) {
      tools.add("husky");
      found = await hookChecks(top, root, hook, `.husky/${hook}`, `.husky/${hook}`, husky);
    } else if (script !== null && /pre-commit\.com|File generated by pre-commit|INSTALL_PYTHON/.test(script)) {
      tools.add("pre-commit");
      found = await preCommitFramework(top, hook);
    } else if (script !== null && /lefthook/.test(script)) {
      tools.add("lefthook");
      found = await lefthook(top, hook);
    } else if (script !== null && !/\.sample$/.test(hook)) {
      const sgh = rec(pkg?.["simple-git-hooks"])?.[hook];
      if (typeof sgh === "string") {
        tools.add("simple-git-hooks");
        found = await expand(top, root, hook, `package.json "simple-git-hooks"`, [sgh]);
      } else if (scriptCommands(script).length) {
        tools.add("git hook");
        const file = path.relative(top, path.join(hooksDir, hook)).split(path.sep).join("/");
        found = await hookChecks(top, root, hook, `git hook ${hook}`, file, script);
      }
    }
    if (found.some((c) => c.glob !== null && c.source.includes("lint") && c.takesFiles)) tools.add("lint-staged");
    if (found.some((c) => /\bcommitlint\b/.test(c.command))) tools.add("commitlint");
    checks.push(...found);
  }
  return { tools: [...tools], checks };
}

/** The read-only commands to run over `files` (project-relative) before they are committed: those that match. */
export function readOnlyRuns(checks: CommitChecks, files: readonly string[], quote: (w: string) => string): string[] {
  const runs: string[] = [];
  for (const c of checks.checks) {
    // File-scoped only: a whole-project check (`tsc --noEmit`) the hook runs anyway; run twice it doubles the wait.
    if (c.hook !== "pre-commit" || !c.readOnly || !c.takesFiles) continue;
    const glob = c.glob ?? "**";
    const matching = files.filter((f) => minimatch(f, glob, { dot: true, matchBase: !glob.includes("/") }));
    if (matching.length) runs.push(`${c.readOnly} ${matching.map(quote).join(" ")}`);
  }
  return [...new Set(runs)];
}

/**
 * Before a commit is attempted: the pre-commit hook's read-only, file-scoped checks over the files
 * it holds. A check that fails refuses the commit as the hook would (the executor gets its output),
 * without the attempt; nothing is written.
 */
export function precheckCommit(root: string): (paths: string[]) => Promise<void> {
  return async (paths) => {
    const checks = await detectCommitChecks(root);
    const present = paths.filter((p) => existsSync(path.join(root, p)));
    const runs = readOnlyRuns(checks, present, shellWord);
    if (!runs.length) return;
    const { top } = await whereHooksAre(root);
    const binDirs = [...new Set([root, top])].map((d) => path.join(d, "node_modules", ".bin"));
    const v = await runValidation(root, { commands: runs, timeoutMs: 120_000, binDirs });
    // A tool that is not installed here is the hook's to report (or to fetch): not a refusal of ours.
    const failed = v.results.filter((r) => r.exitCode !== 0 && r.exitCode !== 127);
    if (!failed.length) return;
    throw new CommitRejected(
      "hook",
      "pre-commit",
      trimOutput(
        `autopilot ran the pre-commit hook's read-only checks over the commit's files before committing; they fail, so the commit was not attempted:\n\n${failureTail({ results: failed }, 60, 6000)}`,
      ),
      paths,
    );
  };
}
