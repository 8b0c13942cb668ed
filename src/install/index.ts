export { CLIENTS, planInstall, type Client } from "./clients.js";
export { applyPlan, changeOf, unifiedDiff, summaryLine, displayPath } from "./apply.js";
export { packageRoot, homeDir } from "./paths.js";
export { resolveServerCommand } from "./server-command.js";
