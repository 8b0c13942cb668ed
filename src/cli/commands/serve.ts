// `autopilot serve [--project DIR] [--elicit|--no-elicit] [--agent-prefix P]` (the default command): the MCP server on stdio.
// stdout is the protocol channel: nothing else may ever be written to it.
import { serveStdio } from "../../mcp/server.js";
import { projectRoot, unknownOption, UsageError } from "../usage.js";
import { readProjectConfig, type ProjectConfig } from "../../session/config.js";

const USAGE = "usage: autopilot serve [--project DIR] [--elicit|--no-elicit] [--agent-prefix PREFIX]";

export async function run(argv: string[]): Promise<number> {
  let project: string | undefined;
  // In-band questions are on by default: the flag, then AUTOPILOT_ELICIT, then the config's `elicit`.
  let elicitFlag: boolean | undefined;
  let agentPrefix: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--elicit") elicitFlag = true;
    else if (a === "--no-elicit") elicitFlag = false;
    else if (a === "--agent-prefix" || a.startsWith("--agent-prefix=")) {
      agentPrefix = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      if (!agentPrefix || /\s/.test(agentPrefix))
        throw new UsageError(
          "--agent-prefix takes a prefix without spaces, e.g. autopilot serve --agent-prefix autopilot:",
        );
    } else if (a === "--project" || a.startsWith("--project=")) {
      project = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      if (!project) throw new UsageError("--project takes a directory: autopilot serve --project DIR");
    } else if (a === "--help" || a === "-h") {
      process.stderr.write(
        `${USAGE}\n  MCP server on stdio; the project root is DIR or the current directory.\n  Questions go to the user through the client's form where the client supports it (--no-elicit: never).\n  --agent-prefix P: dispatch todos name the persona agents P<persona> (the Claude Code plugin's are autopilot:<persona>).\n`,
      );
      return 0;
    } else throw unknownOption(a, ["project", "elicit", "no-elicit", "agent-prefix", "help"], USAGE);
  }
  const root = projectRoot(project);
  const env = process.env.AUTOPILOT_ELICIT;
  const fromEnv = env === "1" || env === "true" ? true : env === "0" || env === "false" ? false : undefined;
  // The server starts whatever the file holds: what is wrong with it is said here, and again by
  // the tool calls that need the file.
  const settings: ProjectConfig = await readProjectConfig(root).then(
    ({ config, warnings }) => {
      for (const w of warnings) process.stderr.write(`autopilot serve: ${w}\n`);
      return config;
    },
    (e: Error) => {
      process.stderr.write(`autopilot serve: ${e.message} Its settings are ignored until it is fixed.\n`);
      return {};
    },
  );
  const elicit = elicitFlag ?? fromEnv ?? settings.elicit ?? true;
  await serveStdio({
    root,
    elicit,
    heartbeatMs: positiveEnv("AUTOPILOT_HEARTBEAT_MS"),
    elicitTimeoutMs: positiveEnv("AUTOPILOT_ELICIT_TIMEOUT_MS"),
    agentPrefix,
  });
  return 0;
}

/** Tuning knobs for tests and slow clients; anything but a positive number means the default. */
function positiveEnv(name: string): number | undefined {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
