// The client list (src/install/client-list.ts) is the one place a client is named: each client
// gets a plan that writes something, the docs list exactly these clients, and what a project
// install writes is the user's setup to autopilot's checkpoint commits, whichever client wrote it.
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, tempDir } from "./helpers.js";
import { CLIENT_NAMES, CLIENTS } from "../../src/install/client-list.js";
import { planInstall } from "../../src/install/clients.js";
import { selectOwnChanges } from "../../src/effects/ownership.js";

const server = { command: "autopilot", args: ["serve"], source: "on PATH", machineLocal: false };
const doc = (file: string) => readFileSync(join(REPO, file), "utf8");
const titles = CLIENT_NAMES.map((c) => CLIENTS[c].title);

describe("every client on the list", () => {
  it.each(CLIENT_NAMES.flatMap((client) => [false, true].map((global) => ({ client, global }))))(
    "$client (global: $global): the plan merges the server entry into the client's config and writes the command",
    ({ client, global }) => {
      const home = tempDir("home");
      const project = tempDir("project");
      const plan = planInstall({ client, global, project, home, root: REPO, server });
      const configs = plan.files.filter((f) => f.merged && /\bautopilot\b/.test(f.after) && f.after.includes("serve"));
      expect(configs.length, client).toBeGreaterThan(0);
      const command = plan.files.find((f) => !f.merged && /autopilot(\.prompt)?\.(md|toml)$|SKILL\.md$/.test(f.path));
      expect(command?.after, client).toMatch(/autopilot_start/);
      for (const f of plan.files) expect(f.path.startsWith(global ? home : project), f.path).toBe(true);
    },
  );

  it("what a project install writes is client configuration: a checkpoint commit leaves every file of it out", async () => {
    for (const client of CLIENT_NAMES) {
      const project = tempDir("project");
      const plan = planInstall({
        client,
        global: false,
        project,
        home: tempDir("home"),
        root: REPO,
        server,
        allow: true,
      });
      const written = plan.files.map((f) => relative(project, f.path).split("\\").join("/"));
      const { stage, leftOut } = await selectOwnChanges(project, written, null, new Map());
      expect(stage, client).toEqual([]);
      expect(leftOut.map((l) => l.path)).toEqual(written);
    }
  });
});

describe("the docs list the clients of client-list.ts", () => {
  it("the install usage line in docs/cli.md, docs/clients.md and the README", () => {
    expect(doc("docs/cli.md")).toContain(`autopilot install ${CLIENT_NAMES.join("\\|")} [--global]`);
    expect(doc("docs/clients.md")).toContain(`autopilot install ${CLIENT_NAMES.join("|")} [--global]`);
    const [first, ...rest] = CLIENT_NAMES;
    expect(doc("README.md")).toMatch(new RegExp(`autopilot install ${first} +# or: ${rest.join(" \\| ")} `));
  });

  it("docs/clients.md: a section, a permission row and a feature-matrix column per client, in the list's order", () => {
    const text = doc("docs/clients.md");
    const sections = [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    for (const t of titles)
      expect(
        sections.some((s) => s === t || s.startsWith(`${t} (`)),
        t,
      ).toBe(true);
    for (const t of titles) expect(text, t).toMatch(new RegExp(`^\\| ${t} \\| `, "m"));
    expect(text).toContain(`| | ${titles.join(" | ")} |`);
  });

  it("the README's opening names every client", () => {
    const opening = doc("README.md").replace(/\s+/g, " ");
    expect(opening).toContain(`${titles.slice(0, -1).join(", ")} and ${titles.at(-1)}`);
  });
});
