// Session slugs and spec paths. The slug rule is the skill's, verbatim, so a session started by the
// upstream skill and one started here for the same spec land in the same `.harness/sessions/<slug>/`.
import { statSync } from "node:fs";
import path from "node:path";
import { AutopilotError } from "../protocol/errors.js";
import { checkPath } from "./confine.js";

/**
 * The skill's four steps: strip a leading `docs/`, drop a trailing `.md`, replace every `/` and `.`
 * with `--`, lowercase. `specPath` is relative to the project root, POSIX separators.
 */
export function slugFromSpecPath(specPath: string): string {
  // A leading "./" is not part of the path the skill would have been given; without this
  // "./docs/x.md" and "docs/x.md" would name two sessions for one spec.
  let p = specPath.replace(/^(\.\/)+/, "");
  if (p.startsWith("docs/")) p = p.slice("docs/".length);
  if (p.endsWith(".md")) p = p.slice(0, -".md".length);
  return p.replace(/[/.]/g, "--").toLowerCase();
}

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

/**
 * Resolve a spec given by a user or client against the project root. Relative paths are taken from
 * the project root (not the process cwd: an MCP server's cwd is whatever the client chose).
 */
export function resolveSpecPath(projectRoot: string, spec: string): { abs: string; rel: string } {
  if (typeof spec !== "string" || spec.trim() === "" || spec.includes("\0")) {
    throw new AutopilotError(
      "spec_not_found",
      "No spec path was given. Pass the spec's path relative to the project root, e.g. docs/changes/my-feature/proposal.md.",
    );
  }
  const root = path.resolve(projectRoot);
  // Lexical check first: it must hold even when the file does not exist yet, so the error for
  // "../elsewhere/spec.md" is about the escape, not about a missing file.
  const lexical = checkPath(root, spec);
  if (!lexical.ok) {
    throw new AutopilotError(
      "outside_project",
      `The spec ${JSON.stringify(spec)} is outside the project (${root}). Use a spec inside the project, given relative to its root.`,
    );
  }
  const abs = lexical.abs;
  let st;
  try {
    st = statSync(abs);
  } catch {
    throw new AutopilotError(
      "spec_not_found",
      `Spec not found: ${toPosix(path.relative(root, abs))} (looked in ${root}). Check the path; it is relative to the project root.`,
    );
  }
  // Symlinks are followed only if they stay inside: a spec symlinked from elsewhere would let a
  // client make the server read (and plan from) any file on the machine.
  let linked;
  try {
    linked = checkPath(root, spec, { links: true });
  } catch {
    throw new AutopilotError("spec_not_found", `Spec not readable: ${spec}. Check the path and its permissions.`);
  }
  if (!linked.ok) {
    throw new AutopilotError(
      "outside_project",
      `The spec ${JSON.stringify(spec)} resolves to ${linked.escape.why === "link" ? linked.escape.real : "a broken link"}, outside the project (${root}). Copy the spec into the project instead of linking it.`,
    );
  }
  if (!st.isFile()) {
    throw new AutopilotError(
      "spec_not_found",
      `${spec} is not a file. Pass the spec's Markdown file, e.g. docs/changes/my-feature/proposal.md.`,
    );
  }
  return { abs, rel: toPosix(path.relative(root, abs)) };
}

/**
 * Slugs given by clients become directory names: refuse anything that could leave
 * `.harness/sessions/`.
 */
export function assertSafeSlug(slug: unknown): asserts slug is string {
  if (typeof slug !== "string" || slug === "" || slug === "." || slug.includes("\0")) {
    throw new AutopilotError(
      "unknown_session",
      `Not a session name: ${JSON.stringify(slug)}. Call autopilot_status to list the sessions.`,
    );
  }
  if (slug.includes("/") || slug.includes("\\") || slug.includes("..")) {
    throw new AutopilotError(
      "outside_project",
      `Session name ${JSON.stringify(slug)} contains a path separator or "..". Session names are slugs like changes--my-feature--proposal; call autopilot_status to list them.`,
    );
  }
}
