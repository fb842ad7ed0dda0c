import type { JournalEntry, StoreHealth } from '../schemas/index.js'
import type { LogEntry, Snapshot } from '../schemas/snapshot.js'
import type { FaultRuleBook } from './FaultRules.js'

/**
 * Where one world's log goes: its part of a store (the data file, Redis).
 * The world hands it every write, reset and clock move, in order, and
 * counts one only once `append` resolves; it does not know which store it
 * has, only whether other servers write to the same log (`shared`).
 */
export type StoreLog = OwnLog | SharedLog

/** A world's part of a store this server alone writes to (the data file): it takes the world's entries. */
export interface OwnLog {
  readonly shared: false
  /** Resolves once the store has the entry; rejects with a `StorageUnavailableError` when it refuses it. */
  append(entry: LogEntry): Promise<void>
  health(): StoreHealth
}

/** A world's part of a store several servers share (Redis): its place in the log, which it reads and appends at. */
export interface SharedLog {
  readonly shared: true
  /**
   * Resolves once the store has the entry; rejects with a `StorageUnavailableError` when it refuses it, and with a
   * `LogMovedOn` when another server wrote to the log since this world last read it.
   */
  append(entry: LogEntry): Promise<void>
  health(): StoreHealth
  /** What other servers appended since this world last read or wrote the log, or undefined when nothing was. */
  since(): Promise<LogRead | undefined>
  /**
   * Whether the last `since` found the store without the record of how the session was made (`POST
   * /_sandbox/sessions`): the session was ended, or expired, there. The default session and one made by its first
   * request have none until that request's write.
   */
  sessionGone(): boolean
  /**
   * What of a read the world has yet to put back, asked once its turn to write has come: undefined when it holds as
   * much already (another request of this server put back as much, or more, while this one read). `whole`: the
   * entries are the whole log, from the seed or from a reset (a new generation, a log compacted past where the world
   * stood, or one that lost entries the world holds).
   */
  unread(read: LogRead): { whole: boolean; entries: readonly LogEntry[] } | undefined
  /** The world has put back a read's entries: its place in the log is now after them. */
  caughtUp(read: LogRead): void
  /**
   * How the store takes the world as it stands between two writes, to keep it as a snapshot in place of the log
   * before it. `snapshot` runs `use` in the world's turn to write.
   */
  compactWith(snapshot: <T>(use: (world: Snapshot) => T) => Promise<T>): void
  /**
   * Whether this server holds the lease on the world's timed work (live mode's arrivals) for the next `ttlMs`, taking it
   * when it is free; one server at a time holds it, so a call arrives once however many servers hold the world.
   */
  holdsLease(ttlMs: number): Promise<boolean>
  /** The world's request journal and usage report, the same from every server. */
  requests: SharedRequests
  /** The world's fault rules, which every server applies and counts in: `times: 3` fails three requests in all. */
  faultRules: FaultRuleBook
  /** The world's run-time settings' changes, which every server applies (each counts its own rate limit budgets). */
  settings: SharedSettings
}

/** A world's run-time settings' changes (as `Settings.keptText` writes them), kept where every server reads them. */
export interface SharedSettings {
  /**
   * Keeps the changes `text` works out from those the world holds, and applies them (`follow`'s `apply`) once the store
   * has them. When another server kept others since the world last read them, the world takes those first and `text`
   * runs again, so both changes count. Rejects with a `StorageUnavailableError` when the store refuses them.
   */
  keep(text: () => string): Promise<void>
  /** From now on `apply` gets the changes another server kept, as `since` (every request's first step) finds them. */
  follow(apply: (text: string) => void): void
}

/** The request journal and the usage report of a world, kept where every server of a fleet reads them. */
export interface SharedRequests {
  /** Keeps one request: its journal entry (the newest `capacity` are kept) and its usage counters. */
  record(
    entry: JournalEntry,
    capacity: number,
    counters: { add: string[]; set: Record<string, string> } | undefined,
  ): void
  /** The newest entries, newest first (at most `limit`), and how many it keeps in all. */
  journal(limit: number): Promise<{ entries: JournalEntry[]; size: number }>
  /** The usage counters (see `Usage.fromCounters`). */
  usage(): Promise<Record<string, string>>
  /** Forgets both (a reset). */
  clear(): Promise<void>
}

/** Entries read from a shared log: what a store's `since` found, for its own `unread` and `caughtUp`. */
export interface LogRead {
  readonly entries: readonly LogEntry[]
}

/**
 * The session a world belongs to was ended (or expired) in the store while this server held its world: the world was
 * made from the ended session's options, and a request to the name is answered by a fresh session, as on every server.
 */
export class SessionEnded extends Error {
  constructor() {
    super('The session was ended on another server.')
  }
}

/** Another server wrote to the shared log first: the write is undone, the world catches up, and it runs again. */
export class LogMovedOn extends Error {
  constructor() {
    super('Another server wrote to this world first.')
  }
}
