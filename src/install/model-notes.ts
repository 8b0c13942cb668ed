// What each client does with a persona's model (docs/models.md), in the words install prints among
// its notes: where the agent files name it, where a Step names one, and where a client cannot be
// told one at all.
import { pickModel, ROLE_NAMES } from "../session/models.js";

function tierWords(client: "claude-code" | "codex" | "gemini"): string {
  return ROLE_NAMES.map((r) => `${r} ${pickModel(r, "standard", client).name}`).join(", ");
}

export const MODEL_NOTES = {
  claude: `Models: each persona's agent file names its model (${tierWords("claude-code")}); a Step names another in the Agent call where a dispatch runs one tier up (a failing task's last attempt) or .harness/config.json "models" chooses one.`,
  codex: `Models: each dispatch names the persona's model for spawn_agent (${tierWords("codex")}; .harness/config.json "models" to change them); without it a Codex subagent runs on your session's model. With a provider that does not serve these models, set "models": {"clients": {"codex": "inherit"}} there (or the provider's names per tier) and the subagents run on your session's model.`,
  gemini: (dir: string) =>
    `Models: Gemini CLI cannot choose a subagent's model per call (invoke_agent takes none), so each persona runs on its agent file's model: in ${dir} (${tierWords("gemini")}); .harness/config.json "models" and running a failing task's last attempt one tier up do not reach Gemini CLI: edit model: in those files to change one.`,
  inherit: (client: string) =>
    `Models: ${client} cannot be told a subagent's model by autopilot: the personas run on the chat's model, and .harness/config.json "models" does not reach them.`,
};
