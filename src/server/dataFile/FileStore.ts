import { readdirSync, rmSync } from 'node:fs'
import { type FileHandle, open, rename, truncate } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { StorageUnavailableError } from '../../sandbox/domainErrors.js'
import type { StoreHealth } from '../../schemas/index.js'
import type { SeedIdentity } from '../../schemas/snapshot.js'
import type { OwnLog } from '../../sandbox/StoreLog.js'
import { DEFAULT_SESSION } from '../../sessions/Sessions.js'
import type { FirstRead, StoredSession, Store, StoreEntry, WorldsNow } from '../../sessions/Store.js'
import { syncDirectory } from '../writeAtomically.js'
import { DATA_FILE_FORMAT, DATA_FILE_VERSION, DataFileError, type DataFileHeader, emptyHeader } from './format.js'
import { releaseLock, takeLock } from './lock.js'
import { type DataFileContent, readDataFile } from './readDataFile.js'

/**
 * `--data FILE`: the file store, an append-only log. Its first line is a
 * header (the world it belongs to and a snapshot of every session as of
 * the last compaction); each line after it is one entry of one session's
 * log, appended and flushed to disk before the write it keeps is answered.
 *
 * A crash at any byte leaves a file that loads: a torn last line is dropped
 * (and said so). A reset of a file that holds no other session truncates it
 * to a new header; at start-up a log grown well past its header is compacted
 * into one. A lock beside it (`FILE.lock`) refuses a second process. Data
 * files of versions 1 to 3 (one JSON document) load as a header alone.
 */

/**
 * The file store of one data file, its lock held.
 *
 * @example
 * const store = await FileStore.open('./sandbox.log')
 * await store.append('default', { clock_offset_ms: 60_000 })
 */
export class FileStore implements Store {
  readonly shared = false
  readonly #path: string
  /** What was in the file when it was opened; undefined for a new one. */
  readonly content: DataFileContent | undefined
  #handle: FileHandle | undefined
  /** The bytes of the file known to be whole: a failed append is cut back to this. */
  #size = 0
  /** Appends run one at a time, in the order they were asked for. */
  #tail: Promise<unknown> = Promise.resolve()
  #error: string | null = null
  #errors = 0
  /** The named sessions the file knows: with none, a reset of the default session truncates the file. */
  readonly #sessions = new Set<string>()

  private constructor(path: string, content: DataFileContent | undefined) {
    this.#path = path
    this.content = content
    for (const { name } of content?.sessions ?? []) this.#sessions.add(name)
  }

  /**
   * Takes the file's lock, reads it (dropping a torn last line), and opens
   * it to append; a file of another kind, or held by a live process, is a
   * `DataFileError`, and is left as it was.
   */
  static async open(path: string): Promise<FileStore> {
    takeLock(path)
    try {
      removeLeftovers(path)
      const read = readDataFile(path)
      const store = new FileStore(path, read?.content)
      if (read && read.wholeBytes < read.bytes) {
        console.error(
          `[call-sandbox] ${path}: its last ${read.bytes - read.wholeBytes} bytes were a write cut short (a crash); dropped.`,
        )
        await truncate(path, read.wholeBytes)
      }
      if (read) {
        store.#handle = await open(path, 'a')
        store.#size = read.wholeBytes
      }
      return store
    } catch (error) {
      releaseLock(path)
      throw error
    }
  }

  /**
   * The world the file's log starts from (its seed, or the last reset's), which the server is seeded as: at the same
   * instant, with the same clock, in the same scenario. Undefined for a new file.
   */
  get seededFrom(): SeedIdentity | undefined {
    return this.content?.seed
  }

  /**
   * Checks the file belongs to `world` and returns every session's world it keeps; a new file is written as an empty
   * header of it.
   */
  async read(world: SeedIdentity): Promise<FirstRead> {
    const { content } = this
    if (!content) {
      await this.compact(emptyHeader(world))
      return { world: { snapshot: null, entries: [] }, sessions: [], logged: 0 }
    }
    const { seed: saved } = content
    if (world.seed !== saved.seed) throw this.unfit(`it belongs to seed ${saved.seed}, not ${world.seed}`)
    if (world.seeded_at !== saved.seeded_at)
      throw this.unfit(`it belongs to a world seeded at ${saved.seeded_at}, not ${world.seeded_at}`)
    if (world.scenario !== saved.scenario)
      throw this.unfit(`it belongs to the scenario ${saved.scenario}, not ${world.scenario}`)
    if (world.organizations !== saved.organizations)
      throw this.unfit('it belongs to other organizations or sizes (--organizations, --calls)')
    return content
  }

  /** A log grown well past its header (or a file of an older version) becomes one header. */
  async restored(now: () => WorldsNow): Promise<void> {
    if (!this.content?.compact) return
    const { world, sessions } = now()
    await this.compact({ format: DATA_FILE_FORMAT, version: DATA_FILE_VERSION, ...world, sessions })
  }

  unfit(reason: string): DataFileError {
    const keep = 'The file was left as it is: start with the same options, or name another file with --data.'
    return new DataFileError(`${this.#path}: ${reason.replace(/\.$/, '')}. ${keep}`)
  }

  log(session: string): OwnLog {
    return { shared: false, append: (entry) => this.append(session, entry), health: () => this.health() }
  }

  /** Every session is this server's: none is made elsewhere. */
  async session(): Promise<StoredSession | undefined> {
    return undefined
  }

  /** How many appends the file refused since it was opened. */
  get errors(): number {
    return this.#errors
  }

  health(): StoreHealth {
    return { kind: 'file', state: this.#error === null ? 'ok' : 'unavailable', error: this.#error }
  }

  append(session: string, entry: StoreEntry): Promise<void> {
    const appended = this.#tail.then(() => this.#append(session, entry))
    this.#tail = appended.catch(() => undefined)
    return appended
  }

  /** A session expired: the file ends it, as a restart would otherwise bring it back. */
  forget(session: string): Promise<void> {
    return this.append(session, { ended: true })
  }

  /**
   * Writes `header` as the whole file (a new file, a compaction, a reset):
   * beside it first, flushed, then renamed over it, so a crash leaves the
   * old file or the new one. The next start removes a copy a crash left.
   */
  compact(header: DataFileHeader): Promise<void> {
    const compacted = this.#tail.then(() => this.#compact(header))
    this.#tail = compacted.catch(() => undefined)
    return compacted
  }

  /** Waits for the appends under way, closes the file and gives up its lock. */
  async close(): Promise<void> {
    await this.#tail
    await this.#handle?.close()
    this.#handle = undefined
    releaseLock(this.#path)
  }

  async #append(session: string, entry: StoreEntry): Promise<void> {
    if (session === DEFAULT_SESSION && 'reset' in entry && this.#sessions.size === 0) {
      // Nothing but the default session: the reset starts the file over.
      return this.#refused(() => this.#compact(emptyHeader(entry.reset)))
    }
    const line = `${JSON.stringify(session === DEFAULT_SESSION ? entry : { session, ...entry })}\n`
    await this.#refused(async () => {
      this.#handle ??= await open(this.#path, 'a')
      const handle = this.#handle
      // A failure before may have left part of a line: cut back to the last whole one first.
      if (this.#error !== null) await handle.truncate(this.#size)
      const bytes = Buffer.from(line)
      let written = 0
      while (written < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, written, bytes.length - written)
        if (bytesWritten === 0) throw new Error('the disk took no byte')
        written += bytesWritten
      }
      await handle.datasync()
      this.#size += bytes.length
    })
    if ('created' in entry) this.#sessions.add(session)
    if ('ended' in entry) this.#sessions.delete(session)
  }

  async #compact(header: DataFileHeader): Promise<void> {
    const text = `${JSON.stringify({ ...header, format: DATA_FILE_FORMAT, version: DATA_FILE_VERSION })}\n`
    const beside = compactingPath(this.#path)
    const file = await open(beside, 'w')
    try {
      await file.writeFile(text)
      await file.sync()
    } finally {
      await file.close()
    }
    await this.#handle?.close()
    this.#handle = undefined
    await rename(beside, this.#path)
    syncDirectory(dirname(this.#path))
    this.#handle = await open(this.#path, 'a')
    this.#size = Buffer.byteLength(text)
    this.#sessions.clear()
    for (const { name } of header.sessions ?? []) this.#sessions.add(name)
  }

  /** Runs a write to the file: a failure is a `StorageUnavailableError`, and health says so until one goes through. */
  async #refused(write: () => Promise<void>): Promise<void> {
    try {
      await write()
      this.#error = null
    } catch (error) {
      this.#errors++
      this.#error = (error as Error).message
      if (this.#error.length > 200) this.#error = `${this.#error.slice(0, 200)}…`
      console.error(`[call-sandbox] the data file ${this.#path} refused a write: ${this.#error}`)
      throw new StorageUnavailableError(`The data file ${this.#path}`, (error as NodeJS.ErrnoException).code ?? 'error')
    }
  }
}

function compactingPath(path: string): string {
  return `${path}.compacting`
}

/**
 * Removes what a crash may have left beside the file: a compaction cut short,
 * and the temporary files of version 3, which rewrote the whole file.
 */
function removeLeftovers(path: string): void {
  rmSync(compactingPath(path), { force: true })
  const folder = dirname(path)
  const name = basename(path)
  const temporary = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.\\d+-[0-9a-f]{8}\\.tmp$`)
  for (const entry of readdirSync(folder)) {
    if (temporary.test(entry)) rmSync(join(folder, entry), { force: true })
  }
}
