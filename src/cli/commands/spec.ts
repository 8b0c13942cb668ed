// `autopilot spec FILE [--json]`: the phases autopilot would run for a spec, so an author can
// check the annotations before starting a session.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { AutopilotError } from "../../protocol/errors.js";
import { parseSpec } from "../../markdown/spec.js";
import { UsageError, parseCliArgs } from "../usage.js";

const USAGE = "usage: autopilot spec FILE [--json]";

export async function readTextFile(
  file: string,
  code: "spec_not_found" | "plan_not_found",
  kind: string,
  example: string,
): Promise<string> {
  const abs = path.resolve(process.cwd(), file);
  try {
    return await readFile(abs, "utf8");
  } catch (e) {
    const errno = (e as NodeJS.ErrnoException).code;
    const why =
      errno === "ENOENT"
        ? "does not exist"
        : errno === "EISDIR"
          ? "is a directory"
          : `cannot be read (${errno ?? (e as Error).message})`;
    throw new AutopilotError(
      code,
      `${kind} file ${file} ${why} (looked at ${abs}); pass the path of a ${kind} file relative to the current directory, e.g. ${example}`,
      { path: abs },
    );
  }
}

export function parseFileArgs(argv: string[], usage: string): { file: string; json: boolean } | "help" {
  const { values, positionals } = parseCliArgs(
    {
      args: argv,
      options: { json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    },
    usage,
  );
  if (values.help) return "help";
  if (positionals.length === 0) throw new UsageError(`missing FILE; ${usage}`);
  if (positionals.length > 1) throw new UsageError(`expected one FILE, got ${positionals.length}; ${usage}`);
  return { file: positionals[0], json: values.json === true };
}

export async function run(argv: string[]): Promise<number> {
  const args = parseFileArgs(argv, USAGE);
  if (args === "help") {
    process.stdout.write(`${USAGE}\n  prints the phases of a spec's "## Implementation Order" section\n`);
    return 0;
  }
  const text = await readTextFile(args.file, "spec_not_found", "spec", "docs/changes/<topic>/proposal.md");
  const spec = parseSpec(text);
  if (args.json) {
    const phases = spec.phases.map((p) => ({ name: p.name, complexity: p.complexity, annotated: p.annotated }));
    process.stdout.write(JSON.stringify({ phases }, null, 2) + "\n");
    return 0;
  }
  const rows = spec.phases.map((p) => [p.id, p.name, p.annotated ? p.complexity : `${p.complexity} (default)`]);
  const head = ["Phase", "Name", "Complexity"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  ");
  const out = [
    spec.title ? `${spec.title} (${args.file})` : args.file,
    "",
    line(head),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map(line),
    "",
    `${spec.phases.length} phase${spec.phases.length === 1 ? "" : "s"}`,
  ];
  process.stdout.write(out.join("\n") + "\n");
  return 0;
}
