// The layers of docs/architecture.md, held by dependency-cruiser (npm run lint): a module imports
// from its own layer or the layers below it, never above, and no module takes part in a circle.
// Bottom to top; modules of one row sit side by side and may import each other.
const LAYERS = [
  { name: "vocabulary", path: "^src/vocabulary\\.ts$" },
  // The rule tables the state file and the machine both read: the policy and the signal registry.
  { name: "rules", path: "^src/rules/" },
  { name: "protocol", path: "^src/protocol/" },
  { name: "session", path: "^src/session/" },
  // The statechart, pure: the top-level machines/ (its own rule below says what it may import).
  { name: "machines", path: "^machines/" },
  { name: "markdown", path: "^src/markdown/" },
  { name: "effects", path: "^src/effects/" },
  { name: "engine", path: "^src/(engine|personas)/" },
  { name: "log", path: "^src/log/" },
  // The front ends, with install and the headless runners beside them.
  { name: "front ends", path: "^src/(mcp|headless|cli|install|runners)/" },
];

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `no-import-above-${layer.name.replace(/\W+/g, "-")}`,
  comment: `${layer.name} is below ${LAYERS.slice(i + 1)
    .map((l) => l.name)
    .join(", ")}: it imports none of them`,
  severity: "error",
  from: { path: layer.path },
  to: { path: LAYERS.slice(i + 1).map((l) => l.path) },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: "no-circular",
      comment: "a circle of imports has no bottom: the layers cannot be read from the folders",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "machines-are-pure",
      comment:
        "the statechart does no I/O and knows no runtime: it reads only the vocabulary, the rule tables and the state file's shapes (its context), with xstate and zod",
      severity: "error",
      from: { path: "^machines/" },
      to: {
        pathNot: [
          "^machines/",
          "^src/vocabulary\\.ts$",
          "^src/rules/",
          "^src/session/(schema|findings|notices|usage|effects)\\.ts$",
          "(^|/)node_modules/(xstate|zod)/",
        ],
      },
    },
    {
      name: "vocabulary-imports-nothing-of-ours",
      comment: "the vocabulary is the ground floor",
      severity: "error",
      from: { path: "^src/vocabulary\\.ts$" },
      to: { path: "^src/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
