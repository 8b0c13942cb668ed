// Why a hook refused a commit, in one line: what a record, a learning and a later brief keep of
// its output. The first line is rarely it: lint-staged starts with "[STARTED] Backing up original
// state...", the pre-commit framework with the names of the hooks that passed. Pure.

/** Progress and plumbing lines that say nothing about why. */
const NOISE = [
  /^\[(STARTED|COMPLETED|SUCCESS|SKIPPED|TITLE)\]/,
  /^[→↓✔❯√]\s/,
  /^(Preparing|Running tasks|Applying modifications|Restoring|Cleaning up|Backing up|Reverting)\b/i,
  /\.{3,}\s*(Passed|Skipped|\(no files to check\)Skipped)$/,
  /^- (hook id|exit code|duration):/,
  /^husky - .*(script failed|exited)/i,
  /^…$/,
];

/** A failed step's name: lint-staged's "[FAILED] prettier --check" or "✖ prettier --check:", the framework's "name....Failed". */
function failedStep(line: string): string | null {
  // A command autopilot ran itself ("$ prettier --check a.ts b.ts (exit 1)"): the command without its files.
  const ran = /^\$ (.+?) \((?:exit \d+|timed out|stopped)\)$/.exec(line);
  if (ran) {
    const words = ran[1].split(/\s+/);
    const files = words.findIndex((w, i) => i > 0 && /[/\\]|\.\w+$/.test(w) && !w.startsWith("-"));
    return (files > 0 ? words.slice(0, files) : words).join(" ");
  }
  const m =
    /^\[FAILED\]\s+(.+?)(?:\s+\[FAILED\])?$/.exec(line) ??
    /^[✖×]\s+(.+?):?$/.exec(line) ??
    /^(.+?)\.{3,}\s*Failed$/.exec(line);
  return m ? m[1].trim() : null;
}

/** Lines that say why, strongest first: an error or a finding, a place in a file, a warning. */
const WHY = [
  /\berror\b|issues? found|\bproblems?\b|\bfailed\b|\bmissing\b|\binvalid\b|not allowed|\bexpected\b|\bmust\b/i,
  /\S+\.\w+:\d+(:\d+)?\b|^\s*\d+:\d+\s/,
  /\bwarn(ing)?\b|✖/i,
];

/** "prettier --check: [warn] Code style issues found in the above file. Run Prettier with --write to fix." */
export function hookCause(output: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !NOISE.some((re) => re.test(l)));
  const steps = lines.map(failedStep);
  const step = steps.find((s) => s !== null) ?? null;
  const rest = lines.filter((_, i) => steps[i] === null);
  const picked = WHY.map((re) => rest.find((l) => re.test(l))).find((l) => l !== undefined);
  const why = picked ?? rest[0] ?? lines[0] ?? "the hook gave no output";
  // A place in a file says where, the line before it what ("lint: no console.log" above "a.ts:2: ...").
  const before = picked && !WHY[0].test(picked) ? rest[rest.indexOf(picked) - 1] : undefined;
  const head = step ?? (before && !WHY[1].test(before) ? before.replace(/:$/, "") : null);
  const text = head && !why.includes(head) ? `${head}: ${why}` : why;
  return text.length > 240 ? `${text.slice(0, 239)}…` : text;
}
