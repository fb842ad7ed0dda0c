import type { JournalEntry } from '../schemas/index.js'

export const DEFAULT_JOURNAL_SIZE = 1_000

/**
 * The request journal: the newest requests, in a ring of fixed size, so
 * that a long-running sandbox keeps a bounded amount of them.
 *
 * @example
 * const journal = new Journal(1_000)
 * journal.entries(10) // the ten newest, newest first
 */
export class Journal {
  readonly #ring: (JournalEntry | undefined)[]
  #next = 0
  #size = 0

  constructor(readonly capacity: number = DEFAULT_JOURNAL_SIZE) {
    if (!Number.isSafeInteger(capacity) || capacity < 1 || capacity > 1_000_000) {
      throw new TypeError(`journalSize must be an integer from 1 to 1,000,000; got ${String(capacity)}.`)
    }
    this.#ring = new Array(capacity)
  }

  /** Keeps an entry; past the capacity, the oldest goes. */
  record(entry: JournalEntry): void {
    this.#ring[this.#next] = entry
    this.#next = (this.#next + 1) % this.capacity
    this.#size = Math.min(this.#size + 1, this.capacity)
  }

  /**
   * Newest first; at most `limit` of them.
   *
   * @example
   * journal.entries(1)[0]?.path // the last request's path
   */
  entries(limit = this.capacity): JournalEntry[] {
    const count = Math.min(limit, this.#size)
    const entries: JournalEntry[] = []
    for (let i = 1; i <= count; i++) entries.push(this.#ring[(this.#next - i + this.capacity) % this.capacity]!)
    return entries
  }

  get size(): number {
    return this.#size
  }

  /** Forgets every entry (a reset does). */
  clear(): void {
    this.#ring.fill(undefined)
    this.#next = 0
    this.#size = 0
  }
}
