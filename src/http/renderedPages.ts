import type { KeysetPosition } from '../data/KeysetIndex.js'
import { LruMap } from '../data/LruMap.js'
import { type CursorBinding, encodeCursor } from './cursor.js'
import type { RawJson } from './RawJson.js'

/**
 * A list page's records as sent (the JSON of its `data`), with what the rest of its answer needs, and the instants
 * between which that text holds: a live call's duration counts up with the clock.
 */
export interface RenderedPage {
  data: RawJson
  hasMore: boolean
  /** Where the page ends, for its `next_cursor`: made anew for each request, as it is bound to the key. */
  last: KeysetPosition | undefined
  /** The text holds from this instant (epoch ms, included) … */
  from: number
  /** … to this one (excluded). */
  until: number
  /** The last `next_cursor` made for the page, and what it was bound to (see `nextCursorOf`). */
  cursor?: { binding: CursorBinding; secret: string; text: string }
}

/** Pages kept, and what they may weigh in all: a few pages of each of a handful of busy clients. */
const PAGES = 256
const PAGE_BYTES = 16 * 1024 * 1024
/** What a kept page costs beyond its text: its key, the objects that hold it. */
const PAGE_OVERHEAD = 200

/**
 * Pages rendered lately, by the state of the records they were made of (`Database.revision`, which no other state
 * of any world shares) and what was asked: one cache for every world of the process, bounded in bytes, so that a
 * server of many sessions keeps no more than one of few. A read of an unchanged world sends the bytes it sent before
 * instead of walking the index and joining the records again (most of what a page cost, by the server's profile).
 */
const pages = new LruMap<string, RenderedPage>(PAGES, PAGE_BYTES)

/**
 * The page `key` names, as of `now`: the one kept, while its text holds at `now`, or else the one `render` makes,
 * kept in its place.
 *
 * @example
 * renderedPage(`${db.revision} calls …`, now, () => ({ data: arrayJson(records), hasMore, last, from, until }))
 */
export function renderedPage(key: string, now: number, render: () => RenderedPage): RenderedPage {
  const kept = pages.get(key)
  if (kept && kept.from <= now && now < kept.until) return kept
  const page = render()
  pages.set(key, page)
  pages.weigh(key, page, page.data.bytes.length + 2 * key.length + PAGE_OVERHEAD)
  return page
}

/**
 * The page's `next_cursor` for `binding`, or null on the last page: the one made before when asked again with the same
 * key, filters and secret (a client walking a list asks the same page again and again), else made anew and kept in
 * its place. Making one hashes and encodes it, a good part of what a kept page's answer cost by the server's profile.
 *
 * @example
 * next_cursor: nextCursorOf(page, { endpoint: 'calls', key: apiKey.key, filters: '[]' }, sandbox.cursorSecret)
 */
export function nextCursorOf(page: RenderedPage, binding: CursorBinding, secret: string): string | null {
  if (!page.hasMore || !page.last) return null
  const kept = page.cursor
  if (
    kept &&
    kept.secret === secret &&
    kept.binding.endpoint === binding.endpoint &&
    kept.binding.key === binding.key &&
    kept.binding.filters === binding.filters
  )
    return kept.text
  const text = encodeCursor(page.last, binding, secret)
  page.cursor = { binding, secret, text }
  return text
}
