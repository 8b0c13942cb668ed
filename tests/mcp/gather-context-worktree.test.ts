// gather_context for a session that runs in its own git worktree (--worktree): the validation it
// runs and the files it reads are the session's, in the worktree, not the main checkout's.
import { afterEach, describe, expect, it } from "vitest";
import path from "node:path";
import { call, openSession, writeProjectFile, SCANNER_SLUG, type Session } from "../helpers/mcp-client.js";

let session: Session | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
});

describe("gather_context in a --worktree session", () => {
  it("runs the project's validation in the session's worktree, where its work is, not in the main checkout", async () => {
    // The check passes only where the session's executor has written its feature.
    session = await openSession({ validation: ["test -f src/feature.ts"] });
    const first = await session.start("--worktree");
    expect(first.report).toContain("Working in its own git worktree");
    const worktree = path.join(session.root, ".harness/worktrees", SCANNER_SLUG);
    await writeProjectFile(worktree, "src/feature.ts", "export const feature = 1;\n");

    const got = await call(session.srv.client, "gather_context", {
      session: SCANNER_SLUG,
      include: ["state", "validation"],
    });
    expect(got.error).toBeUndefined();
    const ctx = got.result.structuredContent as {
      state: { currentState: string };
      validation: { passed: boolean; results: Array<{ command: string; exitCode: number }> };
    };
    expect(ctx.validation.passed).toBe(true);
    expect(ctx.validation.results[0]).toMatchObject({ command: "test -f src/feature.ts", exitCode: 0 });
    expect(ctx.state.currentState).toBe(first.state);
  });
});
