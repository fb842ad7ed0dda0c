/**
 * The floors of src/, lowest first: a module imports its own floor and those
 * below it, never one above, and no import runs in a circle. `npm test` runs
 * it (`npm run deps`); the README's Layout section says what each floor holds.
 */
const FLOORS = [
  'text', // how a value is written into a message: thousands, echoed (what a client sent, cut short)
  'schemas', // zod schemas: the contract's shapes, errors and the stored records
  'seed', // the seed's story: fixtures, the story of a call, its callers and outcomes, seedWorld
  'data', // Database: collections, indexes, the journal of writes
  'sandbox', // one world and its services: writes, keys, faults, endings, live mode, factories
  'sessions', // the registry of named worlds: made on first use, put away and brought back
  'http', // the API pipeline and its endpoints, and what every answer shares
  'proxy', // proxy mode: /v1/ sent to a real service, its answers held to the contract, drift, recording
  'control', // the control plane /_sandbox/
  'openapi', // the OpenAPI document
  'handlers', // the one MSW handler: dispatch to the API, the control plane, the document
  'index\\.ts$', // the package's environment-agnostic entry
]
/** Each environment's adapter sits on top, and none imports another's. */
const ADAPTERS = ['node', 'browser', 'server', 'storybook']

const floorPath = (floor) => `^src/${floor}`

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: a piece lives on the wrong floor. Move it down rather than work around it.',
      from: {},
      to: { circular: true },
    },
    ...FLOORS.map((floor, i) => ({
      name: `no-upward-import-from-${floor.replace(/\W.*/, '')}`,
      severity: 'error',
      comment: `src/${floor} may import only its own floor and those below it: ${FLOORS.slice(0, i).join(', ') || 'none'}.`,
      from: { path: floorPath(floor) },
      to: { path: [...FLOORS.slice(i + 1), ...ADAPTERS].map(floorPath) },
    })),
    ...ADAPTERS.map((adapter) => ({
      name: `no-import-from-another-adapter-in-${adapter}`,
      severity: 'error',
      comment: `src/${adapter} is one environment's adapter: it builds on the floors below, not on another adapter.`,
      from: { path: floorPath(adapter) },
      to: { path: ADAPTERS.filter((other) => other !== adapter).map(floorPath) },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default'] },
  },
}
