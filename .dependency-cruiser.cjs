// The import-graph check of `npm run lint`: imports run one way, from the CLI down to the stages,
// and no files import each other in a circle.
//
// Layers, top to bottom. A file may import its own layer and the layers below it, never one above:
//   1. harness/cli.ts and harness/commands/  the CLI: it parses the user's words and wires the rest.
//   2. harness/ (the rest)                     orchestration, sandboxes, store, models: what the
//                                              commands drive; it passes the stages what they need.
//   3. reports/                                reads labels, merge attempts and tasks, so sits above them.
//   4. judges/                                 labels failures; reads patches with the resolver's parsers.
//   5. resolver/, tasks/                       the merge cascade and the pools: they import no stage.
// The stages (3-5) define the small interfaces they need (a model call, a run's records, an error
// type) and harness hands them in, so a stage can be read, tested and reused without the harness.

/** Layer of a path, as a regular expression over paths from the repository root. */
const LAYERS = [
  { name: 'cli', path: '^harness/(cli\\.ts$|commands/)' },
  { name: 'harness', path: '^harness/' },
  { name: 'reports', path: '^reports/' },
  { name: 'judges', path: '^judges/' },
  { name: 'resolver and tasks', path: '^(resolver|tasks)/' },
];

/** One rule per layer: nothing below it imports it. */
const upwardArrows = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `no-import-up-to-${layer.name.replace(/\W+/g, '-')}`,
  comment: `${layer.name} is layer ${index + 1}: only layers above it may import it`,
  severity: 'error',
  from: {
    path: `^(${LAYERS.slice(index + 1)
      .map((below) => below.path.slice(1))
      .join('|')})`,
    pathNot: LAYERS.slice(0, index + 1).map((above) => above.path),
  },
  to: { path: layer.path, pathNot: LAYERS.slice(0, index).map((above) => above.path) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'files that import each other cannot be read, tested or changed one at a time',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-stage-imports-harness',
      comment: 'a stage defines the interface it needs (a model call, a run, an error type); harness passes it in',
      severity: 'error',
      from: { path: '^(tasks|resolver|judges|reports|feature-pools)/' },
      to: { path: '^harness/' },
    },
    {
      name: 'no-harness-imports-commands',
      comment: 'the commands sit on top: only the CLI entry wires them',
      severity: 'error',
      from: { path: '^harness/', pathNot: '^harness/(cli\\.ts$|commands/)' },
      to: { path: '^harness/commands/' },
    },
    ...upwardArrows,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|feature-pools|tests/fixtures)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
