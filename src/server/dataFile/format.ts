import { z } from 'zod'
import { LogEntry, SessionOptions, Snapshot, type SeedIdentity } from '../../schemas/snapshot.js'

/*
 * The format of a data file (`--data FILE`), an append-only log: its first
 * line is a header (the world it belongs to and a snapshot of every session
 * as of the last compaction); each line after it is one entry of one
 * session's log. Data files of versions 1 to 3 (one JSON document) load as
 * a header alone.
 */

/** The `format` of a file `--data` writes. */
export const DATA_FILE_FORMAT = 'call-sandbox data'
/** The version a file is written in; older ones are read (see `Header`). */
export const DATA_FILE_VERSION = 4

/** A header's named session: how it was made, its snapshot, and (put away at the compaction) its log since. */
const HeaderSession = z.object({
  name: z.string(),
  created_at: z.iso.datetime(),
  options: SessionOptions,
  snapshot: Snapshot.nullable(),
  entries: z.array(LogEntry).default([]),
})

export const Header = z.object({
  format: z.literal(DATA_FILE_FORMAT),
  /**
   * Version 1 files (no scenario, no clock offset) are read as the default scenario and an unmoved clock; versions 1
   * and 2 have no sessions; versions 1 to 3 are one document, with no log after it.
   */
  version: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(DATA_FILE_VERSION)]),
  ...Snapshot.shape,
  sessions: z.array(HeaderSession).default([]),
})
export type DataFileHeader = z.input<typeof Header>

/** One line after the header, `session` apart (none: the default session): an entry of that session's log. */
export const LineEntry = z.union([
  LogEntry,
  z.strictObject({ created: z.object({ created_at: z.iso.datetime(), options: SessionOptions }) }),
  z.strictObject({ ended: z.literal(true) }),
])
export type Line = { session: string | undefined; entry: z.infer<typeof LineEntry> }

/** A data file that cannot be used: the start stops, and the file is left as it was. */
export class DataFileError extends Error {}

/** A header of a world with nothing written to it, in the file's format. */
export function emptyHeader(world: SeedIdentity): DataFileHeader {
  const changes = { writes: 0, inserted: [], changed: [] }
  return { format: DATA_FILE_FORMAT, version: DATA_FILE_VERSION, ...world, clock_offset_ms: 0, changes, sessions: [] }
}

/** A snapshot of a world with nothing written to it: where a reset starts over. */
export function emptySnapshot(world: SeedIdentity): Snapshot {
  return { ...world, clock_offset_ms: 0, changes: { writes: 0, inserted: [], changed: [] } }
}
