// `autopilot validate [--json] [--timeout SECONDS]`: run the project's validation commands in the
// current directory. Exit 0 when they pass (or none are configured), 1 when any fails.
import { runValidation } from "../../effects/validation.js";
import { UsageError, unknownOption } from "../usage.js";

export async function run(argv: string[]): Promise<number> {
  let json = false;
  let timeoutMs: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json") json = true;
    else if (a === "--timeout" || a.startsWith("--timeout=")) {
      const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      const s = Number(v);
      if (!v || !Number.isFinite(s) || s <= 0)
        throw new UsageError("--timeout takes a number of seconds, e.g. autopilot validate --timeout 600");
      timeoutMs = Math.round(s * 1000);
    } else throw unknownOption(a, ["json", "timeout"], "usage: autopilot validate [--json] [--timeout SECONDS]");
  }
  const result = await runValidation(process.cwd(), { timeoutMs });
  if (json) {
    process.stdout.write(JSON.stringify(result, null, 2) + "\n");
  } else {
    for (const r of result.results) {
      const mark = r.exitCode === 0 ? "✓" : "✗";
      const why = r.timedOut
        ? " (timed out)"
        : r.exitCode === null
          ? " (stopped)"
          : r.exitCode === 0
            ? ""
            : ` (exit ${r.exitCode})`;
      process.stdout.write(`${mark} ${r.command}${why} ${(r.durationMs / 1000).toFixed(1)}s\n`);
      if (r.exitCode !== 0 && r.output.trim()) {
        process.stdout.write(r.output.replace(/^/gm, "    ").trimEnd() + "\n");
      }
    }
    process.stdout.write(`${result.passed ? "PASS" : "FAIL"}: ${result.summary}\n`);
  }
  return result.passed ? 0 : 1;
}
