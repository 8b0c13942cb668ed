// Small numeric helpers for the bench: percentiles, medians, formatting.
export function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  // Nearest rank: p99 of fewer than 100 samples is the maximum, which is what we want to show.
  const rank = Math.min(s.length, Math.max(1, Math.ceil((p / 100) * s.length)));
  return s[rank - 1];
}
export const median = (xs: number[]) => percentile(xs, 50);
export const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
export const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(x < 10 ? 2 : 1)} ms` : "n/a");
export const kb = (b: number) =>
  b >= 1024 * 1024 ? `${(b / 1024 / 1024).toFixed(2)} MB` : `${(b / 1024).toFixed(1)} KB`;
export const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(a / b < 1 ? 3 : 1)}×` : "n/a");
export const bytes = (s: string) => Buffer.byteLength(s, "utf8");

/** A plain-text table with left-aligned first column and right-aligned others. */
export function table(head: string[], rows: string[][]): string {
  const all = [head, ...rows];
  const w = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join("  ");
  return [line(head), w.map((n) => "-".repeat(n)).join("  "), ...rows.map(line)].join("\n");
}
