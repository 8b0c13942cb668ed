// Resources: the session list, each session's state file as stored, and its decision log.
import { readFile } from "node:fs/promises";
import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { loadEngine } from "./tools/index.js";
import { sessionPaths } from "../session/paths.js";
import { assertSafeSlug } from "../session/slug.js";
import { decisionLog, listSessions } from "./sessions.js";

const JSON_MIME = "application/json";

export function registerResources(server: McpServer, root: string): void {
  // Loaded on first use, as in tools.ts: start-up does not pay for the engine.
  const engine = async () => new (await loadEngine()).Engine(root);
  const json = (uri: URL, value: unknown) => ({
    contents: [{ uri: uri.href, mimeType: JSON_MIME, text: JSON.stringify(value, null, 2) }],
  });
  const slugOf = (v: string | string[] | undefined): string => {
    const slug = decodeURIComponent(Array.isArray(v) ? (v[0] ?? "") : (v ?? ""));
    assertSafeSlug(slug);
    return slug;
  };
  const lister = (suffix: string, label: string) => async () => ({
    resources: (await (await engine()).sessions()).map((slug) => ({
      uri: `autopilot://sessions/${slug}/${suffix}`,
      name: `${slug} ${label}`,
      mimeType: JSON_MIME,
    })),
  });

  server.registerResource(
    "sessions",
    "autopilot://sessions",
    { description: "Autopilot sessions in this project and what each waits on", mimeType: JSON_MIME },
    async (uri) => json(uri, { sessions: await listSessions(await engine()) }),
  );

  server.registerResource(
    "session-state",
    new ResourceTemplate("autopilot://sessions/{slug}/state", { list: lister("state", "state") }),
    { description: "A session's autopilot-state.json as stored", mimeType: JSON_MIME },
    async (uri, vars) => {
      const slug = slugOf(vars.slug);
      await (await engine()).read(slug); // unknown_session with the list of known ones
      const text = await readFile(sessionPaths(root, slug).state, "utf8");
      return { contents: [{ uri: uri.href, mimeType: JSON_MIME, text }] };
    },
  );

  server.registerResource(
    "session-decisions",
    new ResourceTemplate("autopilot://sessions/{slug}/decisions", { list: lister("decisions", "decisions") }),
    { description: "A session's decisions, phase history, final review and commits", mimeType: JSON_MIME },
    async (uri, vars) => json(uri, await decisionLog(await engine(), slugOf(vars.slug))),
  );
}
