import { shownCredential, shownHeader, shownParameter } from '../sandbox/credentials.js'
import { cutBody, cutHeaders } from '../sandbox/Journal.js'
import { journalScrubber, type Scrubber } from '../sandbox/Scrubber.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import type { JournalEntry, JournalMessage } from '../schemas/index.js'
import { detached } from '../text/detached.js'
import { emptyRecord } from '../data/emptyRecord.js'
import { bodyRead } from './body.js'
import { boundedQuery } from './queryBound.js'
import type { Reply } from './respond.js'
import type { FetchRequest } from './FetchRequest.js'

/**
 * The journal's entry for a request answered at `path` (the API's, or in
 * proxy mode the upstream's): how long it took since `started`, at the
 * sandbox's clock.
 *
 * @example
 * sandbox.journal.record(journalEntry(sandbox, { requestId, request, path, url, status: 200, key: token, started }))
 */
export function journalEntry(
  sandbox: Sandbox,
  {
    requestId,
    request,
    path,
    url,
    status,
    key,
    started,
    reply,
  }: {
    requestId: string
    request: FetchRequest
    path: string
    url: URL
    status: number
    /** The Bearer token sent, as sent: the entry shows it as `shownCredential` does. */
    key: string | null
    started: number
    /** The answer, kept with the request's own headers and body. */
    reply?: Reply
  },
): JournalEntry {
  const { adminToken } = sandbox.options
  // Read once, for the value rule and the request's side: each read of a `Headers` sorts it again.
  const sentHeaders = reply ? [...request.headers] : undefined
  // The path and the query's strings are slices of the URL's href: with a host longer than any name (a Host header of
  // 60 KiB), each entry would keep that href alive past what the journal's budget counts, so it keeps copies.
  // A cut query's values are slices of the href too, which would keep the whole query alive.
  const kept = boundedQuery(url)
  const own = kept.truncated || url.host.length > MAX_HOST_NAME ? detached : same
  const sent = sentSide(sandbox, request, url, kept, sentHeaders, own)
  const { scrubber } = sent
  const entry: JournalEntry = {
    request_id: requestId,
    method: request.method,
    path: own(scrubber.text(path)),
    query: sent.query,
    status,
    key: key === null ? null : shownCredential(key, adminToken),
    duration_ms: Math.round((performance.now() - started) * 100) / 100,
    timestamp: sandbox.clock.iso(),
  }
  if (kept.truncated) entry.query_truncated = true
  // Set, not spread in: every answer makes an entry, and a spread object is made and copied.
  if (reply) {
    entry.request = sent.message ?? messageOf(sentHeaders!, bodyRead(request) ?? null, adminToken, scrubber)
    entry.response = messageOf(reply.headers, reply.body, adminToken, scrubber)
  }
  return entry
}

/** What an entry makes of a request: the value rule (the name rule first), the query as kept, the request's side. */
interface SentSide {
  scrubber: Scrubber
  query: Record<string, string | string[]>
  /** The request's side, when it is the same for the same headers: the request had no body. */
  message?: JournalMessage
}

/** Per world, the last request without a body that made an entry: its query and headers, as sent, and what they made. */
const lastSent = new WeakMap<
  Sandbox,
  { organizations: Sandbox['organizations']; search: string; headers: readonly [string, string][]; side: SentSide }
>()

/**
 * What an entry makes of the request: the same as for the last request of the world, when it had the same query and
 * the same headers and no body, as a client sends its Host and key request after request. Then the entry shares the
 * query and the request's side made for the first, frozen; making them again cost about a tenth of the command's
 * time an answer (npm run bench). Kept only when the entry shows each header and query parameter as sent: what the
 * name or value rule changed (a credential, a secret) is never kept whole to be compared.
 */
function sentSide(
  sandbox: Sandbox,
  request: FetchRequest,
  url: URL,
  /** The query's parameters the journal keeps (the first `MAX_QUERY_PARAMETERS`), and whether it had more. */
  { params, truncated }: ReturnType<typeof boundedQuery>,
  sentHeaders: [string, string][] | undefined,
  own: (text: string) => string,
): SentSide {
  const last = lastSent.get(sandbox)
  const bare = sentHeaders !== undefined && bodyRead(request) === undefined
  if (
    bare &&
    last?.organizations === sandbox.organizations &&
    last.search === url.search &&
    sameHeaders(last.headers, sentHeaders)
  )
    return last.side
  const { adminToken } = sandbox.options
  // The name rule (shownHeader, shownParameter) first, then the value rule for what it left.
  const scrubber = journalScrubber(sandbox, request, params, sentHeaders)
  const query = queryOf(params, adminToken, scrubber, own)
  if (!bare) return { scrubber, query }
  const message = messageOf(sentHeaders, null, adminToken, scrubber)
  // A cut query is not kept to share: it is not the query as sent.
  if (truncated || !shownAsSent(message, sentHeaders, query, params)) return { scrubber, query, message }
  Object.freeze(message.headers)
  const side = { scrubber, query: Object.freeze(query), message: Object.freeze(message) }
  lastSent.set(sandbox, { organizations: sandbox.organizations, search: url.search, headers: sentHeaders, side })
  return side
}

function sameHeaders(a: readonly [string, string][], b: readonly [string, string][]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i]![0] !== b[i]![0] || a[i]![1] !== b[i]![1]) return false
  return true
}

/** Whether the entry shows every header and query parameter whole, as sent: nothing the rules hid is in them. */
function shownAsSent(
  message: JournalMessage,
  headers: readonly [string, string][],
  query: Record<string, string | string[]>,
  searchParams: URLSearchParams,
): boolean {
  if (message.headers_truncated) return false
  for (const [name, value] of headers) if (message.headers[name] !== value) return false
  for (const [name, value] of searchParams) if (query[name] !== value) return false
  return true
}

/** The longest host name DNS has (253 characters), and a port: a longer host is a client's doing. */
const MAX_HOST_NAME = 260
const same = (text: string) => text

/**
 * One side of an exchange as the journal keeps it: credentials as `shownHeader` shows them, headers cut as
 * `cutHeaders` cuts them, the body cut at 4 KiB, and the secrets `scrubber` finds replaced. Several `Set-Cookie`s
 * (which `Headers` yields one by one) are each kept, one a line: a cookie's `Expires` has a comma, a header value
 * never has a line break.
 */
function messageOf(
  headers: Iterable<[string, string]>,
  body: Uint8Array | readonly Uint8Array[] | null,
  adminToken: string | undefined,
  scrubber: Scrubber,
): JournalMessage {
  const kept = emptyRecord<string>()
  // `Headers` yields each name once but Set-Cookie's; the value rule may make two names one. Only then is a name
  // looked for among those kept (each look, over names no two answers share the order of, is a slow one).
  const mayRepeat = scrubber.finds
  for (const [sentName, value] of headers) {
    const name = scrubber.text(sentName)
    const shown = scrubber.text(shownHeader(sentName, value, adminToken))
    const earlier = mayRepeat || name === 'set-cookie' ? kept[name] : undefined
    kept[name] = earlier === undefined ? shown : `${earlier}\n${shown}`
  }
  const { headers: cut, headers_truncated } = cutHeaders(kept)
  const { body: text, body_truncated } = cutBody(body)
  return {
    headers: cut,
    headers_truncated,
    body: text === null ? null : scrubber.text(text, body_truncated),
    body_truncated,
  }
}

/**
 * The query parameters as the journal keeps them: a repeated one with an array of its values, a credential as
 * `shownParameter` shows it, and the secrets `scrubber` finds replaced, in names and values.
 */
function queryOf(
  searchParams: URLSearchParams,
  adminToken: string | undefined,
  scrubber: Scrubber,
  own: (text: string) => string,
): Record<string, string | string[]> {
  const query = emptyRecord<string | string[]>()
  for (const [sentName, sent] of searchParams) {
    const name = own(scrubber.text(sentName))
    const value = own(scrubber.text(shownParameter(sentName, sent, adminToken)))
    const earlier = query[name]
    // Added to, not copied: a copy per repeat cost a query of 7,000 repeats 190 ms (100,000 in process: minutes).
    if (earlier === undefined) query[name] = value
    else if (Array.isArray(earlier)) earlier.push(value)
    else query[name] = [earlier, value]
  }
  return query
}
