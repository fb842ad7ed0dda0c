import { createHash } from 'node:crypto'
import { lstatSync, mkdirSync, readFileSync, type Stats } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { debuglog } from 'node:util'
import { Script } from 'node:vm'
import { writeAtomically } from './writeAtomically.js'

/** After this long, what has been compiled is what a start compiles: write it then. */
const WRITE_AFTER_MS = 1_000
/** A cache file starts with a SHA-256 of its bundle's key and of the cached data after it. */
const SEAL_BYTES = 32

/** `NODE_DEBUG=call-sandbox` says what became of the cache, on stderr. */
const debug = debuglog('call-sandbox')

interface CacheFile {
  path: string
  /** What the cache is for: the bundle's bytes, the Node version and the architecture, hashed. */
  key: Buffer
}

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
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 *
 * V8 runs cached data it accepts as compiled code, and checks little of it
 * (of the source, only its length; a byte changed can crash the process).
 * So a cache is used only when its folder, and the one above, are this
 * user's alone to write in (the one above may be the system's, with the
 * sticky bit, as the temp folder is), the file is this user's, and it
 * carries a SHA-256 of its bundle's key and its data that matches. Nothing
 * about the cache can stop the command: it runs without one instead.
 *
 * @example
 * requireWithCompileCache(fileURLToPath(new URL('./cli.cjs', import.meta.url)))
 */
export function requireWithCompileCache(file: string): void {
  const bytes = readFileSync(file)
  const source = bytes.toString('utf8')
  const cache = cacheFileFor(bytes)
  const cachedData = cache === undefined ? undefined : readCache(cache)
  // The wrapper of a CommonJS module, on the file's first line so that line numbers hold.
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source.replace(/^#!.*/, '')}\n})`
  const script = new Script(wrapped, { filename: file, cachedData })
  if (cachedData !== undefined) debug('compile cache %s: %s', cache!.path, script.cachedDataRejected ? 'rejected by V8' : 'used')
  if (cache !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    setTimeout(() => keep(cache, script), WRITE_AFTER_MS).unref()
  }
  const module = { exports: {} }
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file))
}

/** Where this bundle's cache is for this Node; none when caching is off. */
function cacheFileFor(bundle: Buffer): CacheFile | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined
  const root = process.env.NODE_COMPILE_CACHE || join(tmpdir(), 'node-compile-cache')
  const key = createHash('sha256').update(bundle).update(process.version).update(process.arch).digest()
  return { path: join(root, 'call-sandbox', `${key.toString('hex').slice(0, 32)}.cache`), key }
}

/** The cached data, when the file is this user's, in folders only this user can write in, and sealed for this bundle. */
function readCache({ path, key }: CacheFile): Buffer | undefined {
  try {
    if (!inPrivateFolders(path)) {
      debug('compile cache %s: not used, its folders are not this user\'s alone', path)
      return undefined
    }
    const stat = lstatSync(path, { throwIfNoEntry: false })
    if (stat === undefined) return undefined
    if (!stat.isFile() || !isOwn(stat)) {
      debug('compile cache %s: not used, not a file of this user\'s', path)
      return undefined
    }
    const content = readFileSync(path)
    const data = content.subarray(SEAL_BYTES)
    if (content.length <= SEAL_BYTES || !content.subarray(0, SEAL_BYTES).equals(seal(key, data))) {
      debug('compile cache %s: not used, damaged or not for this bundle', path)
      return undefined
    }
    return data
  } catch {
    return undefined
  }
}

/** Writes the code compiled so far, sealed, in a folder made only this user's; a failure only means no cache next time. */
function keep({ path, key }: CacheFile, script: Script): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    if (!inPrivateFolders(path)) {
      debug('compile cache %s: not written, its folders are not this user\'s alone', path)
      return
    }
    const data = script.createCachedData()
    writeAtomically(path, Buffer.concat([seal(key, data), data]))
    debug('compile cache %s: written', path)
  } catch {
    // A full disk or a read-only folder: the command runs as it did.
  }
}

function seal(key: Buffer, data: Buffer): Buffer {
  return createHash('sha256').update(key).update(data).digest()
}

/**
 * Whether a cache file's folder is this user's alone to write in, and the
 * one above it too, or else the system's with the sticky bit (like the temp
 * folder itself): a cache another user could write would be code of theirs.
 */
function inPrivateFolders(path: string): boolean {
  const folder = dirname(path)
  return isPrivate(lstatSync(folder)) && (isPrivate(lstatSync(dirname(folder))) || isSystemSticky(lstatSync(dirname(folder))))
}

function isPrivate(stat: Stats): boolean {
  return stat.isDirectory() && isOwn(stat) && (process.getuid === undefined || (stat.mode & 0o022) === 0)
}

function isSystemSticky(stat: Stats): boolean {
  return stat.isDirectory() && stat.uid === 0 && (stat.mode & 0o1000) !== 0
}

/** Owned by this user; where there are no user ids (Windows), the temp folder is the user's own. */
function isOwn(stat: Stats): boolean {
  return process.getuid === undefined || stat.uid === process.getuid()
}
