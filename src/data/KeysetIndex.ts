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
  #entries: KeysetPosition[] = []

  get size(): number {
    return this.#entries.length
  }

  /** Adds a position; O(log n) to find its place plus the array shift. */
  insert(position: KeysetPosition): void {
    this.#entries.splice(this.#firstAfter(position, true), 0, position)
  }

  /** Removes a position, if present. */
  remove(position: KeysetPosition): void {
    const at = this.#firstAfter(position, true)
    const entry = this.#entries[at]
    if (entry && compare(entry, position) === 0) this.#entries.splice(at, 1)
  }

  /** Bulk-loads positions in any order (seeding, reset). */
  load(positions: KeysetPosition[]): void {
    this.#entries = positions.slice().sort((a, b) => compare(a, b))
  }

  /**
   * Visits ids in list order, starting strictly after `after` (or at the
   * newest) and stopping at the first entry not newer than `sinceMs`, or
   * when `visit` returns false.
   */
  scan(options: { after?: KeysetPosition; sinceMs?: number }, visit: (id: string) => boolean): void {
    const start = options.after ? this.#firstAfter(options.after, false) : 0
    const sinceMs = options.sinceMs ?? -Infinity
    for (let i = start; i < this.#entries.length; i++) {
      const entry = this.#entries[i]!
      if (entry.t <= sinceMs) return
      if (!visit(entry.id)) return
    }
  }

  /**
   * Index of the first entry that comes after `position` in list order
   * (`inclusive`: the first entry at or after it).
   */
  #firstAfter(position: KeysetPosition, inclusive: boolean): number {
    let low = 0
    let high = this.#entries.length
    while (low < high) {
      const mid = (low + high) >>> 1
      const order = compare(this.#entries[mid]!, position)
      if (order < 0 || (order === 0 && !inclusive)) low = mid + 1
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
