// What a report needs to know of the repository, read from its git folder instead of asked of a
// git process: the branch HEAD names and its commit. Each git process a report starts costs a fork
// of the whole server (its time grows with the server's memory) plus git's own start; these reads
// cost a few file reads. Anything this does not read plainly (no `.git` at the project root, git
// told where to look by the environment, a detached HEAD, a branch with no commit, the reftable
// format, a ref it cannot find) returns null, and the caller asks git.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** Git is told by the environment where the repository is: its folders are not ours to read. */
const steered = () => !!(process.env.GIT_DIR || process.env.GIT_WORK_TREE || process.env.GIT_COMMON_DIR);

function read(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** The git folder of the work tree whose top is `root`, and the folder its refs live in; null if `root` is not a top. */
export function gitDirs(root: string): { gitDir: string; commonDir: string } | null {
  if (steered()) return null;
  const dotGit = path.join(root, ".git");
  let gitDir: string;
  try {
    if (statSync(dotGit).isDirectory()) gitDir = dotGit;
    else {
      // A linked worktree or a submodule: a file naming the real folder.
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(read(dotGit) ?? "");
      if (!m) return null;
      gitDir = path.resolve(root, m[1]);
    }
  } catch {
    return null;
  }
  const common = read(path.join(gitDir, "commondir"));
  return { gitDir, commonDir: common ? path.resolve(gitDir, common.trim()) : gitDir };
}

/** The commit `ref` (refs/heads/...) points to, loose or packed; null when not found here. */
function refSha(commonDir: string, ref: string): string | null {
  const loose = read(path.join(commonDir, ref))?.trim();
  if (loose !== undefined) return SHA.test(loose) ? loose : null;
  const packed = read(path.join(commonDir, "packed-refs"));
  if (!packed) return null;
  for (const line of packed.split("\n")) {
    const [sha, name] = line.trim().split(" ");
    if (name === ref && SHA.test(sha ?? "")) return sha;
  }
  return null;
}

/** HEAD's branch and commit when `root` is a work tree's top and both read plainly; else null (ask git). */
export function readHead(root: string): { branch: string; sha: string } | null {
  const dirs = gitDirs(root);
  if (!dirs) return null;
  const head = read(path.join(dirs.gitDir, "HEAD"))?.trim();
  const m = head ? /^ref: (refs\/heads\/.+)$/.exec(head) : null;
  if (!m) return null;
  const sha = refSha(dirs.commonDir, m[1]);
  return sha ? { branch: m[1].slice("refs/heads/".length), sha } : null;
}

/**
 * Whether git has a committer identity for `root` was last asked of git under these config files'
 * versions: kept per project until one of them changes (the global and system files, the
 * repository's own, git's configuration environment). An `include` of another file is not followed.
 */
const identities = new Map<string, { stamp: string; has: boolean }>();

function identityStamp(root: string): string {
  const home = process.env.HOME ?? "";
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, ".config");
  const dirs = gitDirs(root);
  const files = [
    process.env.GIT_CONFIG_GLOBAL ?? path.join(home, ".gitconfig"),
    path.join(xdg, "git/config"),
    process.env.GIT_CONFIG_SYSTEM ?? "/etc/gitconfig",
    ...(dirs ? [path.join(dirs.commonDir, "config"), path.join(dirs.gitDir, "config.worktree")] : [root]),
  ];
  const env = ["GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_DIR"].map(
    (k) => process.env[k] ?? "",
  );
  return [
    ...env,
    ...files.map((f) => {
      try {
        const s = statSync(f, { bigint: true });
        return `${f}:${s.ino}:${s.size}:${s.mtimeNs}`;
      } catch {
        return `${f}:-`;
      }
    }),
  ].join("\0");
}

/** What git last said about `root`'s identity, if no config file changed since; undefined: ask git. */
export function knownIdentity(root: string): boolean | undefined {
  const k = identities.get(root);
  return k && k.stamp === identityStamp(root) ? k.has : undefined;
}

export function rememberIdentity(root: string, has: boolean): void {
  identities.set(root, { stamp: identityStamp(root), has });
}
