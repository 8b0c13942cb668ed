// `docs/roadmap.md`: read for context at INIT, synced at PHASE_COMPLETE (planned → in-progress)
// and set to done at DONE. The file is hand-edited (see ../shared/corpus/upstream/roadmap/roadmap.md:
// front matter, `## Milestone` sections, `### Feature` blocks of `- **Field:** value` lines, an
// assignment table at the end), so writes change only the one status value and keep every other
// byte, line ending included. Idempotent: a status already at its target is left alone and the
// file is not rewritten. A status a human set that is not on the way forward (done, blocked for
// sync, anything unknown) is never regressed.
import { matter } from "../markdown/front-matter.js";
import { readTextOrNull, writeTextAtomic } from "./fsutil.js";
import type { ProjectPaths } from "../session/paths.js";

interface RoadmapFeature {
  name: string;
  milestone: string | null;
  /** Lower-cased status value, or null when the block has no Status line. */
  status: string | null;
  spec: string | null;
  /** Every `- **Field:** value` of the block, keyed by field name as written. */
  fields: Record<string, string>;
  /** 0-based line of the `### ` heading and of the Status line. */
  line: number;
  statusLine: number | null;
}

interface RoadmapMilestone {
  name: string;
  line: number;
  features: RoadmapFeature[];
}

export interface Roadmap {
  frontMatter: Record<string, unknown>;
  title: string | null;
  milestones: RoadmapMilestone[];
  /** Features in file order, including any before the first milestone. */
  features: RoadmapFeature[];
}

const FIELD = /^\s*[-*]\s+\*\*([^*]+?):\*\*\s*(.*)$/;
const STATUS_VALUE = /^(\s*[-*]\s+\*\*Status:\*\*\s*)(\S+)/i;
const NONE = new Set(["", "—", "-", "–", "none", "n/a"]);

function frontMatterLines(lines: string[]): number {
  if (lines[0]?.replace(/\r$/, "") !== "---") return 0;
  for (let i = 1; i < lines.length; i++) if (/^(---|\.\.\.)\r?$/.test(lines[i])) return i + 1;
  return 0;
}

export function parseRoadmap(text: string): Roadmap {
  let frontMatter: Record<string, unknown>;
  try {
    frontMatter = { ...(matter(text).data as Record<string, unknown>) };
  } catch {
    frontMatter = {};
  }
  const lines = text.split("\n");
  const start = frontMatterLines(lines);
  const milestones: RoadmapMilestone[] = [];
  const features: RoadmapFeature[] = [];
  let title: string | null = null;
  let milestone: RoadmapMilestone | null = null;
  let feature: RoadmapFeature | null = null;
  let fence: string | null = null;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, "");
    const f = /^\s*(```|~~~)/.exec(line);
    if (f) {
      fence = fence === null ? f[1] : fence === f[1] ? null : fence;
      continue;
    }
    if (fence) continue;
    let m: RegExpExecArray | null;
    if ((m = /^#\s+(.+?)\s*#*\s*$/.exec(line))) {
      title ??= m[1];
      feature = null;
    } else if ((m = /^##\s+(.+?)\s*#*\s*$/.exec(line))) {
      milestone = { name: m[1], line: i, features: [] };
      milestones.push(milestone);
      feature = null;
    } else if ((m = /^###\s+(.+?)\s*#*\s*$/.exec(line))) {
      feature = {
        name: m[1],
        milestone: milestone?.name ?? null,
        status: null,
        spec: null,
        fields: {},
        line: i,
        statusLine: null,
      };
      features.push(feature);
      milestone?.features.push(feature);
    } else if (/^#{4,}\s/.test(line)) {
      // Deeper headings belong to the feature's body.
    } else if (feature && (m = FIELD.exec(line))) {
      const key = m[1].trim();
      const value = m[2].trim();
      if (!(key in feature.fields)) feature.fields[key] = value;
      if (key.toLowerCase() === "status" && feature.statusLine === null) {
        feature.status = value.split(/\s+/)[0]?.toLowerCase() || null;
        feature.statusLine = i;
      } else if (key.toLowerCase() === "spec" && feature.spec === null) {
        feature.spec = NONE.has(value.toLowerCase()) ? null : value.replace(/^`|`$/g, "");
      }
    }
  }
  return { frontMatter, title, milestones, features };
}

export async function readRoadmap(project: ProjectPaths): Promise<Roadmap | null> {
  const text = await readTextOrNull(project.roadmap);
  return text === null ? null : parseRoadmap(text);
}

function normPath(p: string): string {
  return p.trim().replace(/\\/g, "/").replace(/^\.\//, "").replace(/\/+/g, "/");
}

/**
 * The spec's feature: the first whose `- **Spec:**` names the spec path; otherwise the first whose
 * name equals the spec's H1 title, case-insensitively. Null when neither matches.
 */
function findFeature(
  roadmap: Roadmap,
  specPath: string | null | undefined,
  featureName: string | null | undefined,
): RoadmapFeature | null {
  if (specPath) {
    const want = normPath(specPath);
    const bySpec = roadmap.features.find((f) => {
      if (!f.spec) return false;
      const have = normPath(f.spec);
      // The roadmap names specs from the project root; a spec path given with or without the
      // leading docs/ is the same spec.
      return have === want || have === `docs/${want}` || `docs/${have}` === want;
    });
    if (bySpec) return bySpec;
  }
  const name = featureName?.trim().toLowerCase();
  if (name) return roadmap.features.find((f) => f.name.trim().toLowerCase() === name) ?? null;
  return null;
}

export interface RoadmapChange {
  changed: boolean;
  reason: "updated" | "no_roadmap" | "no_feature" | "no_status_line" | "already" | "human_status";
  feature?: string;
  from?: string | null;
  to?: string;
}

async function setStatus(
  project: ProjectPaths,
  specPath: string | null | undefined,
  featureName: string | null | undefined,
  target: string,
  from: ReadonlySet<string>,
): Promise<RoadmapChange> {
  const file = project.roadmap;
  const text = await readTextOrNull(file);
  if (text === null) return { changed: false, reason: "no_roadmap" };
  const feature = findFeature(parseRoadmap(text), specPath, featureName);
  if (!feature) return { changed: false, reason: "no_feature" };
  if (feature.statusLine === null) return { changed: false, reason: "no_status_line", feature: feature.name };
  if (feature.status === target)
    return { changed: false, reason: "already", feature: feature.name, from: feature.status, to: target };
  if (!feature.status || !from.has(feature.status)) {
    return { changed: false, reason: "human_status", feature: feature.name, from: feature.status };
  }
  const lines = text.split("\n");
  lines[feature.statusLine] = lines[feature.statusLine].replace(STATUS_VALUE, `$1${target}`);
  await writeTextAtomic(file, lines.join("\n"));
  return { changed: true, reason: "updated", feature: feature.name, from: feature.status, to: target };
}

export interface SyncRoadmapArgs {
  specPath: string;
  /** The spec's H1 title, used when no feature names the spec path. */
  featureName?: string | null;
  phasesComplete: number;
  phasesTotal: number;
}

/**
 * PHASE_COMPLETE: a feature still `planned` (or `backlog`) becomes `in-progress` once a phase is
 * complete. `in-progress` stays; `done`, `blocked` and any status we do not know are a human's
 * and are left alone. Missing roadmap or feature: nothing happens and no file is created.
 */
export async function syncRoadmap(project: ProjectPaths, args: SyncRoadmapArgs): Promise<RoadmapChange> {
  if (!(args.phasesComplete > 0)) {
    const exists = (await readTextOrNull(project.roadmap)) !== null;
    return { changed: false, reason: exists ? "already" : "no_roadmap" };
  }
  return setStatus(project, args.specPath, args.featureName, "in-progress", new Set(["planned", "backlog"]));
}

/**
 * DONE: the spec's feature becomes `done` from any step of the way (backlog, planned,
 * in-progress, blocked: the work is finished). Unknown statuses are left for a human.
 */
export async function setFeatureDone(
  project: ProjectPaths,
  args: { specPath: string; featureName?: string | null },
): Promise<RoadmapChange> {
  return setStatus(
    project,
    args.specPath,
    args.featureName,
    "done",
    new Set(["backlog", "planned", "in-progress", "blocked"]),
  );
}
