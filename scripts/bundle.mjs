// Bundles the package's entries into what it ships (run by `npm run build`,
// after tsc has written the type declarations):
// - dist/esm: every entry as an ES module, sharing chunks;
// - dist/cjs: every entry Node may run (all but `./browser`) as CommonJS,
//   for jest and other CommonJS set-ups that cannot require ESM;
// - dist/bin: the call-sandbox command, everything in it, msw too.
// @note Inlined: @msw/data and what it imports (tree-shaken: importing all of
// it costs 0.2 s, mostly es-toolkit/compat), zod (its classic entry is some
// 70 modules and every locale: 65 ms to import, against about 15 ms for the
// part the package uses, bundled), and in CommonJS the ESM-only packages too.
// zod stays a dependency, for the declarations that name its types; two
// copies of zod 4 share their registry and config (zod keeps them on
// globalThis). msw stays outside (a peer: the consumer's own copy), and so do
// the other dependencies.
import { chmodSync, cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { build } from 'rolldown'

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const ESM_ONLY = new Set(['@faker-js/faker'])
const INLINED = new Set(['zod'])
const outside = (names) => (id) => names.some((name) => id === name || id.startsWith(`${name}/`))
const installed = [...Object.keys(manifest.peerDependencies), ...Object.keys(manifest.dependencies)].filter(
  (name) => !INLINED.has(name),
)

for (const folder of ['esm', 'cjs', 'bin', 'call-sandbox.cjs'])
  rmSync(new URL(`../dist/${folder}`, import.meta.url), { recursive: true, force: true })

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
cpSync('dist/src', 'dist/cjs/types', {
  recursive: true,
  filter: (path) => statSync(path).isDirectory() || path.endsWith('.d.ts'),
})

// @note The command is a program, with no consumer's msw to share: it carries
// its own, and Express and the rest, in one minified bundle (dist/bin/cli.cjs).
// That halves its start-up (no module resolution), and `npx call-sandbox`
// runs without the peer installed (the Redis client, a dependency, stays
// outside: see below). The command (dist/bin/call-sandbox.js,
// from src/server/bin.ts) turns Node's compile cache on, then requires it.
await build({
  input: { cli: 'src/server/cli.ts' },
  platform: 'node',
  // Loaded only with --store redis://, and by the mcp command, from the package's own dependencies: a start without
  // them pays nothing for them.
  external: outside(['@redis/client', '@modelcontextprotocol/sdk']),
  // ASCII only (non-ASCII characters escaped: faker's emoji, typographic quotes):
  // V8 then keeps the source in one byte a character, not two (1.7 MB less RSS).
  output: {
    dir: 'dist/bin',
    format: 'cjs',
    minify: { compress: true, mangle: true, codegen: { asciiOnly: true } },
    entryFileNames: '[name].cjs',
    codeSplitting: false,
  },
})
await build({
  input: { 'call-sandbox': 'src/server/bin.ts' },
  platform: 'node',
  output: { dir: 'dist/bin', format: 'esm', minify: true, entryFileNames: '[name].js' },
})

// @note The one file (dist/call-sandbox.cjs): the command again, with nothing left outside, for `node` alone in an
// empty folder (a CI image without npm, a container, the single executable of `npm run build:sea`). The Redis
// client comes inside (some 300 KB), and so do the files the package otherwise reads from its folders: the console
// and Swagger UI, put in place of src/server/embeddedFiles.ts. CommonJS, as a single executable wants.
// The MCP SDK stays out (its own dependencies, ajv and the rest, would double the file for a command an agent starts
// with npx anyway): there, `call-sandbox mcp` says it needs the npm package. Left out is not left outside: an import
// of it would look for a node_modules above wherever the file is, and in the single executable above the folder it
// was built in, and run what it finds there. Each package left out is a module that throws instead, and the file
// holds no import of anything that Node does not have built in (checked below).
const EMBEDDED_FOLDERS = ['console', 'dist/docs']
/** The packages the one file leaves out: the MCP SDK, and the optional hash the Redis client's digest() imports. */
const LEFT_OUT = ['@modelcontextprotocol/sdk', '@node-rs/xxhash']
const LEFT_OUT_ID = '\0left-out:'
const oneFile = await build({
  input: { 'call-sandbox': 'src/server/cli.ts' },
  platform: 'node',
  plugins: [
    {
      name: 'embedded-files',
      load: (id) => (id.replaceAll('\\', '/').endsWith('/src/server/embeddedFiles.ts') ? embeddedFilesModule() : null),
    },
    {
      name: 'left-out',
      resolveId: (source) => (outside(LEFT_OUT)(source) ? `${LEFT_OUT_ID}${source}` : null),
      load: (id) => (id.startsWith(LEFT_OUT_ID) ? leftOutModule(id.slice(LEFT_OUT_ID.length)) : null),
    },
  ],
  output: {
    dir: 'dist',
    format: 'cjs',
    banner: '#!/usr/bin/env node',
    minify: { compress: true, mangle: true, codegen: { asciiOnly: true } },
    entryFileNames: '[name].cjs',
    codeSplitting: false,
  },
})
chmodSync(new URL('../dist/call-sandbox.cjs', import.meta.url), 0o755)
// What the one file would load from outside itself, were it not built in: nothing.
const [oneChunk] = oneFile.output
const outsiders = [...oneChunk.imports, ...oneChunk.dynamicImports].filter(
  // An import() of a module inside is an import of the chunk itself.
  (name) => name !== oneChunk.fileName && !isBuiltin(name),
)
if (outsiders.length > 0)
  throw new Error(`dist/call-sandbox.cjs would load from outside itself: ${outsiders.join(', ')}`)

/**
 * A module in place of a package left out: importing it fails with a code that `call-sandbox mcp` turns into "it
 * needs the npm package", and with no path in its message.
 */
function leftOutModule(name) {
  const message = `${name} is not in the one-file build`
  return `throw Object.assign(new Error(${JSON.stringify(message)}), { code: 'CALL_SANDBOX_LEFT_OUT' })\n`
}

/** The module of every file of EMBEDDED_FOLDERS: text as a string literal, anything else as base64. */
function embeddedFilesModule() {
  const folders = EMBEDDED_FOLDERS.map((folder) => {
    const url = new URL(`../${folder}/`, import.meta.url)
    const files = readdirSync(url).map((name) => {
      const bytes = readFileSync(new URL(name, url))
      const text = bytes.toString('utf8')
      const isText = Buffer.from(text).equals(bytes) && !text.includes('\0')
      const value = isText ? JSON.stringify(text) : `Buffer.from(${JSON.stringify(bytes.toString('base64'))}, 'base64')`
      return `[${JSON.stringify(name)}, ${value}]`
    })
    return `[${JSON.stringify(folder)}, new Map([${files.join(',\n')}])]`
  })
  return `export const EMBEDDED_FILES = new Map([${folders.join(',\n')}])\n`
}
