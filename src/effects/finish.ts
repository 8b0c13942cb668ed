// Finishing a session's branch, the way a developer finishes one: open the pull request (push the
// branch, then `gh pr create` with the title and pr.md), merge a --worktree session's branch, or keep
// it. autopilot works out the facts (the branch, the remote, whether gh is on PATH) and the exact
// commands, so whoever runs them (the person, a host model on their word, `autopilot run --pr`) has
// nothing to guess. It never pushes by itself in an interactive session.
import { execFile } from "node:child_process";
import { access, constants } from "node:fs/promises";
import path from "node:path";
import { AutopilotError } from "../protocol/errors.js";
import type { SessionPaths } from "../session/paths.js";
import { commandLine, finishArgs, prCommands, type FinishFacts } from "../session/notices-finish.js";
import { gitRunner } from "./git.js";
import { branchFor, readPointer } from "./worktree.js";
import { readHead } from "./git-dir.js";

/** Names a repository's default branch has when its remote does not say (no `refs/remotes/<remote>/HEAD`). */
const USUAL_DEFAULTS = ["main", "master", "trunk"];

/** Whether `cmd` is an executable file in one of PATH's folders. */
async function onPath(cmd: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const names = process.platform === "win32" ? [`${cmd}.exe`, `${cmd}.cmd`, cmd] : [cmd];
  for (const dir of (env.PATH ?? "").split(path.delimiter).filter(Boolean))
    for (const name of names)
      if (
        await access(path.join(dir, name), constants.X_OK).then(
          () => true,
          () => false,
        )
      )
        return true;
  return false;
}

/**
 * The facts of finishing the session's branch, from its paths `ws` (in the project's checkout or in
 * the session's worktree: they share branches, remotes and the session folder).
 */
export async function finishFacts(
  ws: SessionPaths,
  title: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<FinishFacts> {
  const { projectRoot: root, slug } = ws;
  const git = gitRunner(root);
  const read = (args: string[]) =>
    git(args).then(
      (s) => s.trim(),
      () => "",
    );
  const pointer = await readPointer(ws).catch(() => null);
  const branch = pointer?.branch ?? readHead(root)?.branch ?? (await read(["rev-parse", "--abbrev-ref", "HEAD"]));
  // The remotes and the branch's upstream remote, in one git process.
  const config = await read([
    "config",
    "--get-regexp",
    `^remote\\..+\\.url$|^branch\\.${branch.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.remote$`,
  ]);
  const remotes: string[] = [];
  let upstream = "";
  for (const line of config.split("\n")) {
    const [key, value = ""] = line.split(/ (.*)/s, 2);
    const name = /^remote\.(.+)\.url$/i.exec(key ?? "")?.[1];
    if (name && !remotes.includes(name)) remotes.push(name);
    else if (/^branch\./i.test(key ?? "")) upstream = value.trim();
  }
  const remote = remotes.includes(upstream) ? upstream : remotes.includes("origin") ? "origin" : (remotes[0] ?? null);
  const remoteHead = remote ? await read(["symbolic-ref", "--quiet", "--short", `refs/remotes/${remote}/HEAD`]) : "";
  const remoteDefault = remoteHead.startsWith(`${remote}/`) ? remoteHead.slice(`${remote}/`.length) : null;
  // Work committed on the branch the pull request would go into is pushed as a branch of its own:
  // pushing it under its name would put it on that branch unreviewed.
  const onDefault = remoteDefault ? branch === remoteDefault : USUAL_DEFAULTS.includes(branch);
  const own = !pointer && onDefault;
  return {
    session: slug,
    title,
    file: path.relative(root, ws.pr).split(path.sep).join("/"),
    branch,
    head: own ? branchFor(slug) : branch,
    base: pointer?.baseBranch ?? (own ? branch : remoteDefault),
    remote,
    gh: await onPath("gh", env),
    ...(pointer ? { worktree: { path: pointer.path, baseBranch: pointer.baseBranch } } : {}),
  };
}

function run(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      argv[0],
      argv.slice(1),
      { cwd, env: { ...env, GIT_TERMINAL_PROMPT: "0" }, maxBuffer: 4 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout.trim());
        const said = `${stderr}\n${stdout}`.trim().split("\n").filter(Boolean).slice(-3).join(" / ");
        reject(new Error(said || err.message));
      },
    );
  });
}

/**
 * `autopilot run --pr`: push the branch and open the pull request; gh's answer (its URL) is returned.
 * Without a remote or gh, or when either command fails, an error with the commands to run: the work
 * stays committed on its branch either way.
 */
export async function openPullRequest(
  root: string,
  f: FinishFacts,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const kept = `The work stays committed on ${f.branch}.`;
  const fail = (why: string) =>
    new AutopilotError("pr_not_opened", `No pull request was opened: ${why}. ${kept}`, { branch: f.branch });
  if (!f.remote || !f.gh) throw fail(prCommands(f));
  const { push, gh } = finishArgs(f);
  try {
    await run(push, root, env);
  } catch (e) {
    throw fail(
      `\`${commandLine(push)}\` failed (${(e as Error).message}); fix that, then run \`${commandLine(push)} && ${commandLine(gh)}\``,
    );
  }
  try {
    return await run(gh, root, env);
  } catch (e) {
    throw fail(
      `the branch is pushed, but \`gh pr create\` failed (${(e as Error).message}); fix that (\`gh auth login\`?), then run \`${commandLine(gh)}\``,
    );
  }
}
