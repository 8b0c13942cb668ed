// The confined tool set a persona works with in the built-in agent loop. Every tool is a contract
// (seed 004): the model proposes a call, the harness validates the input, confines every path to
// the project, checks that edits rest on a fresh full read of the file, runs the action and hands
// back a bounded result. Refusals are results the model can act on, never exceptions, so one bad
// proposal costs a turn instead of the run. The tools themselves: tool-files.ts (read, write,
// edit), tool-search.ts (list, search), tool-commands.ts (a shell command, git); what they share:
// tool-kit.ts.
import { z } from "zod";
import { commandTools } from "./tool-commands.js";
import { fileTools } from "./tool-files.js";
import { formatIssues, Refusal, toolContext, type ToolboxOptions, type ToolResult } from "./tool-kit.js";
import { searchTools } from "./tool-search.js";

export type { ToolboxOptions } from "./tool-kit.js";

interface ToolDefinition {
  name: string;
  description: string;
  input_schema: { type: "object"; properties?: unknown; required?: string[]; [k: string]: unknown };
}

export interface Toolbox {
  readonly projectRoot: string;
  readonly definitions: ToolDefinition[];
  call(name: string, input: unknown): Promise<ToolResult>;
  /** Project-relative paths of files read earlier whose content has since changed on disk. */
  changedSinceRead(): Promise<string[]>;
  /** Project-relative paths this toolbox wrote or edited. */
  readonly written: ReadonlySet<string>;
}

function toInputSchema(schema: z.ZodType): ToolDefinition["input_schema"] {
  const json = z.toJSONSchema(schema) as Record<string, unknown>;
  delete json.$schema;
  return json as ToolDefinition["input_schema"];
}

export function createToolbox(projectRoot: string, opts: ToolboxOptions = {}): Toolbox {
  const ctx = toolContext(projectRoot, opts);
  const files = fileTools(ctx);
  const tools = [...files.tools, ...searchTools(ctx), ...commandTools(ctx)];
  const byName = new Map(tools.map((t) => [t.name, t]));
  const max = ctx.limits.maxResultChars;

  function bound(text: string): string {
    if (text.length <= max) return text;
    return text.slice(0, max) + `\n[result cut at ${max} of ${text.length} characters]`;
  }

  return {
    projectRoot: ctx.root,
    written: files.written,
    definitions: tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: toInputSchema(t.schema),
    })),
    async call(name, input) {
      const tool = byName.get(name);
      if (!tool)
        return { content: `Unknown tool ${name}. Available: ${[...byName.keys()].join(", ")}.`, isError: true };
      const parsed = tool.schema.safeParse(input ?? {});
      if (!parsed.success) {
        return { content: `Invalid input for ${name}: ${formatIssues(parsed.error)}`, isError: true };
      }
      try {
        const r = await tool.run(parsed.data as never);
        return typeof r === "string"
          ? { content: bound(r), isError: false }
          : { content: bound(r.content), isError: r.isError };
      } catch (e) {
        if (e instanceof Refusal) return { content: e.message, isError: true };
        if (opts.signal?.aborted) throw e;
        return { content: `${name} failed: ${(e as Error).message}`, isError: true };
      }
    },
    changedSinceRead: files.changedSinceRead,
  };
}
