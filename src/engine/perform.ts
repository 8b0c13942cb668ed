// Performs one effect from the outbox. Every effect is idempotent (commits carry their effect id
// as a trailer, appended lines carry a marker, whole files are rewritten to the same bytes), so
// replaying an outbox after a crash changes nothing that was already done.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { AutopilotState, Effect, Notice } from "../session/schema.js";
import { findingsIn, recordFixCommit } from "../session/findings.js";
import { detectCommitChecks, precheckCommit } from "../effects/commit-checks.js";
import { contradiction, learningFacts } from "../effects/learning-check.js";
import type { SessionPaths } from "../session/paths.js";
import type { ProjectConfig } from "../session/config.js";
import { commitCheckpoint, gitRunner, leftOutNotice } from "../effects/git.js";
import { harnessFilesStatus, sessionsIgnored } from "../effects/git-history.js";
import { withRepoLock } from "../effects/repo-lock.js";
import { prTitleAndBody } from "../effects/pull-request.js";
import { finishFacts } from "../effects/finish.js";
import { commitMessage } from "../effects/commit-message.js";
import { readBaseline, takeBaseline, writeBaseline } from "../effects/ownership.js";
import { appendFailure } from "../effects/failures.js";
import { clearScratchpad } from "../effects/scratchpad.js";
import { setFeatureDone, syncRoadmap } from "../effects/roadmap.js";
import { writeSessionSummary } from "../effects/summary.js";
import { writePhaseReview } from "../effects/reviews.js";
import { writeFinalHandoff } from "../effects/handoff.js";
import {
  appendDoneLearnings,
  appendSessionLearning,
  countLearningEntries,
  promoteSessionLearnings,
  pruneNotice,
} from "../effects/learnings.js";
import { closeExecutionState, resetExecutionState } from "../effects/execution-state.js";
import { parseSpec } from "../markdown/spec.js";
import { specOverview } from "../markdown/spec-overview.js";
import { writeTextAtomic } from "../effects/fsutil.js";
import { doneTotals } from "../../machines/reports.js";

async function specTitle(root: string, state: AutopilotState): Promise<string | null> {
  try {
    return parseSpec(await readFile(path.join(root, state.specPath), "utf8")).title;
  } catch {
    return null;
  }
}

/** Whether git ignores the session's folder, asked once per outbox (.gitignore is never autopilot's). */
function ignoredOnce(root: string, slug: string, opts: PerformOptions): Promise<boolean> {
  if (!opts.asked) return sessionsIgnored(root, slug).catch(() => false);
  return (opts.asked.sessionsIgnored ??= sessionsIgnored(root, slug).catch(() => false));
}

/**
 * The id an effect leaves in shared places (commit trailers, markers in .harness/failures.md and
 * learnings.md). Step-based ids alone ("s4-commit") repeat between sessions: a second session of
 * the same repository found the first one's commit or failure line, took it for its own and skipped
 * its work (found by tests/reliability/concurrency.test.ts). The slug and starting commit name the
 * session, so a later session of the same spec gets ids of its own too.
 */
function sharedEffectId(slug: string, state: AutopilotState, effect: Effect): string {
  return `${slug}@${(state.startingCommit ?? "none").slice(0, 12)}/${effect.id}`;
}

/** Records what the effect did for the Step's report (src/session/notices.ts words it). */
function notify(state: AutopilotState, ...notices: (Notice | null)[]): AutopilotState {
  const add = notices.filter((n): n is Notice => n !== null);
  return add.length ? { ...state, notices: [...(state.notices ?? []), ...add] } : state;
}

/**
 * Effects that read, change and rewrite a file every session of the project shares. Two sessions
 * finishing at once each read the old file and the last writer dropped the other's line; these run
 * under the repository lock (commits take it themselves).
 */
const SHARED_FILE_EFFECTS = new Set<Effect["type"]>(["appendFailure", "appendLearnings", "syncRoadmap", "roadmapDone"]);

/** How one effect is performed, besides the session and the effect. */
export interface PerformOptions {
  /** `fresh`: owed by this call's own transition, so not tried before (no replay to look for). */
  fresh?: boolean;
  /** How the person runs autopilot's CLI here: the commands a report names. */
  cli?: readonly string[];
  /** Answers asked of git once for all the effects of one outbox (nothing autopilot does changes them). */
  asked?: { sessionsIgnored?: Promise<boolean> };
}

/**
 * Performs one effect; every path it touches comes from `ws`, the session's paths. `config`: the
 * project config of this call (the engine reads it at most once per call; else read here).
 */
export async function performEffect(
  ws: SessionPaths,
  state: AutopilotState,
  effect: Effect,
  now: string,
  config?: () => Promise<ProjectConfig>,
  opts: PerformOptions = {},
): Promise<AutopilotState> {
  if (SHARED_FILE_EFFECTS.has(effect.type))
    return withRepoLock(ws.projectRoot, () => performUnlocked(ws, state, effect, now, config, opts));
  return performUnlocked(ws, state, effect, now, config, opts);
}

async function performUnlocked(
  ws: SessionPaths,
  state: AutopilotState,
  effect: Effect,
  now: string,
  config?: () => Promise<ProjectConfig>,
  opts: PerformOptions = {},
): Promise<AutopilotState> {
  const root = ws.projectRoot;
  const slug = ws.slug;
  switch (effect.type) {
    case "commit": {
      const a = effect.args;
      const message = await commitMessage(
        root,
        {
          label: a.label,
          kind: a.kind ?? (a.recovery ? "recovery" : undefined),
          proposal: a.message,
          topic: a.topic,
          fixed: a.fixed,
        },
        await config?.(),
      );
      const r = await commitCheckpoint(root, {
        label: a.label,
        ...message,
        effectId: sharedEffectId(slug, state, effect),
        phase: a.phase,
        since: state.startingCommit,
        baseline: await readBaseline(ws),
        slug,
        ...(a.noVerify ? { noVerify: true } : {}),
        ...(opts.fresh ? { fresh: true } : {}),
        precheck: precheckCommit(root),
      });
      const leftOut = leftOutNotice(r.leftOut ?? []);
      // A fix round's findings are fixed by this commit: their fate names it.
      const findingLedger = recordFixCommit(state.findingLedger, effect.id, r.committed ? r.sha! : null);
      const fated = findingLedger === state.findingLedger ? state : { ...state, findingLedger };
      if (!r.committed) return notify(fated, { kind: "commitSkipped", label: a.label }, leftOut);
      const already = state.commits.some((c) => c.sha === r.sha);
      const next = already
        ? fated
        : {
            ...fated,
            commits: [
              ...state.commits,
              {
                sha: r.sha!,
                label: a.label,
                recovery: a.recovery,
                phase: a.phase,
                timestamp: now,
                ...(r.message ? { subject: r.message } : {}),
              },
            ],
          };
      return notify(next, { kind: "committed", label: a.label, sha: r.sha!, subject: r.message }, leftOut);
    }
    case "commitUserChanges": {
      // The user answered "commit them first": their pre-session changes, exactly, in a commit of
      // their own (not an [autopilot] one); the session starts from it.
      const baseline = await readBaseline(ws);
      const paths = (baseline?.entries ?? []).map((e) => e.path);
      const r = await commitCheckpoint(root, {
        label: "changes made before autopilot",
        ...(await commitMessage(
          root,
          { label: `Work in progress before autopilot (${slug})`, kind: "userWork" },
          await config?.(),
        )),
        effectId: sharedEffectId(slug, state, effect),
        since: state.startingCommit,
        paths,
      });
      await writeBaseline(ws, await takeBaseline(root, gitRunner(root), now));
      if (!r.committed) return notify(state, { kind: "userChangesAlreadyCommitted" });
      return notify(
        { ...state, startingCommit: r.sha! },
        { kind: "userChangesCommitted", count: paths.length, sha: r.sha!, message: r.message ?? "" },
      );
    }
    case "writeReview":
      await writePhaseReview(ws, effect.args.phase, effect.args.findings, {
        rounds: effect.args.rounds,
        name: effect.args.name,
        tracked: findingsIn(state.findingLedger, { source: "review", phase: effect.args.phase }),
      });
      return state;
    case "resetExecutionState":
      await resetExecutionState(ws, effect.args.phase);
      return state;
    case "closeExecutionState":
      await closeExecutionState(ws);
      return state;
    case "appendSessionLearnings": {
      let added = 0;
      for (const text of effect.args.items) {
        const r = await appendSessionLearning(ws, {
          date: effect.args.date,
          skill: effect.args.skill,
          outcome: "gotcha",
          text,
        });
        if (r.appended) added++;
      }
      return added
        ? notify(state, {
            kind: "learningsKept",
            count: added,
            file: path.posix.join(ws.sessionDirRel, "learnings.md"),
          })
        : state;
    }
    case "reportHarnessFiles": {
      const status = await harnessFilesStatus(root, slug, ignoredOnce(root, slug, opts)).catch(() => null);
      const kept = keptWorktrees(root, state);
      return status
        ? notify(state, {
            kind: "harnessFiles",
            ...status,
            ...(kept.length ? { kept } : {}),
            session: slug,
            ...(opts.cli ? { cli: [...opts.cli] } : {}),
          })
        : state;
    }
    case "appendFailure": {
      const { date, skill, type, text } = effect.args;
      await appendFailure(ws, {
        date,
        skill,
        type,
        text,
        effectId: sharedEffectId(slug, state, effect),
      });
      return state;
    }
    case "clearScratchpad":
      await clearScratchpad(ws, effect.args.phase);
      return state;
    case "syncRoadmap":
      await syncRoadmap(ws, {
        specPath: state.specPath,
        featureName: await specTitle(root, state),
        phasesComplete: state.phases.filter((p) => p.status === "complete").length,
        phasesTotal: state.phases.length,
      });
      return state;
    case "roadmapDone":
      await setFeatureDone(ws, { specPath: state.specPath, featureName: await specTitle(root, state) });
      return state;
    case "writeSummary": {
      const a = effect.args;
      await writeSessionSummary(ws, {
        session: slug,
        // The time the transition happened, saved with the effect: a replay writes the same bytes.
        lastActive: a.lastActive ?? now,
        skill: "harness-autopilot",
        phase: a.phase ?? null,
        status: a.status,
        spec: state.specPath,
        plan: a.plan ?? null,
        keyContext: a.keyContext,
        nextStep:
          a.ignoreAdvice && !(await ignoredOnce(root, slug, opts))
            ? `${a.nextStep} Keep .harness/sessions/ out of git (add the line \`.harness/sessions/\` to .gitignore).`
            : a.nextStep,
      });
      return state;
    }
    case "writeFinalHandoff": {
      const totals = doneTotals(state);
      const title = await specTitle(root, state);
      await writeFinalHandoff(ws, {
        summary: `Completed ${totals.phasesCompleted} phases with ${totals.tasks} total tasks`,
        completed: state.phases.map((p, i) => `Phase ${i + 1}: ${p.name}${p.status === "skipped" ? " (skipped)" : ""}`),
        pending: [],
        concerns: [],
        decisions: state.decisions,
        contextKeywords: (title ?? "")
          .split(/\W+/)
          .filter((w) => w.length > 3)
          .slice(0, 8),
        finalReview: { status: state.finalReview.status, findingsCount: state.finalReview.findings.length },
      });
      if (!state.startingCommit) return state;
      const startingCommit = state.startingCommit;
      const text = await readFile(path.join(root, state.specPath), "utf8").catch(() => null);
      // The pull request's history and the repository's remotes are asked of git at once (both
      // read only); how to finish the branch then takes the pull request's title.
      const [pr, facts] = await Promise.all([
        prTitleAndBody(root, startingCommit, state, { title, overview: text === null ? null : specOverview(text) }),
        finishFacts(ws, ""),
      ]);
      await writeTextAtomic(ws.pr, pr.body);
      return notify(
        { ...state, pullRequest: { ...pr, ...(title ? { spec: title } : {}) } },
        { kind: "finish", ...facts, title: pr.title },
      );
    }
    case "appendLearnings": {
      const totals = doneTotals(state);
      const title = (await specTitle(root, state)) ?? state.specPath;
      await appendDoneLearnings(ws, {
        date: now,
        specName: title,
        phases: totals.phasesCompleted,
        tasks: totals.tasks,
        retries: totals.retries,
        observation:
          totals.retries > 0 || totals.overriddenReviews > 0
            ? `${totals.retries} retries and ${totals.overriddenReviews} overridden review(s) across the run.`
            : null,
        effectId: sharedEffectId(slug, state, effect),
      });
      const facts = await learningFacts(root, await detectCommitChecks(root).catch(() => null));
      const promoted = await promoteSessionLearnings(ws, (e) => contradiction(e, facts));
      return notify(
        state,
        {
          kind: "learningsPromoted",
          promoted: promoted.promoted,
          kept: promoted.kept,
          summaryTo: ".harness/learnings.md",
          ...(promoted.held.length ? { held: promoted.held.map((h) => h.why) } : {}),
        },
        pruneNotice(await countLearningEntries(ws)),
      );
    }
    default: {
      const unknown: never = effect;
      throw new Error(`unknown effect ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * A parallel session's worktrees that hold a stopped attempt's work, never merged (a task re-run
 * after it wrote outside its files, or a defect's or held task's), and still on disk.
 */
function keptWorktrees(root: string, state: AutopilotState): Array<{ worktree: string; branch: string }> {
  const kept = new Map<string, string>();
  for (const wave of state.waveLog ?? [])
    for (const t of wave.tasks) {
      for (const u of t.unmerged ?? []) kept.set(u.path, u.branch);
      if (t.status === "defect" || t.status === "held") kept.set(t.worktree.path, t.worktree.branch);
    }
  return [...kept]
    .filter(([p]) => existsSync(path.resolve(root, p)))
    .map(([worktree, branch]) => ({ worktree, branch }));
}
