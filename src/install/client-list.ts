// The clients `autopilot install` writes for, by the name the command takes: the one list. The
// usage texts, the install dispatch (clients.ts, a Record over these names, so a client without
// its plan does not compile), the tests that cover every client and the lists in the README,
// docs/cli.md and docs/clients.md (tests/install/client-list.test.ts) all follow it. Imports
// nothing: the `autopilot` usage reads it at every start.

interface ClientFacts {
  /** How the docs name the client: its heading in docs/clients.md, its column of the feature matrix. */
  title: string;
}

export const CLIENTS = {
  claude: { title: "Claude Code" },
  cursor: { title: "Cursor" },
  vscode: { title: "VS Code" },
  codex: { title: "Codex" },
  gemini: { title: "Gemini CLI" },
} as const satisfies Record<string, ClientFacts>;

export type Client = keyof typeof CLIENTS;

/** The names in the order the usage and the docs list them. */
export const CLIENT_NAMES = Object.keys(CLIENTS) as Client[];

export function isClient(name: string): name is Client {
  return Object.hasOwn(CLIENTS, name);
}
