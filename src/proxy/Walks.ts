import { compare, positionOf } from '../data/KeysetIndex.js'
import type { ContractViolation } from '../schemas/index.js'

/** One walk through a list's pages: the ids it has listed, and the last record of its last page. */
interface Walk {
  seen: Set<string>
  last?: { created_at: string; id: string }
  pages: number
}

/** Walks followed at once; past it, the one least recently continued is forgotten. */
const MAX_WALKS = 1_000
/** Ids a walk remembers; a longer walk is checked for repeats among its first ones only. */
const MAX_SEEN = 200_000

/**
 * The walks through list pages the proxy has seen, each found again by the
 * cursor its last page gave: across the pages of one walk, no record may
 * come twice, and each page must start after where the previous one ended.
 * Memory is bounded: at most 1,000 walks of 200,000 ids.
 *
 * @example
 * const walks = new Walks()
 * walks.page(undefined, firstPage.data, firstPage.next_cursor) // []
 * walks.page(firstPage.next_cursor, secondPage.data, secondPage.next_cursor) // a duplicate violation per record of
 * page 1 seen again
 */
export class Walks {
  /** By the cursor that continues each walk, least recently continued first. */
  readonly #walks = new Map<string, Walk>()

  /**
   * A page of a walk: `cursor` is the one the request sent (none: a new
   * walk), `nextCursor` the one the page gave. Returns what breaks the walk.
   */
  page(cursor: string | undefined, data: readonly unknown[], nextCursor: unknown): ContractViolation[] {
    const walk = (cursor !== undefined && this.#walks.get(cursor)) || { seen: new Set<string>(), pages: 0 }
    // @note A cursor asked for again (a retry) starts afresh: its page is no repeat of itself.
    if (cursor !== undefined) this.#walks.delete(cursor)
    walk.pages++
    const violations: ContractViolation[] = []
    // Against earlier pages only: a repeat within the page is checkUpstreamReply's.
    data.forEach((item, i) => {
      if (!isListedRecord(item)) return
      if (walk.seen.has(item.id)) {
        violations.push({
          rule: 'duplicate',
          field: `data[${i}].id`,
          expected: `a record no earlier page of this walk listed (this is page ${walk.pages})`,
          got: JSON.stringify(item.id),
        })
      } else if (i === 0 && walk.last && compare(positionOf(walk.last), positionOf(item)) >= 0) {
        violations.push({
          rule: 'order',
          field: 'data[0]',
          expected: `after the previous page's last record, ${walk.last.created_at} ${walk.last.id}`,
          got: `${item.created_at} ${item.id}`,
        })
      }
    })
    let last: { created_at: string; id: string } | undefined
    for (const item of data) {
      if (!isListedRecord(item)) continue
      if (walk.seen.size < MAX_SEEN) walk.seen.add(item.id)
      last = item
    }
    if (last) walk.last = { created_at: last.created_at, id: last.id }
    if (typeof nextCursor === 'string' && nextCursor !== '') {
      this.#walks.set(nextCursor, walk)
      if (this.#walks.size > MAX_WALKS) this.#walks.delete(this.#walks.keys().next().value!)
    }
    return violations
  }

  /** Forgets every walk (a reset). */
  clear(): void {
    this.#walks.clear()
  }
}

/**
 * Whether a listed item has what list order reads: an `id` and a
 * `created_at` (a `created_at` that is no date orders nowhere, and is the schema's to name).
 */
export function isListedRecord(item: unknown): item is { created_at: string; id: string } {
  const candidate = item as { created_at?: unknown; id?: unknown } | null
  return typeof candidate?.id === 'string' && typeof candidate.created_at === 'string'
}
