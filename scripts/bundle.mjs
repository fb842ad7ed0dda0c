// Bundles the package's entries into what it ships (run by `npm run build`,
// after tsc has written the type declarations):
// - dist/esm: every entry as an ES module, sharing chunks;
// - dist/cjs: every entry Node may run (all but `./browser`) as CommonJS,
//   for jest and other CommonJS set-ups that cannot require ESM;
// - dist/bin: the call-sandbox command, everything in it, msw too.
// @note Inlined: @msw/data and what it imports (tree-shaken: importing all of
// it costs 0.2 s, mostly es-toolkit/compat), and in CommonJS the ESM-only
// packages too. msw stays outside (a peer: the consumer's own copy), and so
// do the dependencies whose types the package's declarations name.
import { cpSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'rolldown'

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const ESM_ONLY = new Set(['@faker-js/faker'])
const outside = (names) => (id) => names.some((name) => id === name || id.startsWith(`${name}/`))
const installed = [...Object.keys(manifest.peerDependencies), ...Object.keys(manifest.dependencies)]

for (const folder of ['esm', 'cjs', 'bin']) rmSync(new URL(`../dist/${folder}`, import.meta.url), { recursive: true, force: true })

const ENTRIES = {
  index: 'src/index.ts',
  node: 'src/node/index.ts',
  browser: 'src/browser/index.ts',
  storybook: 'src/storybook/index.ts',
  server: 'src/server/index.ts',
}

await build({
  input: ENTRIES,
  platform: 'node',
  external: outside(installed),
  output: { dir: 'dist/esm', format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
})

await build({
  input: { index: ENTRIES.index, node: ENTRIES.node, storybook: ENTRIES.storybook, server: ENTRIES.server },
  platform: 'node',
  external: outside(installed.filter((name) => !ESM_ONLY.has(name))),
  output: { dir: 'dist/cjs', format: 'cjs', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
})
// The same declarations as the ES modules', read as CommonJS under this folder's package.json.
writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), '{ "type": "commonjs" }\n')
cpSync('dist/src', 'dist/cjs/types', { recursive: true, filter: (path) => statSync(path).isDirectory() || path.endsWith('.d.ts') })

// @note The command is a program, with no consumer's msw to share: it carries
// its own, and Express and the rest, in one minified module graph. That halves
// its start-up (no CommonJS loader, no second msw through the middleware's
// require('msw')), and `npx call-sandbox` runs without the peer installed.
const mswModule = fileURLToPath(import.meta.resolve('msw'))
await build({
  input: { 'call-sandbox': 'src/server/cli.ts' },
  platform: 'node',
  // The middleware requires msw: given msw's ES module, as the handlers are, it is one msw.
  plugins: [{ name: 'one-msw', resolveId: (source) => (source === 'msw' ? mswModule : null) }],
  output: { dir: 'dist/bin', format: 'esm', minify: true, entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
})
