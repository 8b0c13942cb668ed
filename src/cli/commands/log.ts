// `autopilot log SLUG [--format md|json|html] [--out FILE] [--project DIR]`: the decision log of one
// session. Read-only: takes no lock and never rewrites the state file.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { renderHtml } from "../../log/html.js";
import { renderMarkdown } from "../../log/markdown.js";
import { buildDecisionLog } from "../../log/model.js";
import { SessionStore } from "../../session/store.js";
import { UsageError, parseCliArgs } from "../usage.js";

const USAGE = "Usage: autopilot log SLUG [--format md|json|html] [--out FILE] [--project DIR]";
const FORMATS = ["md", "json", "html"] as const;
type Format = (typeof FORMATS)[number];

function formatFromFile(file: string): Format | null {
  const ext = path.extname(file).toLowerCase();
  if (ext === ".html" || ext === ".htm") return "html";
  if (ext === ".json") return "json";
  if (ext === ".md" || ext === ".markdown") return "md";
  return null;
}

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCliArgs(
    {
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: "string", short: "f" },
        out: { type: "string", short: "o" },
        project: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    },
    USAGE,
  );
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError(positionals.length ? `one session at a time. ${USAGE}` : `which session? ${USAGE}`);
  const slug = positionals[0];
  let format: Format;
  if (values.format !== undefined) {
    if (!(FORMATS as readonly string[]).includes(values.format))
      throw new UsageError(`unknown format "${values.format}" (md, json or html). ${USAGE}`);
    format = values.format as Format;
  } else format = (values.out && formatFromFile(values.out)) || "md";

  const root = path.resolve(values.project ?? process.cwd());
  const store = new SessionStore(root);
  let known: boolean;
  try {
    known = await store.exists(slug);
  } catch {
    known = false; // an unsafe slug ("../x") names no session
  }
  if (!known) {
    const sessions = await store.list();
    const list = sessions.length
      ? `Known sessions:\n${sessions.map((s) => `  ${s}`).join("\n")}`
      : `No autopilot sessions in ${root}.`;
    process.stderr.write(`autopilot log: no session "${slug}" in ${root}.\n${list}\n`);
    return 1;
  }
  const { state } = await store.read(slug);
  const log = buildDecisionLog(state, slug);
  const text =
    format === "json" ? JSON.stringify(log, null, 2) + "\n" : format === "html" ? renderHtml(log) : renderMarkdown(log);
  if (values.out) {
    const out = path.resolve(process.cwd(), values.out);
    await mkdir(path.dirname(out), { recursive: true });
    await writeFile(out, text);
    process.stdout.write(`Wrote the ${format} decision log of ${slug} to ${out}\n`);
  } else process.stdout.write(text);
  return 0;
}
