// `autopilot merge SLUG [--project DIR]`: merge a worktree session's branch (`autopilot/<slug>`)
// into the branch it started from, in the project's checkout. A plain `git merge`: never forced,
// never a rebase or a reset; a conflict is aborted (nothing changes) and reported with its files.
import path from "node:path";
import { mergeBack } from "../../effects/worktree.js";
import { assertSafeSlug } from "../../session/slug.js";
import { UsageError, parseCliArgs } from "../usage.js";

const USAGE = "usage: autopilot merge SLUG [--project DIR]";

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCliArgs(
    {
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { project: { type: "string" }, help: { type: "boolean", short: "h" } },
    },
    USAGE,
  );
  if (values.help) {
    process.stdout.write(
      `${USAGE}\n  merges autopilot/SLUG (a session run with --worktree) into the branch it started from\n`,
    );
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError(`${positionals.length ? "one session at a time" : "which session?"}\n${USAGE}`);
  const slug = positionals[0];
  assertSafeSlug(slug);
  const root = path.resolve(process.cwd(), values.project ?? ".");
  const r = await mergeBack(root, slug);
  process.stdout.write(r.message + "\n");
  return 0;
}
