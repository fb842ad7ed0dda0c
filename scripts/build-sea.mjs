// Writes the single executable (`npm run build:sea`, after `npm run build`): dist/sea/call-sandbox-linux-x64, a
// Node 24 binary (scripts/node24.mjs) carrying the one file (dist/call-sandbox.cjs), with Node's single executable
// applications and postject (a dev dependency). It needs nothing on the machine that runs it: no Node, no npm.
//
//   npm run build:sea                                   linux-x64 (this machine's), tested by npm run test:anywhere
//   npm run build:sea -- --platforms linux-arm64,win-x64,darwin-x64      others as well, untested (see below)
//
// @note Other platforms take their Node from the registry's node-<platform> packages, where one of Node 24 is there
// (none for darwin-arm64). Their blob has no code cache, which only the building platform's Node can make. None of
// them runs here: a macOS binary must be signed again (`codesign --sign - call-sandbox-darwin-x64`) on a Mac before
// it starts, and a Windows one is unsigned.
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const ONE_FILE = join(ROOT, 'dist', 'call-sandbox.cjs')
const OUT = join(ROOT, 'dist', 'sea')
/** The fuse Node's binary looks for to know it carries an application (Node's documentation names it). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'
const OTHER_PLATFORMS = ['linux-arm64', 'darwin-x64', 'win-x64']

const { values } = parseArgs({ options: { platforms: { type: 'string', default: '' } } })
const others = values.platforms.split(',').filter(Boolean)
const unknown = others.filter((platform) => !OTHER_PLATFORMS.includes(platform))
if (unknown.length > 0) throw new Error(`--platforms takes ${OTHER_PLATFORMS.join(', ')}; got ${unknown.join(', ')}.`)
if (!existsSync(ONE_FILE)) throw new Error(`${ONE_FILE} is missing: run npm run build first.`)

const require = createRequire(import.meta.url)
let postject
try {
  postject = require('postject')
} catch {
  throw new Error('postject is missing: npm install -D postject@1.0.0-alpha.6 (a dev dependency of the project).')
}

const node24 = execFileSync(process.execPath, [join(ROOT, 'scripts', 'node24.mjs')], { encoding: 'utf8' }).trim()
const work = join(tmpdir(), `call-sandbox-sea-${process.pid}`)
mkdirSync(work, { recursive: true })
rmSync(OUT, { recursive: true, force: true })
mkdirSync(OUT, { recursive: true })
try {
  await write('linux-x64', node24, blob(node24, { useCodeCache: true }))
  const portable = others.length > 0 ? blob(node24, { useCodeCache: false }) : undefined
  for (const platform of others) await write(platform, registryNode(platform), portable)
} finally {
  rmSync(work, { recursive: true, force: true })
}

/**
 * The application's blob, made by Node 24 itself from the one file.
 * @note The blob keeps the path of its main script as the script's name (in a stack trace, and where an import()
 * would look from): named by a relative path, no folder of the machine that built it is in the executable.
 */
function blob(node, { useCodeCache }) {
  const output = `blob-${useCodeCache ? 'cached' : 'plain'}`
  copyFileSync(ONE_FILE, join(work, 'call-sandbox.cjs'))
  const config = { main: 'call-sandbox.cjs', output, disableExperimentalSEAWarning: true, useCodeCache }
  writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config))
  execFileSync(node, ['--experimental-sea-config', 'sea-config.json'], {
    cwd: work,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  return readFileSync(join(work, output))
}

/** A copy of `node` with the blob injected, as dist/sea/call-sandbox-<platform>[.exe]. */
async function write(platform, node, data) {
  const target = join(OUT, `call-sandbox-${platform}${platform.startsWith('win') ? '.exe' : ''}`)
  copyFileSync(node, target)
  chmodSync(target, 0o755)
  await postject.inject(target, 'NODE_SEA_BLOB', data, {
    sentinelFuse: SEA_FUSE,
    ...(platform.startsWith('darwin') ? { machoSegmentName: 'NODE_SEA' } : {}),
  })
  const tested = platform === 'linux-x64' ? '' : ' (untested: it cannot run here)'
  console.log(`${target}: ${(statSync(target).size / 1e6).toFixed(1)} MB${tested}`)
}

/** The Node 24 binary of another platform, from the registry's node-<platform> package (kept beside node24's). */
function registryNode(platform) {
  const folder = join(ROOT, 'node_modules', '.cache', `node24-${platform}`)
  const name = `node-${platform}`
  const binary = join(folder, 'node_modules', name, 'bin', platform.startsWith('win') ? 'node.exe' : 'node')
  if (!existsSync(binary)) {
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        folder,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        '--force',
        `${name}@24`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    )
  }
  return binary
}
