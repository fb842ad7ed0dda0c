import type { JournalEntry, JournalMessage } from '../schemas/index.js'
import { emptyRecord } from '../data/emptyRecord.js'
import { shownCredential } from './credentials.js'

import { JournalBudget } from './JournalBudget.js'

export const DEFAULT_JOURNAL_SIZE = 1_000
/** The journal keeps this much of each body. */
export const JOURNAL_BODY_BYTES = 4 * 1024
/** The journal keeps this much of each header's value, then a marker that says how long it was. */
export const JOURNAL_HEADER_CHARACTERS = 1024
/** The journal keeps at most this many headers of each request and answer, and this much of them (names and values). */
export const JOURNAL_HEADERS = { count: 64, characters: 16 * 1024 }
/**
 * What an entry costs beyond its text: the objects that hold it, and each header's (or query parameter's). Measured
 * as V8's heap grows with entries as the API makes them (a bare 401, a flood's, a page of calls, 64 headers), so that
 * the bound on bytes is a bound on memory, within about a tenth.
 */
const ENTRY_OVERHEAD = 1_200
const HEADER_OVERHEAD = 60
// One of each for every entry: a decoder made per call costs about as much as the 4 KiB it decodes.
const decoder = new TextDecoder()
const encoder = new TextEncoder()

/** A page of the journal: its entries, newest first, and how many entries the filter lets through in all. */
export interface JournalPage {
  entries: JournalEntry[]
  count: number
}

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
  /** Answered before this instant of the sandbox clock (epoch ms): with `since`, a time range. */
  until?: number
  /** The one request of this id (`X-Request-Id`, as a client's devtools show it). */
  request_id?: string
}

/**
 * The request journal: the newest requests, at most `capacity` of them, and
 * within the bytes its budget leaves it: the budget (`--journal-bytes`) is
 * shared by every session of a server, so that a server keeps a bounded
 * amount of requests however many sessions it has.
 *
 * @example
 * const journal = new Journal(1_000)
 * journal.entries(10) // the ten newest, newest first
 */
export class Journal {
  /** Oldest first, from `#first` on; the slots before it were dropped and are reclaimed now and then. */
  #entries: (JournalEntry | undefined)[] = []
  #sizes: number[] = []
  #first = 0
  #bytes = 0

  /** @param budget The bytes it shares with other journals; by default one of its own, of `DEFAULT_JOURNAL_BYTES`. */
  constructor(
    readonly capacity: number = DEFAULT_JOURNAL_SIZE,
    readonly budget: JournalBudget = new JournalBudget(),
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 1 || capacity > 1_000_000) {
      throw new TypeError(`journalSize must be an integer from 1 to 1,000,000; got ${String(capacity)}.`)
    }
  }

  /** Keeps an entry; past the capacity the oldest goes, and past the budget the oldest of the biggest journals. */
  record(entry: JournalEntry): void {
    if (this.size === this.capacity) this.dropOldest()
    const size = sizeOf(entry)
    this.#entries.push(entry)
    this.#sizes.push(size)
    this.#bytes += size
    this.budget.moved(this, size)
    this.budget.fit()
  }

  /**
   * Newest first; at most `limit` of them (filter them with `filterEntries`).
   *
   * @example
   * journal.entries(1)[0]?.path // the last request's path
   */
  entries(limit = this.capacity): JournalEntry[] {
    const entries: JournalEntry[] = []
    const last = this.#entries.length - 1
    for (let i = 0; i < Math.min(limit, this.size); i++) entries.push(this.#entries[last - i]!)
    return entries
  }

  get size(): number {
    return this.#entries.length - this.#first
  }

  /** What the kept entries take, about: their text, and what holding it costs. */
  get bytes(): number {
    return this.#bytes
  }

  /** Forgets every entry (a reset does, and a session's end). */
  clear(): void {
    const bytes = this.#bytes
    this.#entries = []
    this.#sizes = []
    this.#first = 0
    this.#bytes = 0
    this.budget.moved(this, -bytes)
  }

  /** Forgets the oldest entry: past the capacity, or when the budget wants bytes back. */
  dropOldest(): void {
    if (this.size === 0) return
    const size = this.#sizes[this.#first]!
    this.#entries[this.#first] = undefined
    this.#first++
    this.#bytes -= size
    // The dropped slots are given back once they are half the array: each entry is moved about once.
    if (this.#first > 32 && this.#first * 2 > this.#entries.length) {
      this.#entries = this.#entries.slice(this.#first)
      this.#sizes = this.#sizes.slice(this.#first)
      this.#first = 0
    }
    this.budget.moved(this, -size)
  }
}

/**
 * The entries `filter` lets through, in their order.
 *
 * @example
 * filterEntries(entries, { status: '4xx' })
 */
export function filterEntries(entries: readonly JournalEntry[], filter: JournalFilter): JournalEntry[] {
  const { method, path, status, key, since, until, request_id } = filter
  const shownKey = key === undefined ? undefined : shownCredential(key)
  return entries.filter(
    (entry) =>
      (method === undefined || entry.method === method.toUpperCase()) &&
      (path === undefined || matchesPath(entry.path, path)) &&
      (status === undefined || matchesStatus(entry.status, status)) &&
      (key === undefined || entry.key === key || entry.key === shownKey) &&
      (request_id === undefined || entry.request_id === request_id) &&
      (since === undefined || Date.parse(entry.timestamp) >= since) &&
      (until === undefined || Date.parse(entry.timestamp) < until),
  )
}

/**
 * Whether a path matches a pattern: the same path, or, for a pattern ending in `*`, a path that starts with what
 * comes before it (the journal's filter, a fault rule's path).
 *
 * @example
 * matchesPath('/v1/calls/8f0c…', '/v1/calls*') // true
 */
export function matchesPath(path: string, pattern: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern
}

function matchesStatus(status: number, wanted: string): boolean {
  return /^\dxx$/i.test(wanted) ? Math.floor(status / 100) === Number(wanted[0]) : status === Number(wanted)
}

/**
 * A body as the journal keeps it: its text, cut at `bytes` bytes (then
 * `body_truncated`), and none for an empty body. The body in one piece, or
 * in the chunks an answer is sent in (see `Reply`).
 *
 * @example
 * cutBody(new TextEncoder().encode('{"id":1}')) // { body: '{"id":1}', body_truncated: false }
 */
export function cutBody(
  body: Uint8Array | readonly Uint8Array[] | null,
  bytes = JOURNAL_BODY_BYTES,
): Pick<JournalMessage, 'body' | 'body_truncated'> {
  const chunks = body === null || body instanceof Uint8Array ? [body ?? EMPTY] : body
  let length = 0
  for (const chunk of chunks) length += chunk.byteLength
  if (length === 0) return { body: null, body_truncated: false }
  return { body: textOf(chunks, Math.min(length, bytes)), body_truncated: length > bytes }
}

const EMPTY = new Uint8Array(0)

/** From this length a body's text is looked for among the last one's: below it, decoding costs less than comparing. */
const SHARED_TEXT_FROM = 1024
/**
 * The last long body the journal decoded, its text, and the chunks it was read from, each with where it began (held
 * weakly: the journal keeps no body alive for this).
 */
let lastText: { bytes: Uint8Array; text: string; chunks: WeakRef<Uint8Array>[]; starts: number[] } | undefined

/**
 * The text of a body's bytes: for the same bytes as the last long body's, the same string. A list read again and
 * again begins with the same kilobytes, which the journal then holds once, not once an entry: a thousand entries of
 * 4 KiB each, thrown away as fast as they come, were much of the collector's work under load.
 */
function textOf(chunks: readonly Uint8Array[], length: number): string {
  if (length < SHARED_TEXT_FROM) return decoder.decode(leadingBytes(chunks, length))
  if (lastText?.bytes.byteLength === length && startsWith(chunks, lastText)) return lastText.text
  const bytes = leadingBytes(chunks, length)
  const text = decoder.decode(bytes)
  const read: WeakRef<Uint8Array>[] = []
  const starts: number[] = []
  for (let i = 0, at = 0; i < chunks.length && at < length; at += chunks[i]!.byteLength, i++) {
    read.push(new WeakRef(chunks[i]!))
    starts.push(at)
  }
  // Kept apart from the body it was read from (a copy of its own already, when it spanned chunks).
  lastText = { bytes: bytes.buffer === chunks[0]?.buffer ? bytes.slice() : bytes, text, chunks: read, starts }
  return text
}

/**
 * Whether the chunks begin with the last text's bytes, compared where they lie: a page's 4 KiB are not copied to be
 * compared, nor compared at all when it is the same chunk, at the same place, as the last body's (a kept page's).
 *
 * @note A chunk is never written to once it is in a reply or read from a request: a reply's bytes are new, or a kept
 * page's, shared by every answer that sends it.
 */
function startsWith(chunks: readonly Uint8Array[], last: NonNullable<typeof lastText>): boolean {
  const { bytes } = last
  let at = 0
  for (let i = 0; i < chunks.length && at < bytes.byteLength; i++) {
    const chunk = chunks[i]!
    const length = Math.min(chunk.byteLength, bytes.byteLength - at)
    const same = last.starts[i] === at && last.chunks[i]?.deref() === chunk
    if (!same && !beginsWith(chunk, bytes, at, length)) return false
    at += length
  }
  return at === bytes.byteLength
}

/** Whether `chunk`'s first `length` bytes are those of `bytes` from `at`. */
function beginsWith(chunk: Uint8Array, bytes: Uint8Array, at: number, length: number): boolean {
  // Node's Buffer compares as memcmp does, past a few bytes; elsewhere (the browser's worker) byte by byte.
  if (length > 64 && typeof Buffer !== 'undefined')
    return Buffer.from(chunk.buffer, chunk.byteOffset, length).equals(bytes.subarray(at, at + length))
  for (let i = 0; i < length; i++) if (chunk[i] !== bytes[at + i]) return false
  return true
}

/** The first `length` bytes of the chunks, copied only when they span more than one. */
function leadingBytes(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const first = chunks[0] ?? EMPTY
  if (first.byteLength >= length) return first.subarray(0, length)
  const leading = new Uint8Array(length)
  let at = 0
  for (const chunk of chunks) {
    if (at === length) break
    const part = chunk.subarray(0, length - at)
    leading.set(part, at)
    at += part.byteLength
  }
  return leading
}

/**
 * Headers as the journal keeps them: each value cut at `JOURNAL_HEADER_CHARACTERS`, with a marker that says how long it
 * was, and at most `JOURNAL_HEADERS` of them; `headers_truncated` when some were left out. `headers` themselves when
 * nothing is cut, as for almost every request.
 *
 * @note A cut value is copied: in V8 a slice keeps the whole string it was cut from, so a 60 KiB header would stay in
 * memory behind its first kilobyte.
 *
 * @example
 * cutHeaders({ 'x-pad': 'x'.repeat(5_000) }).headers['x-pad'] // 'xxx…x… (cut: 5000 characters in all)'
 */
export function cutHeaders(headers: Record<string, string>): Pick<JournalMessage, 'headers' | 'headers_truncated'> {
  let count = 0
  let characters = 0
  for (const name in headers) {
    const { length } = headers[name]!
    count++
    characters += name.length + length
    if (length > JOURNAL_HEADER_CHARACTERS || count > JOURNAL_HEADERS.count) return cutHeadersOf(headers)
  }
  return characters > JOURNAL_HEADERS.characters ? cutHeadersOf(headers) : { headers, headers_truncated: false }
}

function cutHeadersOf(headers: Record<string, string>): Pick<JournalMessage, 'headers' | 'headers_truncated'> {
  const kept = emptyRecord<string>()
  let count = 0
  let characters = 0
  let truncated = false
  for (const name in headers) {
    const value = headers[name]!
    const shown = value.length > JOURNAL_HEADER_CHARACTERS ? cutValue(value) : value
    if (count === JOURNAL_HEADERS.count || characters + name.length + shown.length > JOURNAL_HEADERS.characters) {
      truncated = true
      continue
    }
    kept[name] = shown
    count++
    characters += name.length + shown.length
  }
  return { headers: kept, headers_truncated: truncated }
}

function cutValue(value: string): string {
  const start = decoder.decode(encoder.encode(value.slice(0, JOURNAL_HEADER_CHARACTERS)))
  return `${start}… (cut: ${value.length} characters in all)`
}

/** About what an entry takes in memory: its text (path, query, headers, bodies), and the objects that hold it. */
function sizeOf(entry: JournalEntry): number {
  let size = ENTRY_OVERHEAD + entry.path.length
  // `for…in`, not `Object.entries`: no array made per entry (the records inherit no names; see `emptyRecord`).
  for (const name in entry.query) {
    const value = entry.query[name]!
    size += HEADER_OVERHEAD + name.length
    if (typeof value === 'string') size += value.length
    else for (const one of value) size += one.length
  }
  for (const message of [entry.request, entry.response]) {
    if (!message) continue
    size += message.body?.length ?? 0
    for (const name in message.headers) size += HEADER_OVERHEAD + name.length + message.headers[name]!.length
  }
  return size
}
