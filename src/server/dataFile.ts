import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs'
import { type FileHandle, open, rename, truncate } from 'node:fs/promises'
import { hostname } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { z } from 'zod'
import { RECORDING_FORMAT } from '../proxy/recording.js'
import { StorageUnavailableError } from '../schemas/domainErrors.js'
import type { StoreHealth } from '../schemas/index.js'
import { LogEntry, SessionOptions, Snapshot, type WorldOf } from '../schemas/snapshot.js'
import type { SandboxWithHandlers } from '../handlers/createSandbox.js'
import { restoreSnapshot, snapshotOf, worldOf } from '../sandbox/snapshot.js'
import { DEFAULT_SESSION } from '../sessions/Sessions.js'
import {
  type KeptSession,
  type KeptState,
  type KeptWorld,
  outgrows,
  type Store,
  type StoreEntry,
} from '../sessions/Store.js'
import { syncDirectory } from './writeAtomically.js'

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

/** The `format` of a file `--data` writes. */
export const DATA_FILE_FORMAT = 'call-sandbox data'
const VERSION = 4

/** A header's named session: how it was made, its snapshot, and (put away at the compaction) its log since. */
const HeaderSession = z.object({
  name: z.string(),
  created_at: z.iso.datetime(),
  options: SessionOptions,
  snapshot: Snapshot.nullable(),
  entries: z.array(LogEntry).default([]),
})

const Header = z.object({
  format: z.literal(DATA_FILE_FORMAT),
  /**
   * Version 1 files (no scenario, no clock offset) are read as the default scenario and an unmoved clock; versions 1
   * and 2 have no sessions; versions 1 to 3 are one document, with no log after it.
   */
  version: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(VERSION)]),
  ...Snapshot.shape,
  sessions: z.array(HeaderSession).default([]),
})
export type DataFileHeader = z.input<typeof Header>

/** One line after the header, `session` apart (none: the default session): an entry of that session's log. */
const LineEntry = z.union([
  LogEntry,
  z.strictObject({ created: z.object({ created_at: z.iso.datetime(), options: SessionOptions }) }),
  z.strictObject({ ended: z.literal(true) }),
])
type Line = { session: string | undefined; entry: z.infer<typeof LineEntry> }

/** A data file that cannot be used: the start stops, and the file is left as it was. */
export class DataFileError extends Error {}

/** What a data file holds, read: every session's world, and what reading it found. */
export interface DataFileContent extends KeptState {
  /** The world the default session's log starts from: its seed, or the last reset's. */
  seed: WorldOf
  /** Entries in the log after the header. */
  logged: number
  /** Whether the file is no version 4 log, or its log has grown well past its header: compacted at start-up. */
  compact: boolean
}

/**
 * The file store of one data file, its lock held.
 *
 * @example
 * const store = await FileStore.open('./sandbox.log')
 * await store.append('default', { clock_offset_ms: 60_000 })
 */
export class FileStore implements Store {
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
    const text = `${JSON.stringify({ ...header, format: DATA_FILE_FORMAT, version: VERSION })}\n`
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

/** A header of a world with nothing written to it, in the file's format. */
export function emptyHeader(world: WorldOf): DataFileHeader {
  const changes = { writes: 0, inserted: [], changed: [] }
  return { format: DATA_FILE_FORMAT, version: VERSION, ...world, clock_offset_ms: 0, changes, sessions: [] }
}

/**
 * The content of a data file, or `undefined` when there is none yet;
 * `wholeBytes` is where its last whole line ends.
 *
 * @example
 * const read = readDataFile('./sandbox.log')
 */
export function readDataFile(
  path: string,
): { content: DataFileContent; bytes: number; wholeBytes: number } | undefined {
  if (!existsSync(path)) return undefined
  const keep = 'It was left as it is: move it away, or name another file with --data.'
  const bytes = readFileSync(path)
  const text = bytes.toString('utf8')
  if (text.length === 0) return undefined
  // Where the header ends: its first line, or the whole text (-1) for a file of versions 1 to 3 over many lines.
  let firstEnd = text.indexOf('\n')
  let header: unknown
  let rest = ''
  try {
    header = JSON.parse(firstEnd === -1 ? text : text.slice(0, firstEnd))
    rest = firstEnd === -1 ? '' : text.slice(firstEnd + 1)
  } catch (error) {
    // Versions 1 to 3: one document, which may span lines.
    try {
      header = JSON.parse(text)
      firstEnd = -1
    } catch {
      throw new DataFileError(
        `${path} cannot be read as JSON (${(error as Error).message}): it is damaged, or no call-sandbox data file. ${keep}`,
      )
    }
  }
  const format = (header as { format?: unknown })?.format
  if (format === RECORDING_FORMAT)
    throw new DataFileError(
      `${path} is a recording (--record), not a data file: start a sandbox from it with --world ${path}. ${keep}`,
    )
  if (format !== DATA_FILE_FORMAT) throw new DataFileError(`${path} is not a call-sandbox data file. ${keep}`)
  const parsed = Header.safeParse(header)
  if (!parsed.success)
    throw new DataFileError(`${path} is a damaged call-sandbox data file:\n${z.prettifyError(parsed.error)}\n${keep}`)

  const lines: Line[] = []
  const headerBytes = firstEnd === -1 ? bytes.length : Buffer.byteLength(text.slice(0, firstEnd))
  let wholeBytes = firstEnd === -1 ? bytes.length : headerBytes + 1
  const parts = rest.split('\n')
  // The part after the last newline is a line a crash cut short (or nothing): never acknowledged, so dropped.
  parts.pop()
  for (const [index, part] of parts.entries()) {
    const line = parseLine(part)
    if (!line) {
      throw new DataFileError(`${path} is a damaged call-sandbox data file: line ${index + 2} is no entry. ${keep}`)
    }
    lines.push(line)
    wholeBytes += Buffer.byteLength(part) + 1
  }
  const content = contentOf(path, parsed.data, lines)
  const grown = outgrows(wholeBytes - headerBytes, headerBytes)
  return { content: { ...content, compact: parsed.data.version !== VERSION || grown }, bytes: bytes.length, wholeBytes }
}

function parseLine(text: string): Line | undefined {
  try {
    const { session, ...rest } = JSON.parse(text)
    if (session !== undefined && typeof session !== 'string') return undefined
    const parsed = LineEntry.safeParse(rest)
    return parsed.success ? { session, entry: parsed.data } : undefined
  } catch {
    return undefined
  }
}

/** Every session's world from the header and the log after it; each world's log from its last reset on. */
function contentOf(path: string, header: z.infer<typeof Header>, lines: Line[]): Omit<DataFileContent, 'compact'> {
  const { format: _, version: __, sessions: headerSessions, ...snapshot } = header
  const world: KeptWorld = { snapshot, entries: [] }
  const sessions = new Map<string, KeptSession>(headerSessions.map((session) => [session.name, { ...session }]))
  for (const { session: name, entry } of lines) {
    if ('created' in entry) {
      sessions.set(name!, { name: name!, ...entry.created, snapshot: null, entries: [] })
      continue
    }
    if ('ended' in entry) {
      sessions.delete(name!)
      continue
    }
    const kept = name === undefined || name === DEFAULT_SESSION ? world : sessions.get(name)
    if (!kept) throw new DataFileError(`${path} has an entry of the session ${name}, which it never made.`)
    if ('reset' in entry) {
      // What came before a reset no longer counts: the world starts over from the reset's seed.
      kept.snapshot = emptyHeaderSnapshot(entry.reset)
      kept.entries = []
    } else kept.entries.push(entry as LogEntry)
  }
  const { seed, seeded_at, clock, scenario, organizations } = world.snapshot!
  return {
    world,
    sessions: [...sessions.values()],
    seed: { seed, seeded_at, clock, scenario, organizations },
    logged: lines.length,
  }
}

function emptyHeaderSnapshot(world: WorldOf): Snapshot {
  return { ...world, clock_offset_ms: 0, changes: { writes: 0, inserted: [], changed: [] } }
}

function compactingPath(path: string): string {
  return `${path}.compacting`
}

function lockPath(path: string): string {
  return `${path}.lock`
}

/** Takes the lock beside the file, or says which live process holds it; a lock a dead process left is taken over. */
function takeLock(path: string): void {
  const lock = lockPath(path)
  const mine = JSON.stringify({ pid: process.pid, host: hostname() })
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const file = openSync(lock, 'wx')
      writeSync(file, mine)
      closeSync(file)
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new DataFileError(`cannot lock the data file ${path} (${lock}): ${(error as Error).message}`)
      }
    }
    const holder = readLock(lock)
    if (holder && holder.host === hostname() && isAlive(holder.pid)) {
      throw new DataFileError(
        `${path} is in use by another call-sandbox (process ${holder.pid}): two servers on one data file would lose each other's writes. Stop it, name another file with --data, or share a Redis store (--store).`,
      )
    }
    // Left by a process that is gone (or on another host that shares the folder: see the docs).
    rmSync(lock, { force: true })
  }
  throw new DataFileError(`cannot lock the data file ${path}: ${lock} keeps coming back.`)
}

function readLock(lock: string): { pid: number; host: string } | undefined {
  try {
    const file = openSync(lock, 'r')
    const buffer = Buffer.alloc(256)
    const length = readSync(file, buffer, 0, buffer.length, 0)
    closeSync(file)
    return JSON.parse(buffer.subarray(0, length).toString('utf8'))
  } catch {
    return undefined
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function releaseLock(path: string): void {
  rmSync(lockPath(path), { force: true })
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

/**
 * Puts a data file's worlds into a sandbox made from the file's world (see
 * `content.seed`), or says what does not fit; from then on every write of
 * every session goes to `store`.
 */
export async function restoreDataFile(
  sandbox: SandboxWithHandlers,
  store: FileStore,
  path: string,
  content: DataFileContent,
): Promise<void> {
  const world = worldOf(sandbox)
  const { seed: saved } = content
  const keep = 'The file was left as it is: start with the same options, or name another file with --data.'
  if (world.seed !== saved.seed)
    throw new DataFileError(`${path} belongs to seed ${saved.seed}, not ${world.seed}. ${keep}`)
  if (world.seeded_at !== saved.seeded_at)
    throw new DataFileError(`${path} belongs to a world seeded at ${saved.seeded_at}, not ${world.seeded_at}. ${keep}`)
  if (world.scenario !== saved.scenario)
    throw new DataFileError(`${path} belongs to the scenario ${saved.scenario}, not ${world.scenario}. ${keep}`)
  if (world.organizations !== saved.organizations)
    throw new DataFileError(`${path} belongs to other organizations or sizes (--organizations, --calls). ${keep}`)
  try {
    await restoreSnapshot(sandbox, content.world.snapshot!)
    await sandbox.replay(content.world.entries)
    sandbox.sessions.load(content.sessions, store)
  } catch (error) {
    throw new DataFileError(`${path} does not fit this world: ${(error as Error).message} ${keep}`)
  }
}

/** The header a compaction writes: the default world and every session as they stand. */
export function headerOf(sandbox: SandboxWithHandlers): DataFileHeader {
  return { format: DATA_FILE_FORMAT, version: VERSION, ...snapshotOf(sandbox), sessions: sandbox.sessions.stored() }
}
