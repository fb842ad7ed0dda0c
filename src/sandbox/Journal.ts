import type { JournalEntry, JournalMessage } from '../schemas/index.js'
import { shownCredential } from './credentials.js'

export const DEFAULT_JOURNAL_SIZE = 1_000
/** The journal keeps this much of each body. */
export const KEPT_BODY_BYTES = 4 * 1024
/** What the journal's bodies and headers may take in all; past it the oldest entries go, whatever the size. */
export const JOURNAL_BYTES = 32 * 1024 * 1024

/** Which entries `entries` answers: each given field must match. */
export interface JournalFilter {
  method?: string
  /** A path as sent; ending in `*`, every path that starts with what comes before it. */
  path?: string
  /** A status, or a class of them: `404`, `4xx`. */
  status?: string
  /** A key as sent or as the journal shows it (`…abcd` for a key it does not show whole: `shownCredential`). */
  key?: string
  /** Answered at or after this instant of the sandbox clock (epoch ms). */
  since?: number
}

/**
 * The request journal: the newest requests, in a ring of fixed size and of
 * at most `JOURNAL_BYTES` of bodies and headers, so that a long-running
 * sandbox keeps a bounded amount of them.
 *
 * @example
 * const journal = new Journal(1_000)
 * journal.entries(10) // the ten newest, newest first
 */
export class Journal {
  readonly #ring: (JournalEntry | undefined)[]
  readonly #sizes: number[]
  #next = 0
  #size = 0
  #bytes = 0

  constructor(
    readonly capacity: number = DEFAULT_JOURNAL_SIZE,
    readonly maxBytes: number = JOURNAL_BYTES,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 1 || capacity > 1_000_000) {
      throw new TypeError(`journalSize must be an integer from 1 to 1,000,000; got ${String(capacity)}.`)
    }
    this.#ring = new Array(capacity)
    this.#sizes = new Array(capacity).fill(0)
  }

  /** Keeps an entry; past the capacity, or past `maxBytes` in all, the oldest go. */
  record(entry: JournalEntry): void {
    if (this.#size === this.capacity) this.#dropOldest()
    const size = sizeOf(entry)
    this.#ring[this.#next] = entry
    this.#sizes[this.#next] = size
    this.#bytes += size
    this.#next = (this.#next + 1) % this.capacity
    this.#size++
    while (this.#bytes > this.maxBytes && this.#size > 1) this.#dropOldest()
  }

  /**
   * Newest first; at most `limit` of them (filter them with `filterEntries`).
   *
   * @example
   * journal.entries(1)[0]?.path // the last request's path
   */
  entries(limit = this.capacity): JournalEntry[] {
    const entries: JournalEntry[] = []
    for (let i = 1; i <= Math.min(limit, this.#size); i++) {
      entries.push(this.#ring[(this.#next - i + this.capacity) % this.capacity]!)
    }
    return entries
  }

  get size(): number {
    return this.#size
  }

  /** What the kept entries' bodies and headers take, about. */
  get bytes(): number {
    return this.#bytes
  }

  /** Forgets every entry (a reset does). */
  clear(): void {
    this.#ring.fill(undefined)
    this.#sizes.fill(0)
    this.#next = 0
    this.#size = 0
    this.#bytes = 0
  }

  #dropOldest(): void {
    const oldest = (this.#next - this.#size + this.capacity) % this.capacity
    this.#bytes -= this.#sizes[oldest]!
    this.#ring[oldest] = undefined
    this.#sizes[oldest] = 0
    this.#size--
  }
}

/**
 * The entries `filter` lets through, in their order.
 *
 * @example
 * filterEntries(entries, { status: '4xx' })
 */
export function filterEntries(entries: readonly JournalEntry[], filter: JournalFilter): JournalEntry[] {
  const { method, path, status, key, since } = filter
  const prefix = path?.endsWith('*') ? path.slice(0, -1) : undefined
  const shownKey = key === undefined ? undefined : shownCredential(key)
  return entries.filter(
    (entry) =>
      (method === undefined || entry.method === method.toUpperCase()) &&
      (path === undefined || (prefix !== undefined ? entry.path.startsWith(prefix) : entry.path === path)) &&
      (status === undefined || matchesStatus(entry.status, status)) &&
      (key === undefined || entry.key === key || entry.key === shownKey) &&
      (since === undefined || Date.parse(entry.timestamp) >= since),
  )
}

function matchesStatus(status: number, wanted: string): boolean {
  return /^\dxx$/i.test(wanted) ? Math.floor(status / 100) === Number(wanted[0]) : status === Number(wanted)
}

/**
 * A body as the journal keeps it: its text, cut at `bytes` bytes (then
 * `body_truncated`), and none for an empty body.
 *
 * @example
 * keptBody(new TextEncoder().encode('{"id":1}')) // { body: '{"id":1}', body_truncated: false }
 */
export function keptBody(
  body: Uint8Array | null,
  bytes = KEPT_BODY_BYTES,
): Pick<JournalMessage, 'body' | 'body_truncated'> {
  if (body === null || body.byteLength === 0) return { body: null, body_truncated: false }
  const truncated = body.byteLength > bytes
  return { body: new TextDecoder().decode(truncated ? body.subarray(0, bytes) : body), body_truncated: truncated }
}

/** About what an entry takes: its bodies and headers, and the rest. */
function sizeOf(entry: JournalEntry): number {
  let size = 256 + entry.path.length
  for (const message of [entry.request, entry.response]) {
    if (!message) continue
    size += message.body?.length ?? 0
    for (const [name, value] of Object.entries(message.headers)) size += name.length + value.length
  }
  return size
}
