import type { Sandbox } from '../sandbox/Sandbox.js'
import { knownScrubber, requestScrubber, type Scrubber } from '../sandbox/Scrubber.js'
import { ApiError } from '../schemas/ApiError.js'
import { iso } from '../seed/iso.js'
import { ContactExistsError, StorageUnavailableError } from '../sandbox/domainErrors.js'
import { SessionEnded } from '../sandbox/StoreLog.js'
import { SessionExistsError, SessionLimitError } from '../sessions/sessionErrors.js'
import { finishReading } from './body.js'
import { SESSION_PREFIX, SESSIONS_PATH } from './paths.js'
import { bodyBytes, joinedBytes } from './RawJson.js'
import type { FetchRequest } from './FetchRequest.js'

const encoder = new TextEncoder()

/**
 * What the sandbox sends back to one request: a status, headers and the
 * body's bytes (none for a bodyless answer).
 *
 * @note Not a fetch `Response`: one is made of a reply only where it is
 * needed, in msw's handler and in `answer()`. The standalone server writes
 * the reply as it is: a `Response` copies its body into a web stream, which
 * the server would read back and copy again (a sixth of the server's time
 * under load, by its profile).
 */
export interface Reply {
  status: number
  headers: Headers
  /** Its chunks, sent one after the other (see `bodyBytes`): most answers have one. */
  body: readonly Uint8Array[] | null
  /** No answer at all: the connection closes (a fault rule's `"error": "network"`); msw's network error in process. */
  dropped?: true
}

/** Thrown by a step that wants no answer sent at all: the connection is closed instead (see `Reply.dropped`). */
export class ConnectionDropped extends Error {
  constructor(readonly rule: string) {
    super(`Fault rule ${rule} closes the connection without an answer.`)
  }
}

/** The reply of a request that gets no answer: status 0, as the journal and the usage report count it. */
function droppedReply(requestId: string): Reply {
  return { status: 0, headers: new Headers({ 'X-Request-Id': requestId }), body: null, dropped: true }
}

/**
 * A reply as a fetch `Response`.
 *
 * @example
 * toResponse(respond(sandbox, requestId, 200, { data: { status: 'ok' } }))
 */
export function toResponse({ status, headers, body, dropped }: Reply): Response {
  // A network error, as msw's HttpResponse.error(): the client's fetch rejects.
  if (dropped) return Response.error()
  return new Response(body && (joinedBytes(body) as Uint8Array<ArrayBuffer>), { status, headers })
}

/**
 * A JSON answer with `meta` (the request id and the sandbox clock) and the
 * headers every answer carries.
 *
 * @example
 * respond(sandbox, requestId, 200, { data: { status: 'ok' } })
 */
export function respond(
  sandbox: Sandbox,
  requestId: string,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  /** The instant the answer is as of (epoch ms); default the clock's now. */
  at: number = sandbox.clock.now(),
): Reply {
  return jsonReply(requestId, status, body, headers, { request_id: requestId, timestamp: iso(at) })
}

/**
 * A JSON answer as it is, with the headers every answer carries: `respond`
 * without `meta`, for a body that is no envelope (the OpenAPI document).
 *
 * @example
 * jsonReply(requestId, 200, openApiDocument(sandbox))
 */
export function jsonReply(
  requestId: string,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  /** Written after the body's members, as `{ ...body, meta }` would be, without that copy (see `bodyBytes`). */
  meta?: unknown,
): Reply {
  return replyOf(requestId, status, bodyBytes(body, meta), { 'Content-Type': 'application/json', ...headers })
}

/**
 * A text answer, its type in `headers`, with the headers every answer carries
 * (the metrics, the console's pages).
 *
 * @example
 * textReply(requestId, 200, '<!doctype html>…', { 'Content-Type': 'text/html; charset=utf-8' })
 */
export function textReply(
  requestId: string,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): Reply {
  return replyOf(requestId, status, [encoder.encode(text)], headers)
}

/**
 * Keeps a browser to an answer's `Content-Type`: JSON that holds markup (a journal entry, a record) is never read as
 * a page or a script.
 */
export const NO_SNIFF = { 'X-Content-Type-Options': 'nosniff' } as const

/** A reply with the headers every answer carries: its request id, no caching, and no sniffing. */
function replyOf(
  requestId: string,
  status: number,
  body: readonly Uint8Array[],
  headers: Record<string, string>,
): Reply {
  return {
    status,
    headers: new Headers({ 'X-Request-Id': requestId, 'Cache-Control': 'no-store', ...NO_SNIFF, ...headers }),
    body,
  }
}

/**
 * An error in the contract's envelope, with every secret `scrubber` finds
 * replaced in its message, `param` and `details`: an error that echoes what
 * was sent (a query name, a path, a field) never echoes a secret. By default
 * the secrets the sandbox knows; `failedReply` adds the request's own.
 *
 * @example
 * errorReply(sandbox, newRequestId(), new ApiError('not_found', 'No endpoint at /v2.'))
 */
export function errorReply(
  sandbox: Sandbox,
  requestId: string,
  error: ApiError,
  extraHeaders: Record<string, string> = {},
  scrubber: Scrubber = knownScrubber(sandbox),
): Reply {
  const { param, details, headers } = error.init
  const body = {
    error: {
      type: error.type,
      code: error.code,
      message: scrubber.text(error.message),
      ...(param !== undefined && { param: scrubber.text(param) }),
      ...(details && { details: scrubber.value(details) }),
    },
  }
  return respond(sandbox, requestId, error.status, body, { ...headers, ...extraHeaders })
}

/**
 * The answer to a request that failed: its error in the envelope, with the
 * secrets the sandbox knows and those the request carried replaced, once what
 * is left of its body has been read (a client still sending it would stall
 * otherwise), closing the connection when the body was too large to read.
 *
 * @example
 * catch (error) { return failedReply(sandbox, requestId, request, error) }
 */
export async function failedReply(
  sandbox: Sandbox,
  requestId: string,
  request: FetchRequest,
  error: unknown,
): Promise<Reply> {
  if (error instanceof ConnectionDropped) return droppedReply(requestId)
  const readToTheEnd = await finishReading(request)
  const headers: Record<string, string> = readToTheEnd ? {} : { Connection: 'close' }
  return errorReply(sandbox, requestId, toApiError(error), headers, requestScrubber(sandbox, request))
}

/** A 503's `Retry-After` at the session limit when no session expires by itself: a minute, to end one meanwhile. */
const RETRY_WITHOUT_TTL_SECONDS = 60

/**
 * The contract's error for anything thrown while answering: an `ApiError` as
 * it is, a domain error as its status and code, anything else as a logged 500.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error
  if (error instanceof ContactExistsError) {
    return new ApiError('contact_exists', error.message, { details: { contact_id: error.contactId } })
  }
  if (error instanceof StorageUnavailableError) {
    const kept = error.unanswered
      ? 'A write it was sent may still be kept once it answers: read before you send a write again.'
      : error.unreplicated
        ? 'It shows in later answers unless its primary is lost first: read before you send it again.'
        : 'Nothing of it was kept; retry.'
    return new ApiError('storage_unavailable', `${error.message} ${kept}`, {
      headers: { 'Retry-After': '1' },
    })
  }
  if (error instanceof SessionEnded) {
    return new ApiError(
      'storage_unavailable',
      `${error.message} Nothing of this request was kept; retry: the fresh session of the name answers.`,
      { headers: { 'Retry-After': '1' } },
    )
  }
  if (error instanceof SessionExistsError) {
    return new ApiError(
      'session_exists',
      `${error.message} Use it at ${SESSION_PREFIX}/${error.session}/, or pick another name.`,
      { details: { session: error.session } },
    )
  }
  if (error instanceof SessionLimitError) {
    const { session, retryAfter } = error
    const when =
      retryAfter === undefined
        ? ': without a TTL, a place frees only when a session is ended'
        : `, or retry in ${retryAfter} s, when the least recently used one expires`
    return new ApiError(
      'session_limit_reached',
      `${error.message} Use a session that exists, or end one (DELETE ${SESSIONS_PATH}/{name})${when}.`,
      { details: { session }, headers: { 'Retry-After': String(retryAfter ?? RETRY_WITHOUT_TTL_SECONDS) } },
    )
  }
  console.error('[call-sandbox] unexpected error while answering a request:', error)
  return unexpected(error)
}

/**
 * 500 `internal_error`, for a failure of the sandbox itself.
 *
 * @example
 * errorReply(sandbox, newRequestId(), unexpected(error))
 */
export function unexpected(error: unknown): ApiError {
  const reason = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '')
  return new ApiError('internal_error', `The sandbox failed unexpectedly: ${reason}.`)
}
