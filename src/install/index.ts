export { CLIENT_NAMES, isClient } from "./client-list.js";
export { planInstall } from "./clients.js";
export { applyPlan, changeOf, unifiedDiff, summaryLine, displayPath } from "./apply.js";
export { packageRoot, homeDir } from "./paths.js";
export { resolveServerCommand } from "./server-command.js";
