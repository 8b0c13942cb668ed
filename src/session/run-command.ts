// `.harness/sessions/<slug>/run.json`: the command `autopilot run` drove the session with last
// ({ command, at }), kept after the run ends (the driver lock's record goes with the lock). It is how
// `autopilot approve` tells the person the way to go on: that command again for a session
// `autopilot run` drives, the chat client for a session nothing but a client ever drove.
import { readFileSync } from "node:fs";
import path from "node:path";
import { writeDurable } from "./durable.js";
import { sessionPaths } from "./paths.js";

const RUN_RECORD = "run.json";

export function recordRunCommand(root: string, slug: string, command: string, at: Date): void {
  const file = path.join(sessionPaths(root, slug).sessionDir, RUN_RECORD);
  writeDurable(file, JSON.stringify({ command, at: at.toISOString() }, null, 2) + "\n");
}

/** The command `autopilot run` last drove the session with, or null when it never did. */
export function lastRunCommand(root: string, slug: string): string | null {
  try {
    const v = JSON.parse(readFileSync(path.join(sessionPaths(root, slug).sessionDir, RUN_RECORD), "utf8")) as unknown;
    const command = v && typeof v === "object" ? (v as Record<string, unknown>).command : undefined;
    return typeof command === "string" && command.trim() ? command : null;
  } catch {
    return null;
  }
}
