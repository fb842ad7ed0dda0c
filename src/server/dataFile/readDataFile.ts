import { existsSync, readFileSync } from 'node:fs'
import { z } from 'zod'
import { RECORDING_FORMAT } from '../../proxy/recording.js'
import type { LogEntry, SeedIdentity } from '../../schemas/snapshot.js'
import { DEFAULT_SESSION } from '../../sessions/Sessions.js'
import { type StoredSession, type FirstRead, type StoredWorld, outgrows } from '../../sessions/Store.js'
import {
  DATA_FILE_FORMAT,
  DATA_FILE_VERSION,
  DataFileError,
  emptySnapshot,
  Header,
  type Line,
  LineEntry,
} from './format.js'

/** What a data file holds, read: every session's world, and what reading it found. */
export interface DataFileContent extends FirstRead {
  /** The world the default session's log starts from: its seed, or the last reset's. */
  seed: SeedIdentity
  /** Whether the file is no version 4 log, or its log has grown well past its header: compacted at start-up. */
  compact: boolean
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
  return {
    content: { ...content, compact: parsed.data.version !== DATA_FILE_VERSION || grown },
    bytes: bytes.length,
    wholeBytes,
  }
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
  const world: StoredWorld = { snapshot, entries: [] }
  const sessions = new Map<string, StoredSession>(headerSessions.map((session) => [session.name, { ...session }]))
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
      kept.snapshot = emptySnapshot(entry.reset)
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
