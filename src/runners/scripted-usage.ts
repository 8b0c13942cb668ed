// The usage the scripted runner reports for each simulated run: one figure for every persona, or one
// per persona (an executor's run reads and writes more than a reviewer's), so a simulated session
// can be priced per model the way a real one is (`npm run bench`, the cost of the tiers).
import type { PersonaName } from "../protocol/step.js";
import type { UsageReport } from "../session/usage.js";

/** Every run's usage, or each persona's (a persona left out reports none). */
export type ScriptedUsage = UsageReport | Partial<Record<PersonaName, UsageReport>>;

function perPersona(u: ScriptedUsage): u is Partial<Record<PersonaName, UsageReport>> {
  return Object.keys(u).some((k) => k.startsWith("harness-"));
}

/** The usage a run of `persona` reports, as the runner's outcome spreads it (`{}` for none). */
export function scriptedUsage(script: { usage?: ScriptedUsage }, persona: PersonaName): { usage?: UsageReport } {
  const u = script.usage;
  const own = u && perPersona(u) ? u[persona] : u;
  return own ? { usage: { ...own } } : {};
}
