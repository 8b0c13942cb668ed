// Real repositories, set up the way teams set them up, with the real tools: `autopilot run docs/...
// --runner scripted --yes` (the built CLI) in each, and the hook and signing rows again through MCP.
// Each row must reach DONE (or the documented question, then DONE after the answer) with no
// uncoded error, the user's own uncommitted files untouched, and no commit made twice.
//
// Slow (npm tools installed into the cache once, the pre-commit framework, gpg): `npm run
// test:repos`, which .ci/run runs; not part of `npm test` (tests/effects/commit-hooks.test.ts and
// tests/engine/commit-rejected.test.ts cover the same mechanics there with plain shell hooks).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendFile, chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { agreeable, call, playHost, startServer, stepCall } from "../helpers/mcp-client.js";
import type { Step } from "../../src/protocol/step.js";
import { RETRY_BUDGET } from "../../src/rules/policy.js";
import {
  baseEnv,
  commitsAfter,
  debianTool,
  gitEnv,
  linkNodeModules,
  npmTools,
  paste,
  runCli,
  tempDir,
  throwawayKey,
} from "./tools.js";

const SPEC = `# Word Count

## Implementation Order

### Phase 1: Counting Core
<!-- complexity: low -->
Count lines, words, characters.

### Phase 2: File Reading
<!-- complexity: low -->
Read files and stdin.
`;
const SPEC_PATH = "docs/changes/word-count/proposal.md";
const SLUG = "changes--word-count--proposal";

/** Phase 1 passes a checkpoint at task 2: three commits in all, one per checkpoint. */
function script(files: Record<string, string> = {}) {
  return {
    phases: {
      0: { tasks: 3, checkpoints: { 2: "passed" }, ...(Object.keys(files).length ? { files } : {}) },
      1: { tasks: 2 },
    },
  };
}
/** The scripted executor's proposals, in the Conventional Commits its repository's history uses. */
const SUBJECTS = [
  "feat(counting-core): add Counting Core up to step 2",
  "feat(counting-core): add Counting Core",
  "feat(file-reading): add File Reading",
];

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

interface Repo {
  dir: string;
  root: string;
  env: NodeJS.ProcessEnv;
  start: string;
  user: Record<string, string>;
}

/**
 * A repository with the spec, `setup` applied and committed, then the user's own uncommitted work:
 * an edited tracked file, an untracked file and a staged file (each must stay exactly as it is).
 */
async function makeRepo(
  o: {
    root?: string;
    env?: NodeJS.ProcessEnv;
    files?: Record<string, string>;
    config?: unknown;
    setup?: (dir: string) => Promise<void>;
    specPath?: string;
  } = {},
): Promise<Repo> {
  const t = await tempDir("autopilot-realrepo-");
  cleanups.push(t.cleanup);
  const env = o.env ?? baseEnv();
  const dir = t.dir;
  const root = path.join(dir, o.root ?? "");
  const g = (...a: string[]) => gitEnv(dir, env, ...a);
  await g("init", "-q", "-b", "main");
  await g("config", "user.name", "Test User");
  await g("config", "user.email", "test@example.invalid");
  const files: Record<string, string> = {
    "README.md": "# word count\n",
    "NOTES.md": "notes\n",
    [path.join(o.root ?? "", o.specPath ?? SPEC_PATH)]: SPEC,
    [path.join(o.root ?? "", ".harness/config.json")]:
      JSON.stringify(o.config ?? { scripted: script() }, null, 2) + "\n",
    ...(o.files ?? {}),
  };
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  await o.setup?.(dir);
  await g("add", "-A");
  await g("commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "chore: initial commit");
  // The user's own work in progress, in the project folder.
  const user = { "NOTES.md": "notes\nmy unfinished thought\n", "scratch.txt": "scratch\n", "staged.md": "# staged\n" };
  const rel = (f: string) => path.join(o.root ?? "", f);
  await mkdir(root, { recursive: true });
  if (o.root)
    await writeFile(path.join(dir, rel("NOTES.md")), "notes\n")
      .then(() => g("add", rel("NOTES.md")))
      .then(() => g("commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "chore: notes"));
  for (const [f, text] of Object.entries(user)) await writeFile(path.join(dir, rel(f)), text);
  await g("add", rel("staged.md"));
  const start = (await g("rev-parse", "HEAD")).trim();
  return { dir, root, env, start, user };
}

/** DONE, no uncoded error, the user's work as it was, every autopilot commit made once. */
async function expectClean(r: Repo, runs: { stdout: string; stderr: string }[]) {
  for (const run of runs) {
    expect(run.stderr).not.toMatch(/unexpected error|\[internal\]|Unexpected error/);
    expect(run.stdout).not.toMatch(/unexpected error/);
  }
  const state = JSON.parse(
    await readFile(path.join(r.root, ".harness/sessions", SLUG, "autopilot-state.json"), "utf8"),
  );
  expect(state.currentState).toBe("DONE");
  for (const [f, text] of Object.entries(r.user)) expect(await readFile(path.join(r.root, f), "utf8"), f).toBe(text);
  const status = await gitEnv(r.root, r.env, "status", "--porcelain", "--", ".", ":(exclude).harness");
  const at = (f: string) => path.relative(r.dir, path.join(r.root, f));
  expect(status).toContain(` M ${at("NOTES.md")}`);
  expect(status).toContain(`?? ${at("scratch.txt")}`);
  expect(status).toContain(`A  ${at("staged.md")}`);
  const commits = await commitsAfter(r.dir, r.start, r.env);
  expect(new Set(commits.map((c) => c.trailer)).size, JSON.stringify(commits)).toBe(commits.length);
  expect(commits.every((c) => c.trailer)).toBe(true);
  expect(commits.map((c) => c.sha)).toEqual(state.commits.map((c: { sha: string }) => c.sha));
  for (const c of commits)
    for (const f of ["NOTES.md", "scratch.txt", "staged.md"])
      expect(
        c.files.map((x) => path.basename(x)),
        `${c.subject}`,
      ).not.toContain(f);
  return { state, commits };
}

const yesRun = (r: Repo, extra: string[] = [], input?: string) =>
  runCli(["run", SPEC_PATH, "--runner", "scripted", "--yes", ...extra], { cwd: r.root, env: r.env, input });

let tools: { dir: string } | { skip: string };
beforeAll(async () => {
  tools = await npmTools();
  if ("skip" in tools) console.log(`[repos] npm tools: ${tools.skip}`);
}, 900_000);

function skipWhy(...needs: ({ skip: string } | { ok: true } | { dir: string })[]): string | null {
  const missing = needs.find((n): n is { skip: string } => "skip" in n);
  return missing ? missing.skip : null;
}

/** The pre-commit framework with local hooks, installed into the repository's .git/hooks. */
async function preCommitRepo(hooks: string, o: Parameters<typeof makeRepo>[0] = {}): Promise<Repo> {
  return makeRepo({
    ...o,
    files: { ".pre-commit-config.yaml": `repos:\n  - repo: local\n    hooks:\n${hooks}`, ...(o.files ?? {}) },
    setup: async (dir) => {
      await gitEnv(dir, baseEnv(), "add", ".pre-commit-config.yaml");
      await runOk("pre-commit", ["install"], dir);
    },
  });
}

async function runOk(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = baseEnv()) {
  const { execFile } = await import("node:child_process");
  return new Promise<string>((resolve, reject) =>
    execFile(cmd, args, { cwd, env }, (e, out, err) =>
      e ? reject(new Error(`${cmd} ${args.join(" ")}: ${err || e.message}`)) : resolve(out),
    ),
  );
}

const LINT_HOOKS = `      - id: no-console-log
        name: no console.log
        language: pygrep
        entry: 'console\\.log'
        files: '\\.ts$'
      - id: trailing-whitespace
        name: trim trailing whitespace
        language: system
        entry: sed -i -e 's/[[:space:]]*$//'
        files: '\\.ts$'
`;
const HEADER_HOOK = `      - id: spdx-header
        name: SPDX header
        language: system
        entry: sh scripts/check-spdx.sh
        files: '\\.ts$'
`;
/** The header check the hook runs (a file: the YAML stays plain). */
const HEADER_SCRIPT = {
  "scripts/check-spdx.sh": `for f in "$@"; do
  head -1 "$f" | grep -q SPDX-License-Identifier || { echo "$f: missing SPDX-License-Identifier header"; fail=1; }
done
exit \${fail:-0}
`,
};
const SLOPPY = { "src/counting-core/debug.ts": 'export const debug = 1;   \nconsole.log("debug");\n' };

describe("real repositories, autopilot run --runner scripted --yes", () => {
  it("the pre-commit framework: a lint hook refuses (fixed by the executor), a fixer rewrites (committed)", async (ctx) => {
    const why = skipWhy(debianTool("pre-commit"));
    if (why) return ctx.skip(why);
    const r = await preCommitRepo(LINT_HOOKS, { config: { scripted: script(SLOPPY) } });
    const run = await yesRun(r);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /rejected by the pre-commit hook \(attempt 1\):\n[\s\S]*no console\.log\.+Failed[\s\S]*src\/counting-core\/debug\.ts:2:console\.log\("debug"\);/,
    );
    expect(run.stdout).toContain("Retry 1/3: the task executor fixes what the hook reports");
    const { state, commits } = await expectClean(r, [run]);
    expect(commits.map((c) => c.subject)).toEqual(SUBJECTS);
    expect(await gitEnv(r.dir, r.env, "show", `${commits[0].sha}:src/counting-core/debug.ts`)).toBe(
      "export const debug = 1;\n",
    );
    expect(state.decisions.filter((d: { decision: string }) => d.decision === "commit_rejected")).toHaveLength(1);
  });

  it("a pre-commit hook the executor cannot satisfy: the run waits for a person (exit 3); fixed by hand and answered, DONE", async (ctx) => {
    const why = skipWhy(debianTool("pre-commit"));
    if (why) return ctx.skip(why);
    const r = await preCommitRepo(HEADER_HOOK, {
      files: HEADER_SCRIPT,
      config: { scripted: { phases: { 0: { tasks: 1 }, 1: { tasks: 1 } } } },
    });
    const first = await yesRun(r);
    expect(first.code, first.stdout + first.stderr).toBe(3);
    expect(first.stdout).toMatch(
      new RegExp(
        `The pre-commit hook rejected autopilot's commit "Phase 1: Counting Core — execution complete" ${RETRY_BUDGET + 1} times`,
      ),
    );
    expect(first.stdout).toContain("src/counting-core/task-1.ts: missing SPDX-License-Identifier header");
    expect(first.stdout).toContain(`To continue: answer it yourself: run \`autopilot approve ${SLUG}\``);
    // The person adds the header, and answers with the command the run printed (without --yes).
    const file = path.join(r.root, "src/counting-core/task-1.ts");
    await writeFile(file, `// SPDX-License-Identifier: MIT\n${await readFile(file, "utf8")}`);
    const line = /\(or `([^`]+)`\) in your own terminal/.exec(first.stdout)![1];
    // The answer, then "yes" to go on to phase 2.
    const second = await paste(`printf 'fix it yourself and continue\\nyes\\n' | ${line}`, { cwd: r.root, env: r.env });
    // Phase 2's file lacks the header too: the executor cannot add it; the person answers again.
    expect(second.code, second.stdout + second.stderr).toBe(3);
    const file2 = path.join(r.root, "src/file-reading/task-1.ts");
    await writeFile(file2, `// SPDX-License-Identifier: MIT\n${await readFile(file2, "utf8")}`);
    const third = await paste(`echo "fix it yourself and continue" | ${line}`, { cwd: r.root, env: r.env });
    expect(third.code, third.stdout + third.stderr).toBe(0);
    const { state, commits } = await expectClean(r, [first, second, third]);
    expect(commits.map((c) => c.subject)).toEqual(SUBJECTS.slice(1));
    expect(
      state.decisions.filter(
        (d: { decision: string; by: string }) => d.decision === "fixed_commit_manually" && d.by === "piped",
      ),
    ).toHaveLength(2);
  });

  it("husky 9 (core.hooksPath), commitlint with config-conventional and lint-staged with prettier: conventional subjects, formatted commits", async (ctx) => {
    if ("skip" in tools) return ctx.skip(tools.skip);
    const toolsDir = tools.dir;
    const r = await makeRepo({
      config: { scripted: script({ "src/counting-core/format-me.ts": "export   const   formatMe=1\n" }) },
      files: {
        "package.json":
          JSON.stringify(
            {
              name: "word-count",
              private: true,
              type: "module",
              scripts: { prepare: "husky" },
              "lint-staged": { "*.ts": "prettier --write" },
            },
            null,
            2,
          ) + "\n",
        "commitlint.config.mjs": 'export default { extends: ["@commitlint/config-conventional"] };\n',
        ".husky/pre-commit": "npx lint-staged\n",
        ".husky/commit-msg": 'npx --no -- commitlint --edit "$1"\n',
      },
      setup: async (dir) => {
        await linkNodeModules(dir, toolsDir);
        await runOk(path.join(dir, "node_modules/.bin/husky"), [], dir);
      },
    });
    expect((await gitEnv(r.dir, r.env, "config", "core.hooksPath")).trim()).toBe(".husky/_");
    const run = await yesRun(r);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const { commits } = await expectClean(r, [run]);
    expect(commits.map((c) => c.subject)).toEqual(SUBJECTS);
    // The real commitlint accepts every commit autopilot made, trailer and all.
    await runOk(path.join(r.dir, "node_modules/.bin/commitlint"), ["--from", r.start, "--to", "HEAD"], r.dir);
    // lint-staged's prettier rewrote autopilot's file: the rewrite is what was committed, and the
    // file is not left looking changed.
    expect(await gitEnv(r.dir, r.env, "show", `${commits[0].sha}:src/counting-core/format-me.ts`)).toBe(
      "export const formatMe = 1;\n",
    );
    expect(await gitEnv(r.dir, r.env, "status", "--porcelain", "--", "src")).toBe("");
    expect((await gitEnv(r.dir, r.env, "config", "core.hooksPath")).trim()).toBe(".husky/_");
  });

  it("husky + lint-staged with prettier --check (a team's config): named in every executor brief, run read-only before each commit, its cause kept for every later brief", async (ctx) => {
    if ("skip" in tools) return ctx.skip(tools.skip);
    const toolsDir = tools.dir;
    const r = await makeRepo({
      config: { scripted: script({ "src/counting-core/format-me.ts": "export   const   formatMe=1\n" }) },
      files: {
        "package.json":
          JSON.stringify(
            {
              name: "word-count",
              private: true,
              type: "module",
              scripts: { prepare: "husky" },
              "lint-staged": { "*.ts": "prettier --check" },
            },
            null,
            2,
          ) + "\n",
        ".husky/pre-commit": "npx lint-staged\n",
      },
      setup: async (dir) => {
        await linkNodeModules(dir, toolsDir);
        await runOk(path.join(dir, "node_modules/.bin/husky"), [], dir);
      },
    });
    const first = await yesRun(r);
    // The scripted executor fixes only what names a line; prettier names none: past the budget a person is asked.
    expect(first.code, first.stdout + first.stderr).toBe(3);
    expect(first.stdout).toContain("they fail, so the commit was not attempted");
    const sessionDir = path.join(r.root, ".harness/sessions", SLUG);
    const briefs = async () => {
      const { readdir } = await import("node:fs/promises");
      const names = (await readdir(path.join(sessionDir, "briefs"))).sort(
        (a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]),
      );
      return Promise.all(names.map(async (n) => readFile(path.join(sessionDir, "briefs", n), "utf8")));
    };
    const executor = (b: string) => /^- Execution state:|fix what the pre-commit hook refused|Fix exactly/m.test(b);
    const early = (await briefs()).filter(executor);
    // Named before any commit was attempted: the first executor's brief already has them.
    expect(early[0]).toContain("## The repository's commit checks");
    expect(early[0]).toContain("`prettier --check` on `*.ts` files — run `prettier --check` over your files");
    const hookFix = early.find((b) => /^# Brief for step \d+: fix what the pre-commit hook refused$/m.test(b))!;
    expect(hookFix).toContain("$ prettier --check src/counting-core/format-me.ts");
    expect(hookFix).toContain("## To check before you reply\n\n- `prettier --check src/counting-core/format-me.ts");
    const state = JSON.parse(await readFile(path.join(sessionDir, "autopilot-state.json"), "utf8"));
    const cause = "Code style issues found in the above file. Run Prettier with --write to fix.";
    const notes = state.decisions.filter((d: { decision: string }) => d.decision === "commit_rejected");
    expect(notes.length).toBe(RETRY_BUDGET + 1);
    for (const d of notes) expect(d.note).toContain(cause);
    // The person formats the file and answers; the same commit passes the real hook; phase 2 runs.
    await runOk(path.join(r.dir, "node_modules/.bin/prettier"), ["--write", "src/counting-core/format-me.ts"], r.root);
    const line = /\(or `([^`]+)`\) in your own terminal/.exec(first.stdout)![1];
    const second = await paste(`printf 'fix it yourself and continue\\nyes\\n' | ${line}`, { cwd: r.root, env: r.env });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    const all = (await briefs()).filter(executor);
    const phase2 = all.filter((b) => /^- Phase 2 of 2/m.test(b));
    expect(phase2.length).toBeGreaterThan(0);
    for (const b of phase2)
      expect(b).toContain(`The repository's pre-commit hook refused a commit: prettier --check: [warn] ${cause}`);
    const { commits } = await expectClean(r, [first, second]);
    expect(commits).toHaveLength(3);
    expect(await gitEnv(r.dir, r.env, "show", `${commits[0].sha}:src/counting-core/format-me.ts`)).toBe(
      "export const formatMe = 1;\n",
    );
    // Not contradicted by the session's later work: promoted to the project's learnings.
    expect(await readFile(path.join(r.root, ".harness/learnings.md"), "utf8")).toContain(cause);
  });

  it("commit.gpgsign with a working key: every commit signed", async (ctx) => {
    const why = skipWhy(debianTool("gpg"));
    if (why) return ctx.skip(why);
    const key = await throwawayKey();
    cleanups.push(key.cleanup);
    const env = baseEnv({ GNUPGHOME: key.home });
    const r = await makeRepo({ env });
    await gitEnv(r.dir, env, "config", "user.signingkey", key.fingerprint);
    await gitEnv(r.dir, env, "config", "commit.gpgsign", "true");
    const run = await yesRun(r);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const { commits } = await expectClean(r, [run]);
    expect(commits).toHaveLength(3);
    for (const c of commits)
      expect((await gitEnv(r.dir, env, "log", "-1", "--format=%G? %GF", c.sha)).trim()).toBe(`G ${key.fingerprint}`);
  });

  it("commit.gpgsign where signing fails: commit_rejected with git's message (exit 1); after the fix the same command makes each commit once", async (ctx) => {
    const why = skipWhy(debianTool("gpg"));
    if (why) return ctx.skip(why);
    const key = await throwawayKey();
    cleanups.push(key.cleanup);
    const empty = await tempDir("gpg-empty-");
    cleanups.push(empty.cleanup);
    // The user's signing key is not in the keyring this process sees (a laptop's agent, a container).
    const broken = baseEnv({ GNUPGHOME: empty.dir });
    const r = await makeRepo({ env: broken });
    await gitEnv(r.dir, broken, "config", "user.signingkey", key.fingerprint);
    await gitEnv(r.dir, broken, "config", "commit.gpgsign", "true");
    const first = await yesRun(r);
    expect(first.code, first.stdout + first.stderr).toBe(1);
    expect(first.stderr).toMatch(
      /Git could not sign autopilot's commit "Checkpoint 2: Counting Core step 2"[\s\S]*gpg failed to sign the data[\s\S]*\[commit_rejected\]/,
    );
    expect(await commitsAfter(r.dir, r.start, broken)).toEqual([]);
    const again = await yesRun(r);
    expect(again.code).toBe(1);
    // Fixed: the keyring with the key.
    r.env = baseEnv({ GNUPGHOME: key.home });
    const fixed = await yesRun(r);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    const { commits } = await expectClean(r, [fixed]);
    expect(commits.map((c) => c.subject)).toEqual(SUBJECTS);
    for (const c of commits) expect((await gitEnv(r.dir, r.env, "log", "-1", "--format=%G?", c.sha)).trim()).toBe("G");
  });

  it("git-lfs: a tracked file in the change is committed as an LFS pointer", async (ctx) => {
    const why = skipWhy(debianTool("git-lfs"));
    if (why) return ctx.skip(why);
    const asset = "GIF89a pretend binary asset\n".repeat(20);
    const r = await makeRepo({
      config: { scripted: script({ "assets/logo.gif": asset }) },
      files: { ".gitattributes": "*.gif filter=lfs diff=lfs merge=lfs -text\n" },
      setup: (dir) => runOk("git", ["lfs", "install", "--local"], dir).then(() => {}),
    });
    const run = await yesRun(r);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const { commits } = await expectClean(r, [run]);
    const withAsset = commits.find((c) => c.files.includes("assets/logo.gif"))!;
    expect(await gitEnv(r.dir, r.env, "show", `${withAsset.sha}:assets/logo.gif`)).toMatch(
      /^version https:\/\/git-lfs\.github\.com\/spec\/v1\noid sha256:/,
    );
    expect(await runOk("git", ["lfs", "ls-files", "--name-only"], r.dir)).toContain("assets/logo.gif");
    expect(await readFile(path.join(r.dir, "assets/logo.gif"), "utf8")).toBe(asset);
  });

  it("a submodule in the tree: never committed over, never descended into", async () => {
    const lib = await tempDir("autopilot-lib-");
    cleanups.push(lib.cleanup);
    for (const a of [
      ["init", "-q", "-b", "main"],
      ["config", "user.name", "Lib"],
      ["config", "user.email", "lib@example.invalid"],
    ])
      await gitEnv(lib.dir, baseEnv(), ...a);
    await writeFile(path.join(lib.dir, "lib.ts"), "export const lib = 1;\n");
    await gitEnv(lib.dir, baseEnv(), "add", "-A");
    await gitEnv(lib.dir, baseEnv(), "commit", "-q", "-m", "lib");
    const r = await makeRepo({
      // The executor writes into the submodule's folder too.
      config: { scripted: script({ "vendor/lib/generated.ts": "export const generated = 1;\n" }) },
      setup: (dir) =>
        gitEnv(
          dir,
          baseEnv(),
          "-c",
          "protocol.file.allow=always",
          "submodule",
          "add",
          "-q",
          lib.dir,
          "vendor/lib",
        ).then(() => {}),
    });
    const pinned = (await gitEnv(r.dir, r.env, "ls-tree", "HEAD", "vendor/lib")).trim();
    // The user moved the submodule to a commit of their own before the session.
    await writeFile(path.join(r.dir, "vendor/lib/lib.ts"), "export const lib = 2;\n");
    await gitEnv(path.join(r.dir, "vendor/lib"), r.env, "commit", "-q", "-am", "user's work in the submodule");
    const subHead = (await gitEnv(path.join(r.dir, "vendor/lib"), r.env, "rev-parse", "HEAD")).trim();
    const run = await yesRun(r);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const { commits } = await expectClean(r, [run]);
    for (const c of commits)
      expect(
        c.files.filter((f) => f.startsWith("vendor/")),
        c.subject,
      ).toEqual([]);
    expect((await gitEnv(r.dir, r.env, "ls-tree", "HEAD", "vendor/lib")).trim()).toBe(pinned);
    expect((await gitEnv(path.join(r.dir, "vendor/lib"), r.env, "rev-parse", "HEAD")).trim()).toBe(subHead);
    expect(await gitEnv(path.join(r.dir, "vendor/lib"), r.env, "status", "--porcelain")).toBe("?? generated.ts\n");
  });

  it("core.autocrlf=true: DONE, the commits hold LF text, and nothing of the user's shows changed", async () => {
    const r = await makeRepo({
      files: { "windows.txt": "written on windows\r\nsecond line\r\n" },
      setup: (dir) => gitEnv(dir, baseEnv(), "config", "core.autocrlf", "true").then(() => {}),
    });
    const before = await readFile(path.join(r.dir, "windows.txt"));
    const run = await yesRun(r);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const { commits } = await expectClean(r, [run]);
    expect(commits).toHaveLength(3);
    expect(await gitEnv(r.dir, r.env, "cat-file", "-p", `${commits[2].sha}:src/file-reading/task-1.ts`)).not.toContain(
      "\r",
    );
    expect(await readFile(path.join(r.dir, "windows.txt"))).toEqual(before);
    expect(await gitEnv(r.dir, r.env, "status", "--porcelain", "--", "windows.txt", "src")).toBe("");
  });

  it("the project is a monorepo package folder: only its own paths are committed, the root's convention is followed", async () => {
    const r = await makeRepo({
      root: "packages/app",
      files: {
        ".commitlintrc.json": '{ "extends": ["@commitlint/config-conventional"] }\n',
        "packages/other/index.ts": "export const other = 1;\n",
      },
    });
    // Another package's work in progress, outside the project folder.
    await appendFile(path.join(r.dir, "packages/other/index.ts"), "export const wip = true;\n");
    const run = await yesRun(r);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const { commits } = await expectClean(r, [run]);
    expect(commits.map((c) => c.subject)).toEqual(SUBJECTS);
    for (const c of commits)
      for (const f of c.files) expect(f.startsWith("packages/app/"), `${c.subject}: ${f}`).toBe(true);
    expect(await gitEnv(r.dir, r.env, "status", "--porcelain", "--", "packages/other")).toBe(
      " M packages/other/index.ts\n",
    );
  });

  it("a spec path and a session slug with spaces: every command autopilot prints can be pasted as it is", async () => {
    const spec = "docs/my feature/spec v2.md";
    const slug = "my feature--spec v2";
    const r = await makeRepo({ specPath: spec });
    // Without --yes and without input, the run stops at its first question and says how to go on.
    const first = await runCli(["run", spec, "--runner", "scripted"], { cwd: r.root, env: r.env });
    expect(first.code, first.stdout + first.stderr).toBe(3);
    const piped = /pipe the answer in \(`(echo 1 \| [^`]+)`\)/.exec(first.stdout)?.[1];
    expect(piped).toBe(`echo 1 | autopilot run 'docs/my feature/spec v2.md' --runner scripted`);
    // "leave them out" is option 2; then every later question takes "yes".
    const second = await paste(piped!.replace("echo 1", "printf '2\\n1\\n1\\n'"), { cwd: r.root, env: r.env });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    const log = /per phase and persona: (autopilot log [^\n]+)/.exec(second.stdout)?.[1];
    expect(log).toBe(`autopilot log '${slug}'`);
    const shown = await paste(log!, { cwd: r.root, env: r.env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("spec v2.md");
    const state = JSON.parse(
      await readFile(path.join(r.root, ".harness/sessions", slug, "autopilot-state.json"), "utf8"),
    );
    expect(state.currentState).toBe("DONE");
    const status = await paste(`autopilot status '${slug}'`, { cwd: r.root, env: r.env });
    expect(status.code, status.stderr).toBe(0);
  });
});

describe("the hook and signing rows through MCP", () => {
  async function mcp(r: Repo, env: NodeJS.ProcessEnv = r.env) {
    const srv = await startServer({ cwd: r.root, env: env as Record<string, string> });
    cleanups.push(() => srv.close());
    return srv;
  }
  const scripted = (files: Record<string, string> = {}) => new ScriptedRunner(script(files) as never);
  const leaveOut = (a: typeof agreeable) => (s: Parameters<typeof agreeable>[0]) =>
    s.next.options.includes("leave them out") ? "leave them out" : a(s);

  it("the pre-commit framework's lint hook refuses: the next Step is the executor's fix; DONE", async (ctx) => {
    const why = skipWhy(debianTool("pre-commit"));
    if (why) return ctx.skip(why);
    const r = await preCommitRepo(LINT_HOOKS);
    const srv = await mcp(r);
    const steps: Step[] = [];
    const first = await stepCall(srv.client, "autopilot_start", { spec: SPEC_PATH });
    const final = await playHost(srv.client, r.root, first, scripted(SLOPPY), leaveOut(agreeable), {
      trace: { steps },
    });
    expect(final.state).toBe("DONE");
    const fix = steps.find((s) => s.next.kind === "dispatch" && s.next.expects.result === "fixed");
    expect(fix?.report).toContain('src/counting-core/debug.ts:2:console.log("debug");');
    await expectClean(r, []);
  });

  it("husky + commitlint + lint-staged: conventional commits through MCP too", async (ctx) => {
    if ("skip" in tools) return ctx.skip(tools.skip);
    const toolsDir = tools.dir;
    const r = await makeRepo({
      files: {
        "package.json":
          JSON.stringify(
            {
              name: "wc",
              private: true,
              scripts: { prepare: "husky" },
              "lint-staged": { "*.ts": "prettier --write" },
              commitlint: { extends: ["@commitlint/config-conventional"] },
            },
            null,
            2,
          ) + "\n",
        ".husky/pre-commit": "npx lint-staged\n",
        ".husky/commit-msg": 'npx --no -- commitlint --edit "$1"\n',
      },
      setup: async (dir) => {
        await linkNodeModules(dir, toolsDir);
        await runOk(path.join(dir, "node_modules/.bin/husky"), [], dir);
      },
    });
    const srv = await mcp(r);
    const final = await playHost(
      srv.client,
      r.root,
      await stepCall(srv.client, "autopilot_start", { spec: SPEC_PATH }),
      scripted(),
      leaveOut(agreeable),
    );
    expect(final.state).toBe("DONE");
    const { commits } = await expectClean(r, []);
    expect(commits.every((c) => /^feat\([a-z-]+\): add /.test(c.subject))).toBe(true);
    await runOk(path.join(r.dir, "node_modules/.bin/commitlint"), ["--from", r.start, "--to", "HEAD"], r.dir);
  });

  it('--human-gates: past the budget, "commit without hooks this once" from the host is human_required; the user\'s fix and answer finish it', async (ctx) => {
    const why = skipWhy(debianTool("pre-commit"));
    if (why) return ctx.skip(why);
    const r = await preCommitRepo(HEADER_HOOK, {
      files: HEADER_SCRIPT,
      config: { scripted: { phases: { 0: { tasks: 1 }, 1: { tasks: 1 } } } },
    });
    const srv = await mcp(r);
    const runner = new ScriptedRunner({ phases: { 0: { tasks: 1 }, 1: { tasks: 1 } } });
    const ask = await playHost(
      srv.client,
      r.root,
      await stepCall(srv.client, "autopilot_start", { spec: SPEC_PATH, flags: "--human-gates" }),
      runner,
      leaveOut(agreeable),
      {
        until: (s) => s.next.kind === "ask" && s.next.options.includes("commit without hooks this once"),
      },
    );
    expect(ask.next.kind === "ask" && ask.next.humanOnly).toEqual(["commit without hooks this once"]);
    const refused = await call(srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: ask.stepId,
      answer: "commit without hooks this once",
    });
    expect(refused.error?.code).toBe("human_required");
    for (const f of ["src/counting-core/task-1.ts"]) {
      const file = path.join(r.root, f);
      await writeFile(file, `// SPDX-License-Identifier: MIT\n${await readFile(file, "utf8")}`);
    }
    let step = await stepCall(srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: ask.stepId,
      answer: "fix it yourself and continue",
    });
    step = await playHost(srv.client, r.root, step, runner, leaveOut(agreeable), {
      until: (s) => s.next.kind === "ask" && s.next.options.includes("commit without hooks this once"),
    });
    const file2 = path.join(r.root, "src/file-reading/task-1.ts");
    await writeFile(file2, `// SPDX-License-Identifier: MIT\n${await readFile(file2, "utf8")}`);
    step = await stepCall(srv.client, "autopilot_decide", {
      session: SLUG,
      stepId: step.stepId,
      answer: "fix it yourself and continue",
    });
    const final = await playHost(srv.client, r.root, step, runner, leaveOut(agreeable));
    expect(final.state).toBe("DONE");
    await expectClean(r, []);
  });

  it("signing fails: a structured commit_rejected with a todo, never internal; after the fix autopilot_next makes the commit once", async (ctx) => {
    const why = skipWhy(debianTool("gpg"));
    if (why) return ctx.skip(why);
    const key = await throwawayKey();
    cleanups.push(key.cleanup);
    const signer = path.join(key.home, "gpg-without-agent");
    // The signer the repository names cannot reach an agent (what a pinentry without a terminal does).
    await writeFile(signer, '#!/bin/sh\necho "gpg: signing failed: Inappropriate ioctl for device" >&2\nexit 2\n');
    await chmod(signer, 0o755);
    const env = baseEnv({ GNUPGHOME: key.home });
    const r = await makeRepo({ env });
    await gitEnv(r.dir, env, "config", "user.signingkey", key.fingerprint);
    await gitEnv(r.dir, env, "config", "commit.gpgsign", "true");
    await gitEnv(r.dir, env, "config", "gpg.program", signer);
    const srv = await mcp(r);
    const runner = scripted();
    const exec = await playHost(
      srv.client,
      r.root,
      await stepCall(srv.client, "autopilot_start", { spec: SPEC_PATH }),
      runner,
      leaveOut(agreeable),
      { until: (s) => s.state === "EXECUTE" },
    );
    const { result } = await runner.run({ ...taskOf(r.root, exec) });
    const refused = await call(srv.client, "autopilot_report", { session: SLUG, stepId: exec.stepId, result });
    expect(refused.result.isError).toBe(true);
    expect(refused.error?.code).toBe("commit_rejected");
    expect(refused.error?.message).toMatch(/gpg failed to sign the data/);
    expect(refused.error?.todo).toMatch(/autopilot_next/);
    await gitEnv(r.dir, env, "config", "--unset", "gpg.program");
    const next = await stepCall(srv.client, "autopilot_next", { session: SLUG });
    const final = await playHost(srv.client, r.root, next, runner, leaveOut(agreeable));
    expect(final.state).toBe("DONE");
    const { commits } = await expectClean(r, []);
    expect(commits).toHaveLength(3);
    for (const c of commits) expect((await gitEnv(r.dir, env, "log", "-1", "--format=%G?", c.sha)).trim()).toBe("G");
  });
});

function taskOf(root: string, step: Step) {
  if (step.next.kind !== "dispatch") throw new Error("not a dispatch");
  return {
    persona: step.next.persona,
    description: step.next.description,
    prompt: step.next.prompt,
    expects: step.next.expects,
    projectRoot: root,
    session: step.session,
    phaseIndex: step.phase?.index ?? null,
    phaseName: step.phase?.name ?? null,
  };
}
