// Whether a learning of the session still holds when the session ends: promoted to the project's
// `.harness/learnings.md` only if the session's later work has not contradicted it. What can be
// checked is checked: a file it names that is gone, an npm script it names that the package no
// longer has, a hook whose refusal it records that no longer checks anything. A learning that does
// not hold stays in the session's own file (nothing is lost), with the reason in the DONE report.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { CommitChecks } from "./commit-checks.js";

/** Tokens that read as a project path: a slash or a file extension, no glob, no URL, no scheme. */
function pathsIn(text: string): string[] {
  const quoted = [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]);
  const bare = [...text.matchAll(/(?:^|[\s(])((?:\.{0,2}\/)?[\w.-]+(?:\/[\w.-]+)+)(?=[\s),;:]|\.(?:\s|$)|$)/g)].map(
    (m) => m[1],
  );
  return [...new Set([...quoted, ...bare])].filter(
    (t) => /\//.test(t) && !/[*?{}[\]<>]|:\/\/|^[a-z]+:/i.test(t) && !t.startsWith("/") && !/^\.\.?$/.test(t),
  );
}

/** `npm run lint`, `npm test`: the scripts a learning tells later work to run. */
function scriptsIn(text: string): string[] {
  return [
    ...[...text.matchAll(/\bnpm run ([\w:.-]+)/g)].map((m) => m[1]),
    ...[...text.matchAll(/\bnpm (test|start)\b/g)].map((m) => m[1]),
  ];
}

export interface LearningFacts {
  root: string;
  scripts: Set<string> | null;
  checks: CommitChecks | null;
}

export async function learningFacts(root: string, checks: CommitChecks | null): Promise<LearningFacts> {
  let scripts: Set<string> | null = null;
  try {
    const pkg = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as { scripts?: object };
    scripts = new Set(Object.keys(pkg.scripts ?? {}));
  } catch {
    // No package.json (or one that does not read): its scripts are not checked.
  }
  return { root, scripts, checks };
}

/** Why the session's later work contradicts `entry`, or null when nothing does. */
export function contradiction(entry: string, f: LearningFacts): string | null {
  const hook = /The repository's (\S+) hook refused a commit/.exec(entry)?.[1];
  if (hook && f.checks && !f.checks.checks.some((c) => c.hook === hook))
    return `the ${hook} hook no longer runs any check`;
  const gone = pathsIn(entry).find((p) => !existsSync(path.join(f.root, p)));
  if (gone) return `it names ${gone}, which no longer exists`;
  const missing = f.scripts && scriptsIn(entry).find((s) => !f.scripts!.has(s));
  if (missing) return `it names the npm script "${missing}", which package.json no longer has`;
  return null;
}
