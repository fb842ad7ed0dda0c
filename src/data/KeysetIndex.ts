/** A position in list order: `created_at` (epoch ms) and `id`. */
export interface KeysetPosition {
  t: number
  id: string
}

/**
 * The records of one organization and collection, kept in list order
 * (`created_at` descending, ties by `id` descending), so that a page is a
 * binary search plus a scan, never a sort.
 *
 * @note `@msw/data` applies `take` before `orderBy` and scans on every
 * lookup, so list order cannot come from `findMany`.
 *
 * @example
 * const index = new KeysetIndex()
 * index.insert({ t: Date.parse(call.created_at), id: call.id })
 * index.scan({ after: cursorPosition, sinceMs }, (id) => wanted(id))
 */
export class KeysetIndex {
  /**
   * Oldest first: the reverse of list order, so that a record made now,
   * the newest, is appended rather than shifting every entry (at 100,000
   * calls that shift was most of a write).
   */
  #entries: KeysetPosition[] = []

  get size(): number {
    return this.#entries.length
  }

  /** Adds a position; O(log n) to find its place, plus the shift of the entries newer than it. */
  insert(position: KeysetPosition): void {
    this.#entries.splice(this.#firstNotOlder(position), 0, position)
  }

  /** Removes a position, if present. */
  remove(position: KeysetPosition): void {
    const at = this.#firstNotOlder(position)
    const entry = this.#entries[at]
    if (entry && compare(entry, position) === 0) this.#entries.splice(at, 1)
  }

  /** Bulk-loads positions in any order (seeding, reset). */
  load(positions: KeysetPosition[]): void {
    this.#entries = positions.slice().sort((a, b) => compare(b, a))
  }

  /**
   * Visits ids in list order, starting strictly after `after` (or at the
   * newest) and stopping at the first entry not newer than `sinceMs`, or
   * when `visit` returns false.
   */
  scan(options: { after?: KeysetPosition; sinceMs?: number }, visit: (id: string) => boolean): void {
    const start = (options.after ? this.#firstNotOlder(options.after) : this.#entries.length) - 1
    const sinceMs = options.sinceMs ?? -Infinity
    for (let i = start; i >= 0; i--) {
      const entry = this.#entries[i]!
      if (entry.t <= sinceMs) return
      if (!visit(entry.id)) return
    }
  }

  /** Index of the first entry that is not older than `position` (comes at or before it in list order). */
  #firstNotOlder(position: KeysetPosition): number {
    let low = 0
    let high = this.#entries.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (compare(position, this.#entries[mid]!) < 0) low = mid + 1
      else high = mid
    }
    return low
  }
}

/** A record's place in list order. */
export function positionOf(record: { created_at: string; id: string }): KeysetPosition {
  return { t: Date.parse(record.created_at), id: record.id }
}

/** Negative when `a` comes before `b` in list order (newer first, then greater id). */
export function compare(a: KeysetPosition, b: KeysetPosition): number {
  if (a.t !== b.t) return b.t - a.t
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}
