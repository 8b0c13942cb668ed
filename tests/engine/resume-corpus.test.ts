// Real upstream sessions (../shared/corpus/upstream/sessions) resume: the same spec path finds the
// session, the file is migrated to schemaVersion 5, and the next Step continues from the recorded
// state without losing phases, decisions or history.
import { describe, expect, it } from "vitest";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { git, makeRepo } from "../helpers/git.js";
import { Engine } from "../../src/engine/engine.js";

const corpus = fileURLToPath(new URL("../../../shared/corpus/upstream/sessions/", import.meta.url));
const present = existsSync(corpus);
if (!present) console.warn(`skipped: no corpus at ${corpus} (the shared corpus is absent)`);

const live = present
  ? readdirSync(corpus).filter((slug) => {
      const f = path.join(corpus, slug, "autopilot-state.json");
      if (!existsSync(f)) return false;
      const s = JSON.parse(readFileSync(f, "utf8"));
      return !["DONE", "COMPLETE"].includes(String(s.currentState).toUpperCase());
    })
  : [];

describe.skipIf(!present)("resuming real upstream sessions", () => {
  it("finds unfinished sessions in the corpus", () => {
    expect(live.length).toBeGreaterThanOrEqual(3);
  });

  it.each(live)("%s resumes where it stopped", async (slug) => {
    const raw = JSON.parse(readFileSync(path.join(corpus, slug, "autopilot-state.json"), "utf8"));
    const repo = await makeRepo();
    try {
      // The user's spec, with the phases the session recorded.
      const spec = ["# Spec", "", "## Implementation Order", ""];
      for (const [i, p] of raw.phases.entries())
        spec.push(`### Phase ${i + 1}: ${p.name}`, `<!-- complexity: ${p.complexity ?? "medium"} -->`, "");
      await mkdir(path.dirname(path.join(repo.dir, raw.specPath)), { recursive: true });
      await writeFile(path.join(repo.dir, raw.specPath), spec.join("\n"));
      await git(repo.dir, "add", "-A");
      await git(repo.dir, "commit", "-qm", "spec");
      cpSync(path.join(corpus, slug), path.join(repo.dir, ".harness/sessions", slug), { recursive: true });

      const engine = new Engine(repo.dir);
      const { step, resumed, notes } = await engine.start(raw.specPath);
      expect(resumed).toBe(true);
      expect(step.session).toBe(slug);
      // Said once, by the resumed Step's report (the notes add only what the migration changed).
      expect(step.report ?? "").toMatch(/^Resuming autopilot from state /);
      expect([step.report ?? "", ...notes].join("\n").split("Resuming autopilot from state").length - 1).toBe(1);
      const state = await engine.read(slug);
      expect(state.schemaVersion).toBe(5);
      expect(state.phases.map((p) => p.name)).toEqual(raw.phases.map((p: { name: string }) => p.name));
      // Every recorded decision is still there, first and in order (an auto-approval on resume may
      // follow them); a plain-text decision survives as its note.
      const before: unknown[] = raw.decisions ?? [];
      expect(state.decisions.length).toBeGreaterThanOrEqual(before.length);
      before.forEach((d, i) => {
        const text =
          typeof d === "string"
            ? d
            : String((d as Record<string, unknown>).decision ?? (d as Record<string, unknown>).what);
        expect(JSON.stringify(state.decisions[i])).toContain(JSON.stringify(text).slice(1, -1));
      });
      expect(state.history.length).toBe((raw.history ?? []).length);
      expect(["dispatch", "ask", "wait"]).toContain(step.next.kind);
      // The recorded state, or where ASSESS leads when its facts were gathered on resume.
      if (raw.currentState !== "ASSESS")
        expect(step.state).toBe(raw.currentState === "COMPLETE" ? "DONE" : raw.currentState);
      // The next call gives the same Step: nothing moves without a report or a decision.
      expect(await engine.next(slug)).toEqual(step);
    } finally {
      await repo.cleanup();
    }
  });
});
