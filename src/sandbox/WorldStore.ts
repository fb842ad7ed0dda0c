import type { StoreHealth } from '../schemas/index.js'
import type { LogEntry } from '../schemas/snapshot.js'

/**
 * Where one world's log goes: its part of a store (the data file, Redis).
 * The world hands it every write, reset and clock move, in order, and
 * counts one only once `append` resolves; it does not know which store it
 * has.
 */
export interface WorldStore {
  /** Resolves once the store has the entry; rejects with a `StorageUnavailableError` when it refuses it. */
  append(entry: LogEntry): Promise<void>
  health(): StoreHealth
}
