// The subject of each commit autopilot makes, in the repository's convention: the template of
// `.harness/config.json` ("commitMessage"), else Conventional Commits when the repository has a
// commitlint config (the usual husky setup rejects anything else), else `[autopilot] <label>`.
// The effect trailer that follows the subject is the same whatever the subject: the replay lookup
// (findEffectCommit) keys on it alone.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { readProjectConfig, type ProjectConfig } from "../session/config.js";
import { checkpointMessage, sanitizeLabel } from "./git.js";

/** The template used with a commitlint config and no `commitMessage`. */
const CONVENTIONAL_TEMPLATE = "chore(autopilot): {summary}";
/** commitlint's config-conventional refuses longer headers. */
const CONVENTIONAL_HEADER_MAX = 100;

/** The file names commitlint reads its config from (besides a `commitlint` key in package.json or package.yaml). */
export const COMMITLINT_FILES = [
  ".commitlintrc",
  ".commitlintrc.json",
  ".commitlintrc.yaml",
  ".commitlintrc.yml",
  ".commitlintrc.js",
  ".commitlintrc.cjs",
  ".commitlintrc.mjs",
  ".commitlintrc.ts",
  ".commitlintrc.cts",
  ".commitlintrc.mts",
  "commitlint.config.js",
  "commitlint.config.cjs",
  "commitlint.config.mjs",
  "commitlint.config.ts",
  "commitlint.config.cts",
  "commitlint.config.mts",
];

/**
 * Where the repository configures commitlint, or null: the project folder and each folder above it
 * up to the repository's top (a monorepo package's commits are checked by the root's hooks).
 */
export async function commitlintConfig(root: string): Promise<string | null> {
  let dir = path.resolve(root);
  for (;;) {
    for (const name of COMMITLINT_FILES) if (existsSync(path.join(dir, name))) return path.join(dir, name);
    const pkg = await readFile(path.join(dir, "package.json"), "utf8").catch(() => null);
    if (pkg) {
      try {
        const json = JSON.parse(pkg) as Record<string, unknown> | null;
        if (json && typeof json === "object" && json.commitlint !== undefined) return path.join(dir, "package.json");
      } catch {
        // a package.json that does not parse configures nothing
      }
    }
    const yaml = await readFile(path.join(dir, "package.yaml"), "utf8").catch(() => null);
    if (yaml && /^commitlint\s*:/m.test(yaml)) return path.join(dir, "package.yaml");
    if (existsSync(path.join(dir, ".git"))) return null;
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/**
 * A label as a Conventional Commits subject: "Phase 1: Counting Core — execution complete" →
 * "phase 1 Counting Core, execution complete" (no colon to confuse the header's parser, a lower-case
 * start, no full stop at the end).
 */
export function conventionalSummary(label: string): string {
  let s = sanitizeLabel(label)
    .replace(/\s+[—–-]\s+/g, ", ")
    .replace(/:\s+/g, " ")
    .replace(/[.\s]+$/, "");
  if (/^[A-Z][a-z]/.test(s)) s = s[0].toLowerCase() + s.slice(1);
  return s || "checkpoint";
}

function fill(template: string, label: string): string {
  return template.replace(/\{(label|summary)\}/g, (_, k: string) =>
    k === "label" ? sanitizeLabel(label) : conventionalSummary(label),
  );
}

function bounded(subject: string, max: number): string {
  return subject.length > max ? subject.slice(0, max - 1) + "…" : subject;
}

export interface SubjectFor {
  label: string;
  recovery?: boolean;
  /** The user's own changes, committed at their request: `Work in progress before autopilot (slug)` by default. */
  userWork?: boolean;
}

/**
 * The subject of the commit `what`, in the repository's convention (see the top of this file).
 * `config`: the project config the caller already read for this call (else it is read here).
 */
export async function commitSubject(root: string, what: SubjectFor, config?: ProjectConfig): Promise<string> {
  const template = (config ?? (await readProjectConfig(root)).config).commitMessage;
  if (template) return sanitizeLabel(fill(template, what.label));
  if (await commitlintConfig(root)) return bounded(fill(CONVENTIONAL_TEMPLATE, what.label), CONVENTIONAL_HEADER_MAX);
  return what.userWork ? sanitizeLabel(what.label) : checkpointMessage(what.label, what.recovery === true);
}
