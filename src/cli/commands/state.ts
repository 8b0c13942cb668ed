// `autopilot state check FILE [--json]`: read any autopilot-state.json (schemaVersion 1 to 5, or a
// hand-written variant), migrate it in memory and show the result. Never writes: it is how a user
// checks what autopilot will make of a file before letting it resume the session.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { AutopilotError } from "../../protocol/errors.js";
import { migrateState } from "../../session/migrate.js";
import { SESSIONS_DIR_REL } from "../../session/paths.js";
import { UsageError, parseCliArgs } from "../usage.js";

const USAGE = "usage: autopilot state check FILE [--json]";

/** A file inside `.harness/sessions/<slug>/` belongs to that session whatever its sessionDir says. */
function sessionDirOf(file: string): string | undefined {
  const parts = path.resolve(file).split(path.sep);
  const [harness, sessions] = SESSIONS_DIR_REL.split("/");
  const i = parts.lastIndexOf(sessions);
  if (i > 0 && parts[i - 1] === harness && parts.length === i + 3) return `${SESSIONS_DIR_REL}/${parts[i + 1]}`;
  return undefined;
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCliArgs(
    {
      args: argv,
      options: { json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    },
    USAGE,
  );
  if (values.help) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  const [sub, file, ...extra] = positionals;
  if (sub !== "check") throw new UsageError(sub ? `unknown subcommand "${sub}"\n${USAGE}` : USAGE);
  if (!file) throw new UsageError(`missing FILE\n${USAGE}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"\n${USAGE}`);

  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    process.stderr.write(
      `autopilot state: cannot read ${file}: ${code === "ENOENT" ? "no such file" : (e as Error).message}\n`,
    );
    return 1;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new AutopilotError("corrupt_state", `${file} is not valid JSON (${(e as Error).message.split("\n")[0]})`);
  }
  let result;
  try {
    result = migrateState(raw, { sessionDir: sessionDirOf(file) });
  } catch (e) {
    if (e instanceof AutopilotError) throw new AutopilotError(e.code, `${file}: ${e.message}`);
    throw e;
  }
  const { state, notes, fromVersion } = result;
  if (values.json) {
    process.stdout.write(JSON.stringify(state, null, 2) + "\n");
    return 0;
  }
  const phase = state.phases[state.currentPhase];
  const count = (s: string) => state.phases.filter((p) => p.status === s).length;
  const lines = [
    `${file}: schemaVersion ${fromVersion ?? "(none)"} → ${state.schemaVersion}`,
    `  session   ${state.sessionDir}`,
    `  spec      ${state.specPath}`,
    `  state     ${state.currentState}${phase ? `, phase ${state.currentPhase + 1} of ${state.phases.length}: ${phase.name}` : ""}`,
    `  phases    ${state.phases.length} (${count("complete")} complete, ${count("pending")} pending, ${count("skipped")} skipped)`,
    `  rigor     ${state.rigorLevel}${state.reviewPlans ? ", plans always reviewed" : ""}`,
    `  decisions ${state.decisions.length}, history ${state.history.length}, final review ${state.finalReview.status}`,
  ];
  if (notes.length > 0) {
    lines.push("", `${notes.length} normalisation(s), in memory only (the file was not changed):`);
    for (const n of notes) lines.push(`  - ${n}`);
  } else {
    lines.push("", "Already a clean schemaVersion 5 file: nothing to change.");
  }
  process.stdout.write(lines.join("\n") + "\n");
  return 0;
}
