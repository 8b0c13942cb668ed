#!/usr/bin/env node
// autopilot's SessionStart hook, written by `autopilot install` and carried by the plugins and the
// extension (rewritten by each install or update: edit the hook entry in your settings, or disable
// the plugin's hook, instead of this file). When a coding client starts, resumes, or
// comes back from /clear or a compaction, it prints one line for the model when this project has
// an autopilot session in progress, so "continue" picks the session up; nothing otherwise.
// It reads only the state files, never fails (exit 0 whatever happens) and imports nothing but
// Node's fs and path, so it starts as fast as Node does.
//   node autopilot-session-start.mjs           plain text (Claude Code, Codex)
//   node autopilot-session-start.mjs --json    {"hookSpecificOutput": {...}} (Gemini CLI)
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

/** The line for the session in progress in `root` (the one saved last), or "" when there is none. */
function sessionLine(root) {
  const dir = join(root, ".harness", "sessions");
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return "";
  }
  let best = null;
  let open = 0;
  for (const slug of names) {
    const file = join(dir, slug, "autopilot-state.json");
    let state;
    try {
      state = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      continue;
    }
    // DONE is finished; a session the user stopped waits for them to start it again.
    if (!state || typeof state.currentState !== "string" || state.currentState === "DONE" || state.stopped === true) continue;
    open++;
    let at = Date.parse(state.updatedAt ?? "");
    if (Number.isNaN(at)) {
      try {
        at = statSync(file).mtimeMs;
      } catch {
        at = 0;
      }
    }
    if (!best || at > best.at) best = { slug, state, at };
  }
  if (!best) return "";
  const step = Number.isInteger(best.state.stepId) ? best.state.stepId : 0;
  const more = open > 1 ? `. ${open - 1} more in progress: autopilot_status lists them` : "";
  // The same way first as the /autopilot command: autopilot_start with the spec (its report says what
  // was done and decided), autopilot_next with the session also continues.
  const spec = typeof best.state.specPath === "string" && best.state.specPath ? best.state.specPath : null;
  const how = spec
    ? `call autopilot_start with spec ${JSON.stringify(spec)} to resume it (autopilot_next with session ${JSON.stringify(best.slug)} continues it too)`
    : "call autopilot_next to continue";
  return `autopilot session ${best.slug} is at ${best.state.currentState} (step ${step}); ${how}${more}.`;
}

/** The project: as the client names it, else the folder above the current one that holds .harness (up to the repository's root). */
function projectRoot() {
  const named = process.env.CLAUDE_PROJECT_DIR || process.env.GEMINI_PROJECT_DIR;
  if (named) return named;
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".harness")) || existsSync(join(dir, ".git")) || dirname(dir) === dir) return dir;
  }
}

function main() {
  const root = projectRoot();
  const line = sessionLine(root);
  if (!line) return;
  if (process.argv.includes("--json")) {
    process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: line } }) + "\n");
  } else process.stdout.write(line + "\n");
}

try {
  main();
} catch {
  // A hook must never stand in the way of the client's start.
}
