// A model per persona: `.harness/config.json` `models` and `prices` as users write them (a bad value
// refused by name with the values it may take, before a session is made), and the tier each persona
// takes and the name each client gives it (src/session/models.ts).
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readProjectConfig } from "../../src/session/config.js";
import { Engine } from "../../src/engine/engine.js";
import {
  CLIENT_MODELS,
  MODEL_CLIENTS,
  claudeAgentModel,
  pickModel,
  pickUp,
  type ModelsConfig,
} from "../../src/session/models.js";
import { priced, priceOf } from "../../src/session/prices.js";
import { makeRepo, type TempRepo } from "../helpers/git.js";

const SPEC = "docs/changes/tiny/proposal.md";
const specText = "# Tiny\n\n## Implementation Order\n\n### Phase 1: Core\n<!-- complexity: low -->\nBuild it.\n";

let repo: TempRepo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

async function project(config: unknown): Promise<string> {
  repo = await makeRepo({ files: { "README.md": "# tiny\n", [SPEC]: specText } });
  await mkdir(path.join(repo.dir, ".harness"), { recursive: true });
  await writeFile(path.join(repo.dir, ".harness/config.json"), JSON.stringify(config));
  return repo.dir;
}

describe(".harness/config.json models and prices", () => {
  it("reads tiers, model names, per-rigor choices, client names and prices", async () => {
    const models = {
      planner: "opus",
      executor: "standard",
      fast: { reviewer: "fast" },
      clients: { codex: { strong: "gpt-6.2-astra" } },
      escalate: false,
    };
    const prices = { "gpt-6.2-astra": { input: 8, output: 40, cacheRead: 0.4 } };
    const { config } = await readProjectConfig(await project({ models, prices }));
    expect(config.models).toEqual(models);
    expect(config.prices).toEqual(prices);
  });

  it("refuses a value no client takes, naming the persona and the values it may take", async () => {
    const e = await readProjectConfig(await project({ models: { reviewer: "gpt4 turbo" } })).catch((x) => x);
    expect(e.code).toBe("bad_input");
    expect(e.message).toContain('"models.reviewer": must be a tier (fast, standard, strong) or a model name');
    expect(e.message).toContain("Claude Code: haiku, sonnet, opus");
    expect(e.message).toContain("Codex: gpt-");
    expect(e.message).toContain("Gemini CLI: flash-lite, flash, pro");
    expect(e.message).toContain('it is {"reviewer":"gpt4 turbo"}');
  });

  it("refuses a persona or client it does not know, and lists the ones it does", async () => {
    const e = await readProjectConfig(await project({ models: { plannr: "strong" } })).catch((x) => x);
    expect(e.message).toMatch(/"models": Unrecognized key.*"plannr"/);
    expect(e.message).toContain('("planner", "executor", "verifier", "reviewer")');
    const c = await readProjectConfig(await project({ models: { clients: { cursor: { fast: "x" } } } })).catch(
      (x) => x,
    );
    expect(c.message).toMatch(/"models\.clients": Unrecognized key.*"cursor"/);
    expect(c.message).toContain('"claude-code", "codex", "gemini", "anthropic", "command"');
    const p = await readProjectConfig(await project({ prices: { opus: { input: "4" } } })).catch((x) => x);
    expect(p.message).toMatch(/"prices" must be model names, each with US dollars per million tokens/);
  });

  it("the scripted runner's usage may be given per persona (the bench's token profile)", async () => {
    const usage = { "harness-planner": { inputTokens: 5 }, "harness-task-executor": { outputTokens: 9 } };
    const { config } = await readProjectConfig(await project({ scripted: { usage } }));
    expect(config.scripted?.usage).toEqual(usage);
    const e = await readProjectConfig(await project({ scripted: { usage: { "harness-planer": {} } } })).catch((x) => x);
    expect(e.message).toMatch(/"scripted" must be a script/);
  });

  it('"inherit" is taken for the clients whose host names the model of a dispatch (Claude Code, Codex), refused for the others', async () => {
    const models = { clients: { codex: "inherit", "claude-code": "inherit" } };
    expect((await readProjectConfig(await project({ models }))).config.models).toEqual(models);
    const e = await readProjectConfig(await project({ models: { clients: { gemini: "inherit" } } })).catch((x) => x);
    expect(e.code).toBe("bad_input");
    expect(e.message).toContain('"models.clients.gemini"');
    expect(e.message).toContain('"inherit" for "claude-code" or "codex" to name none');
  });

  it("a start refuses a bad models value before it makes anything", async () => {
    const dir = await project({ models: { executor: "turbo" } });
    const e = await new Engine(dir).start(SPEC).catch((x) => x);
    expect(e).toMatchObject({ code: "bad_input", message: expect.stringContaining('"models.executor"') });
    expect(existsSync(path.join(dir, ".harness/sessions"))).toBe(false);
  });
});

describe("the tier each persona takes, in each client's names", () => {
  it("defaults: planner and reviewer strong, executor and verifier standard; --fast all standard; --thorough verifies strong", () => {
    const at = (rigor: "fast" | "standard" | "thorough") =>
      (["planner", "executor", "verifier", "reviewer"] as const).map((r) => pickModel(r, rigor, "claude-code").name);
    expect(at("standard")).toEqual(["opus", "sonnet", "sonnet", "opus"]);
    expect(at("fast")).toEqual(["sonnet", "sonnet", "sonnet", "sonnet"]);
    expect(at("thorough")).toEqual(["opus", "sonnet", "opus", "opus"]);
  });

  it("each client names the tiers in its own terms", () => {
    const names = Object.fromEntries(
      MODEL_CLIENTS.map((c) => [c, (["fast", "standard", "strong"] as const).map((t) => CLIENT_MODELS[c][t])]),
    );
    expect(names).toEqual({
      "claude-code": ["haiku", "sonnet", "opus"],
      codex: ["gpt-6-luna", "gpt-6.1-sol", "gpt-6-astra"],
      gemini: ["flash-lite", "flash", "pro"],
      anthropic: ["claude-haiku-5-5", "claude-sonnet-5-5", "claude-opus-5-5"],
      command: ["haiku", "sonnet", "opus"],
    });
    expect(pickModel("planner", "standard", "codex")).toEqual({
      name: "gpt-6-astra",
      tier: "strong",
      source: "default",
    });
    expect(pickModel("executor", "standard", "anthropic").name).toBe("claude-sonnet-5-5");
    expect(pickModel("reviewer", "standard", "gemini").name).toBe("pro");
  });

  it("a model name goes as it is to the client that takes it; the others get its tier", () => {
    const config: ModelsConfig = { executor: "claude-opus-4-1", verifier: "haiku", planner: "gemini-2.5-flash" };
    expect(pickModel("executor", "standard", "anthropic", config)).toEqual({
      name: "claude-opus-4-1",
      tier: "strong",
      source: "config",
    });
    expect(pickModel("executor", "standard", "claude-code", config).name).toBe("claude-opus-4-1");
    expect(pickModel("executor", "standard", "codex", config).name).toBe("gpt-6-astra");
    expect(pickModel("verifier", "standard", "gemini", config).name).toBe("flash-lite");
    expect(pickModel("planner", "standard", "claude-code", config).name).toBe("sonnet");
    expect(pickModel("planner", "standard", "gemini", config).name).toBe("gemini-2.5-flash");
    // A command template's CLI is the user's: it gets the name as written.
    expect(pickModel("planner", "standard", "command", config).name).toBe("gemini-2.5-flash");
    // The Agent tool takes a family, not a full id.
    expect(claudeAgentModel("claude-opus-4-1")).toBe("opus");
    expect(claudeAgentModel("sonnet")).toBe("sonnet");
    expect(claudeAgentModel("gpt-6-astra")).toBeNull();
  });

  it("per rigor, per client names, and one tier up", () => {
    const config: ModelsConfig = {
      reviewer: "standard",
      thorough: { reviewer: "strong" },
      clients: { "claude-code": { strong: "claude-opus-4-8" }, codex: { standard: "gpt-6.1-terra" } },
    };
    expect(pickModel("reviewer", "standard", "claude-code", config).name).toBe("sonnet");
    expect(pickModel("reviewer", "thorough", "claude-code", config).name).toBe("claude-opus-4-8");
    const exec = pickModel("executor", "standard", "codex", config);
    expect(exec.name).toBe("gpt-6.1-terra");
    expect(pickUp(exec, "codex", config)).toEqual({ name: "gpt-6-astra", tier: "strong", source: "default" });
    const strong = pickModel("planner", "standard", "codex", config);
    expect(pickUp(strong, "codex", config)).toBe(strong);
    expect(pickUp({ name: "o3", tier: null, source: "config" }, "codex").name).toBe("gpt-6-astra");
  });

  it('"inherit" names no model to that client, one tier up included, and keeps the tier for the ledger', () => {
    const config: ModelsConfig = { executor: "gpt-6-luna", clients: { codex: "inherit" } };
    const planner = pickModel("planner", "standard", "codex", config);
    expect(planner).toEqual({ name: null, tier: "strong", source: "default" });
    const exec = pickModel("executor", "standard", "codex", config);
    expect(exec).toEqual({ name: null, tier: "fast", source: "config" });
    expect(pickUp(exec, "codex", config)).toEqual({ name: null, tier: "standard", source: "config" });
    // Other clients keep their names.
    expect(pickModel("planner", "standard", "claude-code", config).name).toBe("opus");
  });
});

describe("prices", () => {
  it("prices a run from its token split, a project's price first; a total alone is not priced", () => {
    const split = { inputTokens: 1_000, outputTokens: 2_000, cacheReadTokens: 100_000, cacheWriteTokens: 10_000 };
    // 1k × $2 + 2k × $10 + 100k × $0.20 + 10k × $2.50, per million.
    expect(priced(split, priceOf("claude-sonnet-5-5"))).toBeCloseTo(0.067, 10);
    expect(priced(split, priceOf("sonnet"))).toBeCloseTo(0.067, 10);
    expect(priced(split, priceOf("opus"))!).toBeCloseTo(0.114, 10);
    expect(priced(split, priceOf("claude-opus-5-5", { "claude-opus-5-5": { input: 1, output: 1 } }))).toBeCloseTo(
      0.113,
      10,
    );
    expect(priced({ inputTokens: 5 }, priceOf("opus"))).toBeNull();
    expect(priced(split, priceOf("some-model"))).toBeNull();
  });
});
