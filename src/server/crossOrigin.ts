import type { IncomingMessage, ServerResponse } from 'node:http'
import { methodsOf } from '../handlers/dispatch.js'
import { newRequestId } from '../http/requestId.js'
import { errorReply } from '../http/respond.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import type { ControlAccess } from './controlAccess.js'
import { type HeaderPairs, sendReply, setHeaders } from './httpAnswers.js'

/** Headers a page on another origin may read. */
const EXPOSED = [
  'X-Request-Id',
  'Location',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Preference-Applied',
  'X-Sandbox-Contract',
  'X-Sandbox-Request-Id',
].join(',')

/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600'

/** An answer any page may read (the API, `/openapi.json`): keys travel in Authorization, never in cookies. */
const ANY_ORIGIN: HeaderPairs = Object.freeze([
  'Access-Control-Allow-Origin',
  '*',
  'Access-Control-Expose-Headers',
  EXPOSED,
])
/** An answer no page of another origin may read. */
const NO_ORIGIN: HeaderPairs = Object.freeze(['Vary', 'Origin'])

/**
 * The CORS headers of an answer to `path`, as `sendReply` writes them first (or `setHeaders` sets them, for an answer
 * Express gives): the API, `/openapi.json` and the rest say any origin (`*`); the control plane names only an origin
 * `access` allows, and says that the answer depends on it (Vary).
 *
 * @example
 * sendReply(response, reply, corsHeaders(access, request, path))
 */
export function corsHeaders(access: ControlAccess, request: IncomingMessage, path: string): HeaderPairs {
  const origin = access.allowOrigin(request, path)
  if (origin === '*') return ANY_ORIGIN
  if (origin === undefined) return NO_ORIGIN
  return ['Vary', 'Origin', 'Access-Control-Allow-Origin', origin, 'Access-Control-Expose-Headers', EXPOSED]
}

/**
 * Answers a CORS preflight (true), with `cors`, the headers of its path; any other request is left alone (false). A
 * preflight to the control plane from a host or page `access` does not allow gets its 403.
 *
 * @example
 * if (answeredPreflight({ sandbox, access }, request, response, path, cors)) return
 */
export function answeredPreflight(
  { sandbox, access }: { sandbox: Sandbox; access: ControlAccess },
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  cors: HeaderPairs,
): boolean {
  if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] === undefined) return false
  const refusal = access.refusal(request.socket.remoteAddress, request.headers, path)
  if (refusal) {
    sendReply(response, errorReply(sandbox, newRequestId(), refusal), NO_ORIGIN)
    return true
  }
  setHeaders(response, cors)
  // The methods a preflight allows are those of the path asked about (GET, POST for /v1/contacts), as Allow says.
  const methods = methodsOf(path)
  response.setHeader('Access-Control-Allow-Methods', methods.length > 0 ? methods.join(',') : 'GET')
  const asked = request.headers['access-control-request-headers']
  if (asked !== undefined) {
    response.setHeader('Access-Control-Allow-Headers', asked)
    response.appendHeader('Vary', 'Access-Control-Request-Headers')
  }
  response.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE)
  response.statusCode = 204
  response.setHeader('Content-Length', '0')
  response.end()
  return true
}
