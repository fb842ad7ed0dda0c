import type { StoreHealth } from '../schemas/index.js'
import type { StoreLog } from '../sandbox/StoreLog.js'
import type { LogEntry, SessionOptions, Snapshot, SeedIdentity } from '../schemas/snapshot.js'

/** What a store keeps of one world: the snapshot it was last compacted to (none: its seed), and its log since. */
export interface StoredWorld {
  snapshot: Snapshot | null
  entries: LogEntry[]
}

/** A named session as a store keeps it: how it was made, and its world as a snapshot and the log since. */
export interface StoredSession extends StoredWorld {
  name: string
  created_at: string
  options: SessionOptions
}

/** What a store keeps of a server: the default session's world and every named session's. */
export interface StoredState {
  world: StoredWorld
  sessions: StoredSession[]
}

/** Every world of a server as it stands: the default session's, and every named session's. */
export interface WorldsNow {
  world: Snapshot
  sessions: StoredSession[]
}

/** What a first read found, for the start-up line: the state, and how many entries its log held. */
export interface FirstRead extends StoredState {
  logged: number
}

/**
 * How far past its snapshot a log may grow before a store compacts it into a
 * new one: past the snapshot's own size and this much more. Each compaction
 * then writes no more than the writes since the last one did (plus this), so
 * compacting costs a store a share of its writes, however long it lives.
 */
export const COMPACTION_SLACK_BYTES = 64 * 1024

/** Whether a log of `logBytes` after a snapshot (or a data file's header) of `snapshotBytes` is due to be compacted. */
export function outgrows(logBytes: number, snapshotBytes: number): boolean {
  return logBytes > snapshotBytes + COMPACTION_SLACK_BYTES
}

/** A session made or ended: what a store keeps of a session beside its world's log. */
export type SessionEntry = { created: { created_at: string; options: SessionOptions } } | { ended: true }

/** One entry of a session's log: a world's own, or the session made or ended. */
export type StoreEntry = LogEntry | SessionEntry

/**
 * Where a server keeps its worlds: an ordered log of entries per session,
 * behind this one interface (the data file of `--data`, Redis of
 * `--store`; `src/server/storeBackends.ts` names each backend by its URL's
 * scheme). `Sessions` hands every session's entries to it, and the worlds
 * do not know which store they have (see `StoreLog`).
 */
export interface Store {
  /** Whether other servers use it too: its worlds then read it before every answer (`SharedLog`). */
  readonly shared: boolean
  /**
   * The world the store's data was seeded as, when that decides how the server's world is seeded (a data file: at
   * its instant, with its clock, in its scenario); undefined when the server's options decide.
   */
  readonly seededFrom: SeedIdentity | undefined
  /**
   * The first read, once the world the store is opened for is seeded: checks the store belongs to `world` (the same
   * seed, instant, clock and organizations; a store used for the first time takes it), and returns what it keeps of
   * every session. Throws `unfit`'s error, and leaves the store as it was, when it belongs to another world.
   */
  read(world: SeedIdentity): Promise<FirstRead>
  /** Once the worlds are put back from `read`: a store that compacts at start-up writes `now` (every world as it stands). */
  restored(now: () => WorldsNow): Promise<void>
  /** The error a first read that does not fit the world is thrown as: it names the store and how to start afresh. */
  unfit(reason: string): Error
  /**
   * Resolves once the store has a session's making or end; rejects with a `StorageUnavailableError` when it refuses
   * it. A world's entries go to its `log`.
   */
  append(session: string, entry: SessionEntry): Promise<void>
  /** One session's world's part of the store. */
  log(session: string): StoreLog
  /** A session another server made since this one started; a store of this server alone has none. */
  session(name: string): Promise<StoredSession | undefined>
  /**
   * A session this server forgot, unused for its TTL (see `expiresAt`): a store of this server alone forgets it too;
   * a store several servers share keeps it (its keys expire there on their own), since other servers may still use it.
   */
  forget(session: string): Promise<void>
  health(): StoreHealth
  /** How many writes or reads the store refused since it was opened (`/_sandbox/metrics`). */
  readonly errors: number
  /** Waits for what is under way, and lets the store go (a file's lock, a connection). */
  close(): Promise<void>
}

export type { SharedLog } from '../sandbox/StoreLog.js'
