import type { StoreHealth } from '../schemas/index.js'
import type { WorldStore } from '../sandbox/WorldStore.js'
import type { LogEntry, SessionOptions, Snapshot } from '../schemas/snapshot.js'

/** What a store keeps of one world: the snapshot it was last compacted to (none: its seed), and its log since. */
export interface KeptWorld {
  snapshot: Snapshot | null
  entries: LogEntry[]
}

/** What a store keeps of a named session: how it was made, and its world. */
export interface KeptSession extends KeptWorld {
  name: string
  created_at: string
  options: SessionOptions
}

/** What a store keeps of a server: the default session's world and every named session's. */
export interface KeptState {
  world: KeptWorld
  sessions: KeptSession[]
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

/** One entry of a session's log: a world's own, or the session made or ended. */
export type StoreEntry = LogEntry | { created: { created_at: string; options: SessionOptions } } | { ended: true }

/**
 * Where a server keeps its worlds: an ordered log of entries per session,
 * behind this one interface (the data file of `--data`, Redis of
 * `--store`). `Sessions` hands every session's entries to it, and the
 * worlds do not know which store they have (see `WorldStore`).
 */
export interface Store {
  /**
   * Resolves once the store has the entry; rejects with a `StorageUnavailableError` when it refuses it. A store with
   * `log` takes only a session's making and end here.
   */
  append(session: string, entry: StoreEntry): Promise<void>
  health(): StoreHealth
  /** A store several servers share: one world's place in its session's log, which it reads and appends at. */
  log?(session: string): SharedLog
  /** A store several servers share: a session another server may have made since this one started. */
  session?(name: string): Promise<KeptSession | undefined>
  /**
   * A session this server forgot, unused for its TTL (see `expiresAt`): a store of this server alone forgets it too;
   * a store several servers share keeps it (one that has no `forget`), since other servers may still use it.
   */
  forget?(session: string): Promise<void>
}

/** A world's part of a store several servers share. */
export type SharedLog = Required<WorldStore>
