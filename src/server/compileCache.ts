import { createHash } from 'node:crypto'
import { lstatSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Script } from 'node:vm'
import { writeAtomically } from './writeAtomically.js'

/** After this long, what has been compiled is what a start compiles: write it then. */
const WRITE_AFTER_MS = 1_000

/**
 * Runs a CommonJS file as `require` would, from V8's code cache when one
 * was kept for it, and keeps one for the next start when none fit.
 *
 * @note Node 20 has no compile cache of its own (`module.enableCompileCache`
 * came in Node 22.1). The command's bundle is 1.9 MB: compiling it, and the
 * functions its start runs, took about a third of the start until it
 * listened (0.35 to 0.47 s); from the cache it listens in about 0.3 s, with
 * 13 MB less RSS (see the README's Benchmarks). Like Node 22's cache, it is
 * kept in `$NODE_COMPILE_CACHE` or the temp folder (`node-compile-cache/
 * call-sandbox/`), written a second after a start that had none, and
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Its file is named by a hash of
 * the bundle and the Node version (V8 checks only the source's length), and
 * its folders must be the user's own and closed to others, or it goes unused.
 * Nothing about the cache can stop the command: it runs without one instead.
 *
 * @example
 * requireWithCompileCache(fileURLToPath(new URL('./cli.cjs', import.meta.url)))
 */
export function requireWithCompileCache(file: string): void {
  const bytes = readFileSync(file)
  const source = bytes.toString('utf8')
  const cacheFile = cacheFileFor(bytes)
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile)
  // The wrapper of a CommonJS module, on the file's first line so that line numbers hold.
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source.replace(/^#!.*/, '')}\n})`
  const script = new Script(wrapped, { filename: file, cachedData })
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    setTimeout(() => keep(cacheFile, script), WRITE_AFTER_MS).unref()
  }
  const module = { exports: {} }
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file))
}

/** Where this bundle's cache is for this Node; none when caching is off. */
function cacheFileFor(bundle: Buffer): string | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined
  const root = process.env.NODE_COMPILE_CACHE || join(tmpdir(), 'node-compile-cache')
  const hash = createHash('sha256').update(bundle).update(process.version).update(process.arch).digest('hex')
  return join(root, 'call-sandbox', `${hash.slice(0, 32)}.cache`)
}

/** The cache, when there is one in a folder only this user can write in. */
function readCache(file: string): Buffer | undefined {
  try {
    return isPrivate(dirname(dirname(file))) && isPrivate(dirname(file)) ? readFileSync(file) : undefined
  } catch {
    return undefined
  }
}

/** Writes the code compiled so far, in a folder made only this user's; a failure only means no cache next time. */
function keep(file: string, script: Script): void {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
    if (isPrivate(dirname(dirname(file))) && isPrivate(dirname(file))) writeAtomically(file, script.createCachedData())
  } catch {
    // A full disk or a read-only folder: the command runs as it did.
  }
}

/**
 * A folder only this user can write in (or, like the temp folder itself,
 * the system's, with the sticky bit): a cache another user could write
 * would be code of their choosing.
 */
function isPrivate(folder: string): boolean {
  const stat = lstatSync(folder)
  if (!stat.isDirectory()) return false
  const uid = process.getuid?.()
  if (uid === undefined) return true
  return (stat.uid === uid && (stat.mode & 0o022) === 0) || (stat.uid === 0 && (stat.mode & 0o1000) !== 0)
}
