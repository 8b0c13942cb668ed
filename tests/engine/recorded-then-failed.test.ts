// A call that fails while the effects of its answer run must never read as "nothing happened". Over
// the real MCP SDK client against the built server, in a real repository whose commit-msg hook
// refuses autopilot's subject: the person sets a `commitMessage` template the config refuses, and
// the answer "fix it yourself and continue" is refused before anything is recorded (the same call
// goes on once the file is fixed); git busy with the answer's commit says the answer was recorded
// and that autopilot_next goes on. Either way the commit is made once and the session reaches DONE.
import { afterAll, describe, expect, it } from "vitest";
import { chmod, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedRunner } from "../../src/runners/scripted.js";
import type { Step } from "../../src/protocol/step.js";
import { git } from "../helpers/git.js";
import { SIDE_BY_SIDE } from "../helpers/timeouts.js";
import { agreeable, call, openSession, playHost, specWith, stepCall, type Session } from "../helpers/mcp-client.js";

const SPEC_PATH = "docs/specs/feature.md";
const SLUG = "specs--feature";
const CONTINUE = "fix it yourself and continue";
const HOOK = `#!/bin/sh\ngrep -q '^JIRA-1 ' "$1" || { echo "commit-msg: the subject must start with a ticket, e.g. JIRA-1"; exit 1; }\n`;

// Each test's sessions, disposed when the file ends (the tests run side by side).
const opened: Session[] = [];
afterAll(async () => {
  for (const o of opened) await o.dispose();
});

/** A session whose first commit the commit-msg hook refuses: the question it asks. */
async function atRefusal(): Promise<{ session: Session; ask: Step; head: string }> {
  const session = await openSession({ spec: specWith([{ name: "Parser", complexity: "low" }]), specPath: SPEC_PATH });
  opened.push(session);
  const hook = path.join(session.root, ".git/hooks/commit-msg");
  await writeFile(hook, HOOK);
  await chmod(hook, 0o755);
  const head = (await git(session.root, "rev-parse", "HEAD")).trim();
  const ask = await playHost(session.srv.client, session.root, await session.start(), new ScriptedRunner(), agreeable, {
    until: (x) => x.next.kind === "ask" && x.next.options.includes(CONTINUE),
  });
  expect(ask.next.kind).toBe("ask");
  return { session, ask, head };
}

async function setConfig(root: string, commitMessage: string): Promise<void> {
  await writeFile(
    path.join(root, ".harness/config.json"),
    JSON.stringify({ validation: { commands: ['node -e "process.exit(0)"'] }, commitMessage }) + "\n",
  );
}

/** autopilot's commits since `since`: subject and effect trailer. */
async function commitsSince(root: string, since: string) {
  const out = await git(root, "log", "--format=%s%x1f%(trailers:key=Autopilot-Effect,valueonly)%x1e", `${since}..HEAD`);
  return out
    .split("\x1e")
    .map((r) => r.trim())
    .filter(Boolean)
    .map((r) => {
      const [subject, effect] = r.split("\x1f");
      return { subject, effect: effect.trim() };
    });
}

describe.concurrent("a failure while an answer's effects run says what was recorded", { timeout: SIDE_BY_SIDE }, () => {
  it("an invalid commitMessage template is refused before the answer is recorded; the same call goes on once it is fixed", async () => {
    const { session, ask, head } = await atRefusal();
    const { client } = session.srv;
    // The advice is whole where the person reads it: the key, its placeholders, an example; no doc of autopilot's.
    expect(ask.next.kind === "ask" && ask.next.context).toContain(
      "with at least one placeholder: {summary} (what the commit does), {type} (feat, fix, test, docs, ...) or {label}",
    );
    expect(ask.next.kind === "ask" && ask.next.context).toContain(
      'e.g. {"commitMessage": "{type}(app): {summary} [PROJ-1]"}',
    );
    expect(ask.report).toContain(
      'set "commitMessage" in .harness/config.json to a template of the subject your hook accepts (the question below says how)',
    );
    expect(`${ask.report}\n${ask.next.kind === "ask" ? ask.next.context : ""}`).not.toMatch(
      /\(docs\/|to a subject your hook/,
    );
    const before = await session.state(SLUG);
    await setConfig(session.root, "JIRA-1 work done");

    const refused = await call(client, "autopilot_decide", { session: SLUG, stepId: ask.stepId, answer: CONTINUE });
    expect(refused.error?.code).toBe("bad_input");
    expect(refused.error?.message).toContain('"commitMessage"');
    expect(refused.error?.message).not.toMatch(/was recorded/);
    // Nothing happened: the same step, the same decisions, no commit.
    const after = await session.state(SLUG);
    expect(after.stepId).toBe(before.stepId);
    expect(after.decisions).toEqual(before.decisions);
    expect(after.outbox).toEqual([]);
    expect((await git(session.root, "rev-parse", "HEAD")).trim()).toBe(head);

    await setConfig(session.root, "JIRA-1 {type}: {summary}");
    const next = await stepCall(client, "autopilot_decide", { session: SLUG, stepId: ask.stepId, answer: CONTINUE });
    const made = await commitsSince(session.root, head);
    expect(made).toHaveLength(1);
    expect(made[0].subject).toMatch(/^JIRA-1 /);
    const done = await playHost(client, session.root, next, new ScriptedRunner(), agreeable);
    expect(done.next.kind).toBe("done");
    const all = await commitsSince(session.root, head);
    expect(all.every((c) => c.subject.startsWith("JIRA-1 "))).toBe(true);
    expect(new Set(all.map((c) => c.effect)).size).toBe(all.length);
    const final = await session.state(SLUG);
    expect(final.decisions.filter((d: { answer?: string }) => d.answer === CONTINUE)).toHaveLength(1);
  });

  it("git busy with the answer's commit: the error says the answer was recorded and to call autopilot_next; retrying the answer is stale and says it finished the commit", async () => {
    const { session, ask, head } = await atRefusal();
    const { client } = session.srv;
    await setConfig(session.root, "JIRA-1 {type}: {summary}");
    const lock = path.join(session.root, ".git/index.lock");
    await writeFile(lock, "");

    const failed = await call(client, "autopilot_decide", { session: SLUG, stepId: ask.stepId, answer: CONTINUE });
    expect(failed.error?.code).toBe("busy");
    const said = failed.error!.message;
    expect(said).toContain(`Your answer "${CONTINUE}" to step ${ask.stepId} was recorded`);
    expect(said).toMatch(/Still owed: the commit "[^"]+" \(nothing of it is committed yet\)/);
    expect(said).toContain(`not autopilot_decide again: step ${ask.stepId} is past`);
    expect(failed.error!.todo).toMatch(/call autopilot_next, not the same call again/);
    expect(failed.text).not.toMatch(/Nothing (was )?changed/i);
    expect((await git(session.root, "rev-parse", "HEAD")).trim()).toBe(head);

    // The host retries the same call anyway, once git is free: the owed commit is made, and the
    // refusal says so instead of "Nothing was changed".
    await rm(lock);
    const again = await call(client, "autopilot_decide", { session: SLUG, stepId: ask.stepId, answer: CONTINUE });
    expect(again.error?.code).toBe("stale_step");
    expect(again.error?.message).toMatch(
      /only finished what an earlier call had left owed \(the commit "[^"]+", now done\)/,
    );
    expect(again.error?.message).not.toContain("Nothing was changed");
    expect(await commitsSince(session.root, head)).toHaveLength(1);

    const next = await stepCall(client, "autopilot_next", { session: SLUG });
    const done = await playHost(client, session.root, next, new ScriptedRunner(), agreeable);
    expect(done.next.kind).toBe("done");
    const all = await commitsSince(session.root, head);
    expect(new Set(all.map((c) => c.effect)).size).toBe(all.length);
    const final = await session.state(SLUG);
    expect(final.decisions.filter((d: { answer?: string }) => d.answer === CONTINUE)).toHaveLength(1);
  });
});
