import type { Sandbox } from '../sandbox/Sandbox.js'
import { ApiError } from '../schemas/ApiError.js'
import { finishReading } from './body.js'
import { bodyBytes } from './RawJson.js'

/** The bytes of every answer `respond` made: its body, which never changes once made. */
const bodies = new WeakMap<Response, Uint8Array>()

/**
 * The bytes of an answer's body when `respond` made it, so that the server
 * writes them as they are instead of reading them back through the body's
 * stream (a copy and a web stream a request); undefined for any other answer.
 *
 * @example
 * const bytes = bytesOf(answer) ?? new Uint8Array(await answer.arrayBuffer())
 */
export function bytesOf(answer: Response): Uint8Array | undefined {
  return bodies.get(answer)
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
): Response {
  const meta = { request_id: requestId, timestamp: new Date(at).toISOString() }
  const bytes = bodyBytes({ ...body, meta })
  const answer = new Response(bytes, {
    status,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, 'Cache-Control': 'no-store', ...headers },
  })
  bodies.set(answer, bytes)
  return answer
}

/**
 * An error in the contract's envelope.
 *
 * @example
 * errorResponse(sandbox, newRequestId(), new ApiError('not_found', 'No endpoint at /v2.'))
 */
export function errorResponse(sandbox: Sandbox, requestId: string, error: ApiError, extraHeaders: Record<string, string> = {}): Response {
  const { param, details, headers } = error.init
  const body = {
    error: { type: error.type, code: error.code, message: error.message, ...(param !== undefined && { param }), ...(details && { details }) },
  }
  return respond(sandbox, requestId, error.status, body, { ...headers, ...extraHeaders })
}

/**
 * The answer to a request that failed: its error in the envelope, once what
 * is left of its body has been read (a client still sending it would stall
 * otherwise), closing the connection when the body was too large to read.
 *
 * @example
 * catch (error) { return failedAnswer(sandbox, requestId, request, error) }
 */
export async function failedAnswer(sandbox: Sandbox, requestId: string, request: Request, error: unknown): Promise<Response> {
  const readToTheEnd = await finishReading(request)
  return errorResponse(sandbox, requestId, toApiError(error), readToTheEnd ? {} : { Connection: 'close' })
}

/** An `ApiError` as it is, anything else as a logged 500. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error
  console.error('[call-sandbox] unexpected error while answering a request:', error)
  return unexpected(error)
}

/**
 * 500 `internal_error`, for a failure of the sandbox itself.
 *
 * @example
 * errorResponse(sandbox, newRequestId(), unexpected(error))
 */
export function unexpected(error: unknown): ApiError {
  const reason = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '')
  return new ApiError('internal_error', `The sandbox failed unexpectedly: ${reason}.`)
}
