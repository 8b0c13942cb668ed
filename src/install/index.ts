export {
  CLIENTS,
  SERVER_NAME,
  planInstall,
  type Client,
  type InstallOptions,
  type InstallPlan,
  type PlannedFile,
} from "./clients.js";
export { applyPlan, changeOf, unifiedDiff, summaryLine, displayPath } from "./apply.js";
export { mergeJsonServer, mergeTomlServer, deepEqual, JSONC, STRICT_JSON, type JsonDialect } from "./merge.js";
export { packageRoot, homeDir, vscodeUserDir, codexHome } from "./paths.js";
export {
  resolveServerCommand,
  commandWords,
  npxCommand,
  binOnPath,
  packageVersion,
  type ServerCommand,
} from "./server-command.js";
