// What a finished session leaves, in a real repository with the scripted personas: the DONE
// summary's completedAt is no earlier than its last commit (a final review's fix round commits
// after the last phase ends).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, type TempRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import { PolicyGate, drive } from "../../src/headless/drive.js";
import type { Step } from "../../src/protocol/step.js";
import { SessionStore } from "../../src/session/store.js";

const SPEC_PATH = "docs/changes/wc/proposal.md";
const SLUG = "changes--wc--proposal";
const SPEC = `# Word count

## Implementation Order

### Phase 1: Counting Core
<!-- complexity: low -->
Count words.
`;

let repo: TempRepo;
let done: Step;
let clock = 0;
const now = () => new Date(Date.UTC(2026, 2, 19, 10, clock++, 0));

beforeAll(async () => {
  repo = await makeRepo();
  await mkdir(path.join(repo.dir, "docs/changes/wc"), { recursive: true });
  await writeFile(path.join(repo.dir, SPEC_PATH), SPEC);
  await git(repo.dir, "add", "-A");
  await git(repo.dir, "commit", "-qm", "spec");
  const engine = new Engine(repo.dir, { now });
  const runner = new ScriptedRunner({ phases: { 0: { tasks: 2 } }, finalBlocking: 1 });
  done = (await drive(engine, (await engine.start(SPEC_PATH)).step, runner, new PolicyGate())).final;
}, 120_000);
afterAll(async () => repo?.cleanup());

describe("a finished session", () => {
  it("says it completed no earlier than its last commit, the final review's fix", async () => {
    expect(done.state).toBe("DONE");
    const { state } = await new SessionStore(repo.dir).read(SLUG);
    const last = state.commits.at(-1)!;
    // The final review's fix round committed after the phase was complete.
    expect(Date.parse(last.timestamp)).toBeGreaterThan(Date.parse(state.history.at(-1)!.completedAt!));
    const summary = done.next.kind === "done" ? done.next.summary : null;
    expect(summary?.completedAt).toBe(last.timestamp);
  });
});
