// Where plans live and how they are named. Upstream projects keep a spec at
// `docs/changes/<topic>/proposal.md` and its plans beside it in `docs/changes/<topic>/plans/`;
// older projects use one `docs/plans/` folder. No planner handoff upstream names its plan,
// so a plan is found again by the phase name in its filename.
import { readdir } from "node:fs/promises";
import path from "node:path";
import { AutopilotError } from "../protocol/errors.js";

export const LEGACY_PLANS_DIR = "docs/plans";
const KEBAB_MAX = 60;

function toPosix(p: string): string {
  return p.replace(/\\/g, "/");
}

/**
 * The plans folder for a spec, project-relative with `/` separators. `specPath` is
 * project-relative (an absolute path works too when it contains `docs/changes/<topic>/`).
 */
export function plansDirFor(specPath: string): string {
  const m = /(?:^|\/)docs\/changes\/([^/]+)\/[^/]+$/.exec(toPosix(specPath));
  return m ? `docs/changes/${m[1]}/plans` : LEGACY_PLANS_DIR;
}

/** Lowercase ASCII words joined by single dashes, at most KEBAB_MAX characters, never empty. */
export function kebab(name: string): string {
  let s = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (s.length > KEBAB_MAX) {
    s = s.slice(0, KEBAB_MAX);
    // Cut at a word boundary so a filename never ends mid-word, unless that loses too much.
    const dash = s.lastIndexOf("-");
    if (dash >= KEBAB_MAX / 2) s = s.slice(0, dash);
    s = s.replace(/-+$/, "");
  }
  return s || "phase";
}

export function planFileName(date: string, phaseName: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    throw new AutopilotError("bad_input", `plan date must be YYYY-MM-DD, got "${date}"`);
  }
  return `${date}-${kebab(phaseName)}-plan.md`;
}

async function listMarkdown(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isFile() && e.name.toLowerCase().endsWith(".md")).map((e) => e.name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR") return [];
    throw e;
  }
}

function filenameDate(name: string): string {
  return /^(\d{4}-\d{2}-\d{2})/.exec(name)?.[1] ?? "";
}

/**
 * The project-relative path of the plan for a phase: the spec's plans folder first, then
 * `docs/plans/`; within a folder the newest by filename date wins (a re-planned phase leaves
 * the older plan behind). Null when none matches.
 */
export async function findPlanForPhase(
  projectRoot: string,
  specPath: string,
  phaseName: string,
): Promise<string | null> {
  const rel = path.isAbsolute(specPath) ? path.relative(projectRoot, specPath) : specPath;
  const needle = kebab(phaseName);
  const dirs = [...new Set([plansDirFor(rel), LEGACY_PLANS_DIR])];
  for (const dir of dirs) {
    const names = (await listMarkdown(path.join(projectRoot, dir))).filter((n) => n.toLowerCase().includes(needle));
    if (names.length === 0) continue;
    names.sort((a, b) => filenameDate(b).localeCompare(filenameDate(a)) || b.localeCompare(a));
    return `${dir}/${names[0]}`;
  }
  return null;
}
