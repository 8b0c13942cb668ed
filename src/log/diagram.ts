// The state diagram, drawn from the machine definition rather than by hand: walk the top-level
// states of `autopilotMachine`, collect every transition of each state and of its nested states,
// map each target to its top-level state, and lay the result out as an arc diagram in inline SVG
// (states in definition order on one row, forward jumps arc above, returns arc below, transitions
// that stay inside a state become a loop on it).
import type { AnyStateMachine } from "xstate";
import { autopilotMachine } from "../../machines/autopilot.machine.js";

interface GraphNode {
  id: string;
  /** Nested states (the places the state can rest in), in definition order. */
  children: string[];
  initial: boolean;
  final: boolean;
  /** Transitions that stay inside this state, e.g. "EXECUTED [retryBudgetLeft] running → running". */
  internal: string[];
}

interface GraphEdge {
  from: string;
  to: string;
  /** One short label per transition: the answer for DECIDE, the guard, else the event. */
  labels: string[];
  /** The full transitions, for tooltips: "EXECUTE.running —EXECUTED [outcomeComplete]→ VERIFY.running". */
  details: string[];
}

export interface StateGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

// Minimal structural views of xstate's StateNode and TransitionDefinition (v5), so the walk
// depends on the shape it reads and not on xstate's internal generic types.
interface TNode {
  key: string;
  id: string;
  path: string[];
  type: string;
  parent?: TNode;
  states: Record<string, TNode>;
  transitions: Map<string, TDef[]>;
  always?: TDef[];
  initial?: { target: TNode[] };
}
interface TDef {
  eventType: string;
  target?: TNode[] | undefined;
  guard?: unknown;
}

function topOf(n: TNode): TNode | null {
  let cur: TNode | undefined = n;
  while (cur && cur.path.length > 1) cur = cur.parent;
  return cur && cur.path.length === 1 ? cur : null;
}

function guardText(guard: unknown): { short: string | null; full: string | null } {
  if (!guard) return { short: null, full: null };
  if (typeof guard === "string") return { short: guard, full: guard };
  if (typeof guard === "object") {
    const g = guard as { type?: unknown; params?: unknown };
    const params = g.params as { answer?: unknown } | undefined;
    if (params && typeof params.answer === "string") return { short: params.answer, full: `answer "${params.answer}"` };
    if (typeof g.type === "string") return { short: g.type, full: g.type };
  }
  if (typeof guard === "function") {
    // XState's or([...]) of answers: the answers, one after the other ("fix" / "fix these").
    const inner = (guard as { name?: string; guards?: unknown[] }).guards;
    const answers = guard.name === "or" && inner ? inner.map(guardText) : [];
    if (answers.length && answers.every((a) => a.full?.startsWith("answer ")))
      return { short: answers.map((a) => a.short).join("” / “"), full: answers.map((a) => a.full).join(" or ") };
    const name = (guard as { name?: string }).name;
    return { short: null, full: name && name !== "guard" ? name : "combined guard" };
  }
  return { short: null, full: "guard" };
}

/** camelCase guard names in words: planAlreadyExists → "plan already exists". */
function humanize(s: string): string {
  return s.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

function localName(n: TNode): string {
  return n.path.join(".");
}

/** The machine's top-level states and the transitions between them (nested targets mapped up). */
export function stateGraph(machine: AnyStateMachine = autopilotMachine): StateGraph {
  const root = machine.root as unknown as TNode;
  const tops = Object.values(root.states);
  const initialId = root.initial?.target?.[0]?.key;
  const nodes: GraphNode[] = tops.map((t) => ({
    id: t.key,
    children: Object.keys(t.states),
    initial: t.key === initialId,
    final: t.type === "final",
    internal: [],
  }));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const edges = new Map<string, GraphEdge>();
  const visit = (n: TNode, top: TNode) => {
    const defs: TDef[] = [];
    for (const list of n.transitions.values()) defs.push(...list);
    defs.push(...(n.always ?? []));
    for (const t of defs) {
      for (const target of t.target ?? []) {
        const to = topOf(target);
        if (!to) continue;
        const g = guardText(t.guard);
        const ev = t.eventType || "always";
        const detail = `${localName(n)} —${ev}${g.full ? ` [${g.full}]` : ""}→ ${localName(target)}`;
        if (to.key === top.key) {
          byId.get(top.key)!.internal.push(detail);
          continue;
        }
        const key = `${top.key}>${to.key}`;
        let e = edges.get(key);
        if (!e) edges.set(key, (e = { from: top.key, to: to.key, labels: [], details: [] }));
        const short =
          ev === "DECIDE" && g.short
            ? `“${g.short}”`
            : g.short
              ? humanize(g.short)
              : ev === "always"
                ? "automatic"
                : ev;
        if (!e.labels.includes(short)) e.labels.push(short);
        e.details.push(detail);
      }
    }
    for (const c of Object.values(n.states)) visit(c, top);
  };
  for (const t of tops) visit(t, t);
  return { nodes, edges: [...edges.values()] };
}

// ---- SVG -----------------------------------------------------------------------------------

function escapeXml(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

export interface DiagramOptions {
  current: string;
  stage?: string | null;
  /** States the session is known to have passed through (drawn solid rather than faded). */
  visited?: ReadonlySet<string>;
}

const NODE_W = 96;
const NODE_H = 50;
const GAP = 30;
const PAD_X = 14;

/** Node label lines: "APPROVE_PLAN" → ["APPROVE", "PLAN"]. */
function labelLines(id: string): string[] {
  return id.split("_");
}

export function renderStateDiagram(graph: StateGraph, opts: DiagramOptions): string {
  const n = graph.nodes.length;
  const index = new Map(graph.nodes.map((node, i) => [node.id, i]));
  const x = (i: number) => PAD_X + i * (NODE_W + GAP);
  const cx = (i: number) => x(i) + NODE_W / 2;
  const width = PAD_X * 2 + n * NODE_W + (n - 1) * GAP;

  const above = graph.edges.filter((e) => index.get(e.to)! - index.get(e.from)! > 1);
  const adjacent = graph.edges.filter((e) => index.get(e.to)! - index.get(e.from)! === 1);
  const below = graph.edges.filter((e) => index.get(e.to)! < index.get(e.from)!);
  const span = (e: GraphEdge) => Math.abs(index.get(e.to)! - index.get(e.from)!);
  const arcHeight = (e: GraphEdge) => 26 + span(e) * 16;
  const maxAbove = Math.max(0, ...above.map(arcHeight));
  const maxBelow = Math.max(0, ...below.map(arcHeight));
  const loopRoom = 26;
  const top = Math.max(maxAbove + 16, loopRoom + 18) + 22;
  const nodeY = top;
  const midY = nodeY + NODE_H / 2;
  const height = nodeY + NODE_H + maxBelow * 0.75 + 24;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="state-diagram" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="sd-title sd-desc">`,
    `<title id="sd-title">State diagram of the autopilot machine</title>`,
    `<desc id="sd-desc">${escapeXml(
      `${n} states in order: ${graph.nodes.map((x) => x.id).join(", ")}. The session is at ${opts.current}${opts.stage ? ` (${opts.stage})` : ""}. ` +
        graph.edges.map((e) => `${e.from} to ${e.to} (${e.labels.join(", ")})`).join("; ") +
        ".",
    )}</desc>`,
    `<defs>`,
    `<marker id="sd-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#3b4557"/></marker>`,
    `<marker id="sd-arrow-back" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#8a4b0f"/></marker>`,
    `</defs>`,
  );

  const edgeTitle = (e: GraphEdge) => `<title>${escapeXml(`${e.from} → ${e.to}\n${e.details.join("\n")}`)}</title>`;
  const label = (text: string, lx: number, ly: number, cls: string, anchor = "middle") =>
    `<text class="sd-edge-label ${cls}" x="${lx}" y="${ly}" text-anchor="${anchor}">${escapeXml(text)}</text>`;
  const short = (e: GraphEdge) => {
    const t = e.labels.slice(0, 2).join(" / ") + (e.labels.length > 2 ? " …" : "");
    return t.length > 30 ? t.slice(0, 29) + "…" : t;
  };

  // Forward neighbours: a straight arrow between the boxes.
  for (const e of adjacent) {
    const i = index.get(e.from)!;
    out.push(
      `<g class="sd-edge sd-forward" data-from="${escapeXml(e.from)}" data-to="${escapeXml(e.to)}">${edgeTitle(e)}<line x1="${x(i) + NODE_W}" y1="${midY}" x2="${x(i + 1) - 2}" y2="${midY}" stroke="#3b4557" stroke-width="1.6" marker-end="url(#sd-arrow)"/></g>`,
    );
  }
  // Where arcs meet a box: spread the ends on each side so arrows into one state do not pile up.
  const ports = new Map<string, number>();
  const side = (list: GraphEdge[], sideName: "top" | "bottom") => {
    const ends = new Map<number, { key: string; other: number }[]>();
    for (const e of list) {
      const a = index.get(e.from)!;
      const b = index.get(e.to)!;
      const add = (at: number, other: number, end: string) => {
        if (!ends.has(at)) ends.set(at, []);
        ends.get(at)!.push({ key: `${sideName}:${e.from}>${e.to}:${end}`, other });
      };
      add(a, b, "from");
      add(b, a, "to");
    }
    for (const [at, list2] of ends) {
      // Nest the arcs: ends whose other state is to the left first (farthest outermost), then those
      // to the right (farthest outermost again, so descending).
      list2.sort((p, q) => {
        const pl = p.other < at ? 0 : 1;
        const ql = q.other < at ? 0 : 1;
        if (pl !== ql) return pl - ql;
        return pl === 0 ? p.other - q.other : q.other - p.other;
      });
      const k = list2.length;
      list2.forEach((p, j) => ports.set(p.key, cx(at) + (j - (k - 1) / 2) * 20));
    }
  };
  side(above, "top");
  side(below, "bottom");
  const port = (sideName: string, e: GraphEdge, end: "from" | "to") =>
    ports.get(`${sideName}:${e.from}>${e.to}:${end}`)!;

  // Forward jumps: arcs above the row.
  for (const e of above) {
    const x1 = port("top", e, "from");
    const x2 = port("top", e, "to");
    const h = arcHeight(e);
    const y0 = nodeY;
    out.push(
      `<g class="sd-edge sd-jump" data-from="${escapeXml(e.from)}" data-to="${escapeXml(e.to)}">${edgeTitle(e)}<path d="M${x1},${y0} C${x1},${y0 - h} ${x2},${y0 - h} ${x2},${y0 - 2}" fill="none" stroke="#3b4557" stroke-width="1.4" marker-end="url(#sd-arrow)"/>${label(short(e), (x1 + x2) / 2, y0 - h * 0.75 - 5, "sd-above")}</g>`,
    );
  }
  // Returns: arcs below the row, labelled where they leave (nested arcs leave no room at the apex).
  for (const e of below) {
    const x1 = port("bottom", e, "from");
    const x2 = port("bottom", e, "to");
    const h = arcHeight(e);
    const y0 = nodeY + NODE_H;
    out.push(
      `<g class="sd-edge sd-back" data-from="${escapeXml(e.from)}" data-to="${escapeXml(e.to)}">${edgeTitle(e)}<path d="M${x1},${y0} C${x1},${y0 + h} ${x2},${y0 + h} ${x2},${y0 + 2}" fill="none" stroke="#8a4b0f" stroke-width="1.4" stroke-dasharray="5 3" marker-end="url(#sd-arrow-back)"/>${label(short(e), x1 - 6, y0 + 18, "sd-below", "end")}</g>`,
    );
  }
  // States.
  graph.nodes.forEach((node, i) => {
    const isCurrent = node.id === opts.current;
    const visited = opts.visited ? opts.visited.has(node.id) || isCurrent : true;
    const cls = ["sd-node", isCurrent ? "current" : "", visited ? "visited" : "unvisited", node.final ? "final" : ""]
      .filter(Boolean)
      .join(" ");
    const tip = [
      node.id + (isCurrent ? " (current state)" : ""),
      node.children.length ? `substates: ${node.children.join(", ")}` : "",
      ...node.internal.map((d) => `inside: ${d}`),
    ]
      .filter(Boolean)
      .join("\n");
    const lines = labelLines(node.id);
    const lineH = 14;
    const stageLine = isCurrent && opts.stage ? 6 : 0;
    const firstY = midY - ((lines.length - 1) * lineH) / 2 + 4.5 - stageLine;
    const parts: string[] = [];
    parts.push(
      `<g class="${cls}" data-state="${escapeXml(node.id)}"${isCurrent ? ' data-current="true" aria-current="step"' : ""}>`,
    );
    parts.push(`<title>${escapeXml(tip)}</title>`);
    if (node.internal.length) {
      // A loop on top of the box: the state has transitions that stay inside it.
      const lx = x(i) + NODE_W - 26;
      parts.push(
        `<path class="sd-loop" d="M${lx},${nodeY} C${lx - 4},${nodeY - 24} ${lx + 20},${nodeY - 24} ${lx + 16},${nodeY - 1}" fill="none" stroke="#5b6473" stroke-width="1.2" marker-end="url(#sd-arrow)"/>`,
      );
    }
    if (isCurrent)
      parts.push(
        `<rect x="${x(i) - 4}" y="${nodeY - 4}" width="${NODE_W + 8}" height="${NODE_H + 8}" rx="12" fill="none" stroke="#1d4ed8" stroke-width="2" stroke-dasharray="4 3"/>`,
      );
    parts.push(
      `<rect class="sd-box" x="${x(i)}" y="${nodeY}" width="${NODE_W}" height="${NODE_H}" rx="9" stroke-width="${node.final ? 3 : 1.5}"/>`,
    );
    lines.forEach((line, k) =>
      parts.push(
        `<text class="sd-label" x="${cx(i)}" y="${firstY + k * lineH}" text-anchor="middle">${escapeXml(line)}</text>`,
      ),
    );
    if (node.initial) parts.push(`<circle cx="${x(i) - 9}" cy="${midY}" r="4.5" fill="#3b4557"/>`);
    if (isCurrent) {
      // The marker sits above every arc, with a pointer down to the box; the stage is written
      // inside the box, under the name.
      parts.push(
        `<line class="sd-pointer" x1="${cx(i)}" y1="19" x2="${cx(i)}" y2="${nodeY - 6}" stroke="#1d4ed8" stroke-width="1.5" stroke-dasharray="3 3"/>`,
        `<text class="sd-here" x="${cx(i)}" y="13" text-anchor="middle">▼ current state</text>`,
      );
      if (opts.stage)
        parts.push(
          `<text class="sd-stage" x="${cx(i)}" y="${nodeY + NODE_H - 7}" text-anchor="middle">${escapeXml(opts.stage)}</text>`,
        );
    }
    parts.push(`</g>`);
    out.push(parts.join(""));
  });
  out.push(`</svg>`);
  return out.join("\n");
}
