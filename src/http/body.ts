import { ApiError } from '../schemas/ApiError.js'
import { isObject } from './isObject.js'
import type { FetchRequest } from './FetchRequest.js'

/** Bodies over this many bytes answer 413. */
const MAX_BODY_BYTES = 64 * 1024
/**
 * Past this many bytes the rest of a body is not even read: 413 at once.
 * Below it, the contract's order holds (not JSON, then too large).
 */
const READ_LIMIT = 1024 * 1024

/**
 * Reads a request body that must be a JSON object, in the contract's order:
 * 415 not JSON → 400 `invalid_json` → 413 over 64 KiB. With `optional`, an
 * empty body is `{}` whatever its `Content-Type` (the control plane's POSTs).
 *
 * @example
 * const fields = await readJsonObject(request)
 */
export async function readJsonObject(
  request: FetchRequest,
  { optional = false } = {},
): Promise<Record<string, unknown>> {
  const contentType = request.headers.get('content-type')
  const unsupported = () =>
    new ApiError(
      'unsupported_media_type',
      `The body must be JSON, sent with Content-Type: application/json${contentType ? ` (this request said ${contentType})` : ' (this request sent none)'}.`,
    )
  if (!optional && !isJsonMediaType(contentType)) throw unsupported()
  const bytes = await readAtMost(request, READ_LIMIT)
  if (bytes === undefined) throw tooLarge()
  if (optional && bytes.byteLength === 0) return {}
  if (!isJsonMediaType(contentType)) throw unsupported()
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch (error) {
    const reason =
      bytes.byteLength === 0
        ? 'the body is empty'
        : error instanceof SyntaxError
          ? error.message
          : 'the body is not UTF-8'
    throw new ApiError('invalid_json', `The body is not valid JSON: ${reason}.`)
  }
  if (!isObject(value)) {
    throw new ApiError(
      'invalid_json',
      `The body must be a JSON object ({ … }); got ${Array.isArray(value) ? 'an array' : String(value === null ? 'null' : typeof value)}.`,
    )
  }
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge()
  return value
}

/**
 * Whether a Content-Type is JSON: `application/json` or a `+json` type, any parameters aside.
 *
 * @example
 * isJsonMediaType('application/problem+json; charset=utf-8') // true
 */
export function isJsonMediaType(contentType: string | null): boolean {
  const essence = contentType?.split(';')[0]?.trim().toLowerCase() ?? ''
  return essence === 'application/json' || /^application\/[\w.+-]+\+json$/.test(essence)
}

function cutShort(): ApiError {
  return new ApiError('invalid_json', 'The body is not valid JSON: the connection ended before the body did.')
}

function tooLarge(): ApiError {
  return new ApiError('payload_too_large', `The body is larger than ${MAX_BODY_BYTES / 1024} KiB.`)
}

/**
 * A request's body as it was sent, to pass on (proxy mode); past 1 MiB, a
 * 413 at once, and the answer closes the connection (see `finishReading`).
 *
 * @example
 * const bytes = await readBodyAsSent(request)
 */
export async function readBodyAsSent(request: FetchRequest): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = await readAtMost(request, READ_LIMIT)
  if (bytes === undefined)
    throw new ApiError('payload_too_large', `The body is larger than ${READ_LIMIT / 1024 / 1024} MiB.`)
  return bytes as Uint8Array<ArrayBuffer>
}

/** Requests whose body was given up on past `READ_LIMIT`, unread to its end. */
const abandoned = new WeakSet<FetchRequest>()
/** What was read of each request's body: the journal keeps its start. */
const read = new WeakMap<FetchRequest, Uint8Array>()

/**
 * What was read of a request's body (none, when nothing read it or it was too large to read).
 *
 * @example
 * bodyRead(request)?.byteLength // 42
 */
export function bodyRead(request: FetchRequest): Uint8Array | undefined {
  return read.get(request)
}

/**
 * Reads and drops what is left of a body the answer did not need (an error
 * came before the body was read), so that an HTTP client still sending it
 * gets its answer. Returns false when the body was too large to read to its
 * end: that answer must close the connection, which is no longer usable.
 */
export async function finishReading(request: FetchRequest): Promise<boolean> {
  if (request.body && !request.bodyUsed) await readAtMost(request, READ_LIMIT).catch(() => undefined)
  return !abandoned.has(request)
}

/**
 * The body's bytes, or `undefined` once it passes `limit` (the rest is not read). A body that stops arriving (the
 * server's request timeout, a client gone) is an error, and its answer closes the connection.
 */
async function readAtMost(request: FetchRequest, limit: number): Promise<Uint8Array | undefined> {
  if (!request.body) return new Uint8Array()
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read().catch((error: unknown) => {
      abandoned.add(request)
      throw error instanceof ApiError ? error : cutShort()
    })
    if (done) break
    size += value.byteLength
    if (size > limit) {
      // @note Not awaited: MSW reads a clone of the request, and cancelling one
      // branch of a tee settles only once the other branch is done too.
      reader.cancel().catch(() => undefined)
      abandoned.add(request)
      return undefined
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  read.set(request, bytes)
  return bytes
}
