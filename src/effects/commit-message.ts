// The message of each commit autopilot makes, as a colleague would write it in this repository.
//
// The persona that did the work proposes the message (its result's `commitMessage`), as a developer
// writes their own; autopilot fits it to the repository's convention and keeps it, or words a
// subject of its own from what the commit holds when the proposal does not fit. The convention is,
// in order: the `commitMessage` template of `.harness/config.json`; Conventional Commits when the
// repository configures commitlint or its recent history is written that way; else the plain style
// of its history. autopilot's own identity (the step's label) goes in a trailer, never the subject,
// and the effect trailer after it is the same whatever the subject: the replay lookup
// (findEffectCommit) keys on it alone.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { readProjectConfig, type ProjectConfig } from "../session/config.js";
import { sanitizeLabel } from "./git.js";
import { humanSubjects } from "./recent-subjects.js";

/** The trailer that names autopilot's step in every commit it makes (the subject stays the work's). */
const STEP_TRAILER = "Autopilot";
/** Conventional Commits types (@commitlint/config-conventional's `type-enum`). */
const CONVENTIONAL_TYPES = [
  "build",
  "chore",
  "ci",
  "docs",
  "feat",
  "fix",
  "perf",
  "refactor",
  "revert",
  "style",
  "test",
];
/** commitlint's config-conventional refuses longer headers (and body or footer lines). */
const HEADER_MAX = 100;
/** What a subject should stay within (git's own tools and most hosts cut a longer one). */
const GOOD_SUBJECT = 72;
/** Body lines are wrapped here (commitlint's config-conventional refuses lines over 100). */
const BODY_WIDTH = 72;
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

/** The repository's way of writing commit subjects. */
export type Convention =
  | { kind: "template"; template: string }
  | { kind: "conventional"; types: string[]; headerMax: number; from: "commitlint" | "history" }
  | { kind: "plain"; capital: boolean };

/**
 * The rules a commitlint config sets that a subject must meet, read from its text whatever its
 * format (JSON, YAML's flow style, JS or TS): `type-enum` and `header-max-length`. What cannot be
 * read keeps config-conventional's values.
 */
function commitlintRules(text: string): { types: string[]; headerMax: number } {
  const types = /["']?type-enum["']?\s*:\s*\[\s*\d\s*,\s*["']always["']\s*,\s*\[([^\]]*)\]/.exec(text)?.[1];
  const listed = [...(types ?? "").matchAll(/["']([a-z][\w-]*)["']/gi)].map((m) => m[1].toLowerCase());
  const max = /["']?header-max-length["']?\s*:\s*\[\s*\d\s*,\s*["']always["']\s*,\s*(\d+)/.exec(text)?.[1];
  return {
    types: listed.length ? listed : CONVENTIONAL_TYPES,
    headerMax: max ? Math.max(20, Math.min(HEADER_MAX, Number(max))) : HEADER_MAX,
  };
}

const HEADER = /^(?<type>[a-zA-Z]+)(?:\((?<scope>[^()\r\n]*)\))?(?<bang>!)?: (?<desc>\S.*)$/;

/** How this repository writes subjects (see the top of this file). */
export async function repoConvention(root: string, config?: ProjectConfig): Promise<Convention> {
  const template = (config ?? (await readProjectConfig(root)).config).commitMessage;
  if (template) return { kind: "template", template };
  const lint = await commitlintConfig(root);
  if (lint) {
    const text = await readFile(lint, "utf8").catch(() => "");
    return { kind: "conventional", ...commitlintRules(text), from: "commitlint" };
  }
  const subjects = await humanSubjects(root);
  const conventional = subjects.filter((s) => HEADER.test(s)).length;
  if (subjects.length && conventional * 2 >= subjects.length)
    return { kind: "conventional", types: CONVENTIONAL_TYPES, headerMax: HEADER_MAX, from: "history" };
  // Too few subjects to tell a lower-case habit from chance: a capital, as git's own docs write them.
  const capital = subjects.filter((s) => /^[A-Z]/.test(s)).length;
  return { kind: "plain", capital: subjects.length < 3 || capital * 2 >= subjects.length };
}

/** What a commit holds, for the subject autopilot words when the persona proposed none that fits. */
type CommitKind = "work" | "fix" | "plan" | "recovery" | "task" | "userWork";

export interface CommitWhat {
  /** autopilot's label of the step ("Phase 1: Core — execution complete"): the step trailer. */
  label: string;
  kind?: CommitKind;
  /** The message the persona proposed: a subject line, then optionally a blank line and a body. */
  proposal?: string;
  /** What the work is about in a few words (a phase's or a task's name, a checkpoint's label). */
  topic?: string;
  /** The findings a fix round fixed (their titles, or their lines as the brief listed them). */
  fixed?: string[];
}

export interface CommitMessage {
  subject: string;
  /** Paragraphs after the subject. */
  body: string[];
  /** The trailer lines autopilot signs with (the step's label); the committer adds the effect's after them. */
  trailers: string[];
  /** Whose subject it is: the persona's proposal (fitted to the convention), or autopilot's own. */
  from: "persona" | "autopilot";
}

/** The one-line, control-free text of a proposal's or a label's words. */
function flat(s: string): string {
  return (
    s
      // eslint-disable-next-line no-control-regex -- the control characters are what is replaced
      .replace(/[\u0000-\u001f\u007f]+/g, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

/** "Add the parser" → "add the parser"; an acronym or an identifier ("CSV", "TokenBucket") keeps its case. */
function lowerFirst(s: string): string {
  return /^[A-Z][a-z]/.test(s) && !/^[A-Z][a-z]+[A-Z]/.test(s) ? s[0].toLowerCase() + s.slice(1) : s;
}

function upperFirst(s: string): string {
  return /^[a-z]/.test(s) ? s[0].toUpperCase() + s.slice(1) : s;
}

/** At most `max` characters, cut at a word with "…" when it must be cut. */
function withinWords(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.—–-]+$/, "")}…`;
}

const VERB =
  /^(add|adds|allow|build|change|create|drop|enable|expose|extract|fix|handle|implement|introduce|make|move|read|refactor|remove|rename|replace|return|support|update|use|validate|wire|write)\b/i;

/** The type of the work, from its kind and the words naming it. */
function typeOf(what: CommitWhat): string {
  if (what.kind === "fix") return "fix";
  if (what.kind === "plan") return "docs";
  if (what.kind === "userWork") return "chore";
  const words = `${what.topic ?? ""} ${what.label}`;
  if (/\btests?\b|\btesting\b/i.test(words) && !/\bimplement|\bfeature/i.test(words)) return "test";
  if (/\bdoc(s|umentation)?\b|\breadme\b/i.test(words)) return "docs";
  if (/\brefactor/i.test(words)) return "refactor";
  return "feat";
}

/** A finding as a fix commit names it: its title, without the file, the rationale or the scenario. */
export function findingTitle(line: string): string {
  return flat(line)
    .replace(/\s+(?:—|–|-)\s+.*$/, "")
    .replace(/\s+Scenario:.*$/, "")
    .replace(/\s+\([^()]*:\d+(?:-\d+)?\)$/, "")
    .replace(/^(?:blocking|warning|note|critical|important|suggestion)\s+/i, "");
}

/** What autopilot's own subject says, without a type: from what the commit holds. */
function ownDescription(what: CommitWhat): string {
  const topic = flat(what.topic ?? "").replace(/^(?:checkpoint|phase|task)\s+\d+\s*:\s*/i, "");
  const label = flat(what.label)
    .replace(/\s+[—–-]\s+/g, ", ")
    .replace(/:\s+/g, " ");
  switch (what.kind) {
    case "fix": {
      const fixed = (what.fixed ?? []).map(findingTitle).filter(Boolean);
      if (fixed.length) return `${lowerFirst(fixed[0])}${fixed.length > 1 ? ` (and ${fixed.length - 1} more)` : ""}`;
      return topic ? `address the findings on ${topic}` : label;
    }
    case "plan":
      return topic ? `plan ${topic}` : label;
    case "recovery":
      return topic ? `unfinished work on ${topic}` : label;
    case "userWork":
      return flat(what.label);
    default:
      return topic ? (VERB.test(topic) ? topic : `implement ${topic}`) : label;
  }
}

/** The persona's proposal read apart: its subject line and the paragraphs under it (trailers dropped). */
function readProposal(text: string | undefined): { header: string; body: string[] } | null {
  const lines = String(text ?? "")
    .replace(/\r\n?/g, "\n")
    .split("\n");
  while (lines.length && !lines[0].trim()) lines.shift();
  const header = flat(lines.shift() ?? "").replace(/^\[autopilot\](?:\[recovery\])?\s*/i, "");
  if (!header) return null;
  // Only autopilot writes its own trailers: a proposal's copy of one is dropped.
  const rest = lines
    .filter((l) => !new RegExp(`^(?:${STEP_TRAILER}|Autopilot-Effect):`, "i").test(l.trim()))
    .join("\n")
    .trim();
  return { header, body: rest ? rest.split(/\n\s*\n/).map((p) => p.trim()) : [] };
}

/** A subject in the convention from a description (and the proposal's type and scope, when it had them). */
function inConvention(
  c: Exclude<Convention, { kind: "template" }>,
  desc: string,
  what: CommitWhat,
  parts?: { type?: string; scope?: string; bang?: string },
): string {
  const d = desc.replace(/[.\s]+$/, "");
  if (c.kind === "plain") return c.capital ? upperFirst(d) : d;
  const type = parts?.type && c.types.includes(parts.type.toLowerCase()) ? parts.type.toLowerCase() : typeOf(what);
  return `${type}${parts?.scope ? `(${parts.scope})` : ""}${parts?.bang ?? ""}: ${lowerFirst(d)}`;
}

function templateRegex(template: string): RegExp {
  // A type is one word (`feat`), so `{type}: {summary}` does not take `feat(cli): ...` as it is:
  // the scope the template leaves out is dropped when the proposal is fitted to it.
  const parts = template.split(/(\{(?:label|summary|type)\})/);
  const slot = (p: string) => (p === "{type}" ? "[a-zA-Z]+" : ".+");
  return new RegExp(
    `^${parts.map((p) => (/^\{\w+\}$/.test(p) ? slot(p) : p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("")}$`,
  );
}

function fillTemplate(template: string, values: { label: string; summary: string; type: string }): string {
  return template.replace(/\{(label|summary|type)\}/g, (_, k: "label" | "summary" | "type") => values[k]);
}

/** A paragraph with each line longer than a commit line may be wrapped at BODY_WIDTH (a list item keeps its hang). */
function wrapped(paragraph: string): string {
  const out: string[] = [];
  for (const line of paragraph.split("\n")) {
    if (line.length <= HEADER_MAX) {
      out.push(line.trimEnd());
      continue;
    }
    const lead = /^\s*(?:[-*]\s+)?/.exec(line)![0];
    let cur = lead;
    let fresh = true;
    for (const word of line.slice(lead.length).trim().split(/\s+/)) {
      if (!fresh && `${cur} ${word}`.length > BODY_WIDTH) {
        out.push(cur);
        cur = " ".repeat(lead.length) + word;
      } else cur = fresh ? cur + word : `${cur} ${word}`;
      fresh = false;
    }
    out.push(cur);
  }
  return out.join("\n");
}

/** The step trailer's line: autopilot's label, within the 100 characters commitlint allows. */
export function stepTrailer(label: string): string {
  return `${STEP_TRAILER}: ${withinWords(flat(label) || "checkpoint", HEADER_MAX - STEP_TRAILER.length - 2)}`;
}

/**
 * The message of the commit `what`, in the repository's convention (see the top of this file).
 * `config`: the project config the caller already read for this call (else it is read here).
 */
export async function commitMessage(root: string, what: CommitWhat, config?: ProjectConfig): Promise<CommitMessage> {
  const c = await repoConvention(root, config);
  const proposal = what.kind === "userWork" ? null : readProposal(what.proposal);
  const m = proposal ? HEADER.exec(proposal.header) : null;
  const own = ownDescription(what);
  const fixedList = (what.fixed ?? []).map(findingTitle).filter(Boolean);
  const ownBody = what.kind === "fix" && fixedList.length > 1 ? [fixedList.map((f) => `- ${f}`).join("\n")] : [];
  const trailers = what.kind === "userWork" ? [] : [stepTrailer(what.label)];
  const body = (paragraphs: string[]) => paragraphs.map(wrapped);

  if (c.kind === "template") {
    const values = (desc: string, type: string) => ({
      label: sanitizeLabel(what.label),
      summary: lowerFirst(desc),
      type,
    });
    if (proposal && templateRegex(c.template).test(proposal.header) && proposal.header.length <= HEADER_MAX)
      return { subject: proposal.header, body: body(proposal.body), trailers, from: "persona" };
    if (proposal) {
      const desc = (m?.groups?.desc ?? proposal.header).replace(/[.\s]+$/, "");
      const subject = sanitizeLabel(
        fillTemplate(c.template, values(desc, m?.groups?.type?.toLowerCase() ?? typeOf(what))),
      );
      if (subject.length <= HEADER_MAX) return { subject, body: body(proposal.body), trailers, from: "persona" };
    }
    const subject = sanitizeLabel(fillTemplate(c.template, values(own, typeOf(what))));
    return { subject: withinWords(subject, HEADER_MAX), body: body(ownBody), trailers, from: "autopilot" };
  }
  const max = c.kind === "conventional" ? c.headerMax : HEADER_MAX;
  if (proposal) {
    const g = m?.groups;
    const subject = inConvention(
      c,
      g ? g.desc : proposal.header,
      what,
      g ? { type: g.type, scope: g.scope, bang: g.bang } : undefined,
    );
    if (subject.length <= max) return { subject, body: body(proposal.body), trailers, from: "persona" };
  }
  // Without a type to say so, a fix says it in words.
  const words = c.kind === "plain" && what.kind === "fix" ? `fix ${lowerFirst(own)}` : own;
  const subject = withinWords(inConvention(c, words, what), Math.min(GOOD_SUBJECT, max));
  return { subject, body: body(ownBody), trailers, from: "autopilot" };
}
