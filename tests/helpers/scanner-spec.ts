// The skill's security-scanner example with phase 2 at medium complexity (so a headless run never
// waits for interactive planning): shared by suites that run a whole session in-process.
export const SPEC_PATH = "docs/changes/security-scanner/proposal.md";
export const SLUG = "changes--security-scanner--proposal";
export const SPEC = `# Security Scanner

## Implementation Order

### Phase 1: Core Scanner
<!-- complexity: low -->
Scan files for secrets.

### Phase 2: Rule Engine
<!-- complexity: medium -->
Load rules.

### Phase 3: CLI Integration
<!-- complexity: low -->
Wire the CLI.
`;
